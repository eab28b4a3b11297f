package restore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestRestoreHoldsRowsToTheirEntrysBounds: a manifest entry that states
// a smaller largest record (max_record_bytes) or a narrower time range
// than its file holds makes restore produce the file unread for the
// target's limits; every row is now held to those bounds as it is read,
// and a row past them fails the restore as a data file contradicting its
// manifest (exit 9), naming the row, nothing of the file committed.
// Before: the 5,000-byte record went to a target that refuses it (on a
// real broker, exit 2 `produce: MESSAGE_TOO_LARGE`, nothing named), and
// the record of 9999-12-31 was restored with another timestamp, exit 0.
func TestRestoreHoldsRowsToTheirEntrysBounds(t *testing.T) {
	now := time.Now().UnixMilli()
	for _, tc := range []struct {
		name   string
		change func(rows []catalog.Row, fe *catalog.FileEntry)
		want   string
	}{
		{"a record larger than its entry says", func(rows []catalog.Row, fe *catalog.FileEntry) {
			rows[3].Value = make([]byte, 5000)
			fe.MaxRecordBytes = 50
		}, "row 3 (offset 3): a record of 5001 bytes (key, value and headers), more than the largest its manifest states (max_record_bytes 50"},
		{"a timestamp outside its entry's", func(rows []catalog.Row, fe *catalog.FileEntry) {
			rows[3].Timestamp = 253_402_300_799_000 // 9999-12-31: the producer cannot write it
			fe.MinTimestamp, fe.MaxTimestamp = now, now+9
		}, "row 3 (offset 3): timestamp 253402300799000 outside the file's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			rows := catalogtest.Rows(0, 0, 10)
			for i := range rows {
				rows[i].Timestamp = now + int64(i)
			}
			d, err := catalog.Create(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			tp := catalog.TopicPartition{Topic: "src", Partition: 0}
			var fe catalog.FileEntry
			tc.change(rows, &fe) // the rows' change, before they are written
			entry, err := d.WriteDataFile(t.Context(), tp, rows, "s1")
			if err != nil {
				t.Fatal(err)
			}
			tc.change(rows, &entry) // the entry's, after
			m := &catalog.Manifest{Topic: "src", Partition: 0, Files: []catalog.FileEntry{entry}, NextOffset: entry.LastOffset + 1}
			if err := d.WriteManifest(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			_, err = Run(t.Context(), Options{Conn: kafkaconn.Conn{Brokers: c.ListenAddrs()}, Dir: d.Path, Topic: "src", ToTopic: "dst"})
			if !errors.Is(err, catalog.ErrBadRows) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("restore: %v, want a data file contradicting its manifest: %s", err, tc.want)
			}
			if code, _ := exit.Of(err); code != exit.BadFolder {
				t.Errorf("exit %d, want %d", code, exit.BadFolder)
			}
			rc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("dst"), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			got := 0
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			defer cancel()
			for ctx.Err() == nil {
				rc.PollFetches(ctx).EachRecord(func(*kgo.Record) { got++ })
			}
			if got != 0 {
				t.Errorf("dst holds %d committed records, want none of the refused file", got)
			}
		})
	}
}
