package queries

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/schemas"
)

func TestCaseApart(t *testing.T) {
	cases := []struct{ in, want, clashes string }{
		{`{"id":"UBIGINT","name":"VARCHAR"}`, `{"id":"UBIGINT","name":"VARCHAR"}`, ""},
		{`{"id":"UBIGINT","ID":"VARCHAR"}`, `"VARCHAR"`, "value: id and ID"},
		{`{"id":"UBIGINT","n":{"a":"UBIGINT","A":"VARCHAR"}}`, `{"id":"UBIGINT","n":"VARCHAR"}`, "value.n: a and A"},
		{`{"l":[{"x":"UBIGINT","X":"UBIGINT"}],"y":"VARCHAR"}`, `{"l":["VARCHAR"],"y":"VARCHAR"}`, "value.l[]: x and X"},
		// The outer level's clash names it alone: the inner is in its text.
		{`{"o":{"p":{"k":"UBIGINT","K":"UBIGINT"}},"O":"UBIGINT"}`, `"VARCHAR"`, "value: o and O"},
		{`{"é":"VARCHAR","É":"VARCHAR"}`, `"VARCHAR"`, "value: é and É"},
		{`"VARCHAR"`, `"VARCHAR"`, ""},
	}
	for _, c := range cases {
		got, clashes, err := caseApart(c.in, "value")
		if err != nil || got != c.want || strings.Join(clashes, "; ") != c.clashes {
			t.Errorf("caseApart(%s) = %s, %q, %v; want %s, %q", c.in, got, clashes, err, c.want, c.clashes)
		}
	}
}

// TestNamesDifferingInCase: a JSON object {"id":1,"ID":"hi"} read value.ID
// as 1 (DuckDB's STRUCT names are case-insensitive) with no word. Now the
// object level holding such names is its JSON text, each name readable
// with ->>, the other levels stay typed, and a warning names them.
func TestNamesDifferingInCase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	write := func(topic string, values ...string) {
		var rows []catalog.Row
		for i, v := range values {
			rows = append(rows, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Value: []byte(v)})
		}
		writePartition(t, d, topic, 0, "s1", int64(len(values)), rows)
	}
	write("top", `{"id":1,"ID":"hi"}`, `{"id":2,"ID":"yo"}`)
	write("nested", `{"id":1,"n":{"a":1,"A":"x"}}`, `{"id":2,"n":{"a":2}}`)
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct{ q, want string }{
		{`SELECT string_agg(value->>'ID', ',' ORDER BY "offset") || '/' || string_agg(value->>'id', ',' ORDER BY "offset") || '/' || any_value(typeof(value)) FROM top`, "hi,yo/1,2/VARCHAR"},
		{`SELECT string_agg(value.id::VARCHAR, ',' ORDER BY "offset") || '/' || string_agg(coalesce(value.n->>'A', '-'), ',' ORDER BY "offset") || '/' || any_value(typeof(value.n)) FROM nested`, "1,2/x,-/VARCHAR"},
	} {
		var got string
		if err := e.db.QueryRowContext(ctx, c.q).Scan(&got); err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.q, got, err, c.want)
		}
	}
	// value.ID no longer reads a wrong field: it is an error.
	var x any
	if err := e.db.QueryRowContext(ctx, `SELECT value.ID FROM top`).Scan(&x); err == nil {
		t.Errorf("value.ID read %v", x)
	}
	problems := strings.Join(e.Problems(), "\n")
	for _, w := range []string{"topic top: names that differ only in case", "(value: id and ID)", "topic nested:", "(value.n: a and A)", "value.n->>'NAME'"} {
		if !strings.Contains(problems, w) {
			t.Errorf("warnings %q lack %q", problems, w)
		}
	}
}

// TestAvroNamesDifferingInCase: an Avro record {"id": long, "ID": string}
// (values 1 and "hi") read value.ID as 1, from its schema's type as from
// its typed columns.
func TestAvroNamesDifferingInCase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"ID","type":"string"},
		{"name":"o","type":{"type":"record","name":"O","fields":[{"name":"k","type":"long"},{"name":"K","type":"long"}]}},{"name":"n","type":"long"}]}`
	if err := d.WriteSchema(ctx, &catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: text, Source: "test"}); err != nil {
		t.Fatal(err)
	}
	res, err := schemas.NewResolver(t.Context(), schemas.Options{Folder: d})
	if err != nil {
		t.Fatal(err)
	}
	sch := avro.MustParse(text)
	var rows []catalog.Row
	var fields []catalog.ValueFields
	for i := range 3 {
		payload, err := avro.Marshal(sch, map[string]any{"id": int64(i + 1), "ID": fmt.Sprintf("hi%d", i), "o": map[string]any{"k": int64(7), "K": int64(8)}, "n": int64(i)})
		if err != nil {
			t.Fatal(err)
		}
		value := append([]byte{0, 0, 0, 0, 1}, payload...)
		var vf catalog.ValueFields
		out, id, ok, fail := res.DecodeFields(ctx, value, nil, &vf)
		if !ok || fail != nil {
			t.Fatalf("decode: %v", fail)
		}
		sid := int32(id)
		rows = append(rows, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Value: value, SchemaID: &sid, ValueDecoded: out})
		fields = append(fields, vf)
	}
	w, err := d.NewFileWriter(ctx, catalog.TopicPartition{Topic: "avro", Partition: 0}, "s1")
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
	if err := d.WriteManifest(ctx, &catalog.Manifest{Topic: "avro", Partition: 0, Files: []catalog.FileEntry{fe}, NextOffset: 3}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var got string
	q := `SELECT string_agg(value->>'ID', ',' ORDER BY "offset") || '/' || string_agg(value->>'id', ',' ORDER BY "offset") || '/' || any_value(typeof(value)) || '/' || any_value(value->'o'->>'K') FROM avro`
	if err := e.db.QueryRowContext(ctx, q).Scan(&got); err != nil || got != "hi0,hi1,hi2/1,2,3/VARCHAR/8" {
		t.Errorf("%s: %q, %v", q, got, err)
	}
	var x any
	if err := e.db.QueryRowContext(ctx, `SELECT value.ID FROM avro`).Scan(&x); err == nil {
		t.Errorf("value.ID read %v", x)
	}
	if p := strings.Join(e.Problems(), "\n"); !strings.Contains(p, "topic avro: names that differ only in case") || !strings.Contains(p, "(value: id and ID)") {
		t.Errorf("warnings %q", p)
	}
}
