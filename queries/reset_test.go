package queries

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// incidentExpectation computes, from the incident's records and cuts alone
// (no SQL), what a reset of the writers' group to the time would re-read on
// partitions ps: per partition the target and records, and per client id
// the records whose offset the latest step between two cuts that covered it
// was committed by one member (else "").
func incidentExpectation(inc *seeds.WindFarmIncident, to time.Time, ps []int32) (targets, records map[int32]int64, byClient map[string]int64) {
	targets, records, byClient = map[int32]int64{}, map[int32]int64{}, map[string]int64{}
	last := inc.Cuts[len(inc.Cuts)-1]
	for _, p := range ps {
		recs := inc.Records[p]
		target := int64(len(recs))
		for i, r := range recs {
			if !r.Timestamp.Before(to) {
				target = int64(i)
				break
			}
		}
		targets[p] = target
		for off := target; off < last.Committed[p]; off++ {
			records[p]++
			who := ""
			for i := len(inc.Cuts) - 1; i > 0; i-- {
				a, b := inc.Cuts[i-1], inc.Cuts[i]
				if a.Committed[p] <= off && off < b.Committed[p] {
					if a.Holder[p].MemberID == b.Holder[p].MemberID {
						who = b.Holder[p].ClientID
					}
					break
				}
			}
			byClient[who]++
		}
	}
	return targets, records, byClient
}

// TestResetOnTheWindFarmIncident: the second seed's reset, at the story's
// size (60 turbines a farm, 30 readings a second a partition): a reset of
// the writers' group to 11:00 on partitions 18-23 re-reads the readings the
// watchers had committed (about 151,200) and those the writers had
// (about 75,600), each counted exactly as the cuts say.
func TestResetOnTheWindFarmIncident(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	inc, err := seeds.WriteWindFarmIncidentFolder(ctx, dir, seeds.WindFarmConfig{TurbinesPerFarm: 60})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	to := inc.Start
	ps := []int32{18, 19, 20, 21, 22, 23}
	r, err := e.RunCheck(ctx, "reset", CheckOptions{Topic: seeds.TopicReadings, Group: seeds.IncidentGroup, ToTime: to, Partitions: ps})
	if err != nil {
		t.Fatal(err)
	}
	targets, records, byClient := incidentExpectation(inc, to, ps)
	var total int64
	for _, n := range records {
		total += n
	}
	if got := asInt(r.Summary.Get("records_to_reread")); got != total || asInt(r.Summary.Get("partitions")) != 6 {
		t.Fatalf("records_to_reread %d on %v partitions, want %d on 6: %s", got, r.Summary.Get("partitions"), total, r.Message)
	}
	gotClients := map[string]int64{}
	for _, row := range r.Rows {
		switch row.Get("kind") {
		case "partition":
			p := int32(asInt(row.Get("partition")))
			if asInt(row.Get("target_offset")) != targets[p] || asInt(row.Get("records")) != records[p] {
				t.Errorf("partition %d: target %v records %v, want %d and %d", p, row.Get("target_offset"), row.Get("records"), targets[p], records[p])
			}
			if row.Get("target_exact") != true {
				t.Errorf("partition %d: the snapshot holds it from offset 0, yet the target is not exact", p)
			}
		case "member":
			c, _ := row.Get("client_id").(string)
			gotClients[c] = asInt(row.Get("records"))
		}
	}
	if fmt.Sprint(gotClients) != fmt.Sprint(byClient) {
		t.Fatalf("records by client id:\n got %v\nwant %v", gotClients, byClient)
	}
	watchers := byClient["galewatch-watcher-1"] + byClient["galewatch-watcher-2"]
	writers := total - watchers - byClient[""]
	// The story's figures, within the generator's arrival jitter.
	if watchers < 151_000 || watchers > 151_400 || writers < 75_400 || writers > 75_800 || byClient[""] != 0 {
		t.Fatalf("watchers %d (story: 151,200), writers %d (story: 75,600), unknown %d", watchers, writers, byClient[""])
	}
	if r.Status != StatusWarn || !strings.Contains(r.Message, "galewatch-watcher-1") {
		t.Fatalf("verdict: %s %s", r.Status, r.Message)
	}
	cmd, _ := r.Summary.Get("command").(string)
	if !strings.Contains(cmd, "--topic readings:18,19,20,21,22,23 --reset-offsets --to-datetime 2026-07-16T11:00:00.000Z") {
		t.Fatalf("command: %s", cmd)
	}
	t.Logf("%s", r.Message)

	// The seed's question, one query on the membership history.
	rows, err := e.Query(ctx, `SELECT DISTINCT client_id FROM group_history
		WHERE group_id = 'galewatch-writers' AND "partition" BETWEEN 18 AND 23
		  AND from_as_of < TIMESTAMPTZ '2026-07-16 11:16:00Z' AND coalesce(until_as_of, to_as_of) > TIMESTAMPTZ '2026-07-16 11:02:00Z'
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	want := "galewatch-watcher-1;galewatch-watcher-2;galewatch-writer-5;galewatch-writer-6"
	if got := allRows(t, rows); got != want {
		t.Fatalf("members holding 18-23 between 11:02 and 11:16: %v, want %s", got, want)
	}
}

// TestGroupHistoryRunsAndSteps: the runs of the incident's partition 18 and
// the steps of its committed offset, each said by who moved it.
func TestGroupHistoryRunsAndSteps(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	inc, err := seeds.WriteWindFarmIncidentFolder(ctx, dir, seeds.WindFarmConfig{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rows, err := e.Query(ctx, `SELECT client_id, strftime(from_as_of AT TIME ZONE 'UTC', '%H:%M:%S'), strftime(to_as_of AT TIME ZONE 'UTC', '%H:%M:%S'),
		coalesce(strftime(until_as_of AT TIME ZONE 'UTC', '%H:%M:%S'), '-'), cuts, last_committed_offset - first_committed_offset
		FROM group_history WHERE "partition" = 18 ORDER BY from_as_of`)
	if err != nil {
		t.Fatal(err)
	}
	committedAt := func(at time.Duration) int64 {
		for _, cut := range inc.Cuts {
			if cut.AsOf.Equal(inc.Start.Add(at)) {
				return cut.Committed[18]
			}
		}
		t.Fatalf("no cut at %s", at)
		return 0
	}
	want := []string{
		fmt.Sprintf("galewatch-writer-5 11:00:00 11:02:00 11:02:01 3 %d", committedAt(2*time.Minute)-committedAt(0)),
		fmt.Sprintf("galewatch-watcher-1 11:02:01 11:16:00 11:16:01 15 %d", committedAt(16*time.Minute)-committedAt(2*time.Minute+time.Second)),
		fmt.Sprintf("galewatch-writer-5 11:16:01 11:21:00 - 6 %d", committedAt(21*time.Minute)-committedAt(16*time.Minute+time.Second)),
	}
	if got := allRows(t, rows); got != strings.Join(want, ";") {
		t.Fatalf("runs of partition 18:\n got %s\nwant %s", got, strings.Join(want, ";"))
	}
	steps, err := e.Query(ctx, `SELECT attribution, count(*), sum(records) FROM group_commits WHERE "partition" = 18 GROUP BY 1 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	// 24 cuts: 23 steps, two of them across a rebalance (0 records moved).
	if got := allRows(t, steps); got != fmt.Sprintf("holder changed 2 0;member 21 %d", committedAt(21*time.Minute)) {
		t.Fatalf("steps of partition 18: %s", got)
	}
}

// TestResetTargetsMatchKafkaConsumerGroups: on the real broker, the target
// offsets of check reset are those kafka-consumer-groups.sh --reset-offsets
// --to-datetime --dry-run chooses on the same topic, timestamps out of
// order, a partition with nothing at or after the time, and a group behind
// the target included.
func TestResetTargetsMatchKafkaConsumerGroups(t *testing.T) {
	script, bin := os.Getenv("TOPICSNAP_TEST_KAFKA_SCRIPT"), os.Getenv("TOPICSNAP_TEST_KAFKA_BIN")
	bs := brokers(t)
	if script == "" || bin == "" {
		t.Skip("needs kafka-consumer-groups.sh from scripts/kafka.sh (make test sets TOPICSNAP_TEST_KAFKA_SCRIPT and TOPICSNAP_TEST_KAFKA_BIN)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: bs}
	topic := fmt.Sprintf("reset-%d", time.Now().UnixNano())
	group := topic + "-g"
	if err := dump.CreateTopic(ctx, conn, topic, 3, keepForever); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 7, 16, 11, 0, 0, 0, time.UTC)
	// Offsets' timestamps, in minutes after base: out of order on 0 and 1;
	// nothing at or after the time (minute 5) on 2.
	minutes := map[int32][]int{0: {1, 2, 7, 3, 4, 6, 8, 9}, 1: {9, 1, 2, 3, 4, 4, 6}, 2: {1, 2, 3, 4}}
	var recs []dump.Record
	for p, ms := range minutes {
		for i, m := range ms {
			recs = append(recs, dump.Record{Topic: topic, Partition: p, Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprintf(`{"n":%d}`, i)),
				Timestamp: base.Add(time.Duration(m)*time.Minute + 17*time.Second)})
		}
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	if err := dump.CommitGroupOffsets(ctx, conn, group, topic, map[int32]int64{0: 8, 1: 1, 2: 4}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	to := base.Add(5 * time.Minute)
	r, err := e.RunCheck(ctx, "reset", CheckOptions{Topic: topic, Group: group, ToTime: to})
	if err != nil {
		t.Fatal(err)
	}
	ours := map[int32]int64{}
	for _, row := range r.Rows {
		if row.Get("kind") == "partition" {
			ours[int32(asInt(row.Get("partition")))] = asInt(row.Get("target_offset"))
		}
	}
	out, err := exec.CommandContext(ctx, script, "run", "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
		"--bootstrap-server", strings.Join(bs, ","), "--group", group, "--topic", topic,
		"--reset-offsets", "--to-datetime", to.Format(ResetTimeLayout), "--dry-run").CombinedOutput()
	if err != nil {
		t.Fatalf("kafka-consumer-groups: %v\n%s", err, out)
	}
	theirs := dryRunTargets(out, group, topic)
	if len(theirs) != 3 || fmt.Sprint(ours) != fmt.Sprint(theirs) {
		t.Fatalf("targets: ours %v, kafka-consumer-groups.sh's %v\n%s", ours, theirs, out)
	}
	// The command the check prints runs as printed, in a shell, with
	// Kafka's commands on PATH, and chooses the same targets.
	printed, _ := r.Summary.Get("command").(string)
	sh := exec.CommandContext(ctx, "sh", "-c", printed)
	sh.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err = sh.CombinedOutput()
	if err != nil {
		t.Fatalf("the printed command failed: %s: %v\n%s", printed, err, out)
	}
	if got := dryRunTargets(out, group, topic); fmt.Sprint(got) != fmt.Sprint(ours) {
		t.Fatalf("the printed command %s chose %v, the check %v\n%s", printed, got, ours, out)
	}
	// Out of order: partition 0's first record at or after 11:05 is offset 2
	// (11:07), though offset 3 is 11:03; partition 2 has none: its end.
	if want := map[int32]int64{0: 2, 1: 0, 2: 4}; fmt.Sprint(ours) != fmt.Sprint(want) {
		t.Fatalf("targets %v, want %v", ours, want)
	}
	// Re-read: partition 0 from 2 to 8 (6 records); 1: the group is at 1,
	// the target 0 (1 record); 2: target = end = committed (none).
	if got := asInt(r.Summary.Get("records_to_reread")); got != 7 {
		t.Fatalf("records_to_reread %d, want 7: %s", got, r.Message)
	}
	t.Logf("ours = kafka-consumer-groups.sh = %v; %s", ours, r.Message)
}

// dryRunTargets reads the targets kafka-consumer-groups.sh --dry-run
// prints (GROUP TOPIC PARTITION NEW-OFFSET).
func dryRunTargets(out []byte, group, topic string) map[int32]int64 {
	theirs := map[int32]int64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 4 && f[0] == group && f[1] == topic {
			p, _ := strconv.Atoi(f[2])
			o, _ := strconv.ParseInt(f[3], 10, 64)
			theirs[int32(p)] = o
		}
	}
	return theirs
}
