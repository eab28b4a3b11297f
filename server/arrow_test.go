package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// TestSQLArrowKeepsTypes: format=arrow is DuckDB's own Arrow conversion,
// read back here with an Arrow IPC reader: DECIMAL keeps its precision,
// scale and digits, STRUCT and LIST stay nested, BLOB keeps its bytes,
// TIMESTAMPTZ its microsecond, TIMESTAMP_NS its nanosecond, and a NULL stays a NULL at every depth (a
// NULL struct is not a struct of NULLs, an empty list or BLOB not a NULL).
func TestSQLArrowKeepsTypes(t *testing.T) {
	_, ts := newTestServer(t, Options{QueryTimeout: 10 * time.Second})
	js := map[string]string{"Content-Type": "application/json"}
	const q = `SELECT 12.345::DECIMAL(18,3) AS d18, 1234567890123456789012.1234567890::DECIMAL(38,10) AS d38,
  {'a': 1, 'b': 'x', 'c': [1, NULL]} AS st, [1, NULL, 3] AS li, '\x00\xff'::BLOB AS bl,
  TIMESTAMPTZ '2026-07-16 11:00:00.123456+02' AS tz, TIMESTAMP_NS '2026-07-16 11:00:00.123456789' AS ns, 1 AS n
UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2
UNION ALL SELECT -0.001::DECIMAL(18,3), -0.0000000001::DECIMAL(38,10), {'a': NULL, 'b': NULL, 'c': NULL}, [], ''::BLOB, TIMESTAMPTZ '1970-01-01 00:00:00Z', TIMESTAMP_NS '1970-01-01 00:00:00', 3
ORDER BY n`
	b, _ := json.Marshal(map[string]string{"sql": q, "format": "arrow"})
	r := do(t, "POST", ts.URL+"/api/sql", bytes.NewReader(b), js)
	if r.code != 200 || r.header.Get("Content-Type") != "application/vnd.apache.arrow.stream" || r.header.Get("X-Topicsnap-Rows") != "3" || r.header.Get("X-Topicsnap-Truncated") != "false" {
		t.Fatalf("%d %v %.300q", r.code, r.header, r.body)
	}
	rd, err := ipc.NewReader(strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var recs []arrow.RecordBatch
	for rd.Next() {
		rec := rd.RecordBatch()
		rec.Retain()
		defer rec.Release()
		recs = append(recs, rec)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	tbl := array.NewTableFromRecords(rd.Schema(), recs)
	defer tbl.Release()
	if tbl.NumRows() != 3 {
		t.Fatalf("%d rows, want 3", tbl.NumRows())
	}
	types := map[string]string{
		"d18": "decimal(18, 3)",
		"d38": "decimal(38, 10)",
		"st":  "struct<a: int32, b: utf8, c: list<l: int32, nullable>>",
		"li":  "list<l: int32, nullable>",
		"bl":  "binary",
		"tz":  "timestamp[us, tz=",
		"ns":  "timestamp[ns]",
	}
	col := func(name string) arrow.Array {
		t.Helper()
		idx := rd.Schema().FieldIndices(name)
		if len(idx) != 1 {
			t.Fatalf("no column %s in %s", name, rd.Schema())
		}
		c := tbl.Column(idx[0]).Data()
		if len(c.Chunks()) != 1 {
			t.Fatalf("%s: %d chunks", name, len(c.Chunks()))
		}
		if got := c.DataType().String(); !strings.HasPrefix(got, types[name]) {
			t.Errorf("%s: type %s, want %s", name, got, types[name])
		}
		return c.Chunk(0)
	}
	// A decimal as its unscaled digits (the type holds the scale).
	for name, vals := range map[string][]string{
		"d18": {"12345", "(null)", "-1"},
		"d38": {"12345678901234567890121234567890", "(null)", "-1"},
	} {
		c := col(name).(*array.Decimal128)
		for i, w := range vals {
			got := c.Value(i).BigInt().String()
			if c.IsNull(i) {
				got = "(null)"
			}
			if got != w {
				t.Errorf("%s row %d: %s, want %s", name, i+1, got, w)
			}
		}
	}
	// Each value as the reader gives it back; "(null)" is a NULL.
	want := map[string][]string{
		"st": {`{"a":1,"b":"x","c":[1,null]}`, "(null)", `{"a":null,"b":null,"c":null}`},
		"li": {"[1,null,3]", "(null)", "[]"},
		"bl": {"AP8=", "(null)", ""},
	}
	for name, vals := range want {
		c := col(name)
		for i, w := range vals {
			got := c.ValueStr(i)
			if c.IsNull(i) {
				got = "(null)"
			}
			if got != w {
				t.Errorf("%s row %d: %q, want %q", name, i+1, got, w)
			}
		}
	}
	if bl := col("bl").(*array.Binary); string(bl.Value(0)) != "\x00\xff" || bl.IsNull(2) {
		t.Errorf("blob bytes %q, empty one null: %v", bl.Value(0), bl.IsNull(2))
	}
	tz := col("tz").(*array.Timestamp)
	at := time.Date(2026, 7, 16, 9, 0, 0, 123456000, time.UTC)
	if tz.Value(0) != arrow.Timestamp(at.UnixMicro()) || !tz.IsNull(1) || tz.Value(2) != 0 || tz.IsNull(2) {
		t.Errorf("timestamps %v %v %v, want %d, null, 0", tz.Value(0), tz.IsNull(1), tz.Value(2), at.UnixMicro())
	}
	// TIMESTAMP_NS keeps its nanoseconds.
	ns := col("ns").(*array.Timestamp)
	atNs := time.Date(2026, 7, 16, 11, 0, 0, 123456789, time.UTC)
	if ns.Value(0) != arrow.Timestamp(atNs.UnixNano()) || !ns.IsNull(1) || ns.Value(2) != 0 || ns.IsNull(2) {
		t.Errorf("nanosecond timestamps %v %v %v, want %d, null, 0", ns.Value(0), ns.IsNull(1), ns.Value(2), atNs.UnixNano())
	}
}

// TestSQLArrowSqueezesNothing: a type Arrow has no twin for comes as the
// canonical arrow.opaque extension naming DuckDB's type, with its exact
// bytes (arrow_lossless_conversion),
// never as a near type it overflows: the largest UHUGEINT would be -1 as a
// decimal(38, 0).
func TestSQLArrowSqueezesNothing(t *testing.T) {
	_, ts := newTestServer(t, Options{QueryTimeout: 10 * time.Second})
	b, _ := json.Marshal(map[string]string{"sql": `SELECT 340282366920938463463374607431768211455::UHUGEINT AS u, 170141183460469231731687303715884105727::HUGEINT AS h`, "format": "arrow"})
	r := do(t, "POST", ts.URL+"/api/sql", bytes.NewReader(b), map[string]string{"Content-Type": "application/json"})
	if r.code != 200 {
		t.Fatalf("%d %.300q", r.code, r.body)
	}
	rd, err := ipc.NewReader(strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	if !rd.Next() {
		t.Fatalf("no batch: %v", rd.Err())
	}
	rec := rd.RecordBatch()
	for i, w := range []struct{ typeName, bytes string }{
		{"uhugeint", strings.Repeat("\xff", 16)},
		{"hugeint", strings.Repeat("\xff", 15) + "\x7f"}, // little-endian
	} {
		f := rec.Schema().Field(i)
		ext, _ := f.Metadata.GetValue("ARROW:extension:name")
		meta, _ := f.Metadata.GetValue("ARROW:extension:metadata")
		c, ok := rec.Column(i).(*array.FixedSizeBinary)
		if ext != "arrow.opaque" || !strings.Contains(meta, `"type_name":"`+w.typeName+`"`) || !ok || string(c.Value(0)) != w.bytes {
			t.Errorf("%s: type %s, extension %q %s, bytes %x; want arrow.opaque of %s, %x", f.Name, f.Type, ext, meta, c.Value(0), w.typeName, w.bytes)
		}
	}
}

// TestSQLArrowRowLimit: MaxRows holds across DuckDB's batches of 2,048
// rows, the batch it falls in is cut, and the rows are the first ones in
// order; a limit met exactly is not a cut.
func TestSQLArrowRowLimit(t *testing.T) {
	_, ts := newTestServer(t, Options{MaxRows: 3000, QueryTimeout: 10 * time.Second})
	for _, c := range []struct {
		sql       string
		rows      int
		truncated string
	}{
		{`SELECT i, i::VARCHAR AS s FROM range(10000) r(i) ORDER BY i`, 3000, "true"},
		{`SELECT i, i::VARCHAR AS s FROM range(3000) r(i) ORDER BY i`, 3000, "false"},
		{`SELECT i, i::VARCHAR AS s FROM range(0) r(i)`, 0, "false"},
	} {
		b, _ := json.Marshal(map[string]string{"sql": c.sql, "format": "arrow"})
		r := do(t, "POST", ts.URL+"/api/sql", bytes.NewReader(b), map[string]string{"Content-Type": "application/json"})
		if r.code != 200 || r.header.Get("X-Topicsnap-Rows") != fmt.Sprint(c.rows) || r.header.Get("X-Topicsnap-Truncated") != c.truncated {
			t.Fatalf("%s: %d %v", c.sql, r.code, r.header)
		}
		rd, err := ipc.NewReader(strings.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rd.Next() {
			rec := rd.RecordBatch()
			is, ss := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
			for k := 0; k < int(rec.NumRows()); k++ {
				if is.Value(k) != int64(n) || ss.Value(k) != fmt.Sprint(n) {
					t.Fatalf("%s: row %d is %d %q", c.sql, n, is.Value(k), ss.Value(k))
				}
				n++
			}
		}
		if err := rd.Err(); err != nil || n != c.rows {
			t.Fatalf("%s: read %d rows, %v", c.sql, n, err)
		}
		rd.Release()
	}
}
