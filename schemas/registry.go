package schemas

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

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

// client makes the sr client for r.
func (r *Registry) client() (*sr.Client, error) {
	if len(r.URLs) == 0 {
		return nil, fmt.Errorf("%w: no schema.registry.url", ErrBadRegistry)
	}
	opts := []sr.ClientOpt{sr.URLs(r.URLs...), sr.UserAgent("topicsnap")}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if r.CAFile != "" {
		pem, err := os.ReadFile(r.CAFile)
		if err != nil {
			return nil, fmt.Errorf("%w: read schema.registry.ssl.truststore.location: %w", ErrBadRegistry, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: %s holds no PEM certificate (topicsnap reads PEM, not a Java store)", ErrBadRegistry, r.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	opts = append(opts, sr.HTTPClient(&http.Client{Timeout: timeout, Transport: tr}))
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
