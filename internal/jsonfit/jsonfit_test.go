package jsonfit

import (
	"strings"
	"testing"
)

// TestCheck: each value outside a sample either fits the sampled type (and
// DuckDB reads it back as written) or is named, with its path and what it
// is.
func TestCheck(t *testing.T) {
	cases := []struct {
		structure, value string
		want             string // "" fits; else a substring of the reason
	}{
		{`{"n":"BIGINT"}`, `{"n":1}`, ""},
		{`{"n":"BIGINT"}`, `{"n":-0}`, ""},
		{`{"n":"BIGINT"}`, `{"n":null}`, ""},
		{`{"n":"BIGINT"}`, `{}`, ""},
		{`{"n":"BIGINT"}`, `{"m":[1,{"x":"]"}],"n":7,}`, ""},
		{`{"n":"BIGINT"}`, `{"n":1.5}`, "$.n is a number with a fraction or an exponent, not BIGINT"},
		{`{"n":"BIGINT"}`, `{"n":1e2}`, "$.n is a number with a fraction"},
		{`{"n":"BIGINT"}`, `{"n":9223372036854775807}`, ""},
		{`{"n":"BIGINT"}`, `{"n":9223372036854775808}`, "$.n is an integer past BIGINT's range"},
		{`{"n":"BIGINT"}`, `{"n":-9223372036854775809}`, "past BIGINT's range"},
		{`{"n":"BIGINT"}`, `{"n":"12"}`, "$.n is a string, not BIGINT"},
		{`{"n":"BIGINT"}`, `{"n":true}`, "$.n is a boolean, not BIGINT"},
		{`{"n":"BIGINT"}`, `{"n":NaN}`, "NaN or Infinity"},
		{`{"n":"BIGINT"}`, `{"n":{"a":1}}`, "$.n is an object, not BIGINT"},
		{`{"n":"UBIGINT"}`, `{"n":18446744073709551615}`, ""},
		{`{"n":"UBIGINT"}`, `{"n":18446744073709551616}`, "past UBIGINT's range"},
		{`{"n":"UBIGINT"}`, `{"n":-1}`, "a negative integer"},
		{`{"n":"HUGEINT"}`, `{"n":-170141183460469231731687303715884105728}`, ""},
		{`{"n":"HUGEINT"}`, `{"n":170141183460469231731687303715884105728}`, "past HUGEINT's range"},
		{`{"n":"HUGEINT"}`, `{"n":1` + strings.Repeat("0", 5000) + `}`, "past HUGEINT's range"},
		{`{"d":"DOUBLE"}`, `{"d":1.5}`, ""},
		{`{"d":"DOUBLE"}`, `{"d":0.1}`, ""},
		{`{"d":"DOUBLE"}`, `{"d":1.50}`, ""},
		{`{"d":"DOUBLE"}`, `{"d":-0}`, "$.d is -0 written as an integer"},
		{`{"d":"DOUBLE"}`, `{"d":-0.0}`, ""},
		{`{"d":"DOUBLE"}`, `{"d":7}`, ""},
		{`{"d":"DOUBLE"}`, `{"d":1e30}`, ""},
		{`{"d":"DOUBLE"}`, `{"d":1000000000000000000000000000000}`, ""},
		{`{"d":"DOUBLE"}`, `{"d":NaN}`, ""},
		{`{"d":"DOUBLE"}`, `{"d":-Infinity}`, ""},
		{`{"d":"DOUBLE"}`, `{"d":1e400}`, "$.d is a number past DOUBLE's range"},
		{`{"d":"DOUBLE"}`, `{"d":1e-400}`, "does not hold exactly"},
		{`{"d":"DOUBLE"}`, `{"d":123456789012345678901234567890}`, "does not hold exactly"},
		{`{"d":"DOUBLE"}`, `{"d":9007199254740993}`, "does not hold exactly"},
		{`{"d":"DOUBLE"}`, `{"d":"NaN"}`, "$.d is a string, not DOUBLE"},
		{`{"d":"DOUBLE"}`, `{"d":1e99999999999999999999999}`, "past DOUBLE's range"},
		{`{"b":"BOOLEAN"}`, `{"b":false}`, ""},
		{`{"b":"BOOLEAN"}`, `{"b":"true"}`, "$.b is a string, not BOOLEAN"},
		{`{"b":"BOOLEAN"}`, `{"b":1}`, "$.b is a number, not BOOLEAN"},
		{`{"s":"VARCHAR"}`, `{"s":{"deep":[1,2,{"x":"}"}]},"t":1}`, ""},
		{`{"s":"VARCHAR"}`, `{"s":12}`, ""},
		{`{"z":"NULL"}`, `{"z":null}`, ""},
		{`{"z":"NULL"}`, `{"z":5}`, "$.z is a number, not null (all the sample held there)"},
		{`{"l":["NULL"]}`, `{"l":[]}`, ""},
		{`{"l":["NULL"]}`, `{"l":[1,2]}`, "$.l[*] is a number, not null"},
		{`{"l":["BIGINT"]}`, `{"l":[1,2,3.5]}`, "$.l[*] is a number with a fraction"},
		{`{"l":["BIGINT"]}`, `{"l":"x"}`, "$.l is a string, not an array"},
		{`{"o":{"k":"BIGINT"}}`, `{"o":[1]}`, "$.o is an array, not an object"},
		{`{"o":{"k":"BIGINT"}}`, `{"o":{"k":1,"k2":"x"}}`, ""},
		{`{"o":{"k":"BIGINT"}}`, `{"o":{"k":"1"}}`, "$.o.k is a string"},
		{`{"o":{"k":"BIGINT"}}`, `{"o":null}`, ""},
		{`{"a b":"BIGINT"}`, `{"a b":1.5}`, `$."a b" is a number`},
		{`{"é":"BIGINT"}`, `{"\u00e9":1.5}`, `is a number with a fraction`},
		{`{"n":"BIGINT"}`, `{"N":1.5}`, ""}, // DuckDB matches names exactly: N is not read
		{`{"n":"BIGINT"}`, ` {"n" : 1 , "n":2.5}`, "$.n is a number with a fraction"},
		{`"BIGINT"`, `42`, ""},
		{`"BIGINT"`, `4.2`, "$ is a number with a fraction"},
		{`{"n":"BIGINT"}`, `{"n":`, "could not be checked"},
		{`{"n":"BIGINT"}`, ``, "empty"},
	}
	for _, c := range cases {
		typ, err := Compile(c.structure)
		if err != nil {
			t.Fatalf("%s: %v", c.structure, err)
		}
		got := typ.Check([]byte(c.value))
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s in %s: %q, want %q", c.value, c.structure, got, c.want)
		}
		if got != "" && !strings.HasPrefix(got, Prefix) {
			t.Errorf("%s: reason %q lacks the prefix", c.value, got)
		}
	}
}

func TestLossless(t *testing.T) {
	for s, want := range map[string]bool{
		`{"a":"VARCHAR","b":{"c":"VARCHAR"}}`: true,
		`{"a":"VARCHAR","b":"BIGINT"}`:        false,
		`{"a":["VARCHAR"]}`:                   false,
		`"VARCHAR"`:                           true,
	} {
		typ, err := Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		if typ.Lossless() != want {
			t.Errorf("%s: Lossless %v", s, !want)
		}
	}
	for _, bad := range []string{`{"a":"DATE"}`, `{"a":[]}`, `5`, `{`} {
		if _, err := Compile(bad); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"n":1.5}`, `{"l":[1,[2,{"a":"]"}]]}`, `{"o":{"k":"\"}`} {
		f.Add(s)
	}
	typ, _ := Compile(`{"n":"BIGINT","l":["DOUBLE"],"o":{"k":"BOOLEAN","s":"VARCHAR"},"z":"NULL"}`)
	f.Fuzz(func(t *testing.T, v string) {
		typ.Check([]byte(v)) // no panic, no hang, on any bytes
	})
}

func BenchmarkCheck(b *testing.B) {
	typ, err := Compile(`{"amount":"DOUBLE","event_id":"VARCHAR","n":"UBIGINT","o":{"k":"UBIGINT"},"ok":"BOOLEAN","tags":["VARCHAR"],"ts":"VARCHAR"}`)
	if err != nil {
		b.Fatal(err)
	}
	v := []byte(`{"event_id":"e-123456","n":123456,"amount":456.25,"ok":true,"ts":"2024-01-01T00:12:36Z","tags":["a","b"],"o":{"k":3}}`)
	b.SetBytes(int64(len(v)))
	for i := 0; i < b.N; i++ {
		if r := typ.Check(v); r != "" {
			b.Fatal(r)
		}
	}
}
