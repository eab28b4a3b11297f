package queries

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// TestNullKeysAndValuesAsDuckDBReadsThem: a topic whose null keys fall
// where parquet-go v0.32.0's writer wrote the last of them as an empty
// value (offsets 6, 7 and 16 of 17), beside tombstones (null values at 0
// and 2), read back through DuckDB's view as written: key_raw IS NULL and
// value_raw IS NULL on exactly those rows, an empty key apart from null.
// Before the fix in third_party/parquet-go, offset 16's key read as an
// empty blob, not NULL.
func TestNullKeysAndValuesAsDuckDBReadsThem(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snap")
	rows := make([]catalog.Row, 17)
	nullValue := map[int64]bool{0: true, 2: true}
	nullKey := map[int64]bool{6: true, 7: true, 16: true}
	for i := range rows {
		o := int64(i)
		rows[i] = catalog.Row{Offset: o, Timestamp: 1_767_225_600_000 + o, TimestampType: catalog.TimestampCreate, Key: []byte("k"), Value: []byte(`{"n":1}`)}
		if nullValue[o] {
			rows[i].Value = nil
		}
		if nullKey[o] {
			rows[i].Key = nil
		}
		if o == 3 {
			rows[i].Key = []byte{} // empty, not null
		}
	}
	catalogtest.Folder(t, dir, "compacted", map[int32][][]catalog.Row{0: {rows}})
	ctx := context.Background()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.Query(ctx, `SELECT "offset", key_raw IS NULL, value_raw IS NULL, octet_length(key_raw) FROM compacted ORDER BY "offset"`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Next() {
		var o int64
		var keyNull, valueNull bool
		var keyLen *int64
		if err := r.Scan(&o, &keyNull, &valueNull, &keyLen); err != nil {
			t.Fatal(err)
		}
		n++
		if keyNull != nullKey[o] || valueNull != nullValue[o] {
			t.Errorf("offset %d: key null %v, value null %v; wrote %v, %v", o, keyNull, valueNull, nullKey[o], nullValue[o])
		}
		if o == 3 && (keyLen == nil || *keyLen != 0) {
			t.Errorf("offset 3: the empty key read as %v", keyLen)
		}
	}
	if err := r.Err(); err != nil || n != len(rows) {
		t.Fatalf("%d rows (%v), want %d", n, err, len(rows))
	}
}
