package restore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/shell"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// Errors of a restore a caller can tell apart with errors.Is.
var (
	// ErrNotInCatalog is a topic the snapshot folder holds no data of.
	ErrNotInCatalog = exit.New(exit.UnknownTopic, "topic not in the snapshot folder", "topicsnap ls --dir DIR (lists the topics the snapshot folder holds)")
	// ErrTarget is a target topic a restore will not write: fewer
	// partitions than the source had, or progress of another source.
	ErrTarget = exit.New(exit.Target, "target topic refused", "restore into another topic with --to-topic")
	// ErrFenced is a restore another restore into the same target took
	// over (its transactional id fenced this one).
	ErrFenced = exit.New(exit.Locked, "fenced by another restore into the same topic",
		"another restore into the same topic took over; let it finish, or run this one again to take over (it resumes from the committed progress)")
	// ErrSourceChanged is a data file the restore's manifest listed that a
	// catalog compact merged and removed meanwhile (its --grace shorter
	// than the restore): the folder is sound, the restore read an older
	// manifest of it.
	ErrSourceChanged = exit.New(exit.Locked, "the snapshot folder changed under the restore",
		"run the same command again: it reads the new manifest and resumes after the committed transactions; to keep a restore from meeting this, compact with a --grace longer than a restore takes")
)

// TargetError is a target topic with fewer partitions than the source:
// records could not go to their own partition numbers, so nothing is
// produced. errors.Is(err, ErrTarget) holds.
type TargetError struct {
	Target string
	Has    int // partitions the target has
	Needs  int // partitions the source had
}

func (e *TargetError) Error() string {
	return fmt.Sprintf("%v: topic %s has %d partitions, the source had %d, so records could not keep their partition numbers; nothing was produced",
		ErrTarget, e.Target, e.Has, e.Needs)
}

func (e *TargetError) Unwrap() error { return ErrTarget }

// ExitCode is exit.Target.
func (e *TargetError) ExitCode() exit.Code { return exit.Target }

// Hint is the two ways to a target that keeps partition numbers.
func (e *TargetError) Hint() string {
	return fmt.Sprintf("restore into a new topic with --to-topic (it is created with the source's partition count), or add partitions to the target: kafka-topics.sh --bootstrap-server HOST:PORT --alter --topic %s --partitions %d",
		shell.Quote(e.Target), e.Needs)
}

// restoreErr names what failed: a fence by another restore, an
// authorization, or the broker's error.
func restoreErr(ctx context.Context, what, who, topic, txnID string, err error) error {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return ctx.Err()
	}
	if errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) {
		return fmt.Errorf("%s: %w: another topicsnap restore into %s started and took over its transactional id %s: %v", what, ErrFenced, topic, txnID, err)
	}
	if errors.Is(err, kerr.TransactionalIDAuthorizationFailed) {
		ids := strings.Join(TxnIDs(topic), " and ")
		return denied(who, fmt.Sprintf("use transactional id %q", txnID), topic,
			"WRITE (and WRITE and DESCRIBE on transactional ids "+ids+" or the prefix "+ID(topic)+", READ on group "+ID(topic)+")", err)
	}
	ops := "WRITE and DESCRIBE"
	if what == whatProgress {
		ops = "READ (Kafka authorizes an offset commit, a transaction's too, as READ on the topic)"
	}
	if ae := deniedErr(who, what+" to topic "+strconv.Quote(topic), topic, ops, err); ae != nil {
		return ae
	}
	return fmt.Errorf("%s: %w", what, kafkaconn.Classify(err))
}

// deniedErr turns an authorization failure into an AuthzError; nil if err
// is not one.
func deniedErr(who, action, topic, ops string, err error) error {
	if !kafkaconn.IsAuthz(err) {
		return nil
	}
	return denied(who, action, topic, ops, err)
}

// whatProgress is the step that commits a transaction's progress
// (TxnOffsetCommit), which Kafka authorizes as READ on the target topic.
const whatProgress = "commit the progress"

// TargetOps are the operations a restore needs on its target topic: WRITE
// to produce, DESCRIBE to read its metadata and progress, and READ, as
// Kafka authorizes the progress's offset commit (TxnOffsetCommit) as a
// consumer's; CREATE too when the topic does not exist.
const TargetOps = "WRITE, READ and DESCRIBE"

// denied is a restore's AuthzError: who was refused what, and as its hint
// every grant a restore needs (on the target, its transactional ids and
// its progress group), whatever the step refused.
func denied(who, action, topic, ops string, err error) *kafkaconn.AuthzError {
	return &kafkaconn.AuthzError{Principal: who, Action: action, Topic: topic, Ops: ops, Err: err,
		Grant: fmt.Sprintf("ask the cluster's operator for %[3]s on topic %[2]s for %[1]s (CREATE too when the topic does not exist), "+
			"WRITE and DESCRIBE on transactional ids %[4]s (or the prefix %[5]s) and READ on group %[5]s",
			who, topic, TargetOps, strings.Join(TxnIDs(topic), " and "), ID(topic))}
}

// TargetGoneError is a target topic deleted (or deleted and made again,
// another topic id) while the restore produced into it: the broker
// answered UNKNOWN_TOPIC_OR_PARTITION. The transactions committed into it
// went with it, nothing of the open one is committed. errors.Is(err,
// kafkaconn.ErrUnknownTopic) holds; exit 4.
type TargetGoneError struct {
	Target string
	Again  bool  // a topic of the name exists again, with another topic id
	Err    error // the broker's answer
}

func (e *TargetGoneError) Error() string {
	what := "was deleted"
	if e.Again {
		what = "was deleted and made again (another topic id)"
	}
	return fmt.Sprintf("target topic %s %s while the restore produced into it: %v; what was committed into it went with it, and nothing of the open transaction is committed",
		e.Target, what, e.Err)
}

func (e *TargetGoneError) Unwrap() []error { return []error{kafkaconn.ErrUnknownTopic, e.Err} }

// ExitCode is exit.UnknownTopic, as a dump's topic deleted while read.
func (e *TargetGoneError) ExitCode() exit.Code { return exit.UnknownTopic }

// Hint is the run again.
func (e *TargetGoneError) Hint() string {
	if e.Again {
		return fmt.Sprintf("run the same command again to restore every record into the new topic %s (the progress of the deleted one does not count), or restore into another --to-topic", e.Target)
	}
	return fmt.Sprintf("run the same command again: restore creates topic %s again and restores every record into it (the progress of the deleted one does not count); or restore into another --to-topic", e.Target)
}

// targetGone is a TargetGoneError when err is the broker not knowing the
// target (UNKNOWN_TOPIC_OR_PARTITION) and the cluster's metadata says the
// topic of id is gone or has another id; nil otherwise (err is left to
// restoreErr). Bounded by its own 10 s: ctx may be cancelled already.
func targetGone(ctx context.Context, cl *kgo.Client, topic string, id kadm.TopicID, err error) error {
	if !errors.Is(err, kerr.UnknownTopicOrPartition) && !errors.Is(err, kerr.UnknownTopicID) {
		return nil
	}
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	// A request of its own: kadm's Metadata answers from the client's
	// cache (up to producerMetadataMinAge old), which may still hold the
	// deleted topic.
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, merr := req.RequestWith(mctx, cl)
	if merr != nil || len(resp.Topics) != 1 {
		return nil
	}
	mt := resp.Topics[0]
	switch {
	case errors.Is(kerr.ErrorForCode(mt.ErrorCode), kerr.UnknownTopicOrPartition):
		return &TargetGoneError{Target: topic, Err: err}
	case mt.ErrorCode == 0 && id != (kadm.TopicID{}) && mt.TopicID != [16]byte{} && kadm.TopicID(mt.TopicID) != id:
		return &TargetGoneError{Target: topic, Again: true, Err: err}
	}
	return nil
}
