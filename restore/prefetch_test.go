package restore

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestReadersReadWhileTheTargetIsCreated: the readers read ahead while
// the target is being created (the CPU was idle meanwhile: restore read
// nothing before the target's leaders answered), the producers produce
// nothing before it exists, and the target ends with every record once.
func TestReadersReadWhileTheTargetIsCreated(t *testing.T) {
	const n = 3000
	c, dir := kfakeSource(t, n)
	brokers := c.ListenAddrs()
	// read: closed when a producer holds records read ahead.
	read := make(chan struct{})
	var once sync.Once
	testPrefetched = func(records int) {
		if records > 0 {
			once.Do(func() { close(read) })
		}
	}
	t.Cleanup(func() { testPrefetched = nil })
	var created, producedEarly, readMeanwhile atomic.Bool
	c.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !req.(*kmsg.CreateTopicsRequest).ValidateOnly {
			// A slow controller: the topic is created once the readers
			// have read ahead, or after 10 s.
			select {
			case <-read:
				readMeanwhile.Store(true)
			case <-time.After(10 * time.Second):
			}
			created.Store(true)
		}
		return nil, nil, false
	})
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !created.Load() {
			producedEarly.Store(true)
		}
		return nil, nil, false
	})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: "src", ToTopic: "dst"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Created || s.Records != n {
		t.Fatalf("created %v, %d records: want a created target of %d", s.Created, s.Records, n)
	}
	if producedEarly.Load() {
		t.Error("a produce request reached the broker before the target was created")
	}
	if !readMeanwhile.Load() {
		t.Error("no record was read ahead in the 10 s the target's creation took: want the readers reading meanwhile")
	}
	onceEach(t, brokers, "dst", n)
}

// TestCreateRefusedWhileReading: a target the cluster refuses to create
// ends the run with that refusal (not the readers' being stopped), and
// nothing is produced.
func TestCreateRefusedWhileReading(t *testing.T) {
	c, dir := kfakeSource(t, 3000)
	brokers := c.ListenAddrs()
	var produced atomic.Bool
	c.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		r := req.(*kmsg.CreateTopicsRequest)
		if r.ValidateOnly {
			return nil, nil, false
		}
		time.Sleep(100 * time.Millisecond)
		resp := r.ResponseKind().(*kmsg.CreateTopicsResponse)
		for _, rt := range r.Topics {
			st := kmsg.NewCreateTopicsResponseTopic()
			st.Topic = rt.Topic
			st.ErrorCode = kerr.PolicyViolation.Code
			msg := "no topics today"
			st.ErrorMessage = &msg
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		produced.Store(true)
		return nil, nil, false
	})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: "src", ToTopic: "dst"})
	if err == nil || !strings.Contains(err.Error(), "create topic dst") {
		t.Fatalf("err = %v: want the refusal to create topic dst", err)
	}
	if produced.Load() {
		t.Error("records were produced though the target was not created")
	}
}
