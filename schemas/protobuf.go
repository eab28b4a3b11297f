package schemas

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
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

// maxIndex bounds a message index: a path of nested messages, each a
// level of the schema, so more than this is not an index.
const maxIndex = 64

// errIndexShort: the payload ends inside its message index.
var errIndexShort = errors.New("the payload ends inside its message index")

// readIndex reads the message index that starts a Protobuf payload: a
// zig-zag varint count (0 standing for the index [0]), then that many
// zig-zag varints. sr's DecodeIndex said "registration is missing for
// encode/decode" of a count past its bound, and "EOF" of a payload that
// ends early.
func readIndex(b []byte) ([]int, []byte, error) {
	varint := func() (int64, error) {
		v, n := binary.Varint(b)
		switch {
		case n == 0:
			return 0, errIndexShort
		case n < 0:
			return 0, errors.New("the message index holds a varint past 64 bits")
		}
		b = b[n:]
		return v, nil
	}
	count, err := varint()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case count == 0:
		return []int{0}, b, nil
	case count < 0 || count > maxIndex:
		return nil, nil, fmt.Errorf("message index of %d messages: not a message index (0 to %d nested messages): is the value Protobuf?", count, maxIndex)
	}
	index := make([]int, count)
	for i := range index {
		v, err := varint()
		if err != nil {
			return nil, nil, err
		}
		if v < 0 || v > math.MaxInt32 {
			return nil, nil, fmt.Errorf("message index %d is not in the schema", v)
		}
		index[i] = int(v)
	}
	return index, b, nil
}

var protoJSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

func (d *protoDecoder) decode(payload []byte, buf []byte) ([]byte, error) {
	index, rest, err := readIndex(payload)
	if err != nil {
		return nil, err
	}
	md, err := d.message(index)
	if err != nil {
		return nil, err
	}
	m := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(rest, m); err != nil {
		return nil, err
	}
	if err := protoUnknown(m, string(md.FullName())); err != nil {
		return nil, err
	}
	// protojson writes every field of every message (EmitUnpopulated): an
	// empty element of a repeated message is two bytes of payload and all
	// its fields' names of text. Measured before the text is made.
	left := maxDecodedText
	if !protoTextFits(m, &left) {
		return nil, errProtoTooMuchText
	}
	out, err := protoJSON.MarshalAppend(buf, m)
	if err != nil {
		return nil, err
	}
	if len(out)-len(buf) > maxDecodedText {
		return nil, errProtoTooMuchText
	}
	return out, nil
}

// protoUnknown says where m holds fields its schema does not name. Such a
// field (a writer of another version of the message, a schema id that is
// not the writer's) has no place in the decoded text: protojson left it
// out and the value read as if it were absent (field 99 = 42 read as
// nothing). Its bytes are data the value holds, so the value fails alone,
// kept as its bytes, naming the fields. The walk visits each message of m
// once (the payload's size bounds it).
func protoUnknown(m protoreflect.Message, path string) error {
	if u := m.GetUnknown(); len(u) > 0 {
		var nums []string
		for b := u; len(b) > 0 && len(nums) < 5; {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				break
			}
			m := protowire.ConsumeFieldValue(num, typ, b[n:])
			if m < 0 {
				break
			}
			if s := strconv.Itoa(int(num)); !slices.Contains(nums, s) {
				nums = append(nums, s)
			}
			b = b[n+m:]
		}
		return fmt.Errorf("protobuf: %s holds fields its schema does not name (numbers %s; %d bytes): the value was written with another schema; they would be left out of the decoded value", path, strings.Join(nums, ", "), len(u))
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; err == nil && i < l.Len(); i++ {
				err = protoUnknown(l.Get(i).Message(), fmt.Sprintf("%s.%s[%d]", path, fd.Name(), i))
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				err = protoUnknown(mv.Message(), fmt.Sprintf("%s.%s[%s]", path, fd.Name(), strconv.Quote(k.String())))
				return err == nil
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			err = protoUnknown(v.Message(), path+"."+string(fd.Name()))
		}
		return err == nil
	})
	return err
}

var errProtoTooMuchText = fmt.Errorf("protobuf: the value's text is larger than %d MiB, the bound of one value", maxDecodedText>>20)

// protoTextFits takes from left at least the text protojson writes for m
// (every field's name, each element of a list or map, each string's and
// bytes' length) and reports whether it stays within it; it stops at the
// first byte past it, so it costs at most left steps.
func protoTextFits(m protoreflect.Message, left *int) bool {
	fds := m.Descriptor().Fields()
	for i := 0; i < fds.Len(); i++ {
		if *left -= len(fds.Get(i).Name()) + 4; *left < 0 {
			return false
		}
	}
	fits := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; fits && i < l.Len(); i++ {
				fits = protoValueFits(fd, l.Get(i), left)
			}
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				*left -= len(k.String()) + 4
				fits = *left >= 0 && protoValueFits(fd.MapValue(), mv, left)
				return fits
			})
		default:
			fits = protoValueFits(fd, v, left)
		}
		return fits
	})
	return fits
}

// protoValueFits is protoTextFits for one value of field fd.
func protoValueFits(fd protoreflect.FieldDescriptor, v protoreflect.Value, left *int) bool {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		*left -= 2
		return *left >= 0 && protoTextFits(v.Message(), left)
	case protoreflect.StringKind:
		*left -= len(v.String()) + 2
	case protoreflect.BytesKind:
		*left -= len(v.Bytes())*4/3 + 2
	default:
		*left -= 2
	}
	return *left >= 0
}
