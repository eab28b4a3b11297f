package kafkaconn

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzProperties: any text either parses into known keys or is refused
// with ErrBadConfig; it never panics and never echoes a password.
func FuzzProperties(f *testing.F) {
	for _, s := range []string{
		"bootstrap.servers=a:1\n",
		"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.username=u\nsasl.password=p\n",
		"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";\n",
		"bootstrap.server=x\n", "# comment\n! bang\nkey\\\n  continued=1\n", "a=${b}\nb=${a}\n", "\\u00e9=1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := parseProperties("f.properties", text)
		if err != nil {
			if !errors.Is(err, ErrBadConfig) {
				t.Fatalf("error of the wrong kind: %v", err)
			}
			return
		}
		for k := range m {
			if !slices.Contains(knownKeys, k) {
				t.Fatalf("unknown key %q accepted", k)
			}
		}
		if _, err := resolve(t.Context(), Conn{ConfigFile: ""}); err == nil {
			t.Fatal("no brokers accepted")
		}
		if pw := m["sasl.password"]; len(pw) > 3 {
			if _, err := resolveProps(Conn{Brokers: []string{"h:1"}}, m); err != nil && strings.Contains(err.Error(), pw) {
				t.Fatalf("error shows the password: %v", err)
			}
		}
	})
}
