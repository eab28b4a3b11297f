package schemas

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/topicsnap/topicsnap/internal/units"
)

// MaxSchemaBytes bounds one schema as topicsnap reads it: a registry's
// answer (its HTTP body, counted before it is decoded), a file of a
// --schema folder, and the text of every schema before it is parsed (a
// stored copy's included: reading DIR/schemas/ID.json itself is the
// catalog's to bound). The largest
// schemas met in practice are a few hundred KiB (generated Protobuf, Avro
// records of thousands of fields); past this the id is not decoded, and
// the reason says so.
const MaxSchemaBytes = 4 << 20

// MaxSchemaDepth bounds the nesting of a schema's text: brackets and
// braces (and, in a .proto, parentheses) inside one another, counted
// without recursion before a parser sees the text. An Avro record nested
// in a record takes three or four levels, so this holds schemas far deeper
// than the 64 levels of a value the decoder reads.
const MaxSchemaDepth = 1000

// maxRedirects is how many redirects a registry request follows.
const maxRedirects = 10

// Why a schema id was not decoded: a Failure wraps one of these (or a
// RegistryTLSError, an sr.ResponseError), for errors.Is and errors.As.
var (
	// ErrSchemaTooLarge: an answer or a schema past MaxSchemaBytes.
	ErrSchemaTooLarge = errors.New("schema larger than its bound")
	// ErrSchemaTooDeep: a schema's text nested past MaxSchemaDepth.
	ErrSchemaTooDeep = errors.New("schema nested deeper than its bound")
	// ErrBadAnswer: the registry answered, but not with a schema (not
	// JSON, JSON nested past its decoder's bound, not the fields of one).
	ErrBadAnswer = errors.New("the schema registry's answer is not a schema")
	// ErrBadSchema: the schema was read but its parser refuses it.
	ErrBadSchema = errors.New("schema does not compile")
	// ErrUnreadableSchema: a schema file (stored copy, --schema file)
	// could not be read: past its cap, not a regular file, not JSON.
	ErrUnreadableSchema = errors.New("schema file unreadable")
	// ErrRegistryUnreachable: no answer at all (refused, timed out, a
	// failed TLS handshake, not HTTP); every id's for the rest of the run.
	ErrRegistryUnreachable = errors.New("the schema registry cannot be reached")
	// ErrRegistryRefused: the registry refused the credentials; every
	// id's for the rest of the run.
	ErrRegistryRefused = errors.New("the schema registry refused the credentials")
	// ErrTooManyFailedIDs: the registry had no schema for maxFailedIDs
	// ids of the run (ids a producer made up); every id the folder lacks,
	// for the rest of the run.
	ErrTooManyFailedIDs = errors.New("too many schema ids the schema registry has no schema for")
)

// TooLargeError is a registry answer or a schema text past MaxSchemaBytes:
// errors.Is(err, ErrSchemaTooLarge).
type TooLargeError struct {
	What string // "the registry's answer", "its text"
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the bound for one schema", e.What, units.Size(e.Max))
}

// Is makes errors.Is(err, ErrSchemaTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrSchemaTooLarge }

// TooDeepError is a schema text nested past MaxSchemaDepth:
// errors.Is(err, ErrSchemaTooDeep).
type TooDeepError struct {
	What string // "its text", "referenced schema 4"
	Max  int
}

func (e *TooDeepError) Error() string {
	return fmt.Sprintf("%s nests deeper than %d levels, the bound for one schema", e.What, e.Max)
}

// Is makes errors.Is(err, ErrSchemaTooDeep) true.
func (e *TooDeepError) Is(target error) bool { return target == ErrSchemaTooDeep }

// boundedTransport hands out each response with its body limited to max
// bytes: reading past them fails with a TooLargeError (at once when the
// Content-Length says so), so sr's io.ReadAll never holds more.
type boundedTransport struct {
	next http.RoundTripper
	max  int64
}

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &boundedBody{rc: resp.Body, max: t.max, declared: resp.ContentLength}
	return resp, nil
}

type boundedBody struct {
	rc       io.ReadCloser
	max      int64
	declared int64 // Content-Length, -1 when unknown
	n        int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.declared > b.max {
		return 0, &TooLargeError{What: "the schema registry's answer", Max: b.max}
	}
	// One byte more than the bound tells a body of exactly max bytes from
	// a longer one.
	if left := b.max + 1 - b.n; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		return 0, &TooLargeError{What: "the schema registry's answer", Max: b.max}
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// checkRedirect follows up to maxRedirects redirects, and sends no
// credentials to an origin other than the first request's. Go's client
// keeps the Authorization header across a change of port or scheme on
// the same host name (and to a subdomain): a registry that redirects to
// another port of its host would otherwise get the Basic credentials or
// the bearer token along with a request it chose.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if origin(req.URL) != origin(via[0].URL) {
		for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2"} {
			req.Header.Del(h)
		}
	}
	return nil
}

// origin is a URL's scheme, host and port, the port spelled out when it
// is the scheme's default.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// checkText bounds a schema's text before a parser sees it: its size and
// how deep its brackets nest. what names the text in the error. A .proto
// (proto true) is scanned with its comments and '-quoted strings; JSON
// text (Avro, JSON Schema) with "-quoted strings only.
func checkText(what, text string, proto bool) error {
	if len(text) > MaxSchemaBytes {
		return &TooLargeError{What: what, Max: MaxSchemaBytes}
	}
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '"', '\'':
			if c == '\'' && !proto {
				continue
			}
			for i++; i < len(text) && text[i] != c; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '/':
			if !proto || i+1 >= len(text) {
				continue
			}
			switch text[i+1] {
			case '/':
				for i < len(text) && text[i] != '\n' {
					i++
				}
			case '*':
				end := strings.Index(text[i+2:], "*/")
				if end < 0 {
					return nil // an unclosed comment: the parser says so
				}
				i += end + 3
			}
		case '{', '[', '(':
			if c == '(' && !proto {
				continue
			}
			if depth++; depth > MaxSchemaDepth {
				return &TooDeepError{What: what, Max: MaxSchemaDepth}
			}
		case '}', ']', ')':
			depth--
		}
	}
	return nil
}

// maxReasonBytes bounds the text of a parser's or decoder's error that
// goes into a reason: every record of the id carries it, and some parsers
// quote the whole schema.
const maxReasonBytes = 400

// shortError is err's text cut to maxReasonBytes, on a rune boundary.
func shortError(err error) string {
	s := err.Error()
	if len(s) <= maxReasonBytes {
		return s
	}
	cut := maxReasonBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes more)", len(s)-cut)
}

// unreachable reports whether err is a registry request that got no
// answer: the HTTP client's own failure (refused, DNS, TLS, not HTTP, too
// many redirects) or a timeout while reading the answer.
func unreachable(err error) bool {
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne)
}

// innermost is the last error of err's chain of single wraps: the cause
// without the URL sr puts in front of it (which may hold credentials).
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
