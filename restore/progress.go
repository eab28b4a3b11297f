package restore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/topicsnap/topicsnap/kafkaconn"
)

// ID is the consumer group whose committed offsets on target are
// the progress of restores into it, and the transactional id of their
// first producer (TxnID).
func ID(target string) string { return "topicsnap-restore-" + target }

// progressMeta is the metadata of a committed progress offset: the source
// topic and the target's topic id, so progress of another source, or of a
// target deleted and created again, is never taken for this one's.
func progressMeta(source string, targetID kadm.TopicID) string {
	return fmt.Sprintf("topicsnap restore of %s into topic id %s", source, targetID)
}

// readProgress reads the committed progress of restores into the target:
// per partition, the next source offset. With stable, it waits for
// transactions still deciding (the fenced run's) to end first.
func readProgress(ctx context.Context, adm *kadm.Client, opts Options, t target, stable bool, warn func(string)) (map[int32]int64, error) {
	group := ID(opts.ToTopic)
	want := progressMeta(opts.Topic, t.id)
	out := map[int32]int64{}
	fctx := ctx
	if stable {
		fctx = kadm.RequireStable(ctx)
	}
	for attempt := 0; ; attempt++ {
		resp, err := adm.FetchOffsets(fctx, group)
		if err == nil {
			err = resp.Error()
		}
		if errors.Is(err, kerr.GroupIDNotFound) {
			return out, nil
		}
		if err != nil && attempt < 150 && (errors.Is(err, kerr.UnstableOffsetCommit) || errors.Is(err, kerr.CoordinatorLoadInProgress) ||
			errors.Is(err, kerr.NotCoordinator) || errors.Is(err, kerr.CoordinatorNotAvailable)) {
			// A pending transaction's offsets, or a coordinator still
			// starting (a new cluster makes __consumer_offsets now).
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the progress of %s (committed offsets of group %s): %w", opts.ToTopic, group, kafkaconn.Classify(err))
		}
		var foreign string
		resp.Each(func(o kadm.OffsetResponse) {
			if o.Topic != opts.ToTopic || o.Err != nil || o.At < 0 {
				return
			}
			if o.Metadata != want {
				foreign = o.Metadata
				return
			}
			out[o.Partition] = o.At
		})
		if foreign != "" {
			if strings.HasPrefix(foreign, fmt.Sprintf("topicsnap restore of %s into topic id ", opts.Topic)) {
				// The same source into a topic of the same name that was
				// deleted and created again: that progress is not this one's.
				warn(fmt.Sprintf("group %s holds progress of a topic %s that was deleted since; starting from the beginning", group, opts.ToTopic))
				return map[int32]int64{}, nil
			}
			return nil, fmt.Errorf("%w: topic %s holds a restore of another source (group %s: %q); restore into another --to-topic, or delete that group to start over",
				ErrTarget, opts.ToTopic, group, foreign)
		}
		return out, nil
	}
}
