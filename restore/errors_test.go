package restore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// A refusal to a restore is a kafkaconn.AuthzError (exit 7) whose hint is
// a producer's grants: the words are the ones the command printed when
// restore lived in package dump, to the letter.
func TestAuthzHints(t *testing.T) {
	const grants = "WRITE and DESCRIBE on transactional ids topicsnap-restore-orders and topicsnap-restore-orders-1 " +
		"(or the prefix topicsnap-restore-orders) and READ on group topicsnap-restore-orders"
	ctx := context.Background()
	// Every refusal's hint is every grant a restore needs, READ on the
	// topic among them (the progress's offset commit needs it); before,
	// READ was not named and a principal granted what the hint said was
	// refused at the first commit.
	const all = "ask the cluster's operator for WRITE, READ and DESCRIBE on topic orders for User:alice (CREATE too when the topic does not exist), " + grants
	cases := []struct {
		name   string
		err    error
		action string
		ops    string
		hint   string
	}{
		{"a transactional id", restoreErr(ctx, "produce", "User:alice", "orders", "topicsnap-restore-orders-1", kerr.TransactionalIDAuthorizationFailed),
			`use transactional id "topicsnap-restore-orders-1"`, "WRITE (and WRITE and DESCRIBE on transactional ids", all},
		{"a write to the topic", restoreErr(ctx, "produce", "User:alice", "orders", "topicsnap-restore-orders", kerr.TopicAuthorizationFailed),
			`produce to topic "orders"`, "WRITE and DESCRIBE", all},
		{"the progress's offset commit", restoreErr(ctx, "commit the progress", "User:alice", "orders", "topicsnap-restore-orders", kerr.TopicAuthorizationFailed),
			`commit the progress to topic "orders"`, "READ (Kafka authorizes an offset commit", all},
		{"creating the topic", deniedErr("User:alice", `create topic "orders"`, "orders", "CREATE", kerr.TopicAuthorizationFailed),
			`create topic "orders"`, "CREATE", all},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ae *kafkaconn.AuthzError
			if !errors.As(c.err, &ae) || !errors.Is(c.err, kafkaconn.ErrAuthorization) || ae.Action != c.action {
				t.Fatalf("got %v, want an AuthzError of %s", c.err, c.action)
			}
			code, hint := exit.Of(c.err)
			if !strings.HasPrefix(ae.Ops, c.ops) {
				t.Errorf("needs %q, want %q first", ae.Ops, c.ops)
			}
			if code != exit.NotAllowed || hint != c.hint {
				t.Fatalf("exit %d, hint\n%q\nwant exit %d, hint\n%q", code, hint, exit.NotAllowed, c.hint)
			}
		})
	}
	if err := deniedErr("User:alice", "produce", "orders", "WRITE", kerr.NotLeaderForPartition); err != nil {
		t.Fatalf("a broker's other error taken for a refusal: %v", err)
	}
}

// A principal with no grant at all, on the real broker's SASL listener, is
// refused at the first look at the target: the hint names every grant a
// restore needs, and nothing is created.
func TestRestoreRefusedNamesTheGrants(t *testing.T) {
	sasl, user, pass := os.Getenv("TOPICSNAP_TEST_SASL_BROKERS"), os.Getenv("TOPICSNAP_TEST_NOACL_USER"), os.Getenv("TOPICSNAP_TEST_NOACL_PASSWORD")
	if sasl == "" || user == "" || pass == "" {
		t.Skip("needs TOPICSNAP_TEST_SASL_BROKERS, TOPICSNAP_TEST_NOACL_USER and TOPICSNAP_TEST_NOACL_PASSWORD (make test sets them)")
	}
	topic := "restore-refused"
	d := catalogtest.Folder(t, t.TempDir(), topic, map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 10)}})
	cfg := filepath.Join(t.TempDir(), "client.properties")
	props := "bootstrap.servers=" + sasl + "\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.username=" + user + "\nsasl.password=" + pass + "\n"
	if err := os.WriteFile(cfg, []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	target := topic + "-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	_, err := Run(t.Context(), Options{Conn: kafkaconn.Conn{ConfigFile: cfg}, Dir: d.Path, Topic: topic, ToTopic: target})
	var ae *kafkaconn.AuthzError
	if !errors.As(err, &ae) || ae.Principal != "User:"+user || ae.Topic != target {
		t.Fatalf("got %v, want an AuthzError of User:%s on %s", err, user, target)
	}
	code, hint := exit.Of(err)
	for _, s := range []string{"User:" + user, target, "transactional ids " + TxnID(target, 0) + " and " + TxnID(target, 1), "READ on group " + ID(target)} {
		if !strings.Contains(hint, s) {
			t.Errorf("hint %q does not name %q", hint, s)
		}
	}
	if code != exit.NotAllowed || strings.Contains(err.Error()+hint, pass) {
		t.Fatalf("exit %d (want %d), or the password shown: %v; %s", code, exit.NotAllowed, err, hint)
	}
}

// TestRestoreWithTheGrantsItNames: a principal granted exactly what a
// refusal's hint names (its operations on the target topic, WRITE and
// DESCRIBE on the transactional ids' prefix, READ on the group) restores,
// on the real broker's SASL listener, into a topic that exists. Before,
// the hint named WRITE and DESCRIBE on the topic, and the first commit of
// the progress was refused: `may not commit the progress to topic …;
// that needs WRITE and DESCRIBE … TOPIC_AUTHORIZATION_FAILED` (Kafka
// authorizes TxnOffsetCommit as READ on the topic).
func TestRestoreWithTheGrantsItNames(t *testing.T) {
	plain := os.Getenv("TOPICSNAP_TEST_BROKERS")
	sasl, user, pass := os.Getenv("TOPICSNAP_TEST_SASL_BROKERS"), os.Getenv("TOPICSNAP_TEST_NOACL_USER"), os.Getenv("TOPICSNAP_TEST_NOACL_PASSWORD")
	if plain == "" || sasl == "" || user == "" || pass == "" {
		t.Skip("needs TOPICSNAP_TEST_BROKERS, TOPICSNAP_TEST_SASL_BROKERS, TOPICSNAP_TEST_NOACL_USER and TOPICSNAP_TEST_NOACL_PASSWORD (make test sets them)")
	}
	topic := "restore-granted"
	d := catalogtest.Folder(t, t.TempDir(), topic, map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 10)}})
	cfg := filepath.Join(t.TempDir(), "client.properties")
	props := "bootstrap.servers=" + sasl + "\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.username=" + user + "\nsasl.password=" + pass + "\n"
	if err := os.WriteFile(cfg, []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	target := fmt.Sprintf("restore-granted-%d", time.Now().UnixNano())
	// The admin: ANONYMOUS on the PLAINTEXT listener is a super user.
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(plain, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(t.Context(), 1, 1, nil, target); err != nil {
		t.Fatal(err)
	}
	opts := Options{Conn: kafkaconn.Conn{ConfigFile: cfg}, Dir: d.Path, Topic: topic, ToTopic: target}
	_, err = Run(t.Context(), opts)
	code, hint := exit.Of(err)
	if code != exit.NotAllowed {
		t.Fatalf("restore without a grant: %v, want exit %d", err, exit.NotAllowed)
	}
	// The operations the hint names on the topic: "… for OPS on topic T for …".
	i, j := strings.Index(hint, " for "), strings.Index(hint, " on topic "+target)
	if i < 0 || j < i {
		t.Fatalf("hint %q names no operations on topic %s", hint, target)
	}
	var ops []kadm.ACLOperation
	for _, w := range strings.FieldsFunc(hint[i+5:j], func(r rune) bool { return r == ' ' || r == ',' }) {
		switch w {
		case "WRITE":
			ops = append(ops, kadm.OpWrite)
		case "READ":
			ops = append(ops, kadm.OpRead)
		case "DESCRIBE":
			ops = append(ops, kadm.OpDescribe)
		}
	}
	principal := "User:" + user
	acls := []*kadm.ACLBuilder{
		kadm.NewACLs().Topics(target).Allow(principal).AllowHosts().Operations(ops...).ResourcePatternType(kadm.ACLPatternLiteral),
		kadm.NewACLs().TransactionalIDs(ID(target)).Allow(principal).AllowHosts().Operations(kadm.OpWrite, kadm.OpDescribe).ResourcePatternType(kadm.ACLPatternPrefixed),
		kadm.NewACLs().Groups(ID(target)).Allow(principal).AllowHosts().Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral),
	}
	for _, b := range acls {
		res, err := adm.CreateACLs(t.Context(), b)
		for _, r := range res {
			err = errors.Join(err, r.Err)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, b := range acls {
			adm.DeleteACLs(context.Background(), b)
		}
		adm.DeleteTopics(context.Background(), target)
	})
	sum, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatalf("restore granted %v on topic %s (the hint: %q): %v", ops, target, hint, err)
	}
	if sum.Records != 10 {
		t.Errorf("restored %d records, want 10", sum.Records)
	}
}
