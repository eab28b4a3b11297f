package dump

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Errors a caller can tell apart with errors.Is.
var (
	ErrUnreachable    = errors.New("cannot reach the Kafka cluster")
	ErrUnknownTopic   = errors.New("unknown topic")
	ErrAuthentication = errors.New("authentication failed")
	ErrAuthorization  = errors.New("not authorized")
	ErrBadOption      = errors.New("bad option")
)

// classify wraps a Kafka or network error with the kind a user can act on.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var ke *kerr.Error
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed), errors.Is(err, kerr.IllegalSaslState),
		errors.Is(err, kerr.UnsupportedSaslMechanism):
		return fmt.Errorf("%w: %w", ErrAuthentication, err)
	case errors.Is(err, kerr.TopicAuthorizationFailed), errors.Is(err, kerr.ClusterAuthorizationFailed),
		errors.Is(err, kerr.GroupAuthorizationFailed), errors.Is(err, kerr.TransactionalIDAuthorizationFailed):
		return fmt.Errorf("%w: %w", ErrAuthorization, err)
	case errors.As(err, &ke):
		return err
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	return err
}
