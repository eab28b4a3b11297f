package dump

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFilesRollOnDecodedText: a file rolls on its decoded text as well as
// its records' bytes. A 156-byte Avro value (150 items of an enum whose
// symbol is 100,000 characters) decodes to 15 MB of text; before, twelve
// such values were one file, held in memory whole (sixty, registered on
// Apicurio: 6.3 GB), the file's 48 MiB bound counting only their bytes.
func TestFilesRollOnDecodedText(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 1, nil)
	schemaDir := t.TempDir()
	symbol := strings.Repeat("A", 100_000)
	if err := os.WriteFile(filepath.Join(schemaDir, "1.avsc"), []byte(`{"type":"array","items":{"type":"enum","name":"E","symbols":["`+symbol+`"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// 150 items (zig-zag 300), each symbol 0, then the end of the array.
	value := append(append([]byte{0, 0, 0, 0, 1, 0xac, 0x02}, bytes.Repeat([]byte{0}, 150)...), 0)
	var recs []*kgo.Record
	for range 12 {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: 0, Value: value})
	}
	produce(t, producer(t, brokers), recs...)
	dir := t.TempDir()
	s := dumpOnce(t, brokers, dir, topic, func(o *Options) { o.SchemaDir = schemaDir })
	if s.Decoded != 12 {
		t.Fatalf("summary: %s", s)
	}
	rows := readAllRows(t, dir, topic)[0]
	if len(rows) != 12 || len(rows[0].ValueDecoded) < 15_000_000 {
		t.Fatalf("%d rows, the first of %d bytes of text", len(rows), len(rows[0].ValueDecoded))
	}
	files, err := filepath.Glob(filepath.Join(dir, "topic="+topic, "partition=0", "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	// 180 MB of text at 48 MiB a file: three files (four values each).
	if len(files) < 3 {
		t.Fatalf("%d files for 180 MB of decoded text, want at least 3", len(files))
	}
}
