package display

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

func TestText(t *testing.T) {
	huge, _ := new(big.Int).SetString("170141183460469231731687303715884105727", 10)
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"null", nil, "NULL"},
		{"string", "AP-18", "AP-18"},
		{"utf8", "café 中", "café 中"},
		{"backslash stays", `C:\x41`, `C:\x41`},
		{"ansi escape", "a\x1b[31mred", `a\x1B[31mred`},
		{"newline tab cr", "a\nb\tc\rd", `a\nb\tc\rd`},
		{"nul and del", "a\x00b\x7f", `a\x00b\x7F`},
		{"c1 csi", "a\u009b31m", `a\u009B31m`},
		{"invalid utf8", "a\xff\xfeb", `a\xFF\xFEb`},
		{"blob", []byte("a\x00\\é"), `a\x00\x5C\xC3\xA9`},
		{"time ms", time.Date(2026, 7, 16, 11, 21, 0, 250e6, time.UTC), "2026-07-16 11:21:00.25Z"},
		{"time us", time.Date(2026, 7, 16, 11, 21, 0, 123456e3, time.UTC), "2026-07-16 11:21:00.123456Z"},
		{"time whole", time.Date(2026, 7, 16, 0, 0, 0, 0, time.UTC), "2026-07-16 00:00:00Z"},
		{"time zone to utc", time.Date(2026, 7, 16, 13, 21, 0, 0, time.FixedZone("CEST", 7200)), "2026-07-16 11:21:00Z"},
		{"float shortest", 0.1, "0.1"},
		{"float full", 1.0 / 3, "0.3333333333333333"},
		{"float big", 1e21, "1e+21"},
		{"float nan", math.NaN(), "NaN"},
		{"float32", float32(0.1), "0.1"},
		{"int", int64(-42), "-42"},
		{"bool", true, "true"},
		{"huge", huge, "170141183460469231731687303715884105727"},
		{"decimal", duckdb.Decimal{Width: 10, Scale: 2, Value: big.NewInt(12345)}, "123.45"},
		{"interval", duckdb.Interval{Months: 1, Days: 2, Micros: 5400e6}, "1 month 2 days 01:30:00"},
		{"interval zero", duckdb.Interval{}, "00:00:00"},
		{"uuid", duckdb.UUID{0x12, 0x34, 15: 0xff}, "12340000-0000-0000-0000-0000000000ff"},
		{"list", []any{int32(1), nil, "x"}, `[1,null,"x"]`},
		{"struct", map[string]any{"b": 1.5, "a": []byte("ct")}, `{"a":"ct","b":1.5}`},
		{"header blob not utf8", []any{map[string]any{"value": []byte{0xff}}}, `[{"value":"\\xFF"}]`},
		{"nested time", map[string]any{"t": time.Date(2026, 7, 16, 11, 21, 0, 0, time.UTC)}, `{"t":"2026-07-16 11:21:00Z"}`},
		{"map", duckdb.Map{"k": int64(1)}, `{"k":1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Text(c.v); got != c.want {
				t.Errorf("Text(%#v) = %q, want %q", c.v, got, c.want)
			}
		})
	}
}

func TestField(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{nil, ""},
		{"a\x1b\n", "a\x1b\n"}, // CSV keeps a string as it is
		{[]byte{0}, `\x00`},
		{2.5, "2.5"},
	}
	for _, c := range cases {
		if got := Field(c.v); got != c.want {
			t.Errorf("Field(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestJSON(t *testing.T) {
	huge, _ := new(big.Int).SetString("170141183460469231731687303715884105727", 10)
	cases := []struct {
		v    any
		want string
	}{
		{nil, "null"},
		{[]byte("hi"), `"aGk="`},
		{time.Date(2026, 7, 16, 11, 21, 0, 1, time.UTC), `"2026-07-16T11:21:00.000000001Z"`},
		{huge, "170141183460469231731687303715884105727"},
		{big.NewInt(7), "7"},
		{math.Inf(1), `"+Inf"`},
		{duckdb.Interval{Days: 1, Micros: 3}, `"0 months 1 days 3 us"`},
		{map[string]any{"b": 1, "a": []byte("x")}, `{"a":"eA==","b":1}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(JSON(c.v))
		if err != nil {
			t.Fatalf("JSON(%#v): %v", c.v, err)
		}
		if string(b) != c.want {
			t.Errorf("JSON(%#v) = %s, want %s", c.v, b, c.want)
		}
	}
}
