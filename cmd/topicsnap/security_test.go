package main

// The errors a user meets first: TLS set up wrong, a principal without ACLs,
// a folder that cannot be written. Each is run through the CLI against the
// real broker `make test` starts (its SSL listener, its authorizer and the
// SCRAM user "noacl"), and each must exit with its own code and say what to
// fix on one line, without ever printing a secret.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// needEnv returns the named environment variables, or skips the test when
// one is unset (go test alone; make test sets them all).
func needEnv(t *testing.T, names ...string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		v := os.Getenv(n)
		if v == "" {
			t.Skipf("needs %s: the real broker's listeners and users (make test sets it)", n)
		}
		out = append(out, v)
	}
	return out
}

// topicWith creates a topic on the PLAINTEXT listener and produces recs
// values into it, round-robin over its partitions.
func topicWith(t *testing.T, bs []string, partitions int32, values ...string) string {
	t.Helper()
	topic := fmt.Sprintf("sec-%s-%d", strings.ToLower(strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())), time.Now().UnixNano()%1e9)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: bs}
	if err := dump.CreateTopic(ctx, conn, topic, partitions, nil); err != nil {
		t.Fatal(err)
	}
	var recs []dump.Record
	for i, v := range values {
		recs = append(recs, dump.Record{Topic: topic, Partition: int32(i) % partitions, Key: []byte(fmt.Sprint(i)), Value: []byte(v)})
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	return topic
}

// dumpedValues reads every value of topic back from dir, sorted.
func dumpedValues(t *testing.T, dir, topic string) []string {
	t.Helper()
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := d.Manifests(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		for _, f := range m.Files {
			rows, err := catalog.ReadDataFile(d.FilePath(m.TP(), f.Name))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				out = append(out, string(r.Value))
			}
		}
	}
	sort.Strings(out)
	return out
}

// errorAndTry checks that stderr ends in one Error: line and one Try: line,
// after nothing but warnings.
func errorAndTry(t *testing.T, stderr string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	for len(lines) > 2 && strings.HasPrefix(lines[0], "warning: ") {
		lines = lines[1:]
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "Error: ") || !strings.HasPrefix(lines[1], "Try: ") {
		t.Errorf("want warnings at most, then one Error: line and one Try: line; got %q", stderr)
	}
}

func writeConfig(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// otherCA writes a CA certificate that signed nothing the broker has.
func otherCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "not the broker's CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDumpOverTLS(t *testing.T) {
	env := needEnv(t, "TOPICSNAP_TEST_SSL_BROKERS", "TOPICSNAP_TEST_SSL_CA")
	ssl, ca := env[0], env[1]
	bs := brokers(t)
	values := []string{"a", "b", "c", "d", "e"}
	topic := topicWith(t, bs, 2, values...)
	cases := []struct {
		name   string
		config []string
		code   int
		texts  []string // all in stderr
	}{
		{"the broker's CA", []string{"security.protocol=SSL", "ssl.ca.location=" + ca}, exitOK, nil},
		{"system roots", []string{"security.protocol=SSL"}, exitTLS,
			[]string{"TLS", "certificate", ssl, "ssl.ca.location"}},
		{"another CA", []string{"security.protocol=SSL", "ssl.ca.location=" + otherCA(t)}, exitTLS,
			[]string{"TLS", "certificate", ssl, "ssl.ca.location"}},
		{"plaintext to the SSL listener", []string{"security.protocol=PLAINTEXT"}, exitTLS,
			[]string{"without TLS", ssl, "security.protocol in --config", "SSL"}},
		{"SSL to the PLAINTEXT listener", []string{"bootstrap.servers=" + bs[0], "security.protocol=SSL", "ssl.ca.location=" + ca}, exitTLS,
			[]string{"does not speak TLS", bs[0], "security.protocol in --config", "PLAINTEXT"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeConfig(t, append([]string{"bootstrap.servers=" + ssl}, c.config...)...)
			start := time.Now()
			code, out, errs := cli(t, "dump", "--config", cfg, "--topic", topic, "--dir", dir, "--timeout", "3s")
			if el := time.Since(start); el > 20*time.Second {
				t.Errorf("took %s to fail; want a fast answer", el)
			}
			t.Logf("exit %d, stderr:\n%s", code, errs)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, c.code, out, errs)
			}
			if c.code == exitOK {
				if got := dumpedValues(t, dir, topic); fmt.Sprint(got) != fmt.Sprint(values) {
					t.Fatalf("dumped %v, want %v", got, values)
				}
				return
			}
			for _, s := range c.texts {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr %q does not name %q", errs, s)
				}
			}
			errorAndTry(t, errs)
		})
	}
}

// grant gives principal ops on topic, through the PLAINTEXT listener
// (ANONYMOUS is a super user there).
func grant(t *testing.T, bs []string, principal, topic string, ops ...kadm.ACLOperation) {
	t.Helper()
	if len(ops) == 0 {
		return
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := kadm.NewClient(cl).CreateACLs(ctx, kadm.NewACLs().Topics(topic).Allow(principal).AllowHosts().Operations(ops...).ResourcePatternType(kadm.ACLPatternLiteral))
	if err == nil {
		for _, r := range res {
			if r.Err != nil {
				err = r.Err
			}
		}
	}
	if err != nil {
		t.Fatalf("grant %v on %s to %s: %v", ops, topic, principal, err)
	}
}

func TestDumpAuthorization(t *testing.T) {
	env := needEnv(t, "TOPICSNAP_TEST_SASL_BROKERS", "TOPICSNAP_TEST_NOACL_USER", "TOPICSNAP_TEST_NOACL_PASSWORD")
	sasl, user, pass := env[0], env[1], env[2]
	bs := brokers(t)
	principal := "User:" + user
	cases := []struct {
		name  string
		ops   []kadm.ACLOperation
		code  int
		texts []string // all in stderr
	}{
		{"no ACL", nil, exitNotAllowed, []string{principal, "DESCRIBE", "READ", "kafka-acls"}},
		{"DESCRIBE only", []kadm.ACLOperation{kadm.OpDescribe}, exitNotAllowed, []string{principal, "READ", "kafka-acls"}},
		// Enough to dump; the groups and the topic's configs are not the
		// principal's to see, and the dump says so instead of claiming none.
		{"READ and DESCRIBE", []kadm.ACLOperation{kadm.OpRead, kadm.OpDescribe}, exitOK,
			[]string{"warning: ", "consumer groups", "DESCRIBE on the cluster", "configs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			values := []string{"x", "y", "z"}
			topic := topicWith(t, bs, 1, values...)
			grant(t, bs, principal, topic, c.ops...)
			// A group with offsets on the topic that this principal may not see.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := dump.CommitGroupOffsets(ctx, kafkaconn.Conn{Brokers: bs}, topic+"-readers", topic, map[int32]int64{0: 2}); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			cfg := writeConfig(t, "bootstrap.servers="+sasl, "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-512",
				"sasl.username="+user, "sasl.password="+pass)
			code, out, errs := cli(t, "dump", "--config", cfg, "--topic", topic, "--dir", dir)
			t.Logf("exit %d, stderr:\n%s", code, errs)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, c.code, out, errs)
			}
			if strings.Contains(out+errs, pass) {
				t.Fatalf("the password is printed: %q %q", out, errs)
			}
			for _, s := range append(c.texts, topic) {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr %q does not name %q", errs, s)
				}
			}
			if c.code != exitOK {
				errorAndTry(t, errs)
				return
			}
			if got := dumpedValues(t, dir, topic); fmt.Sprint(got) != fmt.Sprint(values) {
				t.Fatalf("dumped %v, want %v", got, values)
			}
			d, _ := catalog.Open(dir)
			snaps, err := d.ClusterSnapshots(ctx)
			if err != nil || len(snaps) != 1 {
				t.Fatalf("cluster snapshots: %v %d", err, len(snaps))
			}
			s := snaps[0]
			if len(s.Groups) != 0 || !strings.Contains(s.GroupsError, principal) || !strings.Contains(s.ConfigsError, principal) {
				t.Fatalf("snapshot groups %v, groups_error %q, configs_error %q: want the groups and configs marked unknown, naming %s",
					s.Groups, s.GroupsError, s.ConfigsError, principal)
			}
		})
	}
	// The same dump as a super user records the group the others could not see.
	t.Run("super user sees the group", func(t *testing.T) {
		topic := topicWith(t, bs, 1, "x")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := dump.CommitGroupOffsets(ctx, kafkaconn.Conn{Brokers: bs}, topic+"-readers", topic, map[int32]int64{0: 1}); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if code, out, errs := cli(t, "dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--dir", dir); code != 0 || errs != "" {
			t.Fatalf("exit %d %q %q", code, out, errs)
		}
		d, _ := catalog.Open(dir)
		snaps, err := d.ClusterSnapshots(ctx)
		if err != nil || len(snaps) != 1 || len(snaps[0].Groups) != 1 || snaps[0].GroupsError != "" || snaps[0].ConfigsError != "" {
			t.Fatalf("snapshot: %v %+v", err, snaps)
		}
	})
}

func TestDumpFolderNotWritable(t *testing.T) {
	bs := brokers(t)
	topic := topicWith(t, bs, 1, "v")
	cases := []struct {
		name  string
		setup func(t *testing.T) (dir string, unchanged func() bool)
	}{
		{"a path through a regular file", func(t *testing.T) (string, func() bool) {
			f := filepath.Join(t.TempDir(), "not-a-folder")
			if err := os.WriteFile(f, []byte("keep me"), 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(f, "snaps"), func() bool {
				b, err := os.ReadFile(f)
				return err == nil && string(b) == "keep me"
			}
		}},
		{"a read-only mount", func(t *testing.T) (string, func() bool) {
			dir := t.TempDir()
			if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
				t.Skipf("cannot mount a read-only tmpfs here (needs root and mount rights): %v %s", err, out)
			}
			t.Cleanup(func() {
				if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
					t.Errorf("umount %s: %v %s", dir, err, out)
				}
			})
			return dir, func() bool {
				es, err := os.ReadDir(dir)
				return err == nil && len(es) == 0
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, unchanged := c.setup(t)
			code, out, errs := cli(t, "dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--dir", dir)
			t.Logf("exit %d, stderr:\n%s", code, errs)
			if code != exitDisk {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, exitDisk, out, errs)
			}
			for _, s := range []string{dir, "not writable", "--dir"} {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr %q does not name %q", errs, s)
				}
			}
			errorAndTry(t, errs)
			if !unchanged() {
				t.Errorf("something was written")
			}
		})
	}
}

// A security.protocol that does not match the listener is named as such,
// on the real broker's PLAINTEXT and SASL_PLAINTEXT listeners, and not
// "cannot reach the cluster: EOF".
func TestSASLListenerMismatch(t *testing.T) {
	env := needEnv(t, "TOPICSNAP_TEST_BROKERS", "TOPICSNAP_TEST_SASL_BROKERS", "TOPICSNAP_TEST_SASL_USER", "TOPICSNAP_TEST_SASL_PASSWORD")
	plain, sasl, user, pass := env[0], env[1], env[2], env[3]
	cases := []struct {
		name   string
		config []string
		texts  []string // all in stderr
	}{
		{"SASL client on the PLAINTEXT listener",
			[]string{"bootstrap.servers=" + plain, "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-512", "sasl.username=" + user, "sasl.password=" + pass},
			[]string{plain, "may not speak SASL", "Try: set security.protocol", "SASL listener"}},
		{"PLAINTEXT client on the SASL listener",
			[]string{"bootstrap.servers=" + sasl},
			[]string{sasl, "expects SASL", "security.protocol PLAINTEXT", "Try: set security.protocol=SASL_PLAINTEXT", "sasl.username"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "snaps")
			code, out, errs := cli(t, "dump", "--config", writeConfig(t, c.config...), "--topic", "any", "--dir", dir, "--timeout", "20s")
			t.Logf("exit %d, stderr:\n%s", code, errs)
			if code != exitAuth {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, exitAuth, out, errs)
			}
			for _, s := range c.texts {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr %q does not name %q", errs, s)
				}
			}
			if strings.Contains(errs, "cannot reach") || strings.Contains(out+errs, pass) {
				t.Errorf("stderr %q: says unreachable, or prints the password", errs)
			}
			errorAndTry(t, errs)
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the folder was made: %v", err)
			}
		})
	}
}

// TestDumpConsumerOffsetsAuthorization: the group coordinator's log is a
// topic like another; a principal without DESCRIBE (and READ) on it is
// told the grant, with kafka-acls.sh's command naming __consumer_offsets.
func TestDumpConsumerOffsetsAuthorization(t *testing.T) {
	env := needEnv(t, "TOPICSNAP_TEST_SASL_BROKERS", "TOPICSNAP_TEST_NOACL_USER", "TOPICSNAP_TEST_NOACL_PASSWORD")
	sasl, user, pass := env[0], env[1], env[2]
	principal := "User:" + user
	cfg := writeConfig(t, "bootstrap.servers="+sasl, "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-512",
		"sasl.username="+user, "sasl.password="+pass)
	code, out, errs := cli(t, "dump", "--config", cfg, "--topic", "__consumer_offsets", "--dir", t.TempDir())
	t.Logf("exit %d, stderr:\n%s", code, errs)
	if code != exitNotAllowed {
		t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, exitNotAllowed, out, errs)
	}
	for _, s := range []string{principal, "DESCRIBE", "READ", "kafka-acls", "--topic __consumer_offsets"} {
		if !strings.Contains(errs, s) {
			t.Errorf("stderr %q does not name %q", errs, s)
		}
	}
	errorAndTry(t, errs)
}
