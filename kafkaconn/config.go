package kafkaconn

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"net"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/magiconair/properties"
	"github.com/topicsnap/topicsnap/internal/safefile"
	"github.com/topicsnap/topicsnap/internal/suggest"
	"github.com/topicsnap/topicsnap/schemas"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Conn says how to reach the cluster: the same settings a user gives kcat -F
// or the Java tools' --command-config.
type Conn struct {
	Brokers     []string // --brokers; wins over bootstrap.servers
	ConfigFile  string   // a client.properties file
	ClientID    string
	DialTimeout time.Duration
}

// ErrBadConfig marks a client configuration that cannot be used.
var ErrBadConfig = exit.New(exit.Error, "bad client configuration", exit.HelpHint)

// ConfigError is a properties file topicsnap cannot use: what is wrong with
// it and, when known, the fix. errors.Is(err, ErrBadConfig) holds.
type ConfigError struct {
	Path     string
	Problems []string // one per key or line, sorted
	Fix      string   // what to write instead; empty when the problems say it
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("read config %s: %v: %s", e.Path, ErrBadConfig, strings.Join(e.Problems, "; "))
}

func (e *ConfigError) Unwrap() error { return ErrBadConfig }

// ExitCode is exit.Error.
func (e *ConfigError) ExitCode() exit.Code { return exit.Error }

// Hint is what to write instead, else the command's --help.
func (e *ConfigError) Hint() string {
	if e.Fix != "" {
		return e.Fix
	}
	return exit.HelpHint
}

// storeKeys are the Java clients' key and trust store settings. topicsnap
// reads PEM files instead; each names the setting that takes its place.
var storeKeys = map[string]string{
	"ssl.truststore.location": "ssl.ca.location",
	"ssl.truststore.password": "ssl.ca.location",
	"ssl.truststore.type":     "ssl.ca.location",
	"ssl.keystore.location":   "ssl.certificate.location and ssl.key.location",
	"ssl.keystore.password":   "ssl.certificate.location and ssl.key.location",
	"ssl.keystore.type":       "ssl.certificate.location and ssl.key.location",
	"ssl.key.password":        "ssl.certificate.location and ssl.key.location",
}

const (
	fixTrustStore = "topicsnap reads PEM files, not Java stores: export the CA certificate " +
		"(keytool -exportcert -rfc -keystore TRUSTSTORE -alias ALIAS -file ca.pem) and set ssl.ca.location to it"
	fixKeyStore = "topicsnap reads PEM files, not Java stores: convert the key store (as PKCS12: " +
		"openssl pkcs12 -in client.p12 -nokeys -out client.pem; openssl pkcs12 -in client.p12 -nocerts -nodes -out client.key) " +
		"and set ssl.certificate.location and ssl.key.location to them"
)

// knownKeys are the standard client property names topicsnap understands.
var knownKeys = []string{
	"bootstrap.servers", "security.protocol", "sasl.mechanism", "sasl.mechanisms",
	"sasl.username", "sasl.password", "sasl.jaas.config",
	"ssl.ca.location", "ssl.certificate.location", "ssl.key.location",
	"ssl.endpoint.identification.algorithm", "enable.ssl.certificate.verification",
	"client.id",
	// the bucket's endpoint for --dir s3://... (read by S3Endpoint)
	"s3.endpoint",
}

// S3Endpoint is the s3.endpoint of the properties file at path, "" when
// it sets none.
func S3Endpoint(ctx context.Context, path string) (string, error) {
	props, err := readProperties(ctx, path)
	if err != nil {
		return "", err
	}
	return props["s3.endpoint"], nil
}

// ignoredKeys are standard properties that do not apply to a reader that
// never joins a group; they are accepted and ignored rather than refused.
var ignoredKeys = []string{
	"group.id", "auto.offset.reset", "enable.auto.commit", "key.deserializer", "value.deserializer",
	"request.timeout.ms", "session.timeout.ms", "acks", "retries", "linger.ms",
	"key.serializer", "value.serializer", "client.dns.lookup",
}

// settings is a parsed client configuration.
type settings struct {
	brokers  []string
	protocol string
	mech     string
	user     string
	pass     string
	caFile   string
	certFile string
	keyFile  string
	noVerify bool
	clientID string
}

// maxConfigBytes bounds a client.properties file.
const maxConfigBytes = 1 << 20

// readProperties parses a properties file and refuses unknown keys, naming
// the closest known one.
func readProperties(ctx context.Context, path string) (map[string]string, error) {
	// A properties file is a few hundred bytes: a pipe (<(...)) is read
	// through the bound, and /dev/zero is refused past it, not read
	// without end.
	b, err := safefile.ReadNamed(ctx, path, maxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	return parseProperties(path, string(b))
}

func parseProperties(path, text string) (map[string]string, error) {
	p, err := properties.LoadString(text)
	if err != nil {
		return nil, &ConfigError{Path: path, Problems: []string{err.Error()}}
	}
	out := map[string]string{}
	var bad []string
	var fixes []string
	for _, k := range p.Keys() {
		v, _ := p.Get(k)
		if slices.Contains(knownKeys, k) || slices.Contains(registryKeys, k) {
			out[k] = strings.TrimSpace(v)
			continue
		}
		if slices.Contains(ignoredKeys, k) {
			continue
		}
		msg := fmt.Sprintf("unknown key %q", k)
		if use, ok := storeKeys[k]; ok {
			bad = append(bad, fmt.Sprintf("%s (a Java store setting: topicsnap reads PEM files through %s)", msg, use))
			fix := fixKeyStore
			if strings.HasPrefix(k, "ssl.truststore.") {
				fix = fixTrustStore
			}
			if !slices.Contains(fixes, fix) {
				fixes = append(fixes, fix)
			}
			continue
		}
		if s := suggest.Closest(k, slices.Concat(knownKeys, ignoredKeys, registryKeys)); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		bad = append(bad, msg)
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		sort.Strings(fixes)
		return nil, &ConfigError{Path: path, Problems: bad, Fix: strings.Join(fixes, "; ")}
	}
	return out, nil
}

var jaasRE = regexp.MustCompile(`(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"`)

func resolve(ctx context.Context, c Conn) (*settings, error) {
	props := map[string]string{}
	if c.ConfigFile != "" {
		var err error
		if props, err = readProperties(ctx, c.ConfigFile); err != nil {
			return nil, err
		}
	}
	return resolveProps(c, props)
}

// resolveProps merges command-line settings over a parsed properties file.
func resolveProps(c Conn, props map[string]string) (*settings, error) {
	s := &settings{protocol: "PLAINTEXT", clientID: "topicsnap"}
	where := "config " + c.ConfigFile
	if v := props["bootstrap.servers"]; v != "" {
		s.brokers = splitList(v)
	}
	if len(c.Brokers) > 0 {
		s.brokers = c.Brokers
	}
	if len(s.brokers) == 0 {
		return nil, fmt.Errorf("%w: no brokers: pass --brokers HOST:PORT, set TOPICSNAP_BROKERS, or bootstrap.servers in --config", ErrBadConfig)
	}
	for _, b := range s.brokers {
		if _, _, err := net.SplitHostPort(b); err != nil {
			return nil, fmt.Errorf("%w: broker address %q is not HOST:PORT", ErrBadConfig, b)
		}
	}
	if v := props["security.protocol"]; v != "" {
		s.protocol = strings.ToUpper(v)
	}
	switch s.protocol {
	case "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL":
	default:
		return nil, fmt.Errorf("%s: %w: security.protocol %q: use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", where, ErrBadConfig, s.protocol)
	}
	s.mech = strings.ToUpper(firstNonEmpty(props["sasl.mechanism"], props["sasl.mechanisms"]))
	s.user, s.pass = props["sasl.username"], props["sasl.password"]
	if jaas := props["sasl.jaas.config"]; jaas != "" {
		for _, m := range jaasRE.FindAllStringSubmatch(jaas, -1) {
			switch m[1] {
			case "username":
				s.user = m[2]
			case "password":
				s.pass = m[2]
			}
		}
	}
	if strings.HasPrefix(s.protocol, "SASL") {
		switch s.mech {
		case "":
			s.mech = "PLAIN"
		case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
		default:
			return nil, fmt.Errorf("%s: %w: sasl.mechanism %q: use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", where, ErrBadConfig, s.mech)
		}
		if s.user == "" {
			return nil, fmt.Errorf("%s: %w: SASL needs sasl.username and sasl.password (or sasl.jaas.config)", where, ErrBadConfig)
		}
	}
	s.caFile, s.certFile, s.keyFile = props["ssl.ca.location"], props["ssl.certificate.location"], props["ssl.key.location"]
	s.noVerify = props["enable.ssl.certificate.verification"] == "false"
	s.clientID = firstNonEmpty(c.ClientID, props["client.id"], s.clientID)
	return s, nil
}

// Principal is who the broker will take the client for, as ACLs name it.
func Principal(ctx context.Context, c Conn) string {
	s, err := resolve(ctx, c)
	switch {
	case err != nil:
		return "the client's principal"
	case strings.HasPrefix(s.protocol, "SASL"):
		return "User:" + s.user
	case s.certFile != "":
		return "the principal of the certificate in ssl.certificate.location"
	}
	return "User:ANONYMOUS"
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// clientOpts turns settings into franz-go options. Secrets go into the
// mechanism and nowhere else.
func (s *settings) clientOpts(ctx context.Context, dialTimeout time.Duration) ([]kgo.Opt, error) {
	if dialTimeout == 0 {
		dialTimeout = 10 * time.Second
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(s.brokers...),
		kgo.ClientID(s.clientID),
		kgo.DialTimeout(dialTimeout),
	}
	if strings.HasSuffix(s.protocol, "SSL") {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: s.noVerify}
		if s.caFile != "" {
			pem, err := safefile.ReadNamed(ctx, s.caFile, safefile.MaxText)
			if err != nil {
				return nil, fmt.Errorf("read ssl.ca.location: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("%w: ssl.ca.location %s holds no PEM certificate", ErrBadConfig, s.caFile)
			}
			cfg.RootCAs = pool
		}
		if s.certFile != "" || s.keyFile != "" {
			cert, err := safefile.LoadX509KeyPair(ctx, s.certFile, s.keyFile)
			if err != nil {
				return nil, fmt.Errorf("%w: load ssl.certificate.location/ssl.key.location: %w", ErrBadConfig, err)
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if strings.HasPrefix(s.protocol, "SASL") {
		var m sasl.Mechanism
		switch s.mech {
		case "PLAIN":
			m = plain.Auth{User: s.user, Pass: s.pass}.AsMechanism()
		case "SCRAM-SHA-256":
			m = scram.Auth{User: s.user, Pass: s.pass}.AsSha256Mechanism()
		case "SCRAM-SHA-512":
			m = scram.Auth{User: s.user, Pass: s.pass}.AsSha512Mechanism()
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// registryKeys are the Schema Registry settings of Confluent's clients.
var registryKeys = []string{
	"schema.registry.url", "basic.auth.credentials.source", "basic.auth.user.info",
	"schema.registry.basic.auth.credentials.source", "schema.registry.basic.auth.user.info",
	"bearer.auth.credentials.source", "bearer.auth.token",
	"schema.registry.ssl.truststore.location", "schema.registry.ssl.truststore.type",
	"schema.registry.ssl.ca.location",
}

// RegistryOf returns the Schema Registry settings: the config file's
// Confluent client keys, with what flag (from flags or the environment)
// gives on top; nil when neither names a registry.
func RegistryOf(ctx context.Context, configFile string, flag *schemas.Registry) (*schemas.Registry, error) {
	props := map[string]string{}
	if configFile != "" {
		var err error
		if props, err = readProperties(ctx, configFile); err != nil {
			return nil, err
		}
	}
	return registryOf(configFile, props, flag)
}

func registryOf(path string, props map[string]string, flag *schemas.Registry) (*schemas.Registry, error) {
	r := &schemas.Registry{}
	if flag != nil {
		*r = *flag
	}
	bad := func(format string, args ...any) error {
		return &ConfigError{Path: path, Problems: []string{fmt.Sprintf(format, args...)}}
	}
	if len(r.URLs) == 0 {
		r.URLs = schemas.SplitURLs(props["schema.registry.url"])
	}
	if len(r.URLs) == 0 {
		for _, k := range registryKeys[1:] {
			if props[k] != "" {
				return nil, bad("%s is set but schema.registry.url is not", k)
			}
		}
		if flag != nil && (flag.User != "" || flag.Token != "" || flag.CAFile != "") {
			return nil, fmt.Errorf("%w: schema registry credentials or CA given without its URL (--schema-registry or schema.registry.url)", ErrBadConfig)
		}
		return nil, nil
	}
	source := strings.ToUpper(firstNonEmpty(props["basic.auth.credentials.source"], props["schema.registry.basic.auth.credentials.source"], "USER_INFO"))
	info := firstNonEmpty(props["basic.auth.user.info"], props["schema.registry.basic.auth.user.info"])
	if r.User == "" && r.Token == "" {
		switch source {
		case "USER_INFO":
			if info != "" {
				u, p, err := schemas.ParseUserInfo(info)
				if err != nil {
					return nil, bad("basic.auth.user.info must be USER:PASSWORD")
				}
				r.User, r.Password = u, p
			}
		case "URL":
			// The credentials ride in the URL: taken out of it, so that it
			// can be printed.
			for i, u := range r.URLs {
				p, err := url.Parse(u)
				if err != nil {
					return nil, bad("schema.registry.url %q is not a URL", redactedURL(u))
				}
				if p.User != nil {
					r.User = p.User.Username()
					r.Password, _ = p.User.Password()
					p.User = nil
					r.URLs[i] = p.String()
				}
			}
		case "SASL_INHERIT":
			s, err := resolveProps(Conn{Brokers: []string{"unused:0"}}, props)
			if err != nil {
				return nil, err
			}
			r.User, r.Password = s.user, s.pass
		default:
			return nil, bad("basic.auth.credentials.source %q: use USER_INFO, URL or SASL_INHERIT", source)
		}
		if src := strings.ToUpper(props["bearer.auth.credentials.source"]); src != "" && src != "STATIC_TOKEN" {
			return nil, bad("bearer.auth.credentials.source %q: topicsnap reads STATIC_TOKEN (bearer.auth.token)", src)
		}
		if t := props["bearer.auth.token"]; t != "" {
			if r.User != "" {
				return nil, bad("both basic.auth.user.info and bearer.auth.token are set: keep one")
			}
			r.Token = t
		}
	}
	if r.CAFile == "" {
		r.CAFile = firstNonEmpty(props["schema.registry.ssl.truststore.location"], props["schema.registry.ssl.ca.location"])
		if t := strings.ToUpper(props["schema.registry.ssl.truststore.type"]); t != "" && t != "PEM" {
			return nil, &ConfigError{Path: path, Problems: []string{fmt.Sprintf("schema.registry.ssl.truststore.type %s: topicsnap reads PEM files", t)}, Fix: fixTrustStore}
		}
	}
	return r, nil
}

// redactedURL drops the credentials from a URL for messages.
func redactedURL(u string) string {
	if i := strings.LastIndex(u, "@"); i >= 0 {
		if j := strings.Index(u, "://"); j >= 0 && j < i {
			return u[:j+3] + "***@" + u[i+1:]
		}
	}
	return u
}
