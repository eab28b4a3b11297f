package restore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/shell"
	"github.com/topicsnap/topicsnap/internal/units"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// target is what the cluster says of the target topic.
type target struct {
	exists        bool
	partitions    int
	id            kadm.TopicID
	brokers       int
	logAppendTime bool
	// limits are the target's max.message.bytes and timestamp window: an
	// existing one's as described, a missing one's as it would be created.
	limits limits
}

func describeTarget(ctx context.Context, adm *kadm.Client, topic, who string) (target, error) {
	var t target
	md, err := adm.Metadata(ctx, topic)
	if ae := deniedErr(who, fmt.Sprintf("describe topic %q", topic), topic, "DESCRIBE and WRITE", err); ae != nil {
		return t, ae
	}
	if err != nil {
		return t, fmt.Errorf("describe topic %s: %w", topic, kafkaconn.Classify(err))
	}
	t.brokers = len(md.Brokers)
	td, ok := md.Topics[topic]
	switch {
	case !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition):
		return t, collision(ctx, adm, topic)
	case kafkaconn.IsAuthz(td.Err):
		return t, denied(who, fmt.Sprintf("describe topic %q", topic), topic, "DESCRIBE and WRITE", td.Err)
	case td.Err != nil:
		return t, fmt.Errorf("describe topic %s: %w", topic, kafkaconn.Classify(td.Err))
	}
	t.exists, t.partitions, t.id = true, len(td.Partitions), td.ID
	if rc, err := adm.DescribeTopicConfigs(ctx, topic); err == nil {
		for _, r := range rc {
			if r.Err == nil {
				t.limits = limitsOfConfigs(r.Configs)
			}
			for _, c := range r.Configs {
				if c.Key == "message.timestamp.type" && c.Value != nil && *c.Value == "LogAppendTime" {
					t.logAppendTime = true
				}
			}
		}
	}
	return t, nil
}

// CollisionError is a target topic Kafka would not create because another
// topic's name differs from it only by '.' and '_' (their metric names
// would be one): the dry run said it would create it, and the restore
// failed on INVALID_TOPIC_EXCEPTION with no word of why. Nothing is
// produced. errors.Is(err, ErrTarget) holds.
type CollisionError struct {
	Target, Other string
}

func (e *CollisionError) Error() string {
	return fmt.Sprintf("%v: topic %s cannot be created: the cluster has topic %s, and Kafka refuses a topic whose name differs from another's only by '.' and '_'; nothing was produced",
		ErrTarget, e.Target, e.Other)
}

func (e *CollisionError) Unwrap() error { return ErrTarget }

// ExitCode is exit.Target.
func (e *CollisionError) ExitCode() exit.Code { return exit.Target }

// Hint is the way out.
func (e *CollisionError) Hint() string {
	return fmt.Sprintf("restore into another topic with --to-topic: a name that is not %s's with '.' and '_' swapped", shell.Quote(e.Other))
}

// collision says whether a topic the cluster has would keep a missing
// target from being created (CollisionError); nil when none would, or when
// the topics could not be listed (the creation then says what it says).
func collision(ctx context.Context, adm *kadm.Client, topic string) error {
	all, err := adm.ListTopicsWithInternal(ctx)
	if err != nil {
		return nil
	}
	norm := strings.ReplaceAll(topic, ".", "_")
	for _, n := range all.Names() {
		if n != topic && strings.ReplaceAll(n, ".", "_") == norm {
			return &CollisionError{Target: topic, Other: n}
		}
	}
	return nil
}

// createPlan is how a missing target is created: the source's configs at
// its newest cut, with what would change the records or fail on this
// cluster adjusted (and said): LogAppendTime would restamp every record,
// so the target takes CreateTime; the replication factor is at most the
// cluster's broker count, min.insync.replicas at most that factor.
func createPlan(src *source, brokers int, warn func(string)) (map[string]*string, int, string) {
	configs := map[string]*string{}
	rf := -1
	if src.snap == nil {
		warn(fmt.Sprintf("the snapshot folder has no cluster snapshot of the topic; a new target gets %d partitions and the cluster's default configs", src.partitions))
		return configs, rf, "the cluster's default configs"
	}
	if src.snap.ConfigsError != "" {
		warn("the snapshot could not read the source's configs (" + src.snap.ConfigsError + "); a new target gets the cluster's defaults for them")
	}
	rf = src.snap.ReplicationFactor
	if rf <= 0 {
		rf = -1
	} else if brokers > 0 && rf > brokers {
		warn(fmt.Sprintf("the source had replication factor %d; this cluster has %d brokers, so the target gets %d", rf, brokers, brokers))
		rf = brokers
	}
	keys := make([]string, 0, len(src.snap.Configs))
	for k := range src.snap.Configs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var shown []string
	for _, k := range keys {
		v := src.snap.Configs[k]
		switch {
		case k == "message.timestamp.type" && v == "LogAppendTime":
			warn("the source had message.timestamp.type=LogAppendTime; the target is created with CreateTime so restored records keep the snapshot's timestamps")
			v = "CreateTime"
		case k == "min.insync.replicas" && rf > 0:
			if n, err := strconv.Atoi(v); err == nil && n > rf {
				v = strconv.Itoa(rf)
			}
		case k == "retention.ms":
			if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 {
				// The oldest time, before 1970 too (Kafka takes them); -1 is
				// Kafka's "no timestamp", no age (it was the "unset" here, so
				// any time before 1970 hid the warning).
				oldest := int64(math.MaxInt64)
				for _, m := range src.manifests {
					for _, f := range m.Files {
						if f.MinTimestamp != -1 {
							oldest = min(oldest, f.MinTimestamp)
						}
					}
				}
				if oldest != math.MaxInt64 && time.Now().UnixMilli()-oldest > ms {
					warn(fmt.Sprintf("retention.ms=%s is copied from the source, and the oldest record is from %s: the broker may delete restored records older than that soon after; create the target yourself with a longer retention.ms to keep them",
						v, units.Time(time.UnixMilli(oldest))))
				}
			}
		}
		configs[k] = &v
		shown = append(shown, k+"="+v)
	}
	if rf > 0 {
		shown = append([]string{fmt.Sprintf("replication factor %d", rf)}, shown...)
	}
	return configs, rf, strings.Join(shown, ", ")
}

// waitLeading waits until every partition of a target this run created
// answers on its leader, at most leadingWait: CreateTopics returns when
// the controller has the topic, and a broker may take tens of
// milliseconds more to lead its partitions. A produce before then was
// refused (NOT_LEADER_OR_FOLLOWER), and the producer tried again only
// after its next metadata refresh: a restore into a new topic stalled ~5
// s before its first record, 1 run in 10 to 25 on the dev broker. The
// question asked is the one a produce needs answered: ListOffsets, on
// the leader, every 5 ms (kadm's ListEndOffsets backs off ~250 ms after
// a partition not yet known, which made the wait itself that long). It
// is a wait, never an error: a partition not led after leadingWait, or an
// error that waiting would not change, is left to the producer's own
// retries and errors.
func waitLeading(ctx context.Context, cl *kgo.Client, topic string, partitions int) error {
	wctx, cancel := context.WithTimeout(ctx, leadingWait)
	defer cancel()
	for !ledOrFailed(wctx, cl, topic, partitions) {
		select {
		case <-wctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond): // polling the broker
		}
	}
	return ctx.Err()
}

// leadingWait bounds waitLeading.
const leadingWait = 10 * time.Second

// ledOrFailed asks the cluster once for the topic's leaders, and each
// leader for the end offsets of its partitions: true when every partition
// answered, or an answer is an error that is not retriable.
func ledOrFailed(ctx context.Context, cl *kgo.Client, topic string, partitions int) bool {
	settled := func(code int16) (ok, done bool) {
		err := kerr.ErrorForCode(code)
		return err == nil, err != nil && !kerr.IsRetriable(err)
	}
	mreq := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	mreq.Topics = append(mreq.Topics, mt)
	mresp, err := mreq.RequestWith(ctx, cl)
	if err != nil || len(mresp.Topics) != 1 {
		return true
	}
	t := mresp.Topics[0]
	if ok, done := settled(t.ErrorCode); !ok {
		return done
	}
	if len(t.Partitions) < partitions {
		return false
	}
	byLeader := map[int32]*kmsg.ListOffsetsRequest{}
	for _, p := range t.Partitions {
		if ok, done := settled(p.ErrorCode); !ok || p.Leader < 0 {
			return done
		}
		req := byLeader[p.Leader]
		if req == nil {
			req = kmsg.NewPtrListOffsetsRequest()
			req.ReplicaID = -1
			rt := kmsg.NewListOffsetsRequestTopic()
			rt.Topic = topic
			req.Topics = append(req.Topics, rt)
			byLeader[p.Leader] = req
		}
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p.Partition, -1, -1 // the end
		req.Topics[0].Partitions = append(req.Topics[0].Partitions, rp)
	}
	for leader, req := range byLeader {
		resp, err := req.RequestWith(ctx, cl.Broker(int(leader)))
		if err != nil {
			return true
		}
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				if ok, done := settled(rp.ErrorCode); !ok {
					return done
				}
			}
		}
	}
	return true
}

// SameTopicError is a restore, without --to-topic, into the topic the
// snapshot was taken from (the same topic id) while that topic still holds
// records the restore would write: every one would be in it twice.
// errors.Is(err, ErrTarget) holds.
type SameTopicError struct {
	Topic       string
	Partition   int32
	From, Until int64 // the offsets of the partition the topic still holds and the restore would write
}

func (e *SameTopicError) Error() string {
	return fmt.Sprintf("%v: topic %s is the topic the snapshot was taken from (the same topic id), and it still holds offsets %d-%d of partition %d that the restore would write again; nothing was produced",
		ErrTarget, e.Topic, e.From, e.Until-1, e.Partition)
}

func (e *SameTopicError) Unwrap() error { return ErrTarget }

// ExitCode is exit.Target.
func (e *SameTopicError) ExitCode() exit.Code { return exit.Target }

// Hint is another topic, or the source named on purpose.
func (e *SameTopicError) Hint() string {
	return fmt.Sprintf("restore into another topic with --to-topic %s, or, to write the records into %s a second time on purpose, name it: --to-topic %s",
		shell.Quote(e.Topic+"-restored"), e.Topic, shell.Quote(e.Topic))
}

// checkSameTopic is called for a target that is the snapshot's source
// topic (the same topic id): a restore of offsets it still holds (between
// its log start and end) is refused, unless --to-topic named it
// (explicit), which is warned about.
func checkSameTopic(ctx context.Context, adm *kadm.Client, topic string, explicit bool, plans []*plan, warn func(string)) error {
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return fmt.Errorf("list the start offsets of %s: %w", topic, kafkaconn.Classify(err))
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return fmt.Errorf("list the end offsets of %s: %w", topic, kafkaconn.Classify(err))
	}
	for _, pl := range plans {
		p := pl.part
		s, ok1 := starts.Lookup(topic, p.Partition)
		en, ok2 := ends.Lookup(topic, p.Partition)
		if !ok1 || !ok2 || p.From >= p.Until {
			continue
		}
		from, until := max(p.From, s.Offset), min(p.Until, en.Offset)
		if from >= until {
			continue
		}
		if !explicit {
			return &SameTopicError{Topic: topic, Partition: p.Partition, From: from, Until: until}
		}
		warn(fmt.Sprintf("topic %s is the topic the snapshot was taken from (the same topic id) and still holds offsets %d-%d of partition %d: --to-topic %s writes those records into it again, after its current end",
			topic, from, until-1, p.Partition, topic))
		return nil
	}
	return nil
}
