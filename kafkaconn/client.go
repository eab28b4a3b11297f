package kafkaconn

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// NewClient makes a Kafka client from a connection's settings. Extra
// options are appended.
func NewClient(ctx context.Context, c Conn, extra ...kgo.Opt) (*kgo.Client, error) {
	s, err := resolve(ctx, c)
	if err != nil {
		return nil, err
	}
	opts, err := s.clientOpts(ctx, c.DialTimeout)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	return cl, nil
}

// Connect makes an admin client and proves the cluster answers: a first
// request that fails is explained (connectError) knowing the security
// protocol the client used.
func Connect(ctx context.Context, c Conn) (*kgo.Client, *kadm.Client, error) {
	s, err := resolve(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	cl, err := NewClient(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	timeout := c.DialTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	pctx, cancel := context.WithTimeout(ctx, 2*timeout)
	defer cancel()
	if err := cl.Ping(pctx); err != nil {
		cl.Close()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, connectError(s, 2*timeout, err)
	}
	return cl, kadm.NewClient(cl), nil
}
