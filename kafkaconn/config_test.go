package kafkaconn

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestPropertiesNameMisspelledKeys(t *testing.T) {
	_, err := parseProperties("c.properties", "bootstrap.server=x:1\nsasl.mechanism=PLAIN\n")
	if !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), `did you mean "bootstrap.servers"`) {
		t.Fatalf("got %v", err)
	}
}

// Java key and trust stores are named with what topicsnap reads instead.
func TestPropertiesNameThePEMSettings(t *testing.T) {
	cases := []struct {
		key, fix string
	}{
		{"ssl.truststore.location", "ssl.ca.location"},
		{"ssl.truststore.password", "ssl.ca.location"},
		{"ssl.keystore.location", "ssl.certificate.location and ssl.key.location"},
		{"ssl.key.password", "ssl.certificate.location and ssl.key.location"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			_, err := parseProperties("c.properties", "security.protocol=SSL\n"+c.key+"=/etc/kafka/x.jks\n")
			var ce *ConfigError
			if !errors.Is(err, ErrBadConfig) || !errors.As(err, &ce) || !strings.Contains(ce.Fix, c.fix) || !strings.Contains(ce.Fix, "PEM") ||
				!strings.Contains(err.Error(), c.key) {
				t.Fatalf("got %v (fix %q), want the key named and a fix naming %s", err, fixOf(ce), c.fix)
			}
		})
	}
}

func fixOf(ce *ConfigError) string {
	if ce == nil {
		return ""
	}
	return ce.Fix
}

// The two ways a listener without SASL answers a SASL client: kfake (and a
// broker that drops the connection) ends it with EOF after ApiVersions;
// Apache Kafka answers the handshake with ILLEGAL_SASL_STATE. Both name the
// listener, not the cluster's reachability or the credentials.
func TestConnectErrorNamesASASLMismatch(t *testing.T) {
	cases := []struct {
		name     string
		protocol string
		err      error
		want     error
	}{
		{"EOF after ApiVersions", "SASL_PLAINTEXT", io.EOF, ErrSASLMismatch},
		{"ILLEGAL_SASL_STATE", "SASL_PLAINTEXT", kerr.IllegalSaslState, ErrSASLMismatch},
		{"a wrong password is not a mismatch", "SASL_PLAINTEXT", kerr.SaslAuthenticationFailed, ErrAuthentication},
		{"EOF without SASL is not a SASL mismatch", "PLAINTEXT", io.EOF, ErrUnreachable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := connectError(&settings{brokers: []string{"h:1"}, protocol: c.protocol}, time.Second, c.err)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if c.want != ErrSASLMismatch && errors.Is(err, ErrSASLMismatch) {
				t.Fatalf("%v taken for a SASL mismatch", err)
			}
		})
	}
}
