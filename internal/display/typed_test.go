package display

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"
)

// TestTypedFromDuckDB scans each value from DuckDB itself, as every
// surface does, and holds Typed's value to the text and the JSON it must
// read as.
func TestTypedFromDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const u = "uuid '0f8fad5b-d9cb-469f-a165-70867728950e'"
	cases := []struct {
		name, expr, text, json string
	}{
		{"time", "TIME '12:00'", "12:00:00", `"12:00:00"`},
		{"time micros", "TIME '23:59:59.999999'", "23:59:59.999999", `"23:59:59.999999"`},
		{"timetz", "TIMETZ '12:00:00+01'", "12:00:00+01", `"12:00:00+01"`},
		{"timetz half hour", "TIMETZ '12:00:00-03:30'", "12:00:00-03:30", `"12:00:00-03:30"`},
		{"timestamp_ns", "TIMESTAMP_NS '2020-01-01 00:00:00.123456789'", "2020-01-01 00:00:00.123456789Z", `"2020-01-01T00:00:00.123456789Z"`},
		{"timestamp micros", "TIMESTAMP '2020-01-01 00:00:00.25'", "2020-01-01 00:00:00.25Z", `"2020-01-01T00:00:00.25Z"`},
		{"timestamp infinity", "'infinity'::TIMESTAMP", "infinity", `"infinity"`},
		{"timestamp -infinity", "'-infinity'::TIMESTAMP", "-infinity", `"-infinity"`},
		{"timestamptz infinity", "'infinity'::TIMESTAMPTZ", "infinity", `"infinity"`},
		{"timestamp_ns infinity", "'infinity'::TIMESTAMP_NS", "infinity", `"infinity"`},
		{"timestamp_ms infinity", "'infinity'::TIMESTAMP_MS", "infinity", `"infinity"`},
		{"timestamp_s -infinity", "'-infinity'::TIMESTAMP_S", "-infinity", `"-infinity"`},
		{"date", "DATE '2026-12-07'", "2026-12-07", `"2026-12-07"`},
		{"date before the common era", "DATE '0044-03-15 (BC)'", "-0043-03-15", `"-0043-03-15"`},
		{"date in a list", "[DATE '2026-12-07', NULL]", `["2026-12-07",null]`, `["2026-12-07",null]`},
		{"date in a struct", "{'d': DATE '2026-12-07', 'ts': TIMESTAMP '2026-12-07 00:00:00'}", `{"d":"2026-12-07","ts":"2026-12-07 00:00:00Z"}`, `{"d":"2026-12-07","ts":"2026-12-07T00:00:00Z"}`},
		{"date infinity", "'infinity'::DATE", "infinity", `"infinity"`},
		{"date -infinity", "'-infinity'::DATE", "-infinity", `"-infinity"`},
		{"uuid", u, "0f8fad5b-d9cb-469f-a165-70867728950e", `"0f8fad5b-d9cb-469f-a165-70867728950e"`},
		{"uuid in list", "[" + u + "]", `["0f8fad5b-d9cb-469f-a165-70867728950e"]`, `["0f8fad5b-d9cb-469f-a165-70867728950e"]`},
		{"uuid in list of lists", "[[" + u + "]]", `[["0f8fad5b-d9cb-469f-a165-70867728950e"]]`, `[["0f8fad5b-d9cb-469f-a165-70867728950e"]]`},
		{"uuid in array", "array_value(" + u + ")", `["0f8fad5b-d9cb-469f-a165-70867728950e"]`, `["0f8fad5b-d9cb-469f-a165-70867728950e"]`},
		{"uuid in struct", "{'id': " + u + `, "a ""b""": 1}`, `{"a \"b\"":1,"id":"0f8fad5b-d9cb-469f-a165-70867728950e"}`, `{"a \"b\"":1,"id":"0f8fad5b-d9cb-469f-a165-70867728950e"}`},
		{"uuid in map", "MAP {'k': [" + u + "]}", `{"k":["0f8fad5b-d9cb-469f-a165-70867728950e"]}`, `{"k":["0f8fad5b-d9cb-469f-a165-70867728950e"]}`},
		{"uuid in union", "union_value(u := " + u + ")", "0f8fad5b-d9cb-469f-a165-70867728950e", `"0f8fad5b-d9cb-469f-a165-70867728950e"`},
		{"time in struct", "{'t': TIME '12:00', 'ts': 'infinity'::TIMESTAMP}", `{"t":"12:00:00","ts":"infinity"}`, `{"t":"12:00:00","ts":"infinity"}`},
		{"tz types in struct", "{'ts': 'infinity'::TIMESTAMPTZ, 'tz': TIMETZ '12:00:00+01', 'd': '-infinity'::DATE}", `{"d":"-infinity","ts":"infinity","tz":"12:00:00+01"}`, `{"d":"-infinity","ts":"infinity","tz":"12:00:00+01"}`},
		{"headers untouched", "[{'key': 'k', 'value': '\\xFF'::BLOB}]", `[{"key":"k","value":"\\xFF"}]`, `[{"key":"k","value":"/w=="}]`},
		{"blob stays", "'\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x09\\x0A\\x0B\\x0C\\x0D\\x0E\\x0F'::BLOB", `\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0A\x0B\x0C\x0D\x0E\x0F`, `"AAECAwQFBgcICQoLDA0ODw=="`},
		{"map nan", "MAP {'a': 'nan'::DOUBLE, 'b': 'inf'::DOUBLE}", `{"a":"NaN","b":"+Inf"}`, `{"a":"NaN","b":"+Inf"}`},
		{"map blob", "MAP {'b': '\\xFF'::BLOB}", `{"b":"\\xFF"}`, `{"b":"/w=="}`},
		{"interval", "INTERVAL '1 year 2 days 03:00:00.5'", "1 year 2 days 03:00:00.5", `"12 months 2 days 10800500000 us"`},
		{"interval months", "INTERVAL '14 months'", "1 year 2 months", `"14 months 0 days 0 us"`},
		{"interval one day", "INTERVAL '1 day'", "1 day", `"0 months 1 days 0 us"`},
		{"interval negative", "INTERVAL '-90 minutes'", "-01:30:00", `"0 months 0 days -5400000000 us"`},
		{"interval past 292 years", "INTERVAL '3000000 hours'", "3000000:00:00", `"0 months 0 days 10800000000000000 us"`},
		{"interval zero", "INTERVAL 0 SECONDS", "00:00:00", `"0 months 0 days 0 us"`},
		{"map key order", "MAP {'z': 1, 'a': 2}", `{"z":1,"a":2}`, `{"z":1,"a":2}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows, err := db.QueryContext(context.Background(), "SELECT "+c.expr)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			cts, err := rows.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			if !rows.Next() {
				t.Fatal(rows.Err())
			}
			var v any
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			v = Typed(cts[0].DatabaseTypeName(), v)
			if got := Text(v); got != c.text {
				t.Errorf("Text = %s, want %s", got, c.text)
			}
			b, err := json.Marshal(JSON(v))
			if err != nil {
				t.Fatalf("json: %v", err)
			}
			if string(b) != c.json {
				t.Errorf("JSON = %s, want %s", b, c.json)
			}
		})
	}
}

// TestTypedCheap: Typed runs on every value of every row; a nested type
// with nothing to give back (a topic's headers) costs no allocation, and
// one that has is parsed once.
func TestTypedCheap(t *testing.T) {
	var headers any = []any{map[string]any{"key": "k", "value": []byte("v")}}
	if n := testing.AllocsPerRun(100, func() { Typed("STRUCT(\"key\" VARCHAR, \"value\" BLOB)[]", headers) }); n != 0 {
		t.Errorf("headers: %v allocations", n)
	}
	var empty any = []any{}
	Typed("UUID[]", empty)
	if n := testing.AllocsPerRun(100, func() { Typed("UUID[]", empty) }); n > 1 {
		t.Errorf("UUID[]: %v allocations, the type parsed on every row", n)
	}
}
