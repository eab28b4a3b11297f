package dump

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestGroupsListedOnSomeBrokers: of two brokers, one answers ListGroups
// with an error for longer than the cut waits (a broker crashed, still in
// the metadata; one loading its groups). The dump goes on: its cut
// records the groups the other broker listed and, in groups_error, that
// the groups of the broker that did not answer are not recorded. It
// stopped the whole dump ("list groups: …"), every topic undumped; and a
// broker that answers again within the wait is asked again: all groups.
func TestGroupsListedOnSomeBrokers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failures int // ListGroups answers broker 1 refuses; -1: all
	}{
		{"broker 1 never answers", -1},
		{"broker 1 answers on the third try", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(w time.Duration) { leaderWait = w }(leaderWait)
			leaderWait = 1500 * time.Millisecond
			c, err := kfake.NewCluster(kfake.NumBrokers(2), kfake.SeedTopics(1, "t", "u"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			brokers := c.ListenAddrs()
			dumptest.Produce(t, dumptest.Producer(t, brokers), &kgo.Record{Topic: "t", Value: []byte("a")}, &kgo.Record{Topic: "u", Value: []byte("b")})
			cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			var o kadm.Offsets
			o.AddOffset("t", 0, 1, -1)
			if _, err := kadm.NewClient(cl).CommitOffsets(t.Context(), "readers", o); err != nil {
				t.Fatal(err)
			}
			refused := 0
			c.ControlKey(int16(kmsg.ListGroups), func(req kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				if c.CurrentNode() != 1 || (tc.failures >= 0 && refused >= tc.failures) {
					return nil, nil, false
				}
				refused++
				resp := req.(*kmsg.ListGroupsRequest).ResponseKind().(*kmsg.ListGroupsResponse)
				resp.ErrorCode = kerr.UnknownServerError.Code
				return resp, nil, true
			})
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			dir := t.TempDir()
			s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"t", "u"}})
			if err != nil || s.Records != 2 {
				t.Fatalf("dump: %v, %v; want both records dumped", s, err)
			}
			if refused == 0 {
				t.Fatal("no ListGroups was refused: the test proves nothing")
			}
			d, err := catalog.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			cuts, err := d.ClusterSnapshotsOf(t.Context(), []string{"t"})
			if other, err := d.ClusterSnapshotsOf(t.Context(), []string{"u"}); err != nil || len(other) != 1 || len(cuts) != 1 || other[0].GroupsError != cuts[0].GroupsError {
				t.Fatalf("topic u's cut %+v, %v: want the same groups read as t's", other, err)
			}
			if err != nil || len(cuts) != 1 {
				t.Fatalf("cuts %v, %v", cuts, err)
			}
			cut := cuts[0]
			// kfake's group coordinator is one of the two brokers: the group
			// is recorded when broker 1 answered, or does not coordinate it.
			if tc.failures < 0 {
				if !strings.Contains(cut.GroupsError, "could not be listed on broker 1") || !strings.Contains(cut.GroupsError, "UNKNOWN_SERVER_ERROR") {
					t.Errorf("groups error %q: want broker 1's groups said not recorded", cut.GroupsError)
				}
				// The round's other topic takes the same read, not a wait of
				// its own: one wait's asking (about 5 within 1.5 s of
				// backoff from 100 ms), not two.
				if refused > 7 {
					t.Errorf("broker 1 was asked %d times: each topic waited for it", refused)
				}
				return
			}
			if cut.GroupsError != "" || len(cut.Groups) != 1 || cut.Groups[0].Group != "readers" {
				t.Errorf("groups %+v, error %q: want the group read, every broker answering in the end", cut.Groups, cut.GroupsError)
			}
		})
	}
}
