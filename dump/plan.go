package dump

import (
	"context"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/units"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/twmb/franz-go/pkg/kadm"
)

// checkPositions refuses --from and --until that cannot be meant: each on
// its own, a --from that is not before --until (which is exclusive), and an
// --until with --follow, which only an interrupt stops.
func checkPositions(opts Options) error {
	from, err := kafkaconn.ParsePosition("--from", opts.From, "earliest")
	if err != nil {
		return err
	}
	until, err := kafkaconn.ParsePosition("--until", opts.Until, "now")
	if err != nil {
		return err
	}
	if opts.Follow && !until.Word {
		return exit.Errorf(kafkaconn.ErrBadOption, "--follow with --until %s: --follow dumps until interrupted and --until stops at one point; drop one of them", until.Text)
	}
	if from.IsOffset() && until.IsOffset() && from.Offset >= until.Offset ||
		from.IsTime() && until.IsTime() && !from.At.Before(until.At) {
		return exit.Errorf(kafkaconn.ErrBadOption, "--from %s is not before --until %s (--until is exclusive), so nothing would be dumped; give a --from before --until", from.Text, until.Text)
	}
	return nil
}

// checkPartitions refuses a --partitions that names a partition one of the
// topics does not have.
func checkPartitions(flag string, parts map[int32]bool, topics []string, all kadm.TopicDetails) error {
	if parts == nil {
		return nil
	}
	for _, t := range topics {
		have := all[t].Partitions
		var missing []int32
		for p := range parts {
			if _, ok := have[p]; !ok {
				missing = append(missing, p)
			}
		}
		if len(missing) == 0 {
			continue
		}
		slices.Sort(missing)
		names := make([]string, len(missing))
		for i, p := range missing {
			names[i] = strconv.Itoa(int(p))
		}
		has := "no partitions"
		if n := len(have); n > 0 {
			has = fmt.Sprintf("partitions 0-%d", n-1)
		}
		return exit.Errorf(kafkaconn.ErrBadOption, "--partitions %s: topic %s has no partition %s (it has %s)", flag, t, strings.Join(names, ", "), has)
	}
	return nil
}

// plan is what one partition will do in this snapshot.
type plan struct {
	tp       catalog.TopicPartition
	manifest *catalog.Manifest
	from     int64 // first offset to read
	until    int64 // exclusive end
	lost     []catalog.LostRange
}

func (d *dumper) planPartition(ctx context.Context, c *cut, m *catalog.Manifest) (*plan, error) {
	p := m.Partition
	logStart, hwm := c.starts[p], c.ends[p]
	pl := &plan{tp: m.TP(), manifest: m, until: hwm}
	switch u := d.opts.Until; {
	case u == "" || u == "now":
	default:
		if n, err := strconv.ParseInt(u, 10, 64); err == nil {
			pl.until = min(hwm, n)
		} else {
			t, _ := time.Parse(time.RFC3339Nano, u)
			off, err := d.offsetAfter(ctx, m.TP(), t)
			if err != nil {
				return nil, err
			}
			if off >= 0 {
				pl.until = min(hwm, off)
			}
		}
	}
	now := c.asOf
	if m.NextOffset >= 0 {
		pl.from = m.NextOffset
		if logStart > pl.from {
			pl.lost = append(pl.lost, catalog.LostRange{Kind: catalog.LostBetween, From: pl.from, To: logStart - 1, DetectedAt: now, Snapshot: c.id})
			pl.from = logStart
		}
	} else {
		switch f := d.opts.From; {
		case f == "" || f == "earliest":
			pl.from = logStart
			if logStart > 0 {
				pl.lost = append(pl.lost, catalog.LostRange{Kind: catalog.LostBeforeFirst, From: 0, To: logStart - 1, DetectedAt: now, Snapshot: c.id})
			}
		default:
			if n, err := strconv.ParseInt(f, 10, 64); err == nil {
				pl.from = n
				if n < logStart {
					pl.lost = append(pl.lost, catalog.LostRange{Kind: catalog.LostBeforeFirst, From: n, To: logStart - 1, DetectedAt: now, Snapshot: c.id})
					pl.from = logStart
				}
			} else {
				t, _ := time.Parse(time.RFC3339Nano, f)
				off, err := d.offsetAfter(ctx, m.TP(), t)
				if err != nil {
					return nil, err
				}
				if off < 0 {
					off = hwm
				}
				if logStart > 0 && off <= logStart {
					// The first record at or after the time is the log's
					// first (or there is none): the records Kafka already
					// deleted below it may be from after the time too.
					// Nothing says which, so no lost range is recorded;
					// it is said.
					d.warn(fmt.Sprintf("%s/%d: --from %s: the log now starts at offset %d, the first at or after that time: Kafka already deleted offsets 0-%d (retention or DeleteRecords), and any of them may be from after it too, so the folder may lack records of the time asked; it starts at %d",
						m.Topic, p, f, logStart, logStart-1, max(off, logStart)))
				}
				pl.from = max(off, logStart)
			}
		}
	}
	if pl.until < pl.from {
		if u := d.opts.Until; m.NextOffset > pl.until && u != "" && u != "now" {
			// Said, not a silent "dumped 0 records": the folder already
			// holds the partition past the --until asked.
			d.warn(fmt.Sprintf("%s: the folder already holds it up to offset %d, past --until %s: nothing of it is dumped (a folder holds one history of a partition; dump into another --dir for an earlier range)",
				m.TP(), m.NextOffset-1, u))
		}
		pl.until = pl.from
	}
	return pl, nil
}

func (d *dumper) offsetAfter(ctx context.Context, tp catalog.TopicPartition, t time.Time) (int64, error) {
	lo, err := d.adm.ListOffsetsAfterMilli(ctx, t.UnixMilli(), tp.Topic)
	if err != nil {
		return 0, fmt.Errorf("list offsets of %s after %s: %w", tp.Topic, units.Time(t), kafkaconn.Classify(err))
	}
	o, ok := lo.Lookup(tp.Topic, tp.Partition)
	if !ok || o.Err != nil {
		return -1, nil
	}
	return o.Offset, nil
}

// checkFromPastEnd refuses an offset --from past a partition's end offset
// on a partition the folder has not dumped yet (a dumped one resumes from
// its manifest). Starting there would write a manifest whose next offset
// Kafka never reached, and the offsets written before it would never be
// dumped nor reported lost.
func checkFromPastEnd(ctx context.Context, adm *kadm.Client, opts Options, topics []string, parts map[int32]bool) error {
	from, err := kafkaconn.ParsePosition("--from", opts.From, "earliest")
	if err != nil || !from.IsOffset() {
		return err
	}
	ends, err := adm.ListEndOffsets(ctx, topics...)
	if err != nil {
		return fmt.Errorf("list end offsets: %w", kafkaconn.Classify(err))
	}
	existing, _ := catalog.OpenAt(ctx, opts.Dir, opts.S3) // nil: a new folder or bucket, nothing dumped yet
	var bad []string
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil || (parts != nil && !parts[o.Partition]) || from.Offset <= o.Offset {
			return
		}
		if existing != nil {
			if m, err := existing.ReadManifest(ctx, catalog.TopicPartition{Topic: o.Topic, Partition: o.Partition}); err == nil && m.NextOffset >= 0 {
				return
			}
		}
		bad = append(bad, fmt.Sprintf("%s/%d (end offset %d)", o.Topic, o.Partition, o.Offset))
	})
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return exit.Errorf(kafkaconn.ErrBadOption, "--from %s is past the end of %s: nothing is there yet, and starting there would skip the offsets written before it; give --from at most the end offset, or a time",
		from.Text, strings.Join(bad, ", "))
}
