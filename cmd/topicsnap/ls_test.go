package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/queries"
)

// lsRow returns the cells of ls's line for topic and partition, by header.
func lsRow(t *testing.T, out, topic string, partition int) map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header := lines[0]
	// Columns start where the header's names start (tabwriter aligns them).
	var starts []int
	var names []string
	for i := 0; i < len(header); {
		j := strings.Index(header[i:], "  ")
		name := header[i:]
		if j >= 0 {
			name = header[i : i+j]
		}
		starts, names = append(starts, i), append(names, name)
		if j < 0 {
			break
		}
		i += j
		for i < len(header) && header[i] == ' ' {
			i++
		}
	}
	for _, l := range lines[1:] {
		cells := map[string]string{}
		for k, s := range starts {
			end := len(l)
			if k+1 < len(starts) && starts[k+1] < len(l) {
				end = starts[k+1]
			}
			if s < len(l) {
				cells[names[k]] = strings.TrimSpace(l[s:end])
			}
		}
		if cells["TOPIC"] == topic && cells["PARTITION"] == fmt.Sprint(partition) {
			return cells
		}
	}
	t.Fatalf("no line for %s/%d in\n%s", topic, partition, out)
	return nil
}

// TestLsCountsDataRecordsAndCuts: on the real broker, a partition with an
// aborted transaction (dumped while open) and a committed one, dumped twice: ls counts the data
// records apart from markers and aborted records (as check gaps does),
// gives the last data record's time (not the markers' broker time), counts
// the cuts, and writes the offset range as restore --dry-run does, [FROM,UNTIL).
func TestLsCountsDataRecordsAndCuts(t *testing.T) {
	bs := brokers(t)
	b := strings.Join(bs, ",")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := fmt.Sprintf("ls-txn-%d", time.Now().UnixNano())
	conn := kafkaconn.Conn{Brokers: bs}
	// Kept forever: the records' times are in the past.
	forever := "-1"
	if err := dump.CreateTopic(ctx, conn, topic, 1, map[string]*string{"retention.ms": &forever}); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.TransactionalID("tx-"+topic), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	at := time.Date(2026, 7, 16, 11, 0, 0, 250e6, time.UTC) // ls keeps the milliseconds, as sql does
	dir := t.TempDir()
	for i, commit := range []bool{false, true} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 2; j++ {
			r := &kgo.Record{Value: []byte(fmt.Sprintf(`{"n":%d}`, j)), Timestamp: at.Add(time.Duration(i*2+j) * time.Second)}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if !commit {
			// Dumped while open, then aborted: the snapshot holds the
			// aborted records.
			if code, _, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", dir); code != 0 {
				t.Fatalf("dump: %d %s", code, errs)
			}
		}
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	dumptest.WaitStable(t, bs, topic)
	if code, _, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", dir); code != 0 {
		t.Fatalf("dump: %d %s", code, errs)
	}
	code, out, errs := cli(t, "ls", "--dir", dir)
	if code != 0 {
		t.Fatalf("ls: %d %s", code, errs)
	}
	row := lsRow(t, out, topic, 0)
	want := map[string]string{"OFFSETS [FROM,UNTIL)": "[0,6)", "DATA RECORDS": "2", "MARKERS": "2", "ABORTED": "2",
		"FIRST DATA TIME": "2026-07-16 11:00:02.25Z", "LAST DATA TIME": "2026-07-16 11:00:03.25Z", "SNAPSHOTS": "2"}
	for k, v := range want {
		if row[k] != v {
			t.Errorf("ls %s = %q, want %q\n%s", k, row[k], v, out)
		}
	}
	// check gaps counts the same data records.
	if code, out, errs := cli(t, "check", "gaps", "--dir", dir, "--topic", topic, "--format", "json"); code != 0 || !strings.Contains(out, `"records": 2,`) {
		t.Errorf("check gaps: %d %s %s", code, out, errs)
	}
	// restore --dry-run writes the range the same way.
	code, out, errs = cli(t, "restore", "--brokers", b, "--dir", dir, "--topic", topic, "--to-topic", topic+"-copy", "--dry-run")
	if code != 0 || !strings.Contains(out, "partition 0: source offsets [0,6)") {
		t.Errorf("restore --dry-run: %d %s %s", code, out, errs)
	}
}

// TestLsCountsTheCuts: the wind farm's incident folder, written by code,
// has a cut every minute and manifests that list none: SNAPSHOTS counts the cuts.
func TestLsCountsTheCuts(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmIncidentFolder(t.Context(), dir, seeds.WindFarmConfig{Farms: 4, TurbinesPerFarm: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	all, err := d.ClusterSnapshots(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var snaps []*catalog.ClusterSnapshot
	for _, s := range all {
		if s.Topic == "readings" {
			snaps = append(snaps, s)
		}
	}
	code, out, errs := cli(t, "ls", "--dir", dir)
	if code != 0 {
		t.Fatalf("ls: %d %s", code, errs)
	}
	if got := lsRow(t, out, "readings", 0)["SNAPSHOTS"]; got != fmt.Sprint(len(snaps)) || len(snaps) < 2 {
		t.Errorf("SNAPSHOTS %s, the folder has %d cuts of readings\n%s", got, len(snaps), out)
	}
}

// TestLsOfOneTopic: ls --topic T prints T's lines of the whole folder's
// listing, cuts counted the same, from T's manifests and cuts alone; a
// topic the folder does not hold is the unknown topic error, with the
// nearest name.
func TestLsOfOneTopic(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmDayFolder(context.Background(), dir, 0); err != nil {
		t.Fatal(err)
	}
	code, whole, errs := cli(t, "ls", "--dir", dir)
	if code != 0 {
		t.Fatalf("ls: %d %s", code, errs)
	}
	fields := func(out string) map[string][]string {
		byTopic := map[string][]string{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			f := strings.Fields(l)
			byTopic[f[0]] = append(byTopic[f[0]], strings.Join(f, " "))
		}
		return byTopic
	}
	want := fields(whole)
	if len(want) < 2 {
		t.Fatalf("the folder holds %d topics, want several:\n%s", len(want), whole)
	}
	for topic, lines := range want {
		code, out, errs := cli(t, "ls", "--dir", dir, "--topic", topic)
		if code != 0 {
			t.Fatalf("ls --topic %s: %d %s", topic, code, errs)
		}
		got := fields(out)
		if len(got) != 1 || strings.Join(got[topic], "\n") != strings.Join(lines, "\n") {
			t.Errorf("ls --topic %s:\n%s\nwant its lines of the whole listing:\n%s", topic, out, strings.Join(lines, "\n"))
		}
	}
	code, _, errs = cli(t, "ls", "--dir", dir, "--topic", "readngs")
	if code != int(queries.ErrUnknownTopic.ExitCode()) || !strings.Contains(errs, `did you mean "readings"`) {
		t.Errorf("ls --topic readngs: %d %s; want the unknown topic error naming readings", code, errs)
	}
}

// TestLsTimesBefore1970: ls shows a record's time before 1970 (Kafka takes
// them) as sql does, a date, and -1, Kafka's "no timestamp", as such;
// before, any negative time was printed as raw milliseconds.
func TestLsTimesBefore1970(t *testing.T) {
	for _, c := range []struct {
		ms   int64
		want string
	}{
		{-5000, "1969-12-31 23:59:55Z"},
		{-4852116232933, "1816-03-30 05:56:07.067Z"},
		{-1, "-1 (none)"},
		{0, "1970-01-01 00:00:00Z"},
	} {
		if got := msTime(c.ms); !strings.HasPrefix(got, c.want) {
			t.Errorf("msTime(%d) = %q, want %q", c.ms, got, c.want)
		}
	}
}

// TestLsFirstTimeIsNotNoTimestamp: a partition holding a record without a
// timestamp (-1) beside records with one showed "-1 (none)" as its first
// data time (the manifest's oldest is that -1); the first data time is the
// oldest record time, and "-1 (none)" is only a partition whose records
// all have none.
func TestLsFirstTimeIsNotNoTimestamp(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	for p, ts := range [][]int64{{base, -1, base + 1000}, {-1, -1}} {
		var rows []catalog.Row
		for i, v := range ts {
			rows = append(rows, catalog.Row{Partition: int32(p), Offset: int64(i), Timestamp: v, TimestampType: catalog.TimestampCreate, Value: []byte("v")})
		}
		tp := catalog.TopicPartition{Topic: "t", Partition: int32(p)}
		fe, err := d.WriteDataFile(t.Context(), tp, rows, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: "t", Partition: int32(p), NextOffset: int64(len(ts)), Files: []catalog.FileEntry{fe}}); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := cli(t, "ls", "--dir", dir)
	if code != 0 {
		t.Fatalf("ls: %d %s", code, errs)
	}
	for p, want := range [][2]string{{"2026-03-01 12:00:00Z", "2026-03-01 12:00:01Z"}, {"-1 (none)", "-1 (none)"}} {
		row := lsRow(t, out, "t", p)
		if row["FIRST DATA TIME"] != want[0] || row["LAST DATA TIME"] != want[1] || row["DATA RECORDS"] != fmt.Sprint(3-p) {
			t.Errorf("partition %d: first %q last %q records %q, want %q %q:\n%s", p, row["FIRST DATA TIME"], row["LAST DATA TIME"], row["DATA RECORDS"], want[0], want[1], out)
		}
	}
}

// TestLsTopicMadeAgainWithFewerPartitions: a topic deleted and made again
// with fewer partitions has today's count on ls; the old topic's vanished
// partition (its files superseded by the dump) is shown as the old
// topic's, with its records as history, where it was listed as an empty
// partition of the topic.
func TestLsTopicMadeAgainWithFewerPartitions(t *testing.T) {
	bs := brokers(t)
	topic := dumptest.NewTopic(t, bs, 2, nil)
	p := dumptest.Producer(t, bs)
	for i := range 10 {
		dumptest.Produce(t, p, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: fmt.Appendf(nil, "old-%d", i)})
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	opts := dump.Options{Conn: kafkaconn.Conn{Brokers: bs}, Dir: dir, Topics: []string{topic}}
	if _, err := dump.Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	dumptest.RemakeTopic(t, bs, topic, 1)
	p2 := dumptest.Producer(t, bs)
	for i := range 7 {
		dumptest.Produce(t, p2, &kgo.Record{Topic: topic, Partition: 0, Value: fmt.Appendf(nil, "new-%d", i)})
	}
	if s, err := dump.Run(ctx, opts); err != nil || s.Rewrites != 2 {
		t.Fatalf("dump after the topic was made again: %+v %v", s, err)
	}
	code, out, errs := cli(t, "ls", "--dir", dir)
	if code != 0 {
		t.Fatalf("ls: exit %d: %s", code, errs)
	}
	if row := lsRow(t, out, topic, 0); row["DATA RECORDS"] != "7" {
		t.Fatalf("partition 0: %v", row)
	}
	var old string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, topic+"  ") && strings.Contains(l, " 1 (old topic's) ") {
			old = l
		}
	}
	want := "note: " + topic + ` has 1 partition today; partition 1 is the old topic's (it was deleted and made again with fewer partitions): 5 stored records, history, in the view "` + topic + `$superseded"`
	if old == "" || !strings.Contains(out, want) {
		t.Fatalf("ls does not show partition 1 as the old topic's:\n%s", out)
	}
	// --topic reads the topic's manifests and cuts alone: the same note.
	if code, out, _ := cli(t, "ls", "--dir", dir, "--topic", topic); code != 0 || !strings.Contains(out, want) {
		t.Fatalf("ls --topic: exit %d\n%s", code, out)
	}
}

// TestLsSaysOpenTransactions: a dump taken while a transaction was open
// stores its records as 'open'; ls counted them among the DATA RECORDS
// (8, with 3 of a transaction Kafka then aborted) and said nothing. They
// are still counted, as the views count them, and a note under the table
// says how many are of a transaction still open.
func TestLsSaysOpenTransactions(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	open := catalog.TxnOpen
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	var rows []catalog.Row
	for i := range int64(5) {
		r := catalog.Row{Partition: 0, Offset: i, Timestamp: base + i, TimestampType: catalog.TimestampCreate, Value: []byte("v"), ProducerID: 1}
		if i >= 2 && i <= 4 {
			r.ProducerID, r.Transactional, r.TxnState = 7, true, &open
		}
		rows = append(rows, r)
	}
	fe, err := d.WriteDataFile(t.Context(), catalog.TopicPartition{Topic: "otx", Partition: 0}, rows, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: "otx", Partition: 0, NextOffset: 5, Files: []catalog.FileEntry{fe}}); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli(t, "ls", "--dir", dir)
	if code != 0 {
		t.Fatalf("ls: %d %s", code, errs)
	}
	if row := lsRow(t, strings.SplitN(out, "\nnote:", 2)[0], "otx", 0); row["DATA RECORDS"] != "5" {
		t.Errorf("DATA RECORDS %q, want 5 (counted as the views count them):\n%s", row["DATA RECORDS"], out)
	}
	if want := "note: otx partition 0: 3 of its data records are of a transaction still open at the last dump: Kafka may yet abort them"; !strings.Contains(out, want) {
		t.Errorf("ls does not say %q:\n%s", want, out)
	}
}

// TestLsSaysRewrittenOffsets: a topic deleted and made again between two
// dumps has its old records superseded; ls listed only the new ones and
// said nothing of the old (where check gaps and check durability warn). A
// note under the table says them, and where they are kept.
func TestLsSaysRewrittenOffsets(t *testing.T) {
	bs := brokers(t)
	topic := dumptest.NewTopic(t, bs, 1, nil)
	p := dumptest.Producer(t, bs)
	for i := range 10 {
		dumptest.Produce(t, p, &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, "old-%d", i)})
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	opts := dump.Options{Conn: kafkaconn.Conn{Brokers: bs}, Dir: dir, Topics: []string{topic}}
	if _, err := dump.Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	dumptest.RemakeTopic(t, bs, topic, 1)
	p2 := dumptest.Producer(t, bs)
	for i := range 4 {
		dumptest.Produce(t, p2, &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, "new-%d", i)})
	}
	if s, err := dump.Run(ctx, opts); err != nil || s.Rewrites != 1 {
		t.Fatalf("dump after the topic was made again: %+v %v", s, err)
	}
	code, out, errs := cli(t, "ls", "--dir", dir)
	if code != 0 {
		t.Fatalf("ls: exit %d: %s", code, errs)
	}
	if row := lsRow(t, out, topic, 0); row["DATA RECORDS"] != "4" {
		t.Fatalf("partition 0: %v", row)
	}
	want := "note: " + topic + ` partition 0: offsets 0-9 (10 offsets) were dumped from the topic before it was deleted and made again under its name (another topic id): the old records are kept in the view "` + topic + `$superseded", not counted above (check gaps, check durability)`
	if !strings.Contains(out, want) {
		t.Fatalf("ls does not say the old topic's offsets:\n%s", out)
	}
	if code, out, _ := cli(t, "ls", "--dir", dir, "--topic", topic); code != 0 || !strings.Contains(out, want) {
		t.Fatalf("ls --topic: exit %d\n%s", code, out)
	}
}

// TestRewriteNote: ls's note for each kind of rewrite.
func TestRewriteNote(t *testing.T) {
	tp := catalog.TopicPartition{Topic: "tickets", Partition: 2}
	for _, tc := range []struct {
		rw   catalog.Rewrite
		want string
	}{
		{catalog.Rewrite{Kind: catalog.RewriteTruncated, First: 100, Last: 149},
			`note: tickets partition 2: offsets 100-149 (50 offsets) were rewritten by Kafka after being dumped (its log was truncated, e.g. by an unclean leader election): Kafka no longer has the records dumped there; they are kept in the view "tickets$superseded", not counted above (check gaps, check durability)`},
		{catalog.Rewrite{Kind: catalog.RewriteEndBack, First: 7, Last: 7},
			`note: tickets partition 2: offset 7 was rewritten by Kafka after being dumped (its log's end went back below what was dumped): Kafka no longer has the records dumped there; they are kept in the view "tickets$superseded", not counted above (check gaps, check durability)`},
	} {
		if got := rewriteNote(tp, tc.rw); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.rw.Kind, got, tc.want)
		}
	}
}
