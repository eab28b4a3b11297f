package queries

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// lockedBuffer is a bytes.Buffer a process writes to while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines are the lines written so far.
func (l *lockedBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(l.b.String(), "\n")
}

// watcherScenario runs the wind farm's scenario on the real broker with
// Kafka's console consumer in the given group protocol: a writer reads a
// topic of four partitions and commits; a watcher with a client id the
// group had not had joins later, is handed partitions, reads, commits and
// leaves; the writer reads on. It returns the folder (the topic and
// __consumer_offsets dumped), the group, and the records the watcher
// printed, by partition.
func watcherScenario(t *testing.T, ctx context.Context, brokers, script, protocol string) (dir, group string, watched map[int32]int) {
	t.Helper()
	bs := strings.Split(brokers, ",")
	topic := fmt.Sprintf("gales-%s-%d", protocol, time.Now().UnixNano()%1e9)
	group = topic + "-writers"
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if r, err := adm.CreateTopic(ctx, 4, 1, nil, topic); err != nil || r.Err != nil {
		t.Fatalf("create %s: %v %v", topic, err, r.Err)
	}
	produced := 0
	produce := func(n int) {
		for range n {
			p := int32(produced % 4)
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Value: fmt.Appendf(nil, "%d:%d", p, produced)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			produced++
		}
	}
	produce(40)
	stopWriter := startConsoleConsumerOf(t, script, brokers, topic, group, "galewatch-writer", protocol, nil)
	defer stopWriter()
	waitCommitted(t, ctx, adm, group, int64(produced))
	var out lockedBuffer
	stopWatcher := startConsoleConsumerOf(t, script, brokers, topic, group, "galewatch-watcher", protocol, &out)
	for !slices.ContainsFunc(out.lines(), func(l string) bool { return strings.Contains(l, ":") }) {
		if ctx.Err() != nil {
			t.Fatalf("the watcher never read a record: %v", ctx.Err())
		}
		produce(4)
		time.Sleep(500 * time.Millisecond)
	}
	produce(40)
	waitCommitted(t, ctx, adm, group, int64(produced))
	stopWatcher()
	produce(40)
	waitCommitted(t, ctx, adm, group, int64(produced))
	stopWriter()
	watched = map[int32]int{}
	for _, l := range out.lines() {
		var p int32
		var n int
		if _, err := fmt.Sscanf(l, "%d:%d", &p, &n); err != nil {
			continue // the JVM's own words (kafka.sh run prints them on stdout)
		}
		watched[p]++
	}
	dir = t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: bs}, Dir: dir, Topics: []string{topic, offsetsTopic}}); err != nil {
		t.Fatal(err)
	}
	return dir, group, watched
}

// TestMembersConsumerProtocolOnTheBroker: the wind farm's scenario with
// Kafka's console consumer, once in a classic group and once in a
// consumer-protocol (KIP-848) group. In both, check members names the
// watcher as new (the writer, of the first generation the log keeps, is
// not), when it joined and left, the partitions it held (those it printed
// records of) and exactly as many records committed past as it printed;
// the two protocols give the same answer, and group_history (the history
// page's) gives the watcher the same partitions and leave.
func TestMembersConsumerProtocolOnTheBroker(t *testing.T) {
	brokers, script := os.Getenv("TOPICSNAP_TEST_BROKERS"), os.Getenv("TOPICSNAP_TEST_KAFKA_SCRIPT")
	if brokers == "" || script == "" {
		t.Skip("needs the real broker and its tools: TOPICSNAP_TEST_BROKERS and TOPICSNAP_TEST_KAFKA_SCRIPT (make test sets them)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	answers := map[string]string{}
	for _, protocol := range []string{"classic", "consumer"} {
		t.Run(protocol, func(t *testing.T) {
			dir, group, watched := watcherScenario(t, ctx, brokers, script, protocol)
			e, err := Open(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			topic := strings.TrimSuffix(group, "-writers")
			r, err := e.RunCheck(ctx, "members", CheckOptions{Topic: topic, Group: group})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s", r.Status, r.Message)
			if r.Status != StatusWarn || r.Summary.Get("source") != "commit log" || asInt(r.Summary.Get("new_client_ids")) != 1 {
				t.Fatalf("summary %v", r.Summary.Vals)
			}
			var held []int32
			for p := range watched {
				held = append(held, p)
			}
			sort.Slice(held, func(i, j int) bool { return held[i] < held[j] })
			printed := 0
			for _, n := range watched {
				printed += n
			}
			var answer []string
			for _, row := range r.Rows {
				c, _ := row.Get("client_id").(string)
				switch c {
				case "galewatch-writer":
					if row.Get("new_client_id") != nil || row.Get("left_at") == nil || row.Get("partitions") == nil {
						t.Errorf("writer: new %v, left %v, partitions %v", row.Get("new_client_id"), row.Get("left_at"), row.Get("partitions"))
					}
					answer = append(answer, fmt.Sprintf("writer new=%v left=%v", row.Get("new_client_id"), row.Get("left_at") != nil))
				case "galewatch-watcher":
					isNew, _ := row.Get("new_client_id").(bool)
					joined, _ := row.Get("joined_at").(time.Time)
					left, _ := row.Get("left_at").(time.Time)
					if !isNew || joined.IsZero() || left.IsZero() || !left.After(joined) {
						t.Errorf("watcher %v: new %v, joined %v, left %v", row.Get("member_id"), isNew, joined, left)
					}
					if got := fmt.Sprint(row.Get("partitions")); got != fmt.Sprint(held) {
						t.Errorf("watcher held %s, it printed records of %v", got, held)
					}
					if got := asInt(row.Get("records_committed_past")); got != int64(printed) {
						t.Errorf("watcher committed past %d records, it printed %d", got, printed)
					}
					// group_history (the page's and the API's answer) agrees:
					// the same partitions, held from its join on, until it left.
					h := queryRows(t, e, fmt.Sprintf(`SELECT concat_ws(' ', list(DISTINCT "partition" ORDER BY "partition"),
						min(from_as_of) >= %s::TIMESTAMPTZ, max(until_as_of) = %s::TIMESTAMPTZ, bool_and(source = 'log'))
						FROM group_history WHERE group_id = %s AND client_id = 'galewatch-watcher'`,
						quoteString(joined.Format(time.RFC3339Nano)), quoteString(left.Format(time.RFC3339Nano)), quoteString(group)))
					if want := strings.ReplaceAll(fmt.Sprint(held), " ", ", ") + " true true true"; len(h) != 1 || h[0] != want {
						t.Errorf("group_history of the watcher: %q, want %q (check members: joined %v, left %v)", h, want, joined, left)
					}
					answer = append(answer, fmt.Sprintf("watcher new=%v left=%v", isNew, !left.IsZero()))
					t.Logf("watcher joined %v, left %v, held %v, committed past %v records", joined, left, row.Get("partitions"), row.Get("records_committed_past"))
				default:
					t.Errorf("a member with client id %q", c)
				}
			}
			sort.Strings(answer)
			answers[protocol] = fmt.Sprintf("%d members: %s", len(r.Rows), strings.Join(answer, "; "))
			t.Logf("%s: %s", protocol, answers[protocol])
		})
	}
	// What each watcher was handed differs from run to run (checked
	// against what it printed above); who is new and who left must not.
	if answers["classic"] != answers["consumer"] {
		t.Errorf("classic: %s\nconsumer: %s", answers["classic"], answers["consumer"])
	}
}
