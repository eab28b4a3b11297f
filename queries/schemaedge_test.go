package queries

import (
	"context"
	"encoding/binary"
	"strings"
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
	res, err := schemas.NewResolver(t.Context(), schemas.Options{Folder: d})
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

// TestMissingSchemasWarnedInOneLine: the schema ids a topic's files name
// that the folder lacks (ids the registry did not know: a producer can
// write thousands) are one warning. Before, each was a line of its own on
// every command that opened the folder: 3,000 lines for 3,000 made-up ids.
func TestMissingSchemasWarnedInOneLine(t *testing.T) {
	stored := &catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Source: "test", Schema: `"string"`}
	many := [][]byte{wireValue(1, nil, 2, 'x')}
	for id := 100; id < 3100; id++ {
		many = append(many, wireValue(id, nil, 2, 'x'))
	}
	dir := schemaTopicFolder(t, []*catalog.Schema{stored}, map[string][][]byte{
		"many": many,
		"two":  {wireValue(1, nil, 2, 'x'), wireValue(7, nil, 2, 'x'), wireValue(5, nil, 2, 'x')},
	})
	e, err := Open(context.Background(), dir, Options{Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	want := map[string]string{
		"many": "topic many: 3000 schemas (100, 101, 102, 103, 104 and 2995 more) are not in the folder (its values were not decoded, or the folder lost it); run topicsnap catalog verify",
		"two":  "topic two: schemas 5 and 7 are not in the folder (its values were not decoded, or the folder lost it); run topicsnap catalog verify",
	}
	for topic, w := range want {
		var lines []string
		for _, p := range e.Problems() {
			if strings.HasPrefix(p, "topic "+topic+":") {
				lines = append(lines, p)
			}
		}
		if len(lines) != 1 || !strings.HasPrefix(lines[0], w) {
			t.Errorf("%s: %d lines, %.300q; want one starting %q", topic, len(lines), lines, w)
		}
	}
	if got := queryString(t, e, `SELECT count(*)::VARCHAR FROM many WHERE value_error LIKE '%is not stored%'`); got != "3000" {
		t.Errorf("%s values say why they were not decoded, want 3000", got)
	}
}
