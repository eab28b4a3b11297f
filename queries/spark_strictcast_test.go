package queries

import (
	"fmt"
	"strings"
	"testing"
)

// sparkFitDiffers are the cases of sampleFits where Spark's parser judges
// otherwise than json_fit, each named in the README: Spark reads a DOUBLE
// field's "NaN" string, 1e400, a 30-digit integer and -0 as doubles (NaN,
// Infinity, a double of 17 digits, 0.0), and a field the sample saw only
// null as STRING, so its value is read, not refused.
var sparkFitDiffers = map[string]bool{
	`{"d":1e400}`: true, `{"d":123456789012345678901234567890}`: true, `{"d":"NaN"}`: true, `{"d":-0}`: true,
	`{"z":5}`: true, `{"e":[1]}`: true,
}

// TestSparkValueOutsideTheSample: on Spark, a value whose fields do not
// fit the sampled structure reads NULL with a type: value_error, as on
// DuckDB; before, Spark read the field NULL (1.5 in a BIGINT) with no
// value_error. The cases Spark's parser judges otherwise are listed
// (sparkFitDiffers) and must stay the only ones.
func TestSparkValueOutsideTheSample(t *testing.T) {
	s := sparkRemote(t)
	dir := strictFixture(t)
	duck, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	sp, err := Open(t.Context(), dir, Options{Remote: s})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	q := `SELECT "offset", value IS NULL, value_error IS NOT NULL, coalesce(value_error, '') LIKE 'type: %', CAST(value.n AS STRING) FROM m WHERE "offset" >= 10000 AND "offset" < 20000 ORDER BY "offset"`
	_, got, err := sp.QueryRemote(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(sampleFits) {
		t.Fatalf("%d rows on Spark, want %d", len(got), len(sampleFits))
	}
	for i, c := range sampleFits {
		r := got[i]
		line := fmt.Sprint(r[1:]...)
		misfit := r[2] == true && r[3] == true && r[1] == true
		if sparkFitDiffers[c.value] {
			if misfit {
				t.Errorf("%s: Spark now refuses it as DuckDB does: take it off sparkFitDiffers (%s)", c.value, line)
			}
			continue
		}
		if (c.misfit != "") != misfit {
			t.Errorf("%s: Spark value NULL, value_error, type: = %s; DuckDB says misfit=%v", c.value, line, c.misfit != "")
		}
		if c.misfit == "" && c.field == "n" {
			if n := fmt.Sprint(r[4]); n != c.want {
				t.Errorf("%s: Spark value.n %s, want %s", c.value, n, c.want)
			}
		}
	}
	// check values on Spark counts the same records as DuckDB's, less the
	// ones Spark reads.
	rep, err := sp.RunCheck(t.Context(), "values", CheckOptions{Topic: "m"})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, c := range sampleFits {
		if c.misfit != "" && !sparkFitDiffers[c.value] {
			want++
		}
	}
	if rep.Summary.Get("not_sampled_type") != int64(want) || !strings.Contains(rep.Message, "does not fit") {
		t.Errorf("values on Spark: not_sampled_type %v, want %d: %s", rep.Summary.Get("not_sampled_type"), want, rep.Message)
	}
}
