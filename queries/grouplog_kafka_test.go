package queries

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// Kafka's own tools as the reference for the decoded commit log:
// kafka-dump-log.sh --offsets-decoder (org.apache.kafka.tools.DumpLogSegments)
// over the broker's segment files of __consumer_offsets, record by record,
// and kafka-consumer-groups.sh --describe --members --verbose
// (org.apache.kafka.tools.consumer.group.ConsumerGroupCommand) for the
// members. Both run through scripts/kafka.sh run; the segment files are
// read from TOPICSNAP_TEST_KAFKA_DATA_DIR (scripts/test.sh sets it to the
// shared broker's log.dirs).

// kafkaTool runs a Kafka tool's main class through scripts/kafka.sh.
func kafkaTool(t *testing.T, ctx context.Context, script string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, script, append([]string{"run"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(script), strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// dumpLogLine is one record of DumpLogSegments' output: "| offset: N ...
// key: {json} payload: {json}" ("<DELETED>" for a tombstone).
var dumpLogLine = regexp.MustCompile(`^\| offset: (\d+) .* key: (\{.*\}) payload: (.*)$`)

// kafkaTopicID writes Kafka's base64 topic id as a UUID, as the views do.
func kafkaTopicID(t *testing.T, s string) string {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || len(b) != 16 {
		t.Fatalf("topic id %q: %v", s, err)
	}
	return uuidText(b)
}

// uuidText writes 16 bytes as a UUID.
func uuidText(b []byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// kafkaLogRecords reads, with DumpLogSegments, every segment of the
// broker's __consumer_offsets partitions and returns, one line per record
// of the groups named (offsets up to upTo[partition]), the facts the views
// also give: commits, classic generations and consumer-protocol current
// assignments.
func kafkaLogRecords(t *testing.T, ctx context.Context, script, dataDir string, groups []string, upTo map[int32]int64) []string {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(dataDir, "__consumer_offsets-*", "*.log"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segment of __consumer_offsets under %s (TOPICSNAP_TEST_KAFKA_DATA_DIR): %v", dataDir, err)
	}
	var out []string
	for _, seg := range segs {
		var p int32
		if _, err := fmt.Sscanf(filepath.Base(filepath.Dir(seg)), "__consumer_offsets-%d", &p); err != nil {
			t.Fatal(err)
		}
		text := kafkaTool(t, ctx, script, "org.apache.kafka.tools.DumpLogSegments", "--offsets-decoder", "--print-data-log", "--files", seg)
		sc := bufio.NewScanner(strings.NewReader(text))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			m := dumpLogLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			var off int64
			fmt.Sscan(m[1], &off)
			if last, ok := upTo[p]; !ok || off > last {
				continue
			}
			var key struct {
				Type string `json:"type"`
				Data struct {
					Group     string `json:"group"`
					GroupID   string `json:"groupId"`
					MemberID  string `json:"memberId"`
					Topic     string `json:"topic"`
					Partition int32  `json:"partition"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(m[2]), &key); err != nil {
				t.Fatalf("key of offset %d: %v: %s", off, err, m[2])
			}
			group := key.Data.Group + key.Data.GroupID
			if !slices.Contains(groups, group) {
				continue
			}
			deleted := m[3] == "<DELETED>"
			var payload struct {
				Data json.RawMessage `json:"data"`
			}
			if !deleted {
				if err := json.Unmarshal([]byte(m[3]), &payload); err != nil {
					t.Fatalf("payload of offset %d: %v: %s", off, err, m[3])
				}
			}
			switch key.Type {
			case "0", "1":
				if deleted {
					out = append(out, fmt.Sprintf("%d/%d commit %s %s/%d deleted", p, off, group, key.Data.Topic, key.Data.Partition))
					continue
				}
				var c struct {
					Offset          int64  `json:"offset"`
					LeaderEpoch     int32  `json:"leaderEpoch"`
					Metadata        string `json:"metadata"`
					CommitTimestamp int64  `json:"commitTimestamp"`
					TopicID         string `json:"topicId"`
				}
				c.LeaderEpoch = -1
				if err := json.Unmarshal(payload.Data, &c); err != nil {
					t.Fatal(err)
				}
				id := "-"
				if c.TopicID != "" {
					id = kafkaTopicID(t, c.TopicID)
				}
				out = append(out, fmt.Sprintf("%d/%d commit %s %s/%d %d epoch %d %q at %d id %s", p, off, group, key.Data.Topic, key.Data.Partition,
					c.Offset, c.LeaderEpoch, c.Metadata, c.CommitTimestamp, id))
			case "2":
				if deleted {
					continue // the views keep no row for a group's deletion
				}
				var g struct {
					ProtocolType string  `json:"protocolType"`
					Generation   int32   `json:"generation"`
					Protocol     *string `json:"protocol"`
					Leader       *string `json:"leader"`
					Members      []struct {
						MemberID   string `json:"memberId"`
						ClientID   string `json:"clientId"`
						ClientHost string `json:"clientHost"`
						Rebalance  int32  `json:"rebalanceTimeout"`
						Session    int32  `json:"sessionTimeout"`
						Assignment struct {
							Assigned []struct {
								Topic      string  `json:"topic"`
								Partitions []int32 `json:"partitions"`
							} `json:"assignedPartitions"`
						} `json:"assignment"`
					} `json:"members"`
				}
				if err := json.Unmarshal(payload.Data, &g); err != nil {
					t.Fatal(err)
				}
				str := func(s *string) string {
					if s == nil {
						return "-"
					}
					return *s
				}
				var ms []string
				for _, mb := range g.Members {
					var as []string
					for _, a := range mb.Assignment.Assigned {
						as = append(as, fmt.Sprintf("%s:%v", a.Topic, a.Partitions))
					}
					ms = append(ms, fmt.Sprintf("%s %s %s %d %d %v", mb.MemberID, mb.ClientID, mb.ClientHost, mb.Session, mb.Rebalance, as))
				}
				sort.Strings(ms)
				out = append(out, fmt.Sprintf("%d/%d generation %s %d %s %s %s %q", p, off, group, g.Generation, g.ProtocolType, str(g.Protocol), str(g.Leader), ms))
			case "8":
				if deleted {
					continue // a member gone: group_generations keeps no row for it
				}
				var c struct {
					MemberEpoch int32 `json:"memberEpoch"`
					Assigned    []struct {
						TopicID    string  `json:"topicId"`
						Partitions []int32 `json:"partitions"`
					} `json:"assignedPartitions"`
				}
				if err := json.Unmarshal(payload.Data, &c); err != nil {
					t.Fatal(err)
				}
				var as []string
				for _, a := range c.Assigned {
					as = append(as, fmt.Sprintf("%s:%v", kafkaTopicID(t, a.TopicID), a.Partitions))
				}
				out = append(out, fmt.Sprintf("%d/%d current %s %s %d %v", p, off, group, key.Data.MemberID, c.MemberEpoch, as))
			}
		}
	}
	sort.Strings(out)
	return out
}

// viewLogRecords is kafkaLogRecords' answer from the views.
func viewLogRecords(t *testing.T, e *Engine, groups []string) []string {
	t.Helper()
	in := make([]string, len(groups))
	for i, g := range groups {
		in[i] = quoteString(g)
	}
	list := strings.Join(in, ", ")
	commits := queryRows(t, e, `SELECT log_partition || '/' || log_offset || ' commit ' || group_id || ' ' || topic || '/' || "partition" ||
		CASE WHEN deleted THEN ' deleted' ELSE ' ' || committed_offset || ' epoch ' || coalesce(leader_epoch, -1) || ' ' || to_json(metadata)::VARCHAR ||
		' at ' || epoch_ms(commit_time) || ' id ' || coalesce(topic_id, '-') END FROM group_commit_log WHERE group_id IN (`+list+`)`)
	// A classic generation, its members sorted as above (Go's %v of a
	// slice of strings: [a b]; %q of them: ["a" "b"]).
	type member struct{ line string }
	gens := map[string][]string{}
	heads := map[string]string{}
	rows, err := e.Query(context.Background(), `SELECT log_partition || '/' || log_offset, group_id, generation, protocol_type, coalesce(protocol_name, '-'),
		coalesce(leader, '-'), member_id, client_id, client_host, session_timeout_ms, rebalance_timeout_ms,
		list_transform(assignment, a -> a.topic || ':[' || array_to_string(a.partitions, ' ') || ']')
		FROM group_generations WHERE group_protocol = 'classic' AND group_id IN (`+list+`)`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var at, group, ptype, proto, leader string
		var gen int32
		var mid, cid, host *string
		var sess, reb *int32
		var asv any
		if err := rows.Scan(&at, &group, &gen, &ptype, &proto, &leader, &mid, &cid, &host, &sess, &reb, &asv); err != nil {
			t.Fatal(err)
		}
		as, _ := asv.([]any)
		heads[at] = fmt.Sprintf("%s generation %s %d %s %s %s", at, group, gen, ptype, proto, leader)
		if mid != nil {
			ss := make([]string, len(as))
			for i, a := range as {
				ss[i] = fmt.Sprint(a)
			}
			gens[at] = append(gens[at], fmt.Sprintf("%s %s %s %d %d %v", *mid, *cid, *host, *sess, *reb, ss))
		} else if _, ok := gens[at]; !ok {
			gens[at] = nil
		}
	}
	rows.Close()
	out := commits
	for at, ms := range gens {
		sort.Strings(ms)
		out = append(out, fmt.Sprintf("%s %q", heads[at], ms))
	}
	out = append(out, queryRows(t, e, `SELECT log_partition || '/' || log_offset || ' current ' || group_id || ' ' || member_id || ' ' || generation || ' ' ||
		'[' || array_to_string(list_transform(assignment, a -> a.topic_id || ':[' || array_to_string(a.partitions, ' ') || ']'), ' ') || ']'
		FROM group_generations WHERE group_protocol = 'consumer' AND group_id IN (`+list+`)`)...)
	sort.Strings(out)
	return out
}

// startConsoleConsumer runs Kafka's console consumer in group (protocol
// consumer: KIP-848) on topic, in a process group of its own, committing
// every half second; stop ends that process group.
func startConsoleConsumer(t *testing.T, script, brokers, topic, group, clientID string) (stop func()) {
	t.Helper()
	return startConsoleConsumerOf(t, script, brokers, topic, group, clientID, "consumer", nil)
}

// startConsoleConsumerOf is startConsoleConsumer with the group protocol
// ("consumer" or "classic") and where the records it prints go (nil:
// nowhere).
func startConsoleConsumerOf(t *testing.T, script, brokers, topic, group, clientID, protocol string, out io.Writer) (stop func()) {
	t.Helper()
	cmd := exec.Command(script, "run", "org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server", brokers,
		"--topic", topic, "--group", group, "--from-beginning",
		"--consumer-property", "group.protocol="+protocol, "--consumer-property", "client.id="+clientID,
		"--consumer-property", "auto.commit.interval.ms=500")
	cmd.Stdout = out
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			t.Logf("console consumer's log:\n%s", errb.String())
		}
	}
}

// waitCommitted waits until group has committed offsets summing to n.
func waitCommitted(t *testing.T, ctx context.Context, adm *kadm.Client, group string, n int64) {
	t.Helper()
	for {
		offs, err := adm.FetchOffsets(ctx, group)
		var sum int64
		if err == nil {
			offs.Each(func(o kadm.OffsetResponse) { sum += o.At })
		}
		if sum >= n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("group %s committed %d of %d records (%v)", group, sum, n, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// describedMembers parses kafka-consumer-groups.sh --describe --members
// --verbose: "member client host [topic:partitions ...]" per member, the
// assignment in the column CURRENT-ASSIGNMENT (consumer protocol) or
// ASSIGNMENT (classic).
func describedMembers(t *testing.T, text string) []string {
	t.Helper()
	var cols []string
	var out []string
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if f[0] == "GROUP" {
			cols = f
			continue
		}
		if cols == nil {
			continue
		}
		get := func(name string) string {
			if i := slices.Index(cols, name); i >= 0 && i < len(f) {
				return f[i]
			}
			return ""
		}
		as := get("CURRENT-ASSIGNMENT")
		if as == "" {
			as = get("ASSIGNMENT")
		}
		out = append(out, fmt.Sprintf("%s %s %s %s", get("CONSUMER-ID"), get("CLIENT-ID"), get("HOST"), normAssignment(as)))
	}
	sort.Strings(out)
	return out
}

// normAssignment writes "t(0,1,2)" or "t:0,1,2" (several topics joined by
// commas or spaces) as "t:0,1,2", topics sorted; "-" stays "-".
var assignmentPart = regexp.MustCompile(`([^\s(:,]+)[(:]([\d,]+)\)?`)

func normAssignment(s string) string {
	var parts []string
	for _, m := range assignmentPart.FindAllStringSubmatch(s, -1) {
		ps := strings.Split(m[2], ",")
		slices.SortFunc(ps, func(a, b string) int { return len(a) - len(b) + strings.Compare(a, b)*boolInt(len(a) == len(b)) })
		parts = append(parts, m[1]+":"+strings.Join(ps, ","))
	}
	if len(parts) == 0 {
		return "-"
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// viewMembers is describedMembers' answer from group_generations: a
// classic group's members in its latest generation; a consumer-protocol
// group's members each by its latest current assignment (its topic ids
// named by topics, a map the test knows).
func viewMembers(t *testing.T, e *Engine, group string, names map[string]string) []string {
	t.Helper()
	rows, err := e.Query(context.Background(), `WITH g AS (SELECT * FROM group_generations WHERE group_id = ? AND member_id IS NOT NULL),
  latest AS (SELECT * FROM g WHERE group_protocol = 'classic' QUALIFY log_offset = max(log_offset) OVER ()
    UNION ALL BY NAME SELECT * FROM g WHERE group_protocol = 'consumer' QUALIFY log_offset = max(log_offset) OVER (PARTITION BY member_id))
  SELECT member_id, coalesce(client_id, '-'), coalesce(client_host, '-'),
    list_transform(assignment, a -> coalesce(a.topic, a.topic_id) || ':' || array_to_string(list_sort(a.partitions), ','))
  FROM latest`, group)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, cid, host string
		var asv any
		if err := rows.Scan(&id, &cid, &host, &asv); err != nil {
			t.Fatal(err)
		}
		as, _ := asv.([]any)
		var ps []string
		for _, a := range as {
			s := fmt.Sprint(a)
			for uid, name := range names {
				s = strings.Replace(s, uid+":", name+":", 1)
			}
			ps = append(ps, s)
		}
		sort.Strings(ps)
		a := strings.Join(ps, ";")
		if a == "" {
			a = "-"
		}
		out = append(out, fmt.Sprintf("%s %s %s %s", id, cid, host, a))
	}
	sort.Strings(out)
	return out
}

// TestGroupLogMatchesKafkasTools: a classic group (franz-go) and a
// consumer-protocol group (Kafka's console consumer, group.protocol=
// consumer) read and commit on the shared broker and stay; the dump of
// __consumer_offsets then gives, for these two groups and record by
// record, the commits, classic generations and current assignments
// kafka-dump-log.sh --offsets-decoder reads from the broker's segment
// files, and the members kafka-consumer-groups.sh --describe --members
// --verbose lists.
func TestGroupLogMatchesKafkasTools(t *testing.T) {
	brokers, script, dataDir := os.Getenv("TOPICSNAP_TEST_BROKERS"), os.Getenv("TOPICSNAP_TEST_KAFKA_SCRIPT"), os.Getenv("TOPICSNAP_TEST_KAFKA_DATA_DIR")
	if brokers == "" || script == "" || dataDir == "" {
		t.Skip("needs the real broker, its tools and its data directory: TOPICSNAP_TEST_BROKERS, TOPICSNAP_TEST_KAFKA_SCRIPT and TOPICSNAP_TEST_KAFKA_DATA_DIR (make test sets them)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bs := strings.Split(brokers, ",")
	topic := fmt.Sprintf("blades-%d", time.Now().UnixNano()%1e9)
	classic, consumer := topic+"-classic", topic+"-848"
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if r, err := adm.CreateTopic(ctx, 3, 1, nil, topic); err != nil || r.Err != nil {
		t.Fatalf("create %s: %v %v", topic, err, r.Err)
	}
	for i := range 30 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	// The classic member reads everything, commits, and stays.
	member, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.ClientID("blade-classic"), kgo.ConsumerGroup(classic),
		kgo.ConsumeTopics(topic), kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	for got := 0; got < 30; {
		fs := member.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("classic group: %v", err)
		}
		got += fs.NumRecords()
	}
	if err := member.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	stop := startConsoleConsumer(t, script, brokers, topic, consumer, "blade-848")
	defer stop()
	waitCommitted(t, ctx, adm, consumer, 30)

	describe := func(group string) []string {
		return describedMembers(t, kafkaTool(t, ctx, script, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
			"--bootstrap-server", brokers, "--describe", "--members", "--verbose", "--group", group))
	}
	wantClassic, wantConsumer := describe(classic), describe(consumer)

	dir := t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: bs}, Dir: dir, Topics: []string{offsetsTopic}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	upTo := map[int32]int64{}
	for _, r := range queryRows(t, e, `SELECT "partition" || ' ' || max("offset") FROM "__consumer_offsets$all" GROUP BY "partition"`) {
		var p int32
		var o int64
		fmt.Sscan(r, &p, &o)
		upTo[p] = o
	}
	groups := []string{classic, consumer}
	want := kafkaLogRecords(t, ctx, script, dataDir, groups, upTo)
	got := viewLogRecords(t, e, groups)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the views and kafka-dump-log.sh --offsets-decoder differ for groups %s and %s\n views:\n  %s\n kafka:\n  %s",
			classic, consumer, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	t.Logf("%d records of groups %s and %s compared with kafka-dump-log.sh --offsets-decoder", len(want), classic, consumer)
	for _, kind := range []string{" commit " + classic, " generation " + classic, " commit " + consumer, " current " + consumer} {
		if !slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, kind) }) {
			t.Errorf("kafka-dump-log.sh shows no%s record: the comparison would prove nothing", kind)
		}
	}
	// Each commit names the member that held its partition at the time:
	// for the consumer-protocol group, by its current assignment records.
	for g, client := range map[string]string{classic: "blade-classic", consumer: "blade-848"} {
		got := queryRows(t, e, fmt.Sprintf(`SELECT DISTINCT coalesce(client_id, '-') || ' ' || (generation IS NOT NULL)
			FROM group_commit_log WHERE group_id = %s AND NOT deleted`, quoteString(g)))
		if want := []string{client + " true"}; !reflect.DeepEqual(got, want) {
			t.Errorf("group %s: commits made by %q, want %q", g, got, want)
		}
	}
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	id := td[topic].ID
	names := map[string]string{uuidText(id[:]): topic}
	for _, g := range []struct {
		group string
		want  []string
	}{{classic, wantClassic}, {consumer, wantConsumer}} {
		if len(g.want) == 0 {
			t.Errorf("kafka-consumer-groups.sh lists no member of %s", g.group)
		}
		if got := viewMembers(t, e, g.group, names); !reflect.DeepEqual(got, g.want) {
			t.Errorf("group %s: members from the log %q, kafka-consumer-groups.sh --describe --members --verbose %q", g.group, got, g.want)
		}
	}
}
