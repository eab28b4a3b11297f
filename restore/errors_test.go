package restore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

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
	cases := []struct {
		name   string
		err    error
		action string
		hint   string
	}{
		{"a transactional id", restoreErr(ctx, "produce", "User:alice", "orders", "topicsnap-restore-orders-1", kerr.TransactionalIDAuthorizationFailed),
			`use transactional id "topicsnap-restore-orders-1"`,
			"ask the cluster's operator for WRITE (and WRITE and DESCRIBE on transactional ids topicsnap-restore-orders and topicsnap-restore-orders-1 " +
				"or the prefix topicsnap-restore-orders, READ on group topicsnap-restore-orders) on topic orders for User:alice (CREATE too when the topic does not exist), " + grants},
		{"a write to the topic", restoreErr(ctx, "produce", "User:alice", "orders", "topicsnap-restore-orders", kerr.TopicAuthorizationFailed),
			`produce to topic "orders"`,
			"ask the cluster's operator for WRITE and DESCRIBE on topic orders for User:alice (CREATE too when the topic does not exist), " + grants},
		{"creating the topic", deniedErr("User:alice", `create topic "orders"`, "orders", "CREATE", kerr.TopicAuthorizationFailed),
			`create topic "orders"`,
			"ask the cluster's operator for CREATE on topic orders for User:alice (CREATE too when the topic does not exist), " + grants},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ae *kafkaconn.AuthzError
			if !errors.As(c.err, &ae) || !errors.Is(c.err, kafkaconn.ErrAuthorization) || ae.Action != c.action {
				t.Fatalf("got %v, want an AuthzError of %s", c.err, c.action)
			}
			code, hint := exit.Of(c.err)
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
