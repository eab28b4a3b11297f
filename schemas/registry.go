package schemas

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/internal/safefile"
	"github.com/twmb/franz-go/pkg/sr"
)

// Registry says how to reach a Schema Registry: the settings of Confluent's
// clients (schema.registry.url, basic.auth.user.info, bearer.auth.token,
// schema.registry.ssl.truststore.location as a PEM file).
type Registry struct {
	URLs     []string // one or more; a URL may carry a path (/apis/ccompat/v7)
	User     string
	Password string // never printed
	Token    string // bearer token; never printed
	CAFile   string // PEM file of the CAs to trust
	Timeout  time.Duration
}

// ErrBadRegistry marks registry settings that cannot be used.
var ErrBadRegistry = errors.New("bad schema registry settings")

// String names the registry without its credentials.
func (r *Registry) String() string {
	var out []string
	for _, u := range r.URLs {
		out = append(out, redactURL(u))
	}
	return strings.Join(out, ",")
}

// redactURL drops a user:password@ from a URL.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	p.User = nil
	return p.String()
}

// ErrRegistryTLS marks a registry whose certificate the client does not
// trust (or that does not speak TLS on an https URL); see RegistryTLSError.
var ErrRegistryTLS = exit.New(exit.TLS, "schema registry TLS failed",
	"set schema.registry.ssl.truststore.location in --config (or --schema-registry-ca, or TOPICSNAP_SCHEMA_REGISTRY_CA) to the PEM file of the CA that signed the registry's certificate, and use https:// only where the registry serves TLS")

// caOption names the settings that give the registry's CA, for messages.
const caOption = "schema.registry.ssl.truststore.location (--schema-registry-ca, TOPICSNAP_SCHEMA_REGISTRY_CA)"

// RegistryTLSError is a TLS handshake with the registry that failed: its
// certificate is not signed by the CA given (or, without one, by the
// system's), does not name the host, or the URL is https and the server
// speaks plain HTTP.
type RegistryTLSError struct {
	URL    string // without credentials
	CAFile string // "" when the system's CAs were used
	Err    error
}

func (e *RegistryTLSError) Error() string {
	var rhe tls.RecordHeaderError
	if errors.As(e.Err, &rhe) {
		return fmt.Sprintf("schema registry %s does not speak TLS (is the URL http://?): %v", e.URL, e.Err)
	}
	ca := "is not set: the system's CAs were used"
	if e.CAFile != "" {
		ca = "is " + e.CAFile
	}
	return fmt.Sprintf("schema registry %s: its certificate is not trusted: %v; %s %s", e.URL, e.Err, caOption, ca)
}

func (e *RegistryTLSError) Unwrap() []error { return []error{ErrRegistryTLS, e.Err} }

// timeout is r.Timeout, 10 s when unset.
func (r *Registry) timeout() time.Duration {
	if r.Timeout <= 0 {
		return 10 * time.Second
	}
	return r.Timeout
}

// transport makes the HTTP transport of r: its trusted CAs.
func (r *Registry) transport(ctx context.Context) (*http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if r.CAFile != "" {
		pem, err := safefile.ReadNamed(ctx, r.CAFile, safefile.MaxText)
		if err != nil {
			return nil, fmt.Errorf("%w: read %s: %w", ErrBadRegistry, caOption, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: %s: %s holds no PEM certificate (topicsnap reads PEM, not a Java store)", ErrBadRegistry, caOption, r.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return tr, nil
}

// httpClient makes the HTTP client of r: its timeout and trusted CAs,
// answers bounded to MaxSchemaBytes (boundedTransport), no credentials
// across a change of origin on redirect (checkRedirect).
func (r *Registry) httpClient(ctx context.Context) (*http.Client, error) {
	tr, err := r.transport(ctx)
	if err != nil {
		return nil, err
	}
	return &http.Client{Timeout: r.timeout(), Transport: &boundedTransport{next: tr, max: MaxSchemaBytes}, CheckRedirect: checkRedirect}, nil
}

// CheckTLS makes a TLS handshake with each https URL of r, as its client
// would, and returns a RegistryTLSError when one fails: a wrong CA is a
// setting to fix before the dump writes anything, not a registry that is
// down. Any other failure (refused, timed out) is left to the dump, which
// warns of a registry it cannot reach and goes on.
func (r *Registry) CheckTLS(ctx context.Context) error {
	tr, err := r.transport(ctx)
	if err != nil {
		return err
	}
	base := tr.TLSClientConfig
	for _, raw := range r.URLs {
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("%w: schema.registry.url %s is not a URL", ErrBadRegistry, redactURL(raw))
		}
		if !strings.EqualFold(u.Scheme, "https") {
			continue
		}
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: u.Hostname()}
		if base != nil {
			cfg.RootCAs = base.RootCAs
		}
		addr := u.Host
		if u.Port() == "" {
			addr = net.JoinHostPort(u.Hostname(), "443")
		}
		dctx, cancel := context.WithTimeout(ctx, r.timeout())
		conn, err := (&tls.Dialer{Config: cfg}).DialContext(dctx, "tcp", addr)
		cancel()
		if err != nil {
			if tlsFailure(err) {
				return &RegistryTLSError{URL: redactURL(raw), CAFile: r.CAFile, Err: err}
			}
			continue
		}
		conn.Close()
	}
	return nil
}

// tlsFailure reports whether err is a failed TLS handshake: a certificate
// not trusted or not for this host, or a server that is not TLS.
func tlsFailure(err error) bool {
	var cve *tls.CertificateVerificationError
	var uae x509.UnknownAuthorityError
	var he x509.HostnameError
	var cie x509.CertificateInvalidError
	var rhe tls.RecordHeaderError
	return errors.As(err, &cve) || errors.As(err, &uae) || errors.As(err, &he) || errors.As(err, &cie) || errors.As(err, &rhe)
}

// client makes the sr client for r.
func (r *Registry) client(ctx context.Context) (*sr.Client, error) {
	if len(r.URLs) == 0 {
		return nil, fmt.Errorf("%w: no schema.registry.url", ErrBadRegistry)
	}
	opts := []sr.ClientOpt{sr.URLs(r.URLs...), sr.UserAgent("topicsnap")}
	hc, err := r.httpClient(ctx)
	if err != nil {
		return nil, err
	}
	opts = append(opts, sr.HTTPClient(hc))
	switch {
	case r.Token != "" && r.User != "":
		return nil, fmt.Errorf("%w: give basic auth or a bearer token, not both", ErrBadRegistry)
	case r.Token != "":
		opts = append(opts, sr.BearerToken(r.Token))
	case r.User != "":
		opts = append(opts, sr.BasicAuth(r.User, r.Password))
	}
	cl, err := sr.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRegistry, err)
	}
	return cl, nil
}

// ParseUserInfo splits basic.auth.user.info ("user:password").
func ParseUserInfo(s string) (user, pass string, err error) {
	u, p, ok := strings.Cut(s, ":")
	if !ok || u == "" {
		return "", "", fmt.Errorf("%w: basic.auth.user.info must be USER:PASSWORD", ErrBadRegistry)
	}
	return u, p, nil
}

// SplitURLs splits schema.registry.url's comma-separated list.
func SplitURLs(s string) []string {
	var out []string
	for _, u := range strings.Split(s, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, strings.TrimRight(u, "/"))
		}
	}
	return out
}
