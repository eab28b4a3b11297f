package catalog

import (
	"context"
	"strings"
	"testing"
)

// TestVerifySaysWhatItKnowsOfMissingSchemas: a schema id the registry
// never had (its values say "schema 999 is unknown to the registry") was
// reported as a schema missing or damaged (exit 9) with the advice to dump
// again with the registry reachable. Now it is a note and no problem, also
// when earlier values of it found the registry down; an id whose values
// say only that the registry was down is still a problem, naming why.
func TestVerifySaysWhatItKnowsOfMissingSchemas(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := func(n int32) *int32 { return &n }
	str := func(s string) *string { return &s }
	unknown, down := "does not decode: schema 999 is unknown to the registry", "schema 7 not fetched: the schema registry is unreachable"
	rows := []Row{
		{Offset: 0, Timestamp: 1, Value: []byte{0, 0, 0, 3, 0xe7, 1}, SchemaID: id(999), ValueDecodeError: str(unknown)},
		{Offset: 1, Timestamp: 1, Value: []byte{0, 0, 0, 3, 0xe7, 2}, SchemaID: id(999), ValueDecodeError: str("schema 999 not fetched: the schema registry is unreachable")},
		{Offset: 2, Timestamp: 1, Value: []byte{0, 0, 0, 0, 7, 2}, SchemaID: id(7), ValueDecodeError: str(down)},
		{Offset: 3, Timestamp: 1, Value: []byte{0, 0, 0, 0, 8, 2}, Key: []byte{0, 0, 0, 3, 0xe8, 1}, KeySchemaID: id(1000), KeyDecodeError: str("schema 1000 is unknown to the registry"),
			SchemaID: id(8), ValueDecodeError: str("schema 8 is unknown to the registry")},
		// Schema 8 later decoded (the registry learnt it): its absence is
		// a problem again.
		{Offset: 4, Timestamp: 1, Value: []byte{0, 0, 0, 0, 8, 2}, SchemaID: id(8), ValueDecoded: []byte(`{}`)},
		{Offset: 5, Timestamp: 1, Value: []byte{0, 0, 0, 3, 0xe7, 2}, SchemaID: id(999), ValueDecodeError: str(unknown)},
	}
	w, err := d.NewFileWriter(ctx, TopicPartition{Topic: "t", Partition: 0}, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	fe, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteManifest(ctx, &Manifest{Topic: "t", Partition: 0, Files: []FileEntry{fe}, NextOffset: 6}); err != nil {
		t.Fatal(err)
	}
	r, err := d.VerifyAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, p := range r.Problems {
		problems = append(problems, p.String())
	}
	got := strings.Join(problems, "\n")
	if len(r.Problems) != 2 || !strings.Contains(got, "schema id 7 (met in topic t) is not in the folder: its values were not decoded (\""+down+"\")") ||
		!strings.Contains(got, "schema id 8 (met in topic t) is not in the folder") || strings.Contains(got, "999") || strings.Contains(got, "1000") {
		t.Errorf("problems:\n%s", got)
	}
	notes := strings.Join(r.Notes, "\n")
	if len(r.Notes) != 2 || !strings.Contains(notes, "schema id 999 (met in topic t) was unknown to the schema registry when its values were dumped (\""+unknown+"\")") ||
		!strings.Contains(notes, "schema id 1000 (met in topic t) was unknown") {
		t.Errorf("notes:\n%s", notes)
	}
}
