package main

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/schemas"
)

// TestSchemaConflictWarnedOnEveryCommand: a topic whose field changes type
// between its schemas (n: long, then string) reads n as its JSON text and
// says so on stderr, whichever command reads it. Before, `sql -c` and
// `check` (lazy engines, which build the topic's views while the statement
// runs) printed nothing: the warning was looked for before the views were
// built. Told once, not once per look.
func TestSchemaConflictWarnedOnEveryCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for id, text := range map[int]string{
		1: `{"type":"record","name":"Ev","fields":[{"name":"id","type":"string"},{"name":"n","type":"long"}]}`,
		2: `{"type":"record","name":"Ev","fields":[{"name":"id","type":"string"},{"name":"n","type":"string"}]}`,
	} {
		if err := d.WriteSchema(ctx, &catalog.Schema{ID: id, Type: catalog.SchemaAvro, Schema: text, Source: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := schemas.NewResolver(t.Context(), schemas.Options{Folder: d})
	if err != nil {
		t.Fatal(err)
	}
	var rows []catalog.Row
	var fields []catalog.ValueFields
	for i, payload := range [][]byte{{4, 'e', '0', 20}, {4, 'e', '1', 6, 't', 'e', 'n'}} {
		v := append(binary.BigEndian.AppendUint32([]byte{0}, uint32(i+1)), payload...)
		var vf catalog.ValueFields
		out, id, ok, fail := res.DecodeFields(ctx, v, nil, &vf)
		if !ok || fail != nil {
			t.Fatalf("decode: %v", fail)
		}
		sid := int32(id)
		rows = append(rows, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Value: v, SchemaID: &sid, ValueDecoded: out})
		fields = append(fields, vf)
	}
	w, err := d.NewFileWriter(ctx, catalog.TopicPartition{Topic: "evo"}, "s1")
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
	if err := d.WriteManifest(ctx, &catalog.Manifest{Topic: "evo", Files: []catalog.FileEntry{fe}, NextOffset: 2}); err != nil {
		t.Fatal(err)
	}
	const warning = "warning: topic evo: field n: BIGINT and VARCHAR differ between its schemas; read as VARCHAR (its JSON text)\n"
	for _, args := range [][]string{
		{"sql", "--dir", dir, "-c", "SELECT string_agg(value.n, ',' ORDER BY \"offset\") FROM evo", "--format", "csv"},
		{"sql", "--dir", dir, "-c", ".tables"},
		{"check", "values", "--dir", dir, "--topic", "evo"},
	} {
		code, out, errs := cli(t, args...)
		if code != 0 || strings.Count(errs, warning) != 1 {
			t.Errorf("%v: exit %d, stderr %q; want the warning once", args, code, errs)
		}
		if args[0] == "sql" && args[4] != ".tables" && !strings.Contains(out, "10,ten") {
			t.Errorf("%v: %q, want n as text", args, out)
		}
	}
}
