package queries

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// sampleFit is one record outside the sample of TestValueOutsideTheSample:
// its value, and what every surface must read of it.
type sampleFit struct {
	value string
	// misfit is the start of value_error's reason after "type: " (the
	// record's value then reads NULL); "" when the value fits.
	misfit string
	// field and want: for a value that fits, the field read back, as
	// VARCHAR ("NULL" for NULL).
	field, want string
}

// sampleFits are values a sample of {"n": -1..., "d": 0.5..., ...} did not
// see: each either reads back exactly what was written or reads NULL with
// value_error saying where and why (and value_raw its bytes). Before,
// from_json converted them without a word: 1.5 read as 2, 2^63 and "12"
// as NULL and 12, true as 1, "true" as true, 1e400 as inf, a 30-digit
// integer as a DOUBLE of 17 digits, 5 in a field the sample only saw null
// as NULL, [1] in a field the sample saw only [] as [NULL].
var sampleFits = []sampleFit{
	{value: `{"n":1.5}`, misfit: "$.n is a number with a fraction or an exponent, not BIGINT"},
	{value: `{"s":"kept","ts":"kept","n":1.5}`, misfit: "$.n is a number with a fraction or an exponent, not BIGINT"},
	{value: `{"n":9223372036854775808}`, misfit: "$.n is an integer past BIGINT's range"},
	{value: `{"n":-9223372036854775809}`, misfit: "$.n is an integer past BIGINT's range"},
	{value: `{"n":1000000000000000000000000000000}`, misfit: "$.n is an integer past BIGINT's range"},
	{value: `{"n":"12"}`, misfit: "$.n is a string, not BIGINT"},
	{value: `{"n":true}`, misfit: "$.n is a boolean, not BIGINT"},
	{value: `{"n":-9223372036854775808}`, field: "n", want: "-9223372036854775808"},
	{value: `{"n":-0}`, field: "n", want: "0"},
	{value: `{"d":1e400}`, misfit: "$.d is a number past DOUBLE's range"},
	{value: `{"d":123456789012345678901234567890}`, misfit: "$.d is a number a DOUBLE does not hold exactly"},
	{value: `{"d":"NaN"}`, misfit: "$.d is a string, not DOUBLE"},
	{value: `{"d":0.1}`, field: "d", want: "0.1"},
	{value: `{"d":NaN}`, field: "d", want: "nan"},
	{value: `{"d":-0.0}`, field: "d", want: "-0.0"},
	{value: `{"d":-0}`, misfit: "$.d is -0 written as an integer, which reads as 0.0"},
	{value: `{"b":"true"}`, misfit: "$.b is a string, not BOOLEAN"},
	{value: `{"b":1}`, misfit: "$.b is a number, not BOOLEAN"},
	{value: `{"ts":"not a time"}`, field: "ts", want: "not a time"},
	{value: `{"id":"not-a-uuid"}`, field: "id", want: "not-a-uuid"},
	{value: `{"o":[1]}`, misfit: "$.o is an array, not an object"},
	{value: `{"o":{"k":2.5}}`, misfit: "$.o.k is a number with a fraction"},
	{value: `{"o":null}`, field: "o", want: "NULL"},
	{value: `{"z":5}`, misfit: "$.z is a number, not null (all the sample held there)"},
	{value: `{"e":[1]}`, misfit: "$.e[*] is a number, not null"},
	{value: `{"l":[1,2.5]}`, misfit: "$.l[*] is a number with a fraction"},
	{value: `{"s":{"any":[1,"x"]}}`, field: "s", want: `{"any":[1,"x"]}`},
	{value: `{"x":1.5,"n":3}`, field: "n", want: "3"}, // x is not in the structure: value_raw keeps it
}

// strictFixture writes topic m: a first and a last file of ordinary values
// (the sample: inference reads only those two), and between them a file of
// one record a case of sampleFits, at offsets 10000, 10001, ...
func strictFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	ordinary := func(i int) catalog.Row {
		v := fmt.Sprintf(`{"n":%d,"d":%d.5,"b":%t,"ts":"2024-01-01T00:00:%02dZ","id":"8d0f2f0e-1c9a-4c59-9a0e-%012d","o":{"k":%d},"l":[%d],"z":null,"e":[],"s":"t%d"}`,
			-i-1, i, i%2 == 0, i%60, i, i, i, i)
		return catalog.Row{Offset: int64(i), Timestamp: 1_700_000_000_000 + int64(i), Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(v), ProducerID: -1}
	}
	var files []catalog.FileEntry
	write := func(rows []catalog.Row) {
		fe, err := d.WriteDataFile(t.Context(), catalog.TopicPartition{Topic: "m", Partition: 0}, rows, "s1")
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fe)
	}
	var first, odd, last []catalog.Row
	for i := 0; i < 100; i++ {
		first = append(first, ordinary(i))
	}
	for i, c := range sampleFits {
		odd = append(odd, catalog.Row{Offset: int64(10000 + i), Timestamp: 1_700_000_010_000 + int64(i), Key: []byte("odd"), Value: []byte(c.value), ProducerID: -1})
	}
	for i := 20000; i < 20100; i++ {
		last = append(last, ordinary(i))
	}
	write(first)
	write(odd)
	write(last)
	if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: "m", Partition: 0, NextOffset: 20100, Files: files}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestValueOutsideTheSample: a value the sample did not see is never read
// as something else: it fits (and reads back what was written) or its
// value is NULL and value_error says where and why, with value_raw its
// bytes, the same through the full view, a query naming one field (the
// one-field TEMP view), two fields (the narrowed structure), the $all
// view, on a locked engine too.
func TestValueOutsideTheSample(t *testing.T) {
	dir := strictFixture(t)
	for _, locked := range []bool{false, true} {
		e, err := Open(t.Context(), dir, Options{Locked: locked})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		top, _ := e.Topic("m")
		if !top.JSON || !strings.Contains(top.Structure, `"n":"BIGINT"`) || !strings.Contains(top.Structure, `"z":"NULL"`) {
			t.Fatalf("structure %s", top.Structure)
		}
		for i, c := range sampleFits {
			off := 10000 + i
			for _, view := range []string{"m", "m$all"} {
				where := fmt.Sprintf(` FROM %s WHERE "offset" = %d`, quoteIdent(view), off)
				raw := queryString(t, e, `SELECT decode(value_raw)`+where)
				verr := queryString(t, e, `SELECT coalesce(value_error, 'NULL')`+where)
				whole := queryString(t, e, `SELECT coalesce(value::VARCHAR, 'NULL')`+where)
				one := queryString(t, e, `SELECT coalesce(value.n::VARCHAR, 'NULL')`+where)
				two := queryString(t, e, `SELECT coalesce(value.n::VARCHAR, 'NULL') || ' ' || coalesce(value.ts, 'NULL')`+where)
				text := queryString(t, e, `SELECT coalesce(value.s, 'NULL')`+where) // one VARCHAR field: json_extract_string
				if raw != c.value {
					t.Errorf("%s: value_raw %s", c.value, raw)
				}
				if c.misfit != "" {
					if !strings.HasPrefix(verr, "type: "+c.misfit) || whole != "NULL" || one != "NULL" || two != "NULL NULL" || text != "NULL" {
						t.Errorf("locked=%v %s %s: value_error %q, value %s, value.n %s, value.n+ts %s, value.s %s; want NULL and %q",
							locked, view, c.value, verr, whole, one, two, text, c.misfit)
					}
					continue
				}
				if verr != "NULL" {
					t.Errorf("locked=%v %s %s: value_error %q", locked, view, c.value, verr)
				}
				got := queryString(t, e, fmt.Sprintf(`SELECT coalesce(CASE WHEN value.%s IS NULL THEN NULL ELSE value.%s::VARCHAR END, 'NULL')`, quoteIdent(c.field), quoteIdent(c.field))+where)
				alone := queryString(t, e, fmt.Sprintf(`SELECT coalesce(value.%s::VARCHAR, 'NULL')`, quoteIdent(c.field))+where)
				if got != c.want || alone != c.want {
					t.Errorf("locked=%v %s %s: value.%s reads %s (alone %s), want %s", locked, view, c.value, c.field, got, alone, c.want)
				}
			}
		}
		// Every record outside the sample that does not fit is counted,
		// none of them summed as something else.
		misfits := 0
		for _, c := range sampleFits {
			if c.misfit != "" {
				misfits++
			}
		}
		if got := queryString(t, e, `SELECT count(*)::VARCHAR FROM m WHERE value_error LIKE 'type: %'`); got != fmt.Sprint(misfits) {
			t.Errorf("locked=%v: %s records say type:, want %d", locked, got, misfits)
		}
		if got := queryString(t, e, `SELECT sum(value.n)::VARCHAR FROM m WHERE "offset" >= 10000 AND "offset" < 20000`); got != "-9223372036854775805" {
			t.Errorf("locked=%v: sum of the odd file's value.n %s", locked, got)
		}
	}
}

// TestChecksReadValuesOutsideTheSample: the checks read the same column:
// values counts the records that do not fit as problems (with their
// reason), and order --time value.n never orders a value invented for one.
func TestChecksReadValuesOutsideTheSample(t *testing.T) {
	e, err := Open(t.Context(), strictFixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	misfits := 0
	for _, c := range sampleFits {
		if c.misfit != "" {
			misfits++
		}
	}
	r, err := e.RunCheck(t.Context(), "values", CheckOptions{Topic: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status == StatusOK || !strings.Contains(r.Message, fmt.Sprint(misfits)) {
		t.Errorf("values: %s %s; want the %d records that do not fit", r.Status, r.Message, misfits)
	}
	if r.Summary.Get("not_sampled_type") != int64(misfits) || !strings.Contains(r.Message, "with a field that does not fit the type inferred from a sample") {
		t.Errorf("values: not_sampled_type %v: %s", r.Summary.Get("not_sampled_type"), r.Message)
	}
	reasons := 0
	for _, row := range r.Rows {
		if s, ok := row.Get("problem").(string); ok && strings.HasPrefix(s, "type: $.") {
			reasons++
		}
	}
	if reasons != misfits {
		t.Errorf("values lists %d examples with a type: reason, want %d: %+v", reasons, misfits, r.Rows)
	}
	// order --time value.n over key "odd" (the odd file's records): the
	// values that fit go forward (-2^63 clamped, 0, 3); before, the
	// invented 2, 12 and 1 went back.
	o, err := e.RunCheck(t.Context(), "order", CheckOptions{Topic: "m", Time: "TIMESTAMP '2024-01-01' + to_seconds(CASE WHEN value.n < -100 THEN -100 ELSE value.n END)"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Summary.Get("out_of_order_records") != int64(0) || !strings.Contains(o.Message, "only moves forward") {
		t.Errorf("order: %s out_of_order=%v: %s", o.Status, o.Summary.Get("out_of_order_records"), o.Message)
	}
}

// TestDecodedOutsideTheSample: the same for the structures sampled from
// what the dump decoded when no writer schema types them (here the schema
// is not in the folder): a decoded key's key/key_error, and a decoded
// value's value/value_error. Before, {"id":1.5} read as {"id":2}.
func TestDecodedOutsideTheSample(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	one := int32(1)
	row := func(off int, key, value string) catalog.Row {
		return catalog.Row{Offset: int64(off), Timestamp: 1_700_000_000_000, Key: append([]byte{0, 0, 0, 0, 1}, key...), KeySchemaID: &one, KeyDecoded: []byte(key),
			Value: append([]byte{0, 0, 0, 0, 1}, value...), SchemaID: &one, ValueDecoded: []byte(value), ProducerID: -1}
	}
	var files []catalog.FileEntry
	write := func(rows []catalog.Row) {
		fe, err := d.WriteDataFile(t.Context(), catalog.TopicPartition{Topic: "k", Partition: 0}, rows, "s1")
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fe)
	}
	var first, last []catalog.Row
	for i := 0; i < 50; i++ {
		first = append(first, row(i, fmt.Sprintf(`{"id":%d}`, -i-1), fmt.Sprintf(`{"v":%d}`, -i-1)))
		last = append(last, row(200+i, fmt.Sprintf(`{"id":%d}`, -i-1), fmt.Sprintf(`{"v":%d}`, -i-1)))
	}
	write(first)
	write([]catalog.Row{row(100, `{"id":1.5}`, `{"v":"12"}`), row(101, `{"id":7}`, `{"v":8}`)})
	write(last)
	if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: "k", Partition: 0, NextOffset: 250, Files: files}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for q, want := range map[string]string{
		`SELECT coalesce("key"::VARCHAR, 'NULL') || ' | ' || coalesce(key_error, 'NULL') FROM k WHERE "offset" = 100`:             "NULL | type: $.id is a number with a fraction or an exponent, not BIGINT",
		`SELECT coalesce(value::VARCHAR, 'NULL') || ' | ' || coalesce(value_error, 'NULL') FROM k WHERE "offset" = 100`:           "NULL | type: $.v is a string, not BIGINT",
		`SELECT coalesce(value.v::VARCHAR, 'NULL') FROM k WHERE "offset" = 100`:                                                   "NULL",
		`SELECT "key".id::VARCHAR || ' ' || value.v::VARCHAR || coalesce(key_error, value_error, '') FROM k WHERE "offset" = 101`: "7 8",
	} {
		if got := queryString(t, e, q); !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
}

// TestMissingAgainstReadsKeysAsWritten: an --against file's keys are
// compared as the text written, whatever types DuckDB's sniffer would
// guess from a sample of the file's rows. Before, a CSV of "0.50" keys
// read them as 0.5, and a CSV or JSON-lines file of
// "2024-01-01T00:00:00Z" as "2024-01-01 00:00:00+00" (or without the
// zone): every such key was reported missing though the topic held it; a
// CSV of 30,000 integers then "abc" failed to read ("Could not convert
// string "abc" to 'BIGINT'").
func TestMissingAgainstReadsKeysAsWritten(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"0.50", "1.50", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", "00123", "1e3", "true", "8d0f2f0e-1c9a-4c59-9a0e-6f0c7d2b9d3a", "abc"}
	var rows []catalog.Row
	for i, k := range keys {
		rows = append(rows, catalog.Row{Offset: int64(i), Timestamp: 1_700_000_000_000, Key: []byte(k), Value: []byte(`{"a":1}`), ProducerID: -1})
	}
	writePartition(t, d, "k", 0, "s1", int64(len(rows)), rows)
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// One kind of key a file: the sniffer guesses a type for a column
	// whose sampled rows agree.
	file := func(jsonLines bool, ks ...string) string {
		var b strings.Builder
		if !jsonLines {
			b.WriteString("id,platform\n")
		}
		for _, k := range ks {
			if jsonLines {
				fmt.Fprintf(&b, "{\"id\":%q,\"platform\":%q}\n", k, k)
			} else {
				fmt.Fprintf(&b, "%s,%s\n", k, k)
			}
		}
		return b.String()
	}
	var many strings.Builder
	many.WriteString("id\n")
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&many, "%d\n", i)
	}
	many.WriteString("abc\n")
	for _, c := range []struct {
		name, body string
		matched    int64
		by         string
	}{
		{"decimals.csv", file(false, "0.50", "1.50"), 2, "platform"},
		{"times.csv", file(false, "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"), 2, "platform"},
		{"times.jsonl", file(true, "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"), 2, "platform"},
		{"zeros.csv", file(false, "00123"), 1, "platform"},
		{"exp.csv", file(false, "1e3"), 1, "platform"},
		{"bool.csv", file(false, "true"), 1, "platform"},
		{"uuid.jsonl", file(true, "8d0f2f0e-1c9a-4c59-9a0e-6f0c7d2b9d3a"), 1, "platform"},
		{"many.csv", many.String(), 1, ""}, // only "abc" is in the topic
	} {
		path := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := e.RunCheck(t.Context(), "missing", CheckOptions{Topic: "k", Against: path, AgainstKey: "id", Match: "key", By: c.by})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Summary.Get("matched") != c.matched {
			t.Errorf("%s: matched %v, want %d: %s %+v", c.name, r.Summary.Get("matched"), c.matched, r.Message, r.Rows)
		}
		for _, row := range r.Rows {
			if b := row.Get("by"); c.by != "" && row.Get("kind") == "missing" && row.Get("key") != b {
				t.Errorf("%s: key %v read with by %v, want the same text", c.name, row.Get("key"), b)
			}
		}
	}
}

// TestFieldOutsideTheSampleHint: a field no sampled value held is not in
// the value STRUCT; the binder error says where it still is (value_raw),
// and that expression reads it. Before, the error named only the
// candidates, as if the field did not exist.
func TestFieldOutsideTheSampleHint(t *testing.T) {
	e, err := Open(t.Context(), strictFixture(t), Options{Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	off := 0
	for i, c := range sampleFits {
		if strings.Contains(c.value, `"x"`) {
			off = 10000 + i
		}
	}
	_, err = e.Query(t.Context(), fmt.Sprintf(`SELECT value.x FROM m WHERE "offset" = %d`, off))
	var se *SQLError
	if !errors.As(err, &se) || !strings.Contains(se.Fix, `decode(value_raw)->>'$."x"'`) {
		t.Fatalf("value.x: %v, hint %+v", err, se)
	}
	if got := queryString(t, e, fmt.Sprintf(`SELECT decode(value_raw)->>'$."x"' FROM m WHERE "offset" = %d`, off)); got != "1.5" {
		t.Errorf("the hint's expression reads %q, want 1.5", got)
	}
}
