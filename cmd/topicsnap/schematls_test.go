package main

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
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// The registry over HTTPS: the same Apicurio process serves its API over
// TLS too (scripts/registry.sh, with a throwaway CA made by openssl:
// TOPICSNAP_TEST_REGISTRY_TLS and TOPICSNAP_TEST_REGISTRY_TLS_CA).

func registryTLS(t *testing.T) (url, ca string) {
	t.Helper()
	url, ca = os.Getenv("TOPICSNAP_TEST_REGISTRY_TLS"), os.Getenv("TOPICSNAP_TEST_REGISTRY_TLS_CA")
	if url == "" || ca == "" {
		t.Skip("needs a Schema Registry over HTTPS (TOPICSNAP_TEST_REGISTRY_TLS, TOPICSNAP_TEST_REGISTRY_TLS_CA; make test starts Apicurio with scripts/registry.sh)")
	}
	return url, ca
}

// strangerCA writes a CA certificate that signed nothing the registry serves.
func strangerCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "not the registry's CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRegistryOverTLS(t *testing.T) {
	tlsURL, ca := registryTLS(t)
	httpURL := registryURL(t)
	bs := brokers(t)
	b := strings.Join(bs, ",")
	conn := kafkaconn.Conn{Brokers: bs}
	ctx := context.Background()
	cl := srClient(t, httpURL)
	topic := fmt.Sprintf("avro-tls-%d", time.Now().UnixNano()%1e9)
	if err := dump.CreateTopic(ctx, conn, topic, 1, nil); err != nil {
		t.Fatal(err)
	}
	keyID := register(t, cl, topic+"-key", sr.Schema{Schema: avroKey, Type: sr.TypeAvro})
	valueID := register(t, cl, topic+"-value", sr.Schema{Schema: avroV1, Type: sr.TypeAvro})
	var keys, values sr.Serde
	keys.Register(keyID, orderKey{}, avroEnc(t, avroKey))
	values.Register(valueID, eventV1{}, avroEnc(t, avroV1))
	var recs []dump.Record
	for i := 0; i < 5; i++ {
		k, _ := keys.Encode(orderKey{OrderID: fmt.Sprintf("o%d", i), Shop: 1})
		v, _ := values.Encode(eventV1{EventID: fmt.Sprintf("e%d", i), Amount: int64(i)})
		recs = append(recs, dump.Record{Topic: topic, Key: k, Value: v})
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	props := func(extra string) string {
		p := filepath.Join(t.TempDir(), "client.properties")
		os.WriteFile(p, []byte(fmt.Sprintf("bootstrap.servers=%s\nschema.registry.url=%s\n%s", b, tlsURL, extra)), 0o600)
		return p
	}

	// The right CA, as Confluent's clients spell it in the properties file.
	dir := t.TempDir()
	code, out, errs := cli(t, "dump", "--config", props("schema.registry.ssl.truststore.location="+ca+"\n"), "--topic", topic, "--dir", dir)
	if code != 0 || !strings.Contains(out, "5 values decoded with their schema, 0 not decoded") || !strings.Contains(out, "5 keys decoded with their schema, 0 not decoded") {
		t.Fatalf("dump over https: %d %q %q", code, out, errs)
	}
	rows := sqlJSON(t, dir, fmt.Sprintf(`SELECT string_agg(key.order_id || '/' || value.event_id, ',' ORDER BY "offset") AS kv FROM %s`, QuoteIdentForTest(topic)))
	if rows[0]["kv"] != "o0/e0,o1/e1,o2/e2,o3/e3,o4/e4" {
		t.Fatalf("decoded over https: %v", rows)
	}
	// The same from the flag, and from the environment.
	code, out, errs = cli(t, "dump", "--brokers", b, "--schema-registry", tlsURL, "--schema-registry-ca", ca, "--topic", topic, "--dir", t.TempDir())
	if code != 0 || !strings.Contains(out, "5 keys decoded") {
		t.Fatalf("dump with --schema-registry-ca: %d %q %q", code, out, errs)
	}
	t.Run("env", func(t *testing.T) {
		t.Setenv("TOPICSNAP_SCHEMA_REGISTRY_URL", tlsURL)
		t.Setenv("TOPICSNAP_SCHEMA_REGISTRY_CA", ca)
		code, out, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", t.TempDir())
		if code != 0 || !strings.Contains(out, "5 keys decoded") {
			t.Fatalf("dump with TOPICSNAP_SCHEMA_REGISTRY_CA: %d %q %q", code, out, errs)
		}
	})

	// A CA that did not sign the registry's certificate, none (the
	// system's CAs), or https to the plain HTTP port: exit 10, the setting
	// named, and nothing written.
	wrong := strangerCA(t)
	httpPort := strings.TrimPrefix(httpURL, "http://")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"wrong CA in --config", []string{"--config", props("schema.registry.ssl.truststore.location=" + wrong + "\n")},
			[]string{"certificate is not trusted", "schema.registry.ssl.truststore.location", "is " + wrong}},
		{"wrong CA flag", []string{"--brokers", b, "--schema-registry", tlsURL, "--schema-registry-ca", wrong},
			[]string{"certificate is not trusted", "--schema-registry-ca"}},
		{"no CA", []string{"--config", props("")},
			[]string{"certificate is not trusted", "is not set: the system's CAs were used"}},
		{"https to plain http", []string{"--brokers", b, "--schema-registry", "https://" + httpPort, "--schema-registry-ca", ca},
			[]string{"does not speak TLS"}},
	}
	for _, c := range cases {
		fresh := filepath.Join(t.TempDir(), "new")
		code, out, errs := cli(t, append([]string{"dump", "--topic", topic, "--dir", fresh}, c.args...)...)
		if code != exitTLS || !strings.Contains(errs, "schema.registry.ssl.truststore.location") {
			t.Fatalf("%s: exit %d (want %d) %q %q", c.name, code, exitTLS, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Fatalf("%s: %q lacks %q", c.name, errs, w)
			}
		}
		if _, err := os.Stat(fresh); !os.IsNotExist(err) {
			t.Fatalf("%s: the refused dump wrote %s: %v", c.name, fresh, err)
		}
	}
	// An https registry that does not answer at all is the warning of a
	// registry that is down, not a TLS error: the dump goes on.
	code, out, errs = cli(t, "dump", "--brokers", b, "--schema-registry", "https://127.0.0.1:9/apis/ccompat/v7", "--schema-registry-ca", ca,
		"--topic", topic, "--dir", t.TempDir())
	if code != 0 || !strings.Contains(errs, "cannot be reached") || !strings.Contains(out, "0 keys decoded with their schema, 5 not decoded") {
		t.Fatalf("an https registry that is down: %d %q %q", code, out, errs)
	}
	// A file that is not PEM is refused by name as well (exit 2: a setting
	// that cannot be read at all).
	notPEM := filepath.Join(t.TempDir(), "truststore.jks")
	os.WriteFile(notPEM, []byte{0xfe, 0xed, 0xfe, 0xed}, 0o644)
	fresh := filepath.Join(t.TempDir(), "new")
	code, _, errs = cli(t, "dump", "--config", props("schema.registry.ssl.truststore.location="+notPEM+"\n"), "--topic", topic, "--dir", fresh)
	if code != exitError || !strings.Contains(errs, "schema.registry.ssl.truststore.location") || !strings.Contains(errs, "holds no PEM certificate") {
		t.Fatalf("a Java truststore: %d %q", code, errs)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("the refused dump wrote %s: %v", fresh, err)
	}
}
