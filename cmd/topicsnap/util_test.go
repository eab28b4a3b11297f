package main

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestParseBytes: a size is a whole number of bytes from 1 to int64's
// largest. A float past int64 converted to a negative number and a
// fraction of a byte to 0: --target-size 99999999999GiB and InfGiB were
// taken as a negative target (merge nothing), 0.5B as 0.
func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  error
	}{
		{"448MiB", 448 << 20, nil},
		{"1.5GiB", 3 << 29, nil},
		{"512MB", 512e6, nil},
		{"4096", 4096, nil},
		{"1B", 1, nil},
		{"99999999999GiB", 0, strconv.ErrRange},
		{"10000000000GB", 0, strconv.ErrRange},
		{"InfGiB", 0, strconv.ErrSyntax},
		{"NaNMiB", 0, strconv.ErrSyntax},
		{"0.5B", 0, strconv.ErrSyntax},
		{"-1GiB", 0, strconv.ErrSyntax},
		{"0", 0, strconv.ErrSyntax},
		{"x", 0, strconv.ErrSyntax},
	} {
		got, err := parseBytes(c.in)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("parseBytes(%q) = %d, %v; want %d, %v", c.in, got, err, c.want, c.err)
		}
	}
	code, _, errs := cli(t, "serve", "--dir", t.TempDir(), "--worker-memory", "99999999999GiB")
	if code != exitError || !strings.Contains(errs, "larger than any machine's memory") {
		t.Errorf("--worker-memory 99999999999GiB: exit %d %q", code, errs)
	}
}
