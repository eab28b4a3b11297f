package schemas

import (
	"context"
	"encoding/base64"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestRegistryCredentials: a registry that refuses the credentials fails
// every id of the run with that reason, warned of once, without the secret;
// the right credentials fetch and store the schema. (franz-go's in-process
// registry, for its authorization; the real registry's tests are in
// cmd/topicsnap/schemas_test.go.)
func TestRegistryCredentials(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("reader:s3cret"))
	reg := srfake.New(srfake.WithAuth(basic))
	defer reg.Close()
	id, _, err := reg.RegisterSchema("t-value", sr.Schema{Schema: `"string"`, Type: sr.TypeAvro})
	if err != nil {
		t.Fatal(err)
	}
	wire := append([]byte{0, 0, 0, 0, byte(id)}, 2, 'x')
	cases := []struct {
		name       string
		user, pass string
		token      string
		why        string // "" decodes
	}{
		{"no credentials", "", "", "", "refused the credentials (HTTP 401)"},
		{"a wrong password", "reader", "wrong", "", "refused the credentials (HTTP 403)"},
		{"a wrong token", "", "", "tok", "refused the credentials (HTTP 403)"},
		{"the right ones", "reader", "s3cret", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, err := catalog.Create(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			var warned atomic.Int32
			var text strings.Builder
			r, err := NewResolver(t.Context(), Options{Folder: dir, Registry: &Registry{URLs: []string{reg.URL()}, User: c.user, Password: c.pass, Token: c.token},
				Warn: func(s string) { warned.Add(1); text.WriteString(s) }})
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				out, _, _, fail := r.Decode(context.Background(), wire, nil)
				switch {
				case c.why == "" && (fail != nil || string(out) != `"x"`):
					t.Fatalf("decode: %s %v", out, fail)
				case c.why != "" && (fail == nil || !strings.Contains(fail.Reason, c.why)):
					t.Fatalf("reason %v, want %q", fail, c.why)
				}
			}
			_, statErr := os.Stat(dir.SchemaPath(id))
			if c.why != "" && (warned.Load() != 1 || statErr == nil || strings.Contains(text.String(), "s3cret")) {
				t.Fatalf("warned %d times (%q), stored: %v", warned.Load(), text.String(), statErr)
			}
			if c.why == "" && (warned.Load() != 0 || statErr != nil) {
				t.Fatalf("warned %d times, stored: %v", warned.Load(), statErr)
			}
		})
	}
}
