package restore

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/shell"
	"github.com/topicsnap/topicsnap/internal/units"
)

// The target's configs that decide whether the broker takes a record as it
// was: its size, and how far its timestamp may be from the broker's clock.
const (
	cfgMaxMessageBytes = "max.message.bytes"
	cfgTSBefore        = "message.timestamp.before.max.ms"
	cfgTSAfter         = "message.timestamp.after.max.ms"
	// cfgCleanupPolicy: a compacted topic refuses a record without a key.
	cfgCleanupPolicy = "cleanup.policy"
	// limProducerTime is no config of the target: a timestamp topicsnap's
	// producer cannot write (minProducibleMs, maxProducibleMs). It sorts
	// before the configs, since no setting takes such a record.
	limProducerTime = "(producer timestamp range)"
)

// The timestamps (ms) franz-go's producer writes as they are: it counts a
// record's time in int64 nanoseconds (time.Time.UnixNano), which wraps
// before 1677-09-21 and after 2262-04-11, so a record of such a time (Kafka
// takes any int64) would be produced with another one.
const (
	minProducibleMs = math.MinInt64 / 1_000_000
	maxProducibleMs = math.MaxInt64 / 1_000_000
)

// producible reports whether topicsnap's producer writes timestamp ts (ms)
// as it is.
func producible(ts int64) bool { return ts >= minProducibleMs && ts <= maxProducibleMs }

// Kafka's defaults of them (Kafka 4: after.max.ms is one hour; before it
// was unbounded), for a target whose configs could not be read.
const (
	defaultMaxMessageBytes = 1048588
	defaultTSBefore        = math.MaxInt64
	defaultTSAfter         = 3600000
)

// limits are the target's effective values of those configs; known is
// false when they could not be read (then nothing is checked, and the
// producers use Kafka's default size).
type limits struct {
	known           bool
	maxMessageBytes int64
	before, after   int64 // ms
	// policy is the target's cleanup.policy when it compacts ("compact",
	// "compact,delete"), whose broker refuses a record with a null key;
	// empty otherwise or when not known.
	policy string
}

// limitsOf reads the effective limits from a topic's configs (described,
// or as a create would set them: every key with its default).
func limitsOf(get func(string) (string, bool)) limits {
	l := limits{maxMessageBytes: defaultMaxMessageBytes, before: defaultTSBefore, after: defaultTSAfter}
	n := 0
	for k, into := range map[string]*int64{cfgMaxMessageBytes: &l.maxMessageBytes, cfgTSBefore: &l.before, cfgTSAfter: &l.after} {
		if v, ok := get(k); ok {
			if x, err := strconv.ParseInt(v, 10, 64); err == nil {
				*into = x
				n++
			}
		}
	}
	l.known = n > 0
	if v, ok := get(cfgCleanupPolicy); ok && strings.Contains(v, "compact") {
		l.policy = v
	}
	return l
}

func limitsOfConfigs(cs []kadm.Config) limits {
	return limitsOf(func(k string) (string, bool) {
		for _, c := range cs {
			if c.Key == k && c.Value != nil {
				return *c.Value, true
			}
		}
		return "", false
	})
}

// batchMaxBytes is the producers' ProducerBatchMaxBytes: franz-go counts
// 4 bytes more of a batch (the records' array length) than the broker
// holds to max.message.bytes, and takes at most 1 GiB.
func (l limits) batchMaxBytes() int32 {
	n := l.maxMessageBytes
	if !l.known || n <= 0 {
		n = defaultMaxMessageBytes
	}
	return int32(min(max(n, 1000)+4, 1<<30))
}

// recordBatchBytes is the size the broker holds to max.message.bytes of a
// batch holding r alone, uncompressed (as franz-go counts it before it
// compresses): the batch header and the record's encoding.
func recordBatchBytes(r *kgo.Record) int64 {
	l := 1 + 1 + 1 + // attributes, timestamp delta 0, offset delta 0
		kbin.VarintLen(int32(len(r.Key))) + len(r.Key) +
		kbin.VarintLen(int32(len(r.Value))) + len(r.Value) +
		kbin.VarintLen(int32(len(r.Headers)))
	for _, h := range r.Headers {
		l += kbin.VarintLen(int32(len(h.Key))) + len(h.Key) + kbin.VarintLen(int32(len(h.Value))) + len(h.Value)
	}
	return 61 + int64(kbin.VarintLen(int32(l))) + int64(l)
}

// LimitError is a record of the snapshot the target would refuse: larger
// than its max.message.bytes, or with a timestamp outside its
// message.timestamp.before.max.ms / after.max.ms window of the broker's
// clock. Nothing is produced. errors.Is(err, ErrTarget) holds.
type LimitError struct {
	Target    string
	Partition int32
	Offset    int64 // the source offset of the first such record
	Size      int64 // its size, for max.message.bytes
	Timestamp int64 // its timestamp (ms), for the timestamp configs
	Config    string
	Value     int64  // the target's value of Config
	Need      int64  // the value Config needs for every record of the restore
	Count     int64  // records the target would refuse
	Created   bool   // the target does not exist yet: restore would create it with Value
	Policy    string // for cleanup.policy: the target's (it compacts), which refuses a null key
}

func (e *LimitError) Error() string {
	var what string
	why := "so the broker would refuse it"
	if e.Config == limProducerTime {
		what = fmt.Sprintf("its record at partition %d offset %d has timestamp %s (%d ms), which topicsnap's Kafka client cannot produce: it writes timestamps from %s to %s only (it counts time in 64-bit nanoseconds)",
			e.Partition, e.Offset, units.Time(time.UnixMilli(e.Timestamp)), e.Timestamp, units.Time(time.UnixMilli(minProducibleMs)), units.Time(time.UnixMilli(maxProducibleMs)))
		why = "so the record would be restored with another timestamp"
	} else if e.Config == cfgCleanupPolicy {
		what = fmt.Sprintf("its record at partition %d offset %d has no key (null), and topic %s is compacted (%s=%s), which takes only records with a key",
			e.Partition, e.Offset, e.Target, e.Config, e.Policy)
	} else if e.Config == cfgMaxMessageBytes {
		what = fmt.Sprintf("its record at partition %d offset %d is %d bytes (a batch of that record alone), more than topic %s accepts (%s=%d)",
			e.Partition, e.Offset, e.Size, e.Target, e.Config, e.Value)
	} else {
		dir := "older than"
		if e.Config == cfgTSAfter {
			dir = "ahead of"
		}
		what = fmt.Sprintf("its record at partition %d offset %d has timestamp %s, further %s the broker's clock than topic %s accepts (%s=%d)",
			e.Partition, e.Offset, units.Time(time.UnixMilli(e.Timestamp)), dir, e.Target, e.Config, e.Value)
	}
	more := ""
	if e.Count > 1 {
		more = fmt.Sprintf(" (%d records in all)", e.Count)
	}
	return fmt.Sprintf("%v: %s%s, %s; nothing was produced", ErrTarget, what, more, why)
}

func (e *LimitError) Unwrap() error { return ErrTarget }

// ExitCode is exit.Target.
func (e *LimitError) ExitCode() exit.Code { return exit.Target }

// Hint is the config to set, at the value every record of the restore
// needs.
func (e *LimitError) Hint() string {
	if e.Config == limProducerTime {
		return fmt.Sprintf("no setting of topic %s takes it: restore the records around it, e.g. --partitions %d --until %d, then --from %d (and the other partitions with --partitions), and produce that record with a client that writes any 64-bit timestamp (the Java producer)",
			shell.Quote(e.Target), e.Partition, e.Offset, e.Offset+1)
	}
	if e.Config == cfgCleanupPolicy {
		if e.Created {
			return fmt.Sprintf("create topic %[1]s yourself with cleanup.policy=delete (kafka-topics.sh --bootstrap-server HOST:PORT --create --topic %[1]s --partitions N --config cleanup.policy=delete), then restore into it; the source's records without a key cannot be in a compacted topic",
				shell.Quote(e.Target))
		}
		return fmt.Sprintf("restore into another topic, one that does not compact: create it with cleanup.policy=delete (kafka-topics.sh --bootstrap-server HOST:PORT --create --topic NAME --partitions N --config cleanup.policy=delete) and give it as --to-topic; a record without a key cannot be in compacted topic %s",
			shell.Quote(e.Target))
	}
	if e.Created {
		return fmt.Sprintf("create topic %[1]s yourself with %[2]s=%[3]d (kafka-topics.sh --bootstrap-server HOST:PORT --create --topic %[1]s --partitions N --config %[2]s=%[3]d), then restore into it",
			shell.Quote(e.Target), e.Config, e.Need)
	}
	return fmt.Sprintf("set %[2]s=%[3]d on topic %[1]s (kafka-configs.sh --bootstrap-server HOST:PORT --alter --entity-type topics --entity-name %[1]s --add-config %[2]s=%[3]d), or restore into a new topic with --to-topic",
		shell.Quote(e.Target), e.Config, e.Need)
}

// tsNeed is how wide a timestamp window must be for the broker to take
// records of timestamps from oldest to newest at now: before, after (ms;
// 0 when no record needs it). -1 is no timestamp: the broker does not
// check it.
func tsNeed(oldest, newest, now int64) (before, after int64) {
	if oldest != math.MaxInt64 && now > oldest {
		before = now - oldest
	}
	if newest != math.MinInt64 && newest > now {
		after = newest - now
	}
	return before, after
}

// snapshotTimes is the oldest and newest timestamp of the snapshot's
// stored rows, from its manifests (markers and aborted records too, so
// it is at least as wide as the records restored).
func snapshotTimes(src *source) (oldest, newest int64) {
	oldest, newest = math.MaxInt64, math.MinInt64
	for _, m := range src.manifests {
		for _, f := range m.Files {
			if f.MinTimestamp != -1 || f.MaxTimestamp == -1 {
				oldest = min(oldest, f.MinTimestamp)
			}
			newest = max(newest, f.MaxTimestamp)
		}
	}
	return oldest, newest
}

// widenWindow sets, in a new target's configs, the timestamp window the
// snapshot's own records need when what the source recorded (or, if it
// recorded nothing, the cluster's default in eff) is narrower, and says so.
// The margins let the restore take a week (before) and an hour (after).
func widenWindow(src *source, configs map[string]*string, eff *limits, warn func(string)) []string {
	oldest, newest := snapshotTimes(src)
	now := time.Now().UnixMilli()
	needBefore, needAfter := tsNeed(oldest, newest, now)
	var shown []string
	for _, w := range []struct {
		key    string
		has    *int64
		need   int64
		margin int64
	}{{cfgTSBefore, &eff.before, needBefore, 7 * 24 * 3600 * 1000}, {cfgTSAfter, &eff.after, needAfter, 3600 * 1000}} {
		if w.need == 0 || w.need <= *w.has {
			continue
		}
		v := w.need + w.margin
		if v < w.need { // overflow
			v = math.MaxInt64
		}
		s := strconv.FormatInt(v, 10)
		from := "the cluster's default"
		if src.snap != nil {
			if _, ok := src.snap.Configs[w.key]; ok {
				from = "the source's"
			}
		}
		warn(fmt.Sprintf("%s %s=%d would refuse records of the snapshot (timestamps %s to %s); the target is created with %s=%s",
			from, w.key, *w.has, units.Time(time.UnixMilli(oldest)), units.Time(time.UnixMilli(newest)), w.key, s))
		configs[w.key] = &s
		*w.has = v
		shown = append(shown, w.key+"="+s)
	}
	return shown
}

// checkLimits reads the planned records (on copies of the plans unless
// count: a dry run's scan counts what it would produce) and refuses the
// restore with a *LimitError when the target would refuse one of them.
// The scan is the produce's own (scanPlan), two partitions at a time.
func checkLimits(ctx context.Context, dir *catalog.Dir, plans []*plan, to string, l limits, created, count bool) error {
	now := time.Now().UnixMilli()
	if !count {
		// Only the plans with a file whose manifest entry cannot vouch for
		// its records (fileFits) are read: a snapshot written since the
		// entries say their largest record is read once, to produce.
		plans = slices.DeleteFunc(slices.Clone(plans), func(pl *plan) bool { return planFits(pl, l, now) })
		if len(plans) == 0 {
			return nil // nothing to check
		}
	}
	var mu sync.Mutex
	var errs []*LimitError
	need := map[string]int64{}
	found := map[string]int64{}
	refuse := func(e LimitError) {
		mu.Lock()
		defer mu.Unlock()
		found[e.Config]++
		need[e.Config] = max(need[e.Config], e.Need)
		for _, x := range errs {
			if x.Config == e.Config && x.Partition == e.Partition {
				return // the first of the partition is named
			}
		}
		errs = append(errs, &e)
	}
	work := make(chan *plan)
	errc := make(chan error, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pl := range work {
				if !count {
					p := *pl.part
					pl = &plan{m: pl.m, markers: pl.markers, part: &p}
				}
				err := scanPlan(ctx, dir, pl, to, nil, nil, func(recs []*kgo.Record, _ *batchMem, _ int64, _ bool, _ int64) error {
					for _, r := range recs {
						e := LimitError{Target: to, Partition: pl.m.Partition, Offset: r.Offset, Created: created}
						if l.policy != "" && r.Key == nil {
							e.Config, e.Policy = cfgCleanupPolicy, l.policy
							refuse(e)
						}
						ts := r.Timestamp.UnixMilli() // scanPlan's time.UnixMilli(row) keeps any ms
						if !producible(ts) {
							te := e
							te.Config, te.Timestamp = limProducerTime, ts
							refuse(te)
						}
						if !l.known {
							continue
						}
						if n := recordBatchBytes(r); n > l.maxMessageBytes {
							e.Config, e.Size, e.Value, e.Need = cfgMaxMessageBytes, n, l.maxMessageBytes, n
							refuse(e)
						}
						if ts == -1 || !producible(ts) {
							continue
						}
						if b, a := tsNeed(ts, ts, now); b > l.before {
							e.Config, e.Timestamp, e.Value, e.Need = cfgTSBefore, ts, l.before, b+7*24*3600*1000
							refuse(e)
						} else if a > l.after {
							e.Config, e.Timestamp, e.Value, e.Need = cfgTSAfter, ts, l.after, a+3600*1000
							refuse(e)
						}
					}
					return nil
				})
				if err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for _, pl := range plans {
		select {
		case work <- pl:
		case err = <-errc:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errc:
		default:
		}
	}
	if err != nil {
		return err
	}
	if len(errs) == 0 {
		return nil
	}
	slices.SortFunc(errs, func(a, b *LimitError) int {
		return cmp.Or(cmp.Compare(a.Config, b.Config), cmp.Compare(a.Partition, b.Partition))
	})
	e := errs[0] // max.message.bytes sorts first: a size is named before a time
	e.Count, e.Need = found[e.Config], need[e.Config]
	return e
}

// recordOverhead bounds what recordBatchBytes adds to catalog.RecordBytes
// of a record: the batch header (61), the record's length, attributes,
// timestamp and offset deltas, the key's, value's and header count's
// varints (at most 5 bytes each; a header's two are in RecordBytes).
const recordOverhead = 61 + 5 + 3 + 5 + 5 + 5

// fileFits reports whether every record of data file f is known, from its
// manifest entry alone, to be taken by a target of limits l at now: its
// largest record's bound (MaxRecordBytes, when recorded) within
// max.message.bytes, and its oldest and newest timestamps within the
// window. A file it cannot vouch for is read.
func fileFits(f catalog.FileEntry, l limits, now int64) bool {
	if f.Records == f.ControlRecords {
		return true // markers only: none is produced
	}
	if !producible(f.MinTimestamp) || !producible(f.MaxTimestamp) {
		return false // its record the producer cannot write is named
	}
	if l.policy != "" {
		return false // no entry says whether its records all have a key
	}
	if !l.known {
		return f.MaxRecordBytes > 0 // an entry that old may lack its times too
	}
	if f.MaxRecordBytes <= 0 || f.MaxRecordBytes+recordOverhead > l.maxMessageBytes {
		return false
	}
	if f.MinTimestamp < 0 {
		return false // a record without a time (-1) hides the others' oldest
	}
	b, a := tsNeed(f.MinTimestamp, f.MaxTimestamp, now)
	return b <= l.before && a <= l.after
}

// planFits reports whether fileFits holds for every file pl reads.
func planFits(pl *plan, l limits, now int64) bool {
	p := pl.part
	for _, f := range pl.m.Files {
		if f.LastOffset < p.From || f.FirstOffset >= p.Until {
			continue
		}
		if !fileFits(f, l, now) {
			return false
		}
	}
	return true
}
