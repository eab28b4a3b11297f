package kafkaconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// WaitHook is the client option that tells p, at most every few seconds,
// what the client is waiting for when a broker cannot be reached: kgo
// retries with backoff on its own, and silence would look like a hang. A
// nil p is told nothing.
func WaitHook(p Progress) kgo.Opt {
	return kgo.WithHooks(&waitHook{p: p})
}

// waitHook is WaitHook's hook.
type waitHook struct {
	p    Progress
	mu   sync.Mutex
	last time.Time
}

var _ kgo.HookBrokerConnect = (*waitHook)(nil)

func (h *waitHook) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err == nil || h.p == nil || errors.Is(err, kgo.ErrClientClosed) || errors.Is(err, context.Canceled) {
		return // nothing to wait for: the run is over
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if time.Since(h.last) < 3*time.Second {
		return
	}
	h.last = time.Now()
	h.p.Waiting(fmt.Sprintf("broker %s unreachable (%v); retrying with backoff", net.JoinHostPort(meta.Host, fmt.Sprint(meta.Port)), err))
}
