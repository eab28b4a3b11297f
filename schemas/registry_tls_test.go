package schemas

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckTLS tells a certificate the CA does not vouch for, and https to
// a plain HTTP port, from a registry that is down, against Go's own TLS
// server in-process (the real registry over HTTPS: cmd/topicsnap
// TestRegistryOverTLS).
func TestCheckTLS(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("[]")) })
	tlsSrv := httptest.NewTLSServer(ok)
	defer tlsSrv.Close()
	plain := httptest.NewServer(ok)
	defer plain.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, url, ca string
		want          string // "" is no error
	}{
		{"the CA that signed it", tlsSrv.URL + "/apis/ccompat/v7", ca, ""},
		{"the system's CAs", tlsSrv.URL, "", "is not set: the system's CAs were used"},
		{"https to plain HTTP", "https://" + strings.TrimPrefix(plain.URL, "http://"), ca, "does not speak TLS"},
		{"plain HTTP is not checked", plain.URL, ca, ""},
		{"nothing listens: left to the dump's warning", "https://127.0.0.1:9", ca, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Registry{URLs: []string{c.url}, CAFile: c.ca}
			err := r.CheckTLS(context.Background())
			var te *RegistryTLSError
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (!errors.Is(err, ErrRegistryTLS) || !errors.As(err, &te) || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want a RegistryTLSError saying %q", err, c.want)
			case strings.Contains(c.want, "CAs") && !strings.Contains(err.Error(), "schema.registry.ssl.truststore.location"):
				t.Fatalf("error %v does not name the setting", err)
			}
		})
	}
}
