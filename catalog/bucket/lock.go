package bucket

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/safefile"
	"github.com/topicsnap/topicsnap/internal/units"
)

// lockName is the partition lock's name in its folder.
const lockName = ".lock"

// lockInfo is the content of a partition's lock object.
type lockInfo struct {
	Owner   string    `json:"owner"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Expires time.Time `json:"expires"`
}

// stale reports whether the lock's holder is gone: it let the lock
// expire, or it ran on this host and its process no longer exists (a
// dumper killed here is noticed at once; one on another host, after the
// expiry). Safety does not rest on it: a wrong guess makes two holders,
// and the manifest's conditional write still lets only one commit.
func (li lockInfo) stale(now time.Time, host string) bool {
	if !now.Before(li.Expires) {
		return true
	}
	return li.Host != "" && li.Host == host && li.PID > 0 && li.PID != os.Getpid() && !processAlive(li.PID)
}

// lock is a held lock object, renewed in the background until Unlock or
// the end of the context it was taken with.
type lock struct {
	s      *Store
	ctx    context.Context
	rel    string
	owner  string
	mu     sync.Mutex
	etag   string
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// Lock takes the lock object rel: created if absent (If-None-Match: *),
// or taken over if its holder is gone (see lockInfo.stale) with If-Match
// on the version read, so of two takers one wins. The holder renews it
// every TTL/3 while ctx lasts.
func (s *Store) Lock(ctx context.Context, rel, what string) (store.Held, error) {
	host, _ := os.Hostname()
	var rb [4]byte
	rand.Read(rb[:])
	owner := fmt.Sprintf("%s pid %d %s", host, os.Getpid(), hex.EncodeToString(rb[:]))
	body := func() []byte {
		b, _ := json.Marshal(lockInfo{Owner: owner, Host: host, PID: os.Getpid(), Expires: time.Now().Add(s.lockTTL).UTC()})
		return b
	}
	etag, err := s.put(ctx, rel, body(), "", true)
	if errors.Is(err, store.ErrConflict) {
		b, cur, gerr := s.Get(ctx, rel, catalog.MaxLockBytes)
		var tl *safefile.TooLargeError
		if errors.As(gerr, &tl) {
			b, gerr = nil, nil // not ours to trust: unreadable, as a lock that is not JSON
		}
		if gerr != nil && !errors.Is(gerr, os.ErrNotExist) {
			return nil, gerr
		}
		var li lockInfo
		if gerr == nil {
			if jerr := json.Unmarshal(b, &li); jerr != nil {
				li = lockInfo{Owner: "unreadable lock"}
			}
		}
		if gerr == nil && !li.stale(time.Now(), host) {
			return nil, fmt.Errorf("lock %s in %s: held by %s until %s: %w", what, s.Where(""), li.Owner, units.Time(li.Expires), store.ErrLocked)
		}
		if gerr == nil {
			why := "expired at " + units.Time(li.Expires)
			if time.Now().Before(li.Expires) {
				why = "its process is gone"
			}
			s.log(fmt.Sprintf("s3: lock of %s held by %s: %s; taking it over", what, li.Owner, why))
			etag, err = s.put(ctx, rel, body(), cur, false)
		} else {
			etag, err = s.put(ctx, rel, body(), "", true)
		}
		if errors.Is(err, store.ErrConflict) {
			return nil, fmt.Errorf("lock %s in %s: another dumper took it first: %w", what, s.Where(""), store.ErrLocked)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	l := &lock{s: s, ctx: ctx, rel: rel, owner: owner, etag: etag, stop: make(chan struct{}), done: make(chan struct{})}
	go l.renew(body)
	return l, nil
}

func (l *lock) renew(body func() []byte) {
	defer close(l.done)
	t := time.NewTicker(l.s.lockTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		l.mu.Lock()
		etag, err := l.s.put(l.ctx, l.rel, body(), l.etag, false)
		if err == nil {
			l.etag = etag
		}
		l.mu.Unlock()
		if err != nil {
			// The manifest's conditional write still keeps a second writer
			// from committing; say that the lock is in doubt.
			l.s.log(fmt.Sprintf("s3: renew lock %s: %v", l.s.Where(l.rel), err))
		}
	}
}

// Unlock stops the renewal and removes the lock object if it is still ours.
func (l *lock) Unlock() {
	if l.closed {
		return
	}
	l.closed = true
	close(l.stop)
	<-l.done
	// Release even when the run was interrupted, but do not hang on a
	// server that is down: the lock then expires by itself.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(l.ctx), 10*time.Second)
	defer cancel()
	b, etag, err := l.s.Get(ctx, l.rel, catalog.MaxLockBytes)
	if err != nil {
		return
	}
	var li lockInfo
	if json.Unmarshal(b, &li) == nil && li.Owner == l.owner {
		l.s.cl.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &l.s.bucket, Key: aws.String(l.s.key(l.rel)), IfMatch: aws.String(etag)})
	}
}
