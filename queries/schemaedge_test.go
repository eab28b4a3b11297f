package queries

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/schemas"
)

// schemaTopicFolder writes a folder holding ss and, for each topic, one
// file of its wire-format values decoded as the dump decodes them (a value
// that does not decode is kept with its reason).
func schemaTopicFolder(t *testing.T, ss []*catalog.Schema, topics map[string][][]byte) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if err := d.WriteSchema(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	res, err := schemas.NewResolver(schemas.Options{Folder: d})
	if err != nil {
		t.Fatal(err)
	}
	for topic, values := range topics {
		var rows []catalog.Row
		var fields []catalog.ValueFields
		for i, v := range values {
			row := catalog.Row{Offset: int64(i), Timestamp: 1700000000000 + int64(i), Value: v}
			var vf catalog.ValueFields
			out, id, ok, fail := res.DecodeFields(ctx, v, nil, &vf)
			if ok {
				sid := int32(id)
				row.SchemaID = &sid
			}
			if fail != nil {
				why := fail.Reason
				row.ValueDecodeError, vf.Plan = &why, nil
			} else {
				row.ValueDecoded = out
			}
			rows = append(rows, row)
			fields = append(fields, vf)
		}
		w, err := d.NewFileWriter(ctx, catalog.TopicPartition{Topic: topic}, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteTyped(rows, fields, true); err != nil {
			t.Fatal(err)
		}
		fe, err := w.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.WriteManifest(ctx, &catalog.Manifest{Topic: topic, Files: []catalog.FileEntry{fe}, NextOffset: fe.LastOffset + 1}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wireValue is payload in the Confluent wire format of schema id (with
// index, a Protobuf message index).
func wireValue(id int, index []byte, payload ...byte) []byte {
	v := binary.BigEndian.AppendUint32([]byte{0}, uint32(id))
	return append(append(v, index...), payload...)
}

// TestEmptyRecordsReadAsText: a writer schema with a record of no fields
// (valid Avro), a union of null alone, or a Protobuf message of no fields
// (google.protobuf.Empty) types that value as its JSON text, as a JSON
// topic's {} reads. Before, the topic's views could not be made ("create
// views of T: Binder Error: Empty object in JSON structure"): every query
// of the topic, and check values, failed.
func TestEmptyRecordsReadAsText(t *testing.T) {
	ss := []*catalog.Schema{
		{ID: 1, Type: catalog.SchemaAvro, Source: "test", Schema: `{"type":"record","name":"R","fields":[
			{"name":"a","type":"long"},
			{"name":"e","type":{"type":"record","name":"Empty","fields":[]}},
			{"name":"u","type":["null","Empty"]},
			{"name":"n","type":["null"]},
			{"name":"m","type":{"type":"map","values":"Empty"}},
			{"name":"l","type":{"type":"array","items":"Empty"}}]}`},
		{ID: 2, Type: catalog.SchemaProtobuf, Source: "test", Schema: "syntax = \"proto3\";\nimport \"google/protobuf/empty.proto\";\n" +
			"message M { int64 a = 1; google.protobuf.Empty e = 2; Nothing n = 3; message Nothing {} }\n"},
	}
	dir := schemaTopicFolder(t, ss, map[string][][]byte{
		// a=1, e={}, u=Empty, n=null, m={"k":{}}, l=[{},{}]
		"avro": {wireValue(1, nil, 2, 2, 0, 2, 2, 'k', 0, 4, 0)},
		// a=1, e={}, n unset
		"proto": {wireValue(2, []byte{0}, 0x08, 1, 0x12, 0)},
	})
	e, err := Open(context.Background(), dir, Options{Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct{ q, want string }{
		{`SELECT concat_ws('|', value.a, value.e, value.u, value.n, value.m, value.l, value_error) FROM avro`, `1|{}|{}|{k='{}'}|['{}', '{}']`},
		{`SELECT concat_ws('|', typeof(value.e), typeof(value.a)) FROM avro`, `VARCHAR|BIGINT`},
		{`SELECT concat_ws('|', value.a, value.e, value.n, value_error) FROM proto`, `1|{}`},
		{`SELECT concat_ws('|', typeof(value.e), typeof(value.a)) FROM proto`, `VARCHAR|BIGINT`},
	} {
		if got := queryString(t, e, c.q); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.q, got, c.want)
		}
	}
}
