package notebooks

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// TestShippedProseGolden: the prose of both shipped notebooks renders to
// testdata/golden/prose.html (goldmark, raw HTML shown as text). When the
// renderer moved from the hand-written one to goldmark, the only changes
// were entity spellings (&#39; for ', &#34; for ") and one heading id
// ("1-one-keys-records"); this file holds the rest in place.
func TestShippedProseGolden(t *testing.T) {
	var b strings.Builder
	for _, n := range []string{"did-kafka-lose-my-event", "the-group-that-ate-six-partitions"} {
		nb, err := LoadShipped(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, bl := range nb.Blocks {
			if bl.Kind != SQL {
				b.WriteString(string(proseHTML(bl.Text)))
				b.WriteString("<!-- block -->\n")
			}
		}
	}
	path := filepath.Join("testdata", "golden", "prose.html")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./notebooks -run ProseGolden -update)", err)
	}
	if b.String() != string(want) {
		t.Fatalf("the shipped notebooks' prose renders differently from %s; if intended, run: go test ./notebooks -run ProseGolden -update", path)
	}
}
