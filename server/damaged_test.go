package server

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/internal/seeds"
)

// A folder with damaged data files is served: a file of garbage costs its
// partition (the others answer), and a check that meets a file whose
// pages are damaged is the server's fault (5xx, naming the damage), not
// the request's (400). TestServeDamagedFolder.
func TestServeDamagedFolder(t *testing.T) {
	garbage := func(b []byte) { // garbage of the manifest's size
		for i := range b {
			b[i] = byte(i * 31)
		}
	}
	pages := func(b []byte) { // bit rot in the pages
		end := len(b) - 8 - int(binary.LittleEndian.Uint32(b[len(b)-8:]))
		for i := 200; i < end-200; i += 7 {
			b[i] ^= 0xff
		}
	}
	cases := []struct {
		name     string
		change   func(b []byte)
		url      string
		code     int // 0: any 5xx
		contains string
	}{
		{"garbage", garbage, "/api/checks/gaps?topic=app_events", 200, "not judged: 1 partition"},
		{"pages", pages, "/api/checks/values?topic=app_events", 0, "damaged data file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 300, Seed: 7}); err != nil {
				t.Fatal(err)
			}
			ms, err := filepath.Glob(filepath.Join(dir, "topic=app_events", "partition=0", "*.parquet"))
			if err != nil || len(ms) != 1 {
				t.Fatalf("%v %v", ms, err)
			}
			b, err := os.ReadFile(ms[0])
			if err != nil {
				t.Fatal(err)
			}
			c.change(b)
			if err := os.WriteFile(ms[0], b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, ts := newTestServer(t, Options{Dir: dir})
			res := do(t, "GET", ts.URL+c.url, nil, nil)
			if c.code == 0 && (res.code < 500 || res.code > 599) || c.code != 0 && res.code != c.code || !strings.Contains(res.body, c.contains) {
				t.Errorf("%s: %d %s", c.url, res.code, res.body)
			}
		})
	}
}
