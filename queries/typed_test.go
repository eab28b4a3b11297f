package queries

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/schemas"
)

// Three versions of one Avro record: v2 adds fields, v3 turns n from a
// long into a string (a type the topic's structure cannot unify).
var typedSchemas = map[int]string{
	1: `{"type":"record","name":"E","fields":[
		{"name":"s","type":"string"},
		{"name":"n","type":"long"},
		{"name":"i","type":["null","int"]},
		{"name":"d","type":"double"},
		{"name":"f","type":"float"},
		{"name":"b","type":["null","boolean"]},
		{"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
		{"name":"raw","type":"bytes"},
		{"name":"o","type":["null",{"type":"record","name":"O","fields":[{"name":"k","type":"long"}]}]},
		{"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
		{"name":"opt","type":["null","string"]}]}`,
	2: `{"type":"record","name":"E","fields":[
		{"name":"s","type":"string"},
		{"name":"n","type":"long"},
		{"name":"i","type":["null","int"]},
		{"name":"d","type":"double"},
		{"name":"f","type":"float"},
		{"name":"b","type":["null","boolean"]},
		{"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
		{"name":"raw","type":"bytes"},
		{"name":"o","type":["null",{"type":"record","name":"O","fields":[{"name":"k","type":"long"}]}]},
		{"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
		{"name":"opt","type":["null","string"]},
		{"name":"added","type":["null","string"],"default":null},
		{"name":"count","type":"long","default":0}]}`,
	3: `{"type":"record","name":"E","fields":[
		{"name":"s","type":"string"},
		{"name":"n","type":"string"},
		{"name":"added","type":["null","string"],"default":null}]}`,
}

// typedRecord is value number i of schema id: awkward values first.
func typedRecord(id, i int) map[string]any {
	strs := []string{"plain", "", "é\n\"quoted\"\t\\", "nul\x00byte", "emoji 🍵", "</script>", strings.Repeat("long ", 60)}
	doubles := []float64{0, math.Copysign(0, -1), 0.1, 1e300, -5e-324, math.NaN(), math.Inf(1), math.Inf(-1), 1234.5}
	ints := []int64{0, -1, math.MaxInt64, math.MinInt64, 42}
	var opt any
	if i%3 != 0 {
		opt = map[string]any{"string": strs[i%len(strs)]}
	}
	var b any
	if i%4 != 0 {
		b = map[string]any{"boolean": i%2 == 0}
	}
	var in any
	if i%5 != 0 {
		in = map[string]any{"int": int32(i * 1000)}
	}
	var o any
	if i%2 == 0 {
		o = map[string]any{"O": map[string]any{"k": int64(i)}}
	}
	r := map[string]any{
		"s": strs[i%len(strs)], "n": ints[i%len(ints)], "i": in, "d": doubles[i%len(doubles)],
		"f": float32(doubles[i%len(doubles)]), "b": b, "e": []string{"RED", "GREEN"}[i%2],
		"raw": []byte{byte(i), 0, 255}, "o": o, "ts": int64(1700000000000 + i), "opt": opt,
	}
	switch id {
	case 2:
		if i%2 == 0 {
			r["added"] = map[string]any{"string": fmt.Sprintf("a%d", i)}
		} else {
			r["added"] = nil
		}
		r["count"] = int64(i)
	case 3:
		r = map[string]any{"s": strs[i%len(strs)], "n": fmt.Sprintf("n%d", i), "added": nil}
	}
	return r
}

// typedFolder writes topic "typed" (and, with legacy, a file written
// without typed columns, as an older dump did) from real Avro payloads
// decoded by the dump's decoder, and topic "changed" whose field n changes
// type inside a file.
func typedFolder(t *testing.T, legacy bool) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for id, text := range typedSchemas {
		if err := d.WriteSchema(t.Context(), &catalog.Schema{ID: id, Type: catalog.SchemaAvro, Schema: text, Source: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := schemas.NewResolver(t.Context(), schemas.Options{Folder: d})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var offset int64
	file := func(topic string, p int32, ids []int, n int, typed bool) catalog.FileEntry {
		var rows []catalog.Row
		var fields []catalog.ValueFields
		for i := range n {
			id := ids[i%len(ids)]
			sch := avro.MustParse(typedSchemas[id])
			payload, err := avro.Marshal(sch, typedRecord(id, int(offset)))
			if err != nil {
				t.Fatal(err)
			}
			value := binary.BigEndian.AppendUint32([]byte{0}, uint32(id))
			value = append(value, payload...)
			row := catalog.Row{Partition: p, Offset: offset, Timestamp: 1700000000000 + offset, Value: value}
			var vf catalog.ValueFields
			out, gotID, ok, fail := res.DecodeFields(ctx, value, nil, &vf)
			if !ok || fail != nil {
				t.Fatalf("decode: %v", fail)
			}
			sid := int32(gotID)
			row.SchemaID, row.ValueDecoded = &sid, out
			if offset%17 == 5 {
				// A value that did not decode: kept, its fields NULL.
				why := "does not decode"
				row.ValueDecoded, row.ValueDecodeError, vf.Plan = nil, &why, nil
			}
			rows = append(rows, row)
			fields = append(fields, vf)
			offset++
		}
		w, err := d.NewFileWriter(ctx, catalog.TopicPartition{Topic: topic, Partition: p}, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if typed {
			err = w.WriteTyped(rows, fields, true)
		} else {
			err = w.Write(rows)
		}
		if err != nil {
			t.Fatal(err)
		}
		fe, err := w.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return fe
	}
	commit := func(topic string, p int32, fes ...catalog.FileEntry) {
		m := &catalog.Manifest{Topic: topic, Partition: p, Files: fes, NextOffset: fes[len(fes)-1].LastOffset + 1}
		if err := d.WriteManifest(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	commit("typed", 0, file("typed", 0, []int{1}, 60, true), file("typed", 0, []int{1, 2}, 60, true))
	if legacy {
		commit("typed", 1, file("typed", 1, []int{2}, 40, false), file("typed", 1, []int{2}, 40, true))
	} else {
		commit("typed", 1, file("typed", 1, []int{2}, 80, true))
	}
	commit("changed", 0, file("changed", 0, []int{2, 3}, 50, true))
	// A partition of values not in the wire format (written without typed
	// columns: nothing decoded): their value is NULL either way, and the
	// typed columns of the other files are still used (read by name).
	w, err := d.NewFileWriter(ctx, catalog.TopicPartition{Topic: "typed", Partition: 2}, "s1")
	if err != nil {
		t.Fatal(err)
	}
	plain := []catalog.Row{{Partition: 2, Offset: 0, Value: []byte(`{"s":"not decoded"}`)}, {Partition: 2, Offset: 1}}
	if err := w.WriteTyped(plain, make([]catalog.ValueFields, 2), false); err != nil {
		t.Fatal(err)
	}
	fe, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	commit("typed", 2, fe)
	return dir
}

// TestTypedColumnsSameAnswers: for every field of an Avro topic's
// structure, a query that reads it from the typed columns answers exactly
// what the full from_json structure answers, value by value, on awkward
// values (escapes, NUL bytes, NaN and the infinities, -0, the extreme
// longs, nulls, values that did not decode) across three schema versions;
// and the typed columns are used for the fields they can hold, and never
// for the others (a float, a record, a timestamp, a field whose type
// changed, a topic with a file written without them).
func TestTypedColumnsSameAnswers(t *testing.T) {
	ctx := context.Background()
	for _, legacy := range []bool{false, true} {
		e, err := Open(ctx, typedFolder(t, legacy), Options{Locked: true})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		for topic, want := range map[string]map[string]bool{
			"typed": {"s": !legacy, "n": !legacy, "i": !legacy, "d": !legacy, "b": !legacy, "e": !legacy, "raw": !legacy,
				"opt": !legacy, "added": !legacy, "count": !legacy, "f": false, "o": false, "ts": false},
			"changed": {"s": true, "n": false, "added": true, "count": true, "i": true},
		} {
			top, _ := e.Topic(topic)
			var structure map[string]json.RawMessage
			if err := json.Unmarshal([]byte(top.Structure), &structure); err != nil {
				t.Fatalf("%s: %v (%s)", topic, err, top.Structure)
			}
			for f, typed := range want {
				if _, ok := structure[f]; !ok {
					continue // not a field of this topic's schemas
				}
				for _, view := range []string{topic, topic + "$all"} {
					fast := fmt.Sprintf(`SELECT list(value.%s ORDER BY "partition", "offset")::VARCHAR FROM %s`, quoteIdent(f), quoteIdent(view))
					full := fmt.Sprintf(`SELECT list(v.%s ORDER BY p, o)::VARCHAR FROM (SELECT value AS v, "partition" AS p, "offset" AS o FROM %s)`, quoteIdent(f), quoteIdent(view))
					conn, err := e.db.Conn(ctx)
					if err != nil {
						t.Fatal(err)
					}
					n := e.narrow(ctx, conn, fast, nil)
					conn.Close()
					usesTyped := false
					if n != nil {
						for _, sel := range n.views {
							usesTyped = usesTyped || strings.Contains(sel, `"typed_`)
						}
					}
					if usesTyped != typed {
						t.Errorf("legacy=%v %s.%s: typed columns used %v, want %v", legacy, view, f, usesTyped, typed)
					}
					a, b := queryString(t, e, fast), queryString(t, e, full)
					if a != b {
						t.Errorf("legacy=%v field %q of %s:\n typed: %s\n full:  %s", legacy, f, view, a, b)
					}
					if strings.Count(b, "NULL") == strings.Count(b, ",")+1 {
						t.Errorf("field %q of %s: every value NULL, the comparison proves nothing: %s", f, view, b)
					}
				}
			}
		}
		// Several fields at once, typed, in a filter and a grouping.
		q := `SELECT count(*)::VARCHAR || '/' || count(DISTINCT value.s)::VARCHAR || '/' || sum(value.n % 7)::VARCHAR FROM typed WHERE value.b AND value.e = 'RED' AND value.i > 3000`
		qFull := `SELECT count(*)::VARCHAR || '/' || count(DISTINCT v.s)::VARCHAR || '/' || sum(v.n % 7)::VARCHAR FROM (SELECT value AS v FROM typed) WHERE v.b AND v.e = 'RED' AND v.i > 3000`
		if a, b := queryString(t, e, q), queryString(t, e, qFull); a != b || a == "0/0/" {
			t.Errorf("legacy=%v several fields: typed %s, full %s", legacy, a, b)
		}
	}
}

// TestTypedColumnsInTheManifest: what a file's manifest entry says of its
// typed columns, field by field.
func TestTypedColumnsInTheManifest(t *testing.T) {
	d, err := catalog.Open(typedFolder(t, true))
	if err != nil {
		t.Fatal(err)
	}
	var ms []*catalog.Manifest
	for _, topic := range []string{"typed", "changed"} {
		tm, err := d.Manifests(t.Context(), topic)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, tm...)
	}
	for _, m := range ms {
		for _, f := range m.Files {
			b, _ := json.Marshal(f.Typed)
			t.Logf("%s/%d %s: %s", m.Topic, m.Partition, f.Name, b)
			if m.Topic == "changed" && (f.Typed == nil || !strings.Contains(strings.Join(f.Typed.Untyped, ","), "n")) {
				t.Errorf("changed: n not listed as untyped: %s", b)
			}
		}
	}
	var entries []catalog.FileEntry
	for _, m := range ms {
		if m.Topic == "typed" && m.Partition == 0 {
			entries = append(entries, m.Files...)
		}
	}
	for field, want := range map[string]string{"s": "typed_s0", "n": "typed_i0", "opt": "typed_s3", "added": "typed_s4", "ts": "", "o": "", "f": "typed_f1"} {
		col, _, ok := catalog.TypedColumnOf(entries, field)
		if col != want || ok != (want != "") {
			t.Errorf("field %s: column %q (%v), want %q", field, col, ok, want)
		}
	}
}
