package schemas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

// wire is a value of schema id in the Confluent wire format whose payload
// is the Avro string "x".
func wire(id int) []byte {
	return []byte{0, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id), 2, 'x'}
}

// answer is the JSON a registry gives for GET /schemas/ids/ID.
func answer(t *testing.T, schema string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"schema": schema})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// deepAvro is an Avro schema of n arrays nested in one another.
func deepAvro(n int) string {
	return strings.Repeat(`{"type":"array","items":`, n) + `"string"` + strings.Repeat(`}`, n)
}

// hostileRegistry is a registry written for the test: each id answers what
// the test says, and it counts the requests for each id.
type hostileRegistry struct {
	srv     *httptest.Server
	mu      sync.Mutex
	answers map[int]func(w http.ResponseWriter)
	asked   map[int]int
}

func newHostileRegistry(t *testing.T) *hostileRegistry {
	h := &hostileRegistry{answers: map[int]func(http.ResponseWriter){}, asked: map[int]int{}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/subjects/d/versions/1" {
			// The subject a schema's reference names: it is id 900.
			w.Write([]byte(`{"subject":"d","version":1,"id":900,"schema":"\"string\""}`))
			return
		}
		rest, ok := strings.CutPrefix(req.URL.Path, "/schemas/ids/")
		if !ok {
			http.NotFound(w, req)
			return
		}
		if strings.HasSuffix(rest, "/versions") {
			w.Write([]byte("[]"))
			return
		}
		id, _ := strconv.Atoi(rest)
		h.mu.Lock()
		h.asked[id]++
		f := h.answers[id]
		h.mu.Unlock()
		if f == nil {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error_code":40403,"message":"Schema not found"}`))
			return
		}
		f(w)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hostileRegistry) set(id int, f func(w http.ResponseWriter)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.answers[id] = f
}

func (h *hostileRegistry) times(id int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.asked[id]
}

// TestHostileRegistryCostsOneID: a registry that answers an id with
// something that is not a schema (not JSON, past MaxSchemaBytes with or
// without a Content-Length, nested past the JSON decoder's bound, a schema
// nested past MaxSchemaDepth or that does not parse) fails that id only,
// with its cause named and typed, asked once; the good ids met before and
// after it still decode in the same run, and nothing is warned of as a
// registry that cannot be reached.
func TestHostileRegistryCostsOneID(t *testing.T) {
	h := newHostileRegistry(t)
	good := answer(t, `"string"`)
	serve := func(b []byte) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) { w.Write(b) }
	}
	huge := answer(t, `"`+strings.Repeat("s", MaxSchemaBytes)+`"`)
	cases := []struct {
		name  string
		serve func(w http.ResponseWriter)
		why   string // in the reason, beside "schema ID"
		is    error
	}{
		{"not JSON", serve([]byte("<html>oops</html>")), "the schema registry's answer is not a schema: invalid character '<'", ErrBadAnswer},
		{"JSON, but not a schema", serve([]byte(`[1,2,3]`)), "the schema registry's answer is not a schema: json: cannot unmarshal array", ErrBadAnswer},
		{"past the bound, with a Content-Length", serve(huge), "not fetched: the schema registry's answer is larger than 4 MiB, the bound for one schema", ErrSchemaTooLarge},
		{"past the bound, chunked", func(w http.ResponseWriter) {
			for i := 0; i < len(huge); i += 64 << 10 {
				w.Write(huge[i:min(i+64<<10, len(huge))])
				w.(http.Flusher).Flush()
			}
		}, "not fetched: the schema registry's answer is larger than 4 MiB", ErrSchemaTooLarge},
		{"an answer nested past the JSON decoder", serve([]byte(`{"schema":"\"string\"","references":` + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000) + `}`)),
			"the schema registry's answer is not a schema", ErrBadAnswer},
		{"a schema nested 100,000 levels", serve(answer(t, deepAvro(100_000))), "not fetched: the schema in the registry's answer nests deeper than 1000 levels", ErrSchemaTooDeep},
		{"a schema the parser refuses", serve(answer(t, `{"type":"recor`)), "does not compile: parse avro schema", ErrBadSchema},
		{"a reference whose answer is not JSON", serve([]byte(`{"schema":"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"d\",\"type\":\"D\"}]}","references":[{"name":"D","subject":"d","version":1}]}`)),
			"not fetched: its reference D (schema 900): the schema registry's answer is not a schema: invalid character 'o'", ErrBadAnswer},
		{"an id the registry does not know", nil, "is unknown to the registry", nil},
		{"a server error", func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) }, "registry answered HTTP 502", nil},
	}
	var warned atomic.Int32
	var warnings strings.Builder
	dir, err := catalog.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(t.Context(), Options{Folder: dir, Registry: &Registry{URLs: []string{h.srv.URL}},
		Warn: func(s string) { warned.Add(1); warnings.WriteString(s) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	decodes := func(id int) {
		t.Helper()
		out, got, ok, fail := r.Decode(ctx, wire(id), nil)
		if !ok || got != id || fail != nil || string(out) != `"x"` {
			t.Fatalf("good schema %d: %s %v", id, out, fail)
		}
	}
	h.set(1, serve(good))
	h.set(900, serve([]byte("no schema here")))
	decodes(1)
	for i, c := range cases {
		id, goodID := 100+i, 200+i
		h.set(id, c.serve)
		h.set(goodID, serve(good))
		t.Run(c.name, func(t *testing.T) {
			for range 3 {
				out, got, ok, fail := r.Decode(ctx, wire(id), nil)
				switch {
				case !ok || got != id || out != nil || fail == nil:
					t.Fatalf("decoded: %s %v", out, fail)
				case !strings.Contains(fail.Reason, fmt.Sprintf("schema %d ", id)) || !strings.Contains(fail.Reason, c.why):
					t.Fatalf("reason %q, want the id and %q", fail.Reason, c.why)
				case c.is != nil && !errors.Is(fail, c.is):
					t.Fatalf("cause %v is not %v", fail.Err, c.is)
				case errors.Is(fail, ErrRegistryUnreachable) || len(fail.Reason) > 1000:
					t.Fatalf("reason %d bytes: %.200q", len(fail.Reason), fail.Reason)
				}
			}
			_, _, _, fail := r.Decode(ctx, wire(id), nil)
			t.Logf("value_decode_error: %s", fail.Reason)
			// Asked once for the run (a 5xx is asked again twice: a
			// registry under load), and the ids met after it still decode.
			want := 1
			if strings.Contains(c.why, "HTTP 5") {
				want = 3
			}
			if n := h.times(id); n != want {
				t.Fatalf("asked %d times for schema %d, want %d", n, id, want)
			}
			decodes(goodID)
			decodes(1)
		})
	}
	if warned.Load() != 0 {
		t.Fatalf("warned %d times: %s", warned.Load(), warnings.String())
	}
	// Nothing of a refused answer was stored (a schema the parser refuses
	// is what the registry holds, and is kept as evidence); the good ones
	// were.
	for i, c := range cases {
		if _, err := os.Stat(dir.SchemaPath(100 + i)); !os.IsNotExist(err) && c.is != ErrBadSchema {
			t.Fatalf("schema %d stored: %v", 100+i, err)
		}
		if _, err := dir.ReadSchema(ctx, 200+i); err != nil {
			t.Fatalf("schema %d: %v", 200+i, err)
		}
	}
}

// TestUnreachableRegistryIsDownForTheRun: a registry that gives no answer
// (nothing listens) is the one failure that is every id's for the run,
// warned of once with its cause, and typed ErrRegistryUnreachable.
func TestUnreachableRegistryIsDownForTheRun(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	var warnings []string
	r, err := NewResolver(t.Context(), Options{Registry: &Registry{URLs: []string{url}},
		Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{1, 2, 3} {
		_, _, _, fail := r.Decode(context.Background(), wire(id), nil)
		if fail == nil || !errors.Is(fail, ErrRegistryUnreachable) || fail.Reason != fmt.Sprintf("schema %d not fetched: the schema registry cannot be reached", id) {
			t.Fatalf("schema %d: %v", id, fail)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "cannot be reached (") || !strings.Contains(warnings[0], "refused") {
		t.Fatalf("warnings %q, want one naming the cause", warnings)
	}
}

// TestRedirectKeepsCredentialsAtHome: a registry that redirects to another
// port of the same host (another origin) gets the request without the
// Basic credentials or the bearer token; a redirect within the origin
// keeps them. Go's own client would carry them to the other port: the
// last case shows the test can fail.
func TestRedirectKeepsCredentialsAtHome(t *testing.T) {
	var mu sync.Mutex
	var seen []string // Authorization headers the other origin saw
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		seen = append(seen, req.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte(`{"schema":"\"string\""}`))
	}))
	defer other.Close()
	var home *httptest.Server
	var homeAuth []string // Authorization headers the home origin saw after its own redirect
	home = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch {
		case strings.HasPrefix(req.URL.Path, "/moved/"):
			mu.Lock()
			homeAuth = append(homeAuth, req.Header.Get("Authorization"))
			mu.Unlock()
			w.Write([]byte(`{"schema":"\"string\""}`))
		case strings.HasSuffix(req.URL.Path, "/versions"):
			w.Write([]byte("[]"))
		case req.URL.Path == "/schemas/ids/1":
			http.Redirect(w, req, other.URL+req.URL.Path, http.StatusTemporaryRedirect)
		case req.URL.Path == "/schemas/ids/2":
			http.Redirect(w, req, "/moved"+req.URL.Path, http.StatusFound)
		case req.URL.Path == "/schemas/ids/3":
			// To the other port, by way of the home origin.
			http.Redirect(w, req, "/schemas/ids/1", http.StatusFound)
		default:
			http.NotFound(w, req)
		}
	}))
	defer home.Close()
	if !strings.HasPrefix(home.URL, "http://127.0.0.1:") || !strings.HasPrefix(other.URL, "http://127.0.0.1:") || home.URL == other.URL {
		t.Fatalf("want two ports of 127.0.0.1: %s %s", home.URL, other.URL)
	}
	cases := []struct {
		name     string
		reg      Registry
		id       int
		toOther  bool // the request ends at the other origin
		wantAuth string
	}{
		{"basic auth, to another port", Registry{User: "reader", Password: "s3cret"}, 1, true, ""},
		{"bearer token, to another port", Registry{Token: "t0ken"}, 1, true, ""},
		{"basic auth, two hops to another port", Registry{User: "reader", Password: "s3cret"}, 3, true, ""},
		{"basic auth, within the origin", Registry{User: "reader", Password: "s3cret"}, 2, false, "Basic cmVhZGVyOnMzY3JldA=="},
		{"bearer token, within the origin", Registry{Token: "t0ken"}, 2, false, "Bearer t0ken"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mu.Lock()
			seen, homeAuth = nil, nil
			mu.Unlock()
			c.reg.URLs = []string{home.URL}
			r, err := NewResolver(t.Context(), Options{Registry: &c.reg})
			if err != nil {
				t.Fatal(err)
			}
			out, _, _, fail := r.Decode(context.Background(), wire(c.id), nil)
			if fail != nil || string(out) != `"x"` {
				t.Fatalf("decode: %s %v", out, fail)
			}
			mu.Lock()
			defer mu.Unlock()
			got := homeAuth
			if c.toOther {
				got = seen
			}
			if len(got) != 1 || got[0] != c.wantAuth {
				t.Fatalf("Authorization seen: %q, want %q", got, c.wantAuth)
			}
		})
	}
	t.Run("Go's client alone carries them to the other port", func(t *testing.T) {
		mu.Lock()
		seen = nil
		mu.Unlock()
		cl, err := sr.NewClient(sr.URLs(home.URL), sr.BasicAuth("reader", "s3cret"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.SchemaByID(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(seen) != 1 || seen[0] == "" {
			t.Fatalf("without checkRedirect the other port saw %q: Go changed, and this test no longer shows the leak", seen)
		}
	})
}

// TestSchemaDirCostsOneID: a --schema folder whose files are past
// MaxSchemaBytes, not regular (a FIFO, which must not hang the read),
// nested past MaxSchemaDepth, or import a .proto past the bound, fails
// those ids only, each with its cause; the good files still decode.
func TestSchemaDirCostsOneID(t *testing.T) {
	dir := t.TempDir()
	big := `"` + strings.Repeat("s", MaxSchemaBytes) + `"`
	for name, text := range map[string]string{
		"1.avsc":      `"string"`,
		"2.avsc":      big,
		"4.avsc":      deepAvro(100_000),
		"5.proto":     "syntax = \"proto3\";\nimport \"huge.proto\";\nmessage M { H h = 1; }\n",
		"huge.proto":  "syntax = \"proto3\";\nmessage H {}\n// " + strings.Repeat("x", MaxSchemaBytes) + "\n",
		"6.proto":     "syntax = \"proto3\";\n" + strings.Repeat("message M {\n", 2000) + strings.Repeat("}\n", 2000),
		"7.json":      strings.Repeat("[", 2000) + strings.Repeat("]", 2000),
		"8.proto":     "syntax = \"proto3\";\n// {{{{{{ a comment is not nesting\nmessage M { string s = 1; }\n",
		"9.avsc":      `{"type":"record","name":"R","doc":"` + strings.Repeat("{", 5000) + `","fields":[{"name":"s","type":"string"}]}`,
		"orders.avsc": `"string"`,
	} {
		if err := writeFile(dir, name, text); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "3.avsc"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(t.Context(), Options{SchemaDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		value []byte
		want  string // the JSON text, or else a part of the reason
		is    error
	}{
		{"a good file", wire(1), `"x"`, nil},
		{"past the bound", wire(2), "schema 2: the --schema file is unreadable: read 2.avsc: larger than 4 MiB", safefile.ErrTooLarge},
		{"a FIFO", wire(3), "schema 3: the --schema file is unreadable: read 3.avsc: not a regular file", safefile.ErrNotRegular},
		{"nested 100,000 levels", wire(4), "schema 4 does not compile: its text nests deeper than 1000 levels", ErrSchemaTooDeep},
		{"an import past the bound", wire(5), "schema 5 does not compile: ", safefile.ErrTooLarge},
		{"a .proto nested 2,000 levels", wire(6), "schema 6 does not compile: its text nests deeper than 1000 levels", ErrSchemaTooDeep},
		{"a JSON Schema nested 2,000 levels", wire(7), "schema 7 does not compile: its text nests deeper than 1000 levels", ErrSchemaTooDeep},
		{"braces in a comment", []byte{0, 0, 0, 0, 8, 0, 10, 1, 'z'}, `{"s":"z"}`, nil},
		{"braces in a string", wire(9), `{"s":"x"}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, _, fail := r.Decode(context.Background(), c.value, nil)
			switch {
			case c.is == nil && (fail != nil || string(out) != c.want):
				t.Fatalf("decode: %s %v", out, fail)
			case c.is != nil && (fail == nil || !strings.Contains(fail.Reason, c.want) || !errors.Is(fail, c.is)):
				t.Fatalf("reason %v, want %q and %v", fail, c.want, c.is)
			}
		})
	}
	// A stored schema that refers to an id whose --schema file is bad
	// fails with that cause.
	folder, err := catalog.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := folder.WriteSchema(t.Context(), &catalog.Schema{ID: 20, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"R","fields":[{"name":"d","type":"D"}]}`,
		References: []catalog.SchemaReference{{Name: "D", ID: 2}}}); err != nil {
		t.Fatal(err)
	}
	rf, err := NewResolver(t.Context(), Options{Folder: folder, SchemaDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, fail := rf.Decode(context.Background(), wire(20), nil); fail == nil || !errors.Is(fail, safefile.ErrTooLarge) ||
		!strings.Contains(fail.Reason, "schema 20 does not compile: referenced schema 2 (D): the --schema file is unreadable: read 2.avsc: larger than 4 MiB") {
		t.Fatalf("a reference to a bad --schema file: %v", fail)
	}
	// The bare topic's schema is a setting: past the bound, the run stops
	// at once, naming it.
	if err := writeFile(dir, "orders.avsc", big); err != nil {
		t.Fatal(err)
	}
	if _, err := NewResolver(t.Context(), Options{SchemaDir: dir}); !errors.Is(err, ErrBadRegistry) || !errors.Is(err, safefile.ErrTooLarge) || !strings.Contains(err.Error(), "orders.avsc") {
		t.Fatalf("a bare topic's schema past the bound: %v", err)
	}
}

// TestStoredSchemaPastTheBounds: a stored copy in the snapshot folder
// nested past MaxSchemaDepth, or referring to one that is, costs its id.
// (Its size is catalog's to bound when it reads the file; checkText's
// size bound is TestCheckText's.)
func TestStoredSchemaPastTheBounds(t *testing.T) {
	r := resolverWith(t,
		&catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: `"string"`},
		&catalog.Schema{ID: 2, Type: catalog.SchemaAvro, Schema: deepAvro(MaxSchemaDepth + 1)},
		&catalog.Schema{ID: 4, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"R","fields":[{"name":"a","type":"D"}]}`, References: []catalog.SchemaReference{{Name: "D", ID: 5}}},
		&catalog.Schema{ID: 5, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"D","fields":[{"name":"d","type":` + deepAvro(MaxSchemaDepth) + `}]}`},
		&catalog.Schema{ID: 6, Type: catalog.SchemaAvro, Schema: deepAvro(MaxSchemaDepth / 2)},
	)
	cases := []struct {
		id   int
		want string
		is   error
	}{
		{1, "", nil},
		{2, "schema 2 does not compile: its text nests deeper than 1000 levels", ErrSchemaTooDeep},
		{4, `schema 4 does not compile: its reference "D" nests deeper than 1000 levels`, ErrSchemaTooDeep},
	}
	for _, c := range cases {
		t.Run(strconv.Itoa(c.id), func(t *testing.T) {
			_, _, _, fail := r.Decode(context.Background(), wire(c.id), nil)
			switch {
			case c.is == nil && fail != nil:
				t.Fatal(fail)
			case c.is != nil && (fail == nil || !strings.Contains(fail.Reason, c.want) || !errors.Is(fail, c.is) || !errors.Is(fail, ErrBadSchema)):
				t.Fatalf("reason %v, want %q and %v", fail, c.want, c.is)
			}
		})
	}
	// Within the bound, a deep schema compiles (its values are bounded by
	// the decoder's own 64 levels).
	if _, _, _, fail := r.Decode(context.Background(), append(wire(6)[:5], 0), nil); fail != nil {
		t.Fatalf("500 arrays deep: %v", fail)
	}
}

// TestBoundedBody: the registry's answer of exactly MaxSchemaBytes is read;
// one byte more is a TooLargeError, at once when the Content-Length says
// so, else at the byte past the bound.
func TestBoundedBody(t *testing.T) {
	const max = 1 << 10
	cases := []struct {
		name     string
		n        int
		declared int64
		err      bool
	}{
		{"exactly the bound", max, max, false},
		{"exactly the bound, unknown length", max, -1, false},
		{"one byte more", max + 1, max + 1, true},
		{"one byte more, unknown length", max + 1, -1, true},
		{"a Content-Length that lies low", max + 1, 10, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &boundedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("a", c.n))), max: max, declared: c.declared}
			got, err := io.ReadAll(b)
			var tl *TooLargeError
			switch {
			case c.err && (!errors.As(err, &tl) || !errors.Is(err, ErrSchemaTooLarge)):
				t.Fatalf("read %d bytes, err %v", len(got), err)
			case !c.err && (err != nil || len(got) != c.n):
				t.Fatalf("read %d bytes, err %v", len(got), err)
			}
		})
	}
}

// TestCheckText: what counts as nesting, at the bound and one past it.
func TestCheckText(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		proto bool
		is    error // nil: within the bounds
	}{
		{"JSON at the bound", strings.Repeat("[", MaxSchemaDepth) + strings.Repeat("]", MaxSchemaDepth), false, nil},
		{"JSON one past", strings.Repeat("[", MaxSchemaDepth+1) + strings.Repeat("]", MaxSchemaDepth+1), false, ErrSchemaTooDeep},
		{"siblings are not nesting", strings.Repeat("{}", 10*MaxSchemaDepth), false, nil},
		{"brackets in a JSON string", `"` + strings.Repeat("{", 2*MaxSchemaDepth) + `"`, false, nil},
		{"an escaped quote does not end the string", `"\"` + strings.Repeat("{", 2*MaxSchemaDepth) + `"`, false, nil},
		{"parentheses are not JSON nesting", strings.Repeat("(", 2*MaxSchemaDepth), false, nil},
		{"parentheses nest in a .proto", strings.Repeat("(", MaxSchemaDepth+1), true, ErrSchemaTooDeep},
		{"a .proto line comment", "// " + strings.Repeat("{", 2*MaxSchemaDepth) + "\nmessage M {}", true, nil},
		{"a .proto block comment", "/* " + strings.Repeat("{", 2*MaxSchemaDepth) + " */ message M {}", true, nil},
		{"a .proto single-quoted string", "option x = '" + strings.Repeat("{", 2*MaxSchemaDepth) + "';", true, nil},
		{"past the size", strings.Repeat(" ", MaxSchemaBytes+1), false, ErrSchemaTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkText("its text", c.text, c.proto)
			if c.is == nil && err != nil || c.is != nil && !errors.Is(err, c.is) {
				t.Fatalf("err %v, want %v", err, c.is)
			}
		})
	}
}

// TestCheckRedirect: which redirects keep the credentials. The origin is
// the scheme, the host (in any case) and the port (the default one spelled
// or not).
func TestCheckRedirect(t *testing.T) {
	cases := []struct {
		from, to string
		keep     bool
	}{
		{"http://reg:8081/schemas/ids/1", "http://reg:8081/other", true},
		{"http://reg:8081/a", "http://REG:8081/b", true},
		{"http://reg/a", "http://reg:80/b", true},
		{"https://reg/a", "https://reg:443/b", true},
		{"http://reg:8081/a", "http://reg:8082/a", false},
		{"https://reg/a", "http://reg/a", false},
		{"http://reg/a", "https://reg/a", false},
		{"http://reg/a", "http://sub.reg/a", false},
		{"http://127.0.0.1:8081/a", "http://localhost:8081/a", false},
	}
	for _, c := range cases {
		t.Run(c.from+" to "+c.to, func(t *testing.T) {
			first := httptest.NewRequest(http.MethodGet, c.from, nil)
			next := httptest.NewRequest(http.MethodGet, c.to, nil)
			next.Header.Set("Authorization", "Basic x")
			next.Header.Set("Cookie", "c=1")
			if err := checkRedirect(next, []*http.Request{first}); err != nil {
				t.Fatal(err)
			}
			if kept := next.Header.Get("Authorization") != "" || next.Header.Get("Cookie") != ""; kept != c.keep {
				t.Fatalf("credentials kept: %v, want %v", kept, c.keep)
			}
		})
	}
	via := make([]*http.Request, maxRedirects)
	for i := range via {
		via[i] = httptest.NewRequest(http.MethodGet, "http://reg/a", nil)
	}
	if err := checkRedirect(httptest.NewRequest(http.MethodGet, "http://reg/a", nil), via); err == nil {
		t.Fatalf("followed a redirect past %d", maxRedirects)
	}
}

// TestHugeAnswerCostsLittle: a registry streaming a 400 MiB schema (the
// answer that took a dump to 1.7 GB) costs the resolver a few MiB and well
// under a second: the body is cut at MaxSchemaBytes, and the id fails.
func TestHugeAnswerCostsLittle(t *testing.T) {
	const total = 400 << 20
	chunk := []byte(strings.Repeat("s", 64<<10))
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasSuffix(req.URL.Path, "/versions") {
			w.Write([]byte("[]"))
			return
		}
		w.Write([]byte(`{"schema":"\"`))
		for n := 0; n < total; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			sent.Add(int64(len(chunk)))
		}
		w.Write([]byte(`\""}`))
	}))
	defer srv.Close()
	r, err := NewResolver(t.Context(), Options{Registry: &Registry{URLs: []string{srv.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, _, _, fail := r.Decode(context.Background(), wire(1), nil)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%v, %.1f MiB allocated, %d MiB sent before the client hung up: %v", took.Round(time.Millisecond), float64(allocated)/(1<<20), sent.Load()>>20, fail)
	if fail == nil || !errors.Is(fail, ErrSchemaTooLarge) {
		t.Fatalf("a 400 MiB answer: %v", fail)
	}
	if allocated > 64<<20 {
		t.Fatalf("%d MiB allocated for an answer cut at %d MiB", allocated>>20, MaxSchemaBytes>>20)
	}
}
