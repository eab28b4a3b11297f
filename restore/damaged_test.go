package restore

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// A data file whose bytes are not the Parquet they should be (pages that
// fail their CRC32, garbage of the right size) is a damaged folder, exit 9
// with catalog verify as the hint, as a file cut short is; what the
// reading loop's own callback returns comes back as it is. No broker: the
// reading loop alone, as a dry run reads. TestScanPlanDamagedFile.
func TestScanPlanDamagedFile(t *testing.T) {
	errProduce := errors.New("produce failed")
	cases := []struct {
		name    string
		change  func(b []byte)
		emitErr error
		want    error // errors.Is; nil: a damaged file
	}{
		{name: "pages flipped", change: func(b []byte) {
			end := len(b) - 8 - int(binary.LittleEndian.Uint32(b[len(b)-8:]))
			for i := 100; i < end-100; i += 7 {
				b[i] ^= 0xff
			}
		}},
		{name: "garbage of the same size", change: func(b []byte) {
			for i := range b {
				b[i] = byte(i * 31)
			}
		}},
		{name: "sound file, emit fails", emitErr: errProduce, want: errProduce},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := catalogtest.Folder(t, t.TempDir(), "t", map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 3000)}})
			tp := catalog.TopicPartition{Topic: "t", Partition: 0}
			m, err := d.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			if c.change != nil {
				p := d.FilePath(tp, m.Files[0].Name)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				c.change(b)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pl := &plan{m: m, part: &Partition{Partition: 0, From: 0, Until: m.NextOffset, OpenAt: -1}}
			err = scanPlan(context.Background(), d, pl, "t2", nil, nil, func([]*kgo.Record, *batchMem, int64, bool, int64) error { return c.emitErr })
			code, hint := exit.Of(err)
			if c.want != nil {
				if !errors.Is(err, c.want) || errors.Is(err, catalog.ErrBadDataFile) {
					t.Fatalf("exit %d: %v", code, err)
				}
				return
			}
			if !errors.Is(err, catalog.ErrBadDataFile) || code != exit.BadFolder || !strings.Contains(hint, "catalog verify") || !strings.Contains(err.Error(), m.Files[0].Name) {
				t.Fatalf("exit %d, hint %q: %v", code, hint, err)
			}
		})
	}
}
