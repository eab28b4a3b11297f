package schemas

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/bufbuild/protocompile"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// protoDecoder reads Protobuf values of one writer schema: a .proto file
// whose imports are the schema's references (by name).
type protoDecoder struct {
	file protoreflect.FileDescriptor
}

// mainProto is the name the schema's own file gets while compiling.
const mainProto = "topicsnap-schema.proto"

// newProtoDecoder compiles text, importing refs by name; bad names the
// imports that could not be read (a --schema file past its cap), so that
// importing one says why.
func newProtoDecoder(ctx context.Context, text string, refs map[string]string, bad map[string]error) (*protoDecoder, error) {
	files := map[string]string{mainProto: text}
	for name, t := range refs {
		files[name] = t
	}
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: func(path string) (io.ReadCloser, error) {
				t, ok := files[path]
				if err := bad[path]; !ok && err != nil {
					return nil, fmt.Errorf("import %q: %w", path, err)
				}
				if !ok {
					return nil, fmt.Errorf("import %q is not among the schema's references", path)
				}
				// Bounded here, where it is imported: a --schema folder
				// offers every .proto to every schema.
				if err := checkText("import "+strconv.Quote(path), t, true); err != nil {
					return nil, err
				}
				return io.NopCloser(bytes.NewReader([]byte(t))), nil
			},
		}),
	}
	fs, err := c.Compile(ctx, mainProto)
	if err != nil {
		return nil, fmt.Errorf("compile protobuf schema: %w", err)
	}
	return &protoDecoder{file: fs[0]}, nil
}

// message finds the message the wire format's indexes name: [i] is the
// file's i-th message, [i, j] its j-th nested message, and so on.
func (d *protoDecoder) message(index []int) (protoreflect.MessageDescriptor, error) {
	msgs := d.file.Messages()
	var md protoreflect.MessageDescriptor
	for _, i := range index {
		if i < 0 || i >= msgs.Len() {
			return nil, fmt.Errorf("message index %v is not in the schema", index)
		}
		md = msgs.Get(i)
		msgs = md.Messages()
	}
	if md == nil {
		return nil, fmt.Errorf("empty message index")
	}
	return md, nil
}

var protoJSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

func (d *protoDecoder) decode(payload []byte, buf []byte) ([]byte, error) {
	var h sr.ConfluentHeader
	index, rest, err := h.DecodeIndex(payload, 64)
	if err != nil {
		return nil, fmt.Errorf("read message index: %w", err)
	}
	md, err := d.message(index)
	if err != nil {
		return nil, err
	}
	m := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(rest, m); err != nil {
		return nil, err
	}
	return protoJSON.MarshalAppend(buf, m)
}
