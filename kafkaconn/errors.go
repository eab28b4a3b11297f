package kafkaconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// Errors a caller can tell apart with errors.Is, each with the exit code
// and the fix a user sees (package exit).
var (
	ErrUnreachable = exit.New(exit.Unreachable, "cannot reach the Kafka cluster",
		"check --brokers (HOST:PORT of a broker's listener) and that the broker runs and is reachable from here")
	ErrUnknownTopic = exit.New(exit.UnknownTopic, "unknown topic",
		"list the cluster's topics (kafka-topics --list) and pass one with --topic")
	ErrAuthentication = exit.New(exit.Auth, "authentication failed",
		"check sasl.mechanism, sasl.username and sasl.password in --config")
	ErrAuthorization = exit.New(exit.NotAllowed, "not authorized",
		"grant the principal Describe and Read on the topic (and Describe on the cluster and groups)")
	ErrTLS = exit.New(exit.TLS, "TLS failed",
		"set ssl.ca.location in --config to the PEM file of the CA that signed the broker's certificate")
	ErrBadOption = exit.New(exit.Error, "bad option", exit.HelpHint)
	// ErrTLSMismatch is a client with TLS meeting a listener without, or
	// the other way round; errors.Is(err, ErrTLS) holds too.
	ErrTLSMismatch = exit.Narrow(ErrTLS, exit.TLS, "security.protocol does not match the listener",
		"set security.protocol in --config to what the listener speaks: SSL (or SASL_SSL) for a TLS listener, PLAINTEXT (or SASL_PLAINTEXT) otherwise")
	// ErrSASLMismatch is a SASL client meeting a listener that does not
	// speak SASL; errors.Is(err, ErrAuthentication) holds too.
	ErrSASLMismatch = exit.Narrow(ErrAuthentication, exit.Auth, "the listener may not speak SASL",
		"set security.protocol in --config to what the listener speaks: PLAINTEXT (or SSL) for a listener without SASL; "+
			"or point --brokers at the port of the broker's SASL listener")
	// ErrSASLRequired is a client without SASL meeting a listener that
	// expects it (SASL_PLAINTEXT); errors.Is(err, ErrAuthentication) holds too.
	ErrSASLRequired = exit.Narrow(ErrAuthentication, exit.Auth, "the listener expects SASL",
		"set security.protocol=SASL_PLAINTEXT (SASL_SSL over TLS), sasl.mechanism, sasl.username and sasl.password in --config; "+
			"or point --brokers at the port of the broker's PLAINTEXT listener")
)

// AuthzError is an authorization failure: who was refused what, and the
// grant that would allow it. errors.Is(err, ErrAuthorization) holds.
type AuthzError struct {
	Principal string // e.g. User:alice
	Action    string // what was refused, e.g. `describe topic "orders"`
	Topic     string // the topic the grant is on
	Ops       string // the operations to grant on it, e.g. "READ and DESCRIBE"
	Err       error  // the broker's error
	// Grant, when set, is the hint in full: the grants a caller other
	// than a dump needs (a restore's are a producer's). Empty: a dump's.
	Grant string
}

func (e *AuthzError) Error() string {
	return fmt.Sprintf("%s: %s may not %s; that needs %s on topic %s: %v", ErrAuthorization, e.Principal, e.Action, e.Ops, e.Topic, e.Err)
}

func (e *AuthzError) Unwrap() []error { return []error{ErrAuthorization, e.Err} }

// ExitCode is exit.NotAllowed.
func (e *AuthzError) ExitCode() exit.Code { return exit.NotAllowed }

// Hint is the grant that would allow what was refused, as the operator
// would type it.
func (e *AuthzError) Hint() string {
	if e.Grant != "" {
		return e.Grant
	}
	return fmt.Sprintf("ask the cluster's operator for READ and DESCRIBE on topic %[2]s for %[1]s "+
		"(kafka-acls.sh --bootstrap-server HOST:PORT --add --allow-principal %[1]s --operation Read --operation Describe --topic %[2]s), "+
		"and DESCRIBE on the cluster to record every consumer group", e.Principal, e.Topic)
}

// Classify wraps a Kafka or network error with the kind a user can act on.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	var ke *kerr.Error
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed), errors.Is(err, kerr.IllegalSaslState),
		errors.Is(err, kerr.UnsupportedSaslMechanism):
		return fmt.Errorf("%w: %w", ErrAuthentication, err)
	case IsAuthz(err):
		return fmt.Errorf("%w: %w", ErrAuthorization, err)
	case errors.As(err, &ke):
		return err
	}
	if isTLS(err) {
		return fmt.Errorf("%w: %w", ErrTLS, err)
	}
	if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
		// A socket this process could not open: the limit of open files,
		// not a cluster out of reach.
		return store.TooManyFiles(err)
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	return err
}

// IsAuthz reports whether err is the broker refusing an operation to the
// client's principal (a topic, the cluster, a group or a transactional id).
func IsAuthz(err error) bool {
	return errors.Is(err, kerr.TopicAuthorizationFailed) || errors.Is(err, kerr.ClusterAuthorizationFailed) ||
		errors.Is(err, kerr.GroupAuthorizationFailed) || errors.Is(err, kerr.TransactionalIDAuthorizationFailed)
}

// isTLS reports whether err is the TLS handshake failing: a certificate the
// client cannot verify, an alert from the broker, or a broker that does not
// speak TLS.
func isTLS(err error) bool {
	var (
		cve *tls.CertificateVerificationError
		rhe tls.RecordHeaderError
		ae  tls.AlertError
		uae x509.UnknownAuthorityError
		he  x509.HostnameError
		cie x509.CertificateInvalidError
	)
	return errors.As(err, &cve) || errors.As(err, &rhe) || errors.As(err, &ae) ||
		errors.As(err, &uae) || errors.As(err, &he) || errors.As(err, &cie)
}

// connectError explains why the first request to the brokers failed,
// knowing the security protocol the client used: a connection the broker
// closes at once is, on a TLS client, a listener without TLS, and on a
// plaintext client, at the very first request, a listener that expects TLS.
func connectError(s *settings, within time.Duration, err error) error {
	addrs := strings.Join(s.brokers, ",")
	tlsClient := strings.HasSuffix(s.protocol, "SSL")
	var eof *kgo.ErrFirstReadEOF
	isEOF := errors.As(err, &eof)
	switch cerr := Classify(err); {
	case errors.Is(cerr, ErrTLS):
		why := "the broker's certificate does not verify"
		var uae x509.UnknownAuthorityError
		switch {
		case errors.As(err, &uae) && s.caFile == "":
			why = "the broker's certificate is not signed by a CA this system trusts, and ssl.ca.location is not set"
		case errors.As(err, &uae):
			why = fmt.Sprintf("the broker's certificate is not signed by the CA in ssl.ca.location %s", s.caFile)
		}
		return fmt.Errorf("connect to %s over TLS: %s: %w", addrs, why, cerr)
	case isEOF && tlsClient:
		return fmt.Errorf("connect to %s over TLS: the broker closed the connection during the handshake, so this listener does not speak TLS: %w: %v",
			addrs, ErrTLSMismatch, err)
	case !tlsClient && (isEOF && strings.Contains(err.Error(), "requires TLS") || strings.Contains(err.Error(), "speaking to a tls endpoint")):
		// kgo's diagnosis of a TLS alert, or an EOF, in answer to the first
		// request (ApiVersions), which PLAINTEXT and SASL_PLAINTEXT
		// listeners always answer.
		return fmt.Errorf("connect to %s without TLS: the broker answered the first request as an SSL listener does: %w: %v",
			addrs, ErrTLSMismatch, err)
	case isEOF && !strings.HasPrefix(s.protocol, "SASL"):
		// A plaintext client whose first request (ApiVersions) is answered
		// by a closed connection, and not by a TLS alert (above): a SASL
		// listener waits for the SASL handshake and drops anything else.
		return fmt.Errorf("connect to %s with security.protocol %s: the broker closed the connection at the first request, as a SASL listener does with a client that does not authenticate: %w: %v",
			addrs, s.protocol, ErrSASLRequired, err)
	case strings.HasPrefix(s.protocol, "SASL") && (!isEOF && errors.Is(err, io.EOF) || errors.Is(err, kerr.IllegalSaslState)):
		// The broker answered ApiVersions, then dropped (or refused) the
		// SASL handshake: a listener configured without SASL does that.
		return fmt.Errorf("connect to %s with security.protocol %s: the broker ended the SASL handshake, so this listener may not speak SASL: %w: %v",
			addrs, s.protocol, ErrSASLMismatch, err)
	case errors.Is(cerr, ErrUnreachable):
		return fmt.Errorf("connect to %s within %s: %w", addrs, within, cerr)
	case errors.Is(cerr, ErrAuthentication), errors.Is(cerr, ErrAuthorization):
		return fmt.Errorf("connect to %s: %w", addrs, cerr)
	}
	return fmt.Errorf("connect to %s within %s: %w: %v", addrs, within, ErrUnreachable, err)
}
