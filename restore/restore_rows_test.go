package restore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// tamperedFolder is a snapshot folder made by code: partition 0 one file
// of offsets 0-2999; partition 1 three, 0-2999, 3000-7999 (read by
// restore in three batches) and 8000-8099. bad, the second file of
// partition 1, is rewritten by change at row 4500, in its third batch.
func tamperedFolder(t *testing.T, topic string, change func(rs []catalog.Row, i int) []catalog.Row) (d *catalog.Dir, bad catalog.FileEntry) {
	t.Helper()
	d = catalogtest.Folder(t, t.TempDir(), topic, map[int32][][]catalog.Row{
		0: {catalogtest.Rows(0, 0, 3000)},
		1: {catalogtest.Rows(1, 0, 3000), catalogtest.Rows(1, 3000, 5000), catalogtest.Rows(1, 8000, 100)},
	})
	tp := catalog.TopicPartition{Topic: topic, Partition: 1}
	m, err := d.ReadManifest(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	bad = m.Files[1]
	if change != nil {
		catalogtest.Rewrite(t, d, tp, bad.Name, func(rs []catalog.Row) []catalog.Row { return change(rs, 4500) })
	}
	return d, bad
}

// keepForever creates target with n partitions and no retention by time:
// catalogtest's rows are stamped in 2023, and a real broker would delete
// a rolled segment of them under the test (a target restore creates
// takes its configs from the source's cut, which these folders lack).
func keepForever(t *testing.T, brokers []string, target string, n int32) {
	t.Helper()
	keep := "-1"
	if err := dump.CreateTopic(t.Context(), kafkaconn.Conn{Brokers: brokers}, target, n, map[string]*string{"retention.ms": &keep}); err != nil {
		t.Fatal(err)
	}
}

// targetState is what a read_committed consumer finds in target, as
// "partition/offset" values per partition, and the progress committed
// for it.
func targetState(t *testing.T, brokers []string, target string) (values map[int32][]string, progress map[int32]int64) {
	t.Helper()
	values = map[int32][]string{}
	for p, rs := range committedRecords(t, dumpTarget(t, brokers, target), target) {
		for _, r := range rs {
			values[p] = append(values[p], string(r.Value))
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	progress = map[int32]int64{}
	var offs kadm.OffsetResponses
	for {
		offs, err = kadm.NewClient(cl).FetchOffsets(kadm.RequireStable(ctx), ID(target))
		if err == nil {
			err = offs.Error()
		}
		if errors.Is(err, kerr.UnstableOffsetCommit) && ctx.Err() == nil {
			// An aborted transaction's offsets still pending at the coordinator.
			time.Sleep(100 * time.Millisecond) // polling the broker, not synchronizing goroutines
			continue
		}
		break
	}
	if errors.Is(err, kerr.GroupIDNotFound) {
		return values, progress // nothing committed yet
	}
	if err != nil {
		t.Fatal(err)
	}
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == target && o.Err == nil && o.At >= 0 {
			progress[o.Partition] = o.At
		}
	})
	return values, progress
}

// inOrderOnce fails the test unless values of partition p are the source
// records of p from offset 0 on, each once, in order.
func inOrderOnce(t *testing.T, p int32, values []string) {
	t.Helper()
	for i, v := range values {
		if want := string(catalogtest.ValueOf(p, int64(i))); v != want {
			t.Fatalf("partition %d record %d is %q, want %q: records lost, doubled or out of order", p, i, v, want)
		}
	}
}

// TestRestoreRefusesTamperedRows: a data file whose rows contradict its
// manifest (an offset past its range, two rows swapped, a row of another
// partition, an offset twice) fails the restore with a *catalog.RowError
// naming the file by its relative path. Although the bad row comes after
// two batches of that file, nothing of the file is committed to the
// target, and the progress is exactly what was committed, though commits
// fall due every 100 records. Once the file is put right, the same
// restore goes on from the progress and the target holds every record
// once, in order. A dry run refuses the file too.
func TestRestoreRefusesTamperedRows(t *testing.T) {
	brokers := dumptest.Brokers(t)
	for _, tc := range []struct {
		name   string
		change func(rs []catalog.Row, i int) []catalog.Row
		row    bool // the error names a row past the first two batches, not the file as a whole
	}{
		{"offset past the file's range", func(rs []catalog.Row, i int) []catalog.Row { rs[i].Offset = 9_000; return rs }, true},
		{"two rows swapped", func(rs []catalog.Row, i int) []catalog.Row { rs[i], rs[i+1] = rs[i+1], rs[i]; return rs }, true},
		{"wrong partition", func(rs []catalog.Row, i int) []catalog.Row { rs[i].Partition = 0; return rs }, true},
		{"duplicated offset", func(rs []catalog.Row, i int) []catalog.Row { rs[i].Offset = rs[i-1].Offset; return rs }, true},
		{"a row removed", func(rs []catalog.Row, i int) []catalog.Row { return append(rs[:i:i], rs[i+1:]...) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topic := fmt.Sprintf("tampered-%d", time.Now().UnixNano())
			target := topic + "-restored"
			d, bad := tamperedFolder(t, topic, tc.change)
			tp1 := catalog.TopicPartition{Topic: topic, Partition: 1}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			opts := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: d.Path, Topic: topic, ToTopic: target, TxnRecords: 100}
			keepForever(t, brokers, target, 2)

			dry := opts
			dry.DryRun = true
			_, err := Run(ctx, dry)
			var re *catalog.RowError
			if !errors.As(err, &re) || re.Path != catalog.RelFilePath(tp1, bad.Name) {
				t.Fatalf("dry run: %v, want a *catalog.RowError naming %s", err, catalog.RelFilePath(tp1, bad.Name))
			}

			_, err = Run(ctx, opts)
			re = nil
			if !errors.Is(err, catalog.ErrBadRows) || !errors.As(err, &re) || re.Path != catalog.RelFilePath(tp1, bad.Name) || tc.row && re.Row < 4096 || !tc.row && re.Row != -1 {
				t.Fatalf("restore: %v, want a *catalog.RowError naming %s past its first two batches", err, catalog.RelFilePath(tp1, bad.Name))
			}
			values, progress := targetState(t, brokers, target)
			for p, vs := range values {
				inOrderOnce(t, p, vs)
				if int64(len(vs)) != progress[p] {
					t.Errorf("partition %d: %d records committed, progress %d: the progress must be what was produced", p, len(vs), progress[p])
				}
			}
			t.Logf("refused; committed before: %d records of partition 0, %d of partition 1; progress %v", len(values[0]), len(values[1]), progress)
			if n := int64(len(values[1])); n > bad.FirstOffset {
				t.Fatalf("partition 1: %d records committed, %d of them from %s, which restore refused", n, n-bad.FirstOffset, bad.Name)
			}

			catalogtest.Rewrite(t, d, tp1, bad.Name, func([]catalog.Row) []catalog.Row { return catalogtest.Rows(1, 3000, 5000) })
			s, err := Run(ctx, opts)
			if err != nil {
				t.Fatalf("restore of the mended folder: %v", err)
			}
			values, _ = targetState(t, brokers, target)
			for p, want := range map[int32]int{0: 3000, 1: 8100} {
				inOrderOnce(t, p, values[p])
				if len(values[p]) != want {
					t.Fatalf("partition %d holds %d records after the second run, want %d (the second run produced %d)", p, len(values[p]), want, s.Records)
				}
			}
		})
	}
}

// TestRestoreCommitsWholeFiles: with more partitions than a share reads
// at once and a commit due every few records, a restore of many small
// files still runs to its end in many transactions, and the target holds
// every record once, in order, with the progress at each partition's end.
func TestRestoreCommitsWholeFiles(t *testing.T) {
	brokers := dumptest.Brokers(t)
	topic := fmt.Sprintf("whole-files-%d", time.Now().UnixNano())
	files := map[int32][][]catalog.Row{}
	const parts, perPart, rows = 2*maxOpenFiles + 3, 6, 50
	for p := range int32(parts) {
		for f := range perPart {
			files[p] = append(files[p], catalogtest.Rows(p, int64(f*rows), rows))
		}
	}
	d := catalogtest.Folder(t, t.TempDir(), topic, files)
	target := topic + "-restored"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	keepForever(t, brokers, target, parts)
	s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: d.Path, Topic: topic, ToTopic: target, TxnRecords: 30, TxnInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s.Records != parts*perPart*rows || s.Transactions < 2 {
		t.Fatalf("restored %d records in %d transactions, want %d in several", s.Records, s.Transactions, parts*perPart*rows)
	}
	values, progress := targetState(t, brokers, target)
	for p := range int32(parts) {
		inOrderOnce(t, p, values[p])
		if len(values[p]) != perPart*rows || progress[p] != perPart*rows {
			t.Fatalf("partition %d: %d records, progress %d, want %d and %d", p, len(values[p]), progress[p], perPart*rows, perPart*rows)
		}
	}
	t.Logf("%d records in %d transactions", s.Records, s.Transactions)
}

// TestFileGate: a shut gate lets no reader into a file and says when the
// open files are done; at most maxOpenFiles, of at most maxOpenRows rows
// (or one larger file alone), are open at once; records handed over past
// --txn-records keep readers out until the next commit opens it; a
// reader waiting at it stops with its context.
func TestFileGate(t *testing.T) {
	ctx := context.Background()
	// blocked: enter(rows) is still waiting a while after the call.
	blocked := func(g *fileGate, rows int64) chan error {
		t.Helper()
		entered := make(chan error, 1)
		go func() { entered <- g.enter(ctx, rows) }()
		select {
		case err := <-entered:
			t.Fatalf("entered a file of %d rows: %v", rows, err)
		case <-time.After(50 * time.Millisecond): // proving a negative: it stays blocked a while
		}
		return entered
	}

	g := newFileGate(1000)
	for range maxOpenFiles {
		if err := g.enter(ctx, 10); err != nil {
			t.Fatal(err)
		}
	}
	entered := blocked(g, 10) // past maxOpenFiles
	if g.shutIdle() {
		t.Fatal("shutIdle with files open")
	}
	for range maxOpenFiles {
		g.done(10)
	}
	select {
	case err := <-entered:
		t.Fatalf("entered a file while the gate was shut: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	if !g.shutIdle() {
		t.Fatal("not idle with every file done")
	}
	g.openAgain()
	if err := <-entered; err != nil {
		t.Fatal(err)
	}
	g.done(10)

	// Rows: a file that would pass maxOpenRows waits; one larger than it
	// gets in alone.
	if err := g.enter(ctx, maxOpenRows-5); err != nil {
		t.Fatal(err)
	}
	entered = blocked(g, 10)
	g.done(maxOpenRows - 5)
	if err := <-entered; err != nil {
		t.Fatal(err)
	}
	entered = blocked(g, 2*maxOpenRows)
	g.done(10)
	if err := <-entered; err != nil {
		t.Fatal(err)
	}
	entered = blocked(g, 1)
	g.done(2 * maxOpenRows)
	if err := <-entered; err != nil {
		t.Fatal(err)
	}
	g.done(1)

	// Records handed over: past the limit, no new file until a commit.
	g.hand(999)
	if err := g.enter(ctx, 1); err != nil {
		t.Fatal(err)
	}
	g.hand(1)
	entered = blocked(g, 1)
	g.done(1)
	select {
	case err := <-entered:
		t.Fatalf("entered a file past --txn-records handed over: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	if !g.shutIdle() {
		t.Fatal("not idle")
	}
	g.openAgain()
	if err := <-entered; err != nil {
		t.Fatal(err)
	}

	g.shutIdle()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.enter(cctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("enter with a cancelled context at a shut gate: %v", err)
	}
	var none *fileGate
	if err := none.enter(cctx, 1); err != nil {
		t.Fatalf("a nil gate: %v", err)
	}
}

// TestRestoreRefusesWhatIsNotAFile: a FIFO in place of a data file, or a
// data file missing, fails the restore at once with
// catalog.ErrBadDataFile naming the file, before any file is read (it
// never hangs on a FIFO) and before the target is created.
func TestRestoreRefusesWhatIsNotAFile(t *testing.T) {
	brokers := dumptest.Brokers(t)
	for _, tc := range []struct {
		name    string
		replace func(t *testing.T, path string)
		text    string
	}{
		{"a FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "a FIFO, not a regular file"},
		{"missing", func(*testing.T, string) {}, "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topic := fmt.Sprintf("not-a-file-%d", time.Now().UnixNano())
			d, bad := tamperedFolder(t, topic, nil)
			tp1 := catalog.TopicPartition{Topic: topic, Partition: 1}
			path := d.FilePath(tp1, bad.Name)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			tc.replace(t, path)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, dry := range []bool{true, false} {
				_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: d.Path, Topic: topic, ToTopic: topic + "-restored", DryRun: dry})
				if !errors.Is(err, catalog.ErrBadDataFile) || !strings.Contains(err.Error(), catalog.RelFilePath(tp1, bad.Name)) || !strings.Contains(err.Error(), tc.text) {
					t.Fatalf("restore (dry run %v): %v, want ErrBadDataFile naming %s: %q", dry, err, catalog.RelFilePath(tp1, bad.Name), tc.text)
				}
			}
			cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			td, err := kadm.NewClient(cl).ListTopics(ctx, topic+"-restored")
			if err != nil {
				t.Fatal(err)
			}
			if td.Has(topic + "-restored") {
				t.Fatal("the refused restore created its target")
			}
		})
	}
}

// TestRestoreCountsTheLastFile: the last file of a partition, where
// restore stops at its last offset without reading on, is still held to
// its manifest's row count: a row taken out of it (its size made to
// match) fails a dry run and a restore with a *catalog.RowError.
func TestRestoreCountsTheLastFile(t *testing.T) {
	brokers := dumptest.Brokers(t)
	topic := fmt.Sprintf("last-file-%d", time.Now().UnixNano())
	d, _ := tamperedFolder(t, topic, nil)
	tp1 := catalog.TopicPartition{Topic: topic, Partition: 1}
	last := catalog.FileName(8000, 8099)
	catalogtest.Rewrite(t, d, tp1, last, func(rs []catalog.Row) []catalog.Row { return append(rs[:50:50], rs[51:]...) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, dry := range []bool{true, false} {
		_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: d.Path, Topic: topic, ToTopic: topic + "-restored", DryRun: dry})
		var re *catalog.RowError
		if !errors.As(err, &re) || re.Path != catalog.RelFilePath(tp1, last) || !strings.Contains(re.Detail, "99 rows, its manifest says 100") {
			t.Fatalf("restore (dry run %v): %v, want a *catalog.RowError counting the rows of %s", dry, err, last)
		}
	}
}
