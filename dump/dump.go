package dump

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/catalog"
)

// Options of one dump.
type Options struct {
	Conn       Conn
	Dir        string
	Topics     []string
	TopicRegex string
	Partitions string // "0,3-5"; empty is all
	From       string // earliest | OFFSET | RFC3339 time; for partitions never dumped
	Until      string // now | OFFSET (exclusive) | RFC3339 time
	Follow     bool
	Interval   time.Duration // pause between snapshots with Follow
	FileRows   int           // roll a file after this many rows
	FileBytes  int64         // or this many bytes of keys, values and headers
	// FetchMaxBytes bounds one fetch response (default 16 MiB; a partition's
	// share at most 4 MiB): how far the reader may run ahead of the writers.
	FetchMaxBytes int32
	// Progress, if set, is told about every committed file and finished
	// partition; it must be safe for concurrent use.
	Progress Progress
}

// Progress receives events while a dump runs.
type Progress interface {
	Start(tp catalog.TopicPartition, from, until int64)
	Advance(tp catalog.TopicPartition, records, bytes int64)
	Done(tp catalog.TopicPartition)
	Waiting(what string)
	// Warn tells of something the dump could not do but did not need,
	// such as reading the consumer groups; it is also in the snapshot.
	Warn(what string)
}

// Summary of one run.
type Summary struct {
	Snapshots   []string
	Partitions  int
	Records     int64
	Bytes       int64 // bytes written to disk
	Files       int
	Lost        int // lost ranges recorded by this run
	LostOffsets int64
	Elapsed     time.Duration
}

func (s Summary) String() string {
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(s.Records) / s.Elapsed.Seconds()
	}
	return fmt.Sprintf("dumped %d records (%s) in %d files from %d partitions in %.1fs, %.0f records/s, %d lost ranges (%d offsets)",
		s.Records, humanBytes(s.Bytes), s.Files, s.Partitions, s.Elapsed.Seconds(), rate, s.Lost, s.LostOffsets)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// NewClient makes a Kafka client from a connection's settings. Extra
// options are appended.
func NewClient(c Conn, extra ...kgo.Opt) (*kgo.Client, error) {
	s, err := resolve(c)
	if err != nil {
		return nil, err
	}
	opts, err := s.clientOpts(c.DialTimeout)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	return cl, nil
}

// connect makes an admin client and proves the cluster answers.
func connect(ctx context.Context, c Conn) (*kgo.Client, *kadm.Client, error) {
	s, err := resolve(c)
	if err != nil {
		return nil, nil, err
	}
	cl, err := NewClient(c)
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

// Run dumps the selected topics into opts.Dir. With Follow it repeats until
// ctx is cancelled. Partitions finished before an interruption stay committed.
func Run(ctx context.Context, opts Options) (Summary, error) {
	start := time.Now()
	var sum Summary
	if opts.FileRows <= 0 {
		opts.FileRows = 512 * 1024
	}
	if opts.FileBytes <= 0 {
		opts.FileBytes = 48 << 20
	}
	if opts.Interval <= 0 {
		opts.Interval = 30 * time.Second
	}
	// Every option is checked, against the cluster where it takes one,
	// before anything is written: a refused dump leaves DIR as it was.
	parts, err := parsePartitions(opts.Partitions)
	if err != nil {
		return sum, err
	}
	if err := checkPositions(opts); err != nil {
		return sum, err
	}
	if err := catalog.CheckCreate(opts.Dir); err != nil {
		return sum, err
	}
	cl, adm, err := connect(ctx, opts.Conn)
	if err != nil {
		return sum, err
	}
	defer cl.Close()
	who := principal(opts.Conn)
	topics, all, err := resolveTopics(ctx, adm, opts.Topics, opts.TopicRegex, who)
	if err != nil {
		return sum, err
	}
	if err := checkPartitions(opts.Partitions, parts, topics, all); err != nil {
		return sum, err
	}
	dir, err := catalog.Create(opts.Dir)
	if err != nil {
		return sum, err
	}
	// Take every partition's lock once, for the whole run.
	d := &dumper{opts: opts, dir: dir, conn: opts.Conn, cl: cl, adm: adm, who: who, parts: parts,
		locks: map[catalog.TopicPartition]*catalog.Lock{}, warned: map[string]bool{}}
	defer d.unlockAll()
	for {
		for _, topic := range topics {
			err := d.snapshot(ctx, topic, &sum)
			if err != nil && opts.Follow && ctx.Err() == nil && transient(err) {
				// Following: an outage is waited out; the next round resumes
				// from the manifests, so nothing is skipped.
				if opts.Progress != nil {
					opts.Progress.Waiting(fmt.Sprintf("snapshot of %s failed (%v); trying again in %s", topic, err, opts.Interval))
				}
				continue
			}
			if err != nil {
				sum.Elapsed = time.Since(start)
				return sum, err
			}
		}
		if !opts.Follow {
			break
		}
		select {
		case <-ctx.Done():
			sum.Elapsed = time.Since(start)
			return sum, ctx.Err()
		case <-time.After(opts.Interval):
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// transient reports whether err is worth another try in --follow: the
// cluster was unreachable or answered with a retriable error.
func transient(err error) bool {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Retriable
	}
	var ne net.Error
	return errors.Is(err, ErrUnreachable) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// position is a parsed --from or --until: its word (earliest, now), an
// offset, or a time.
type position struct {
	text   string
	word   bool
	offset int64 // when !word and at is zero
	at     time.Time
}

func (p position) isOffset() bool { return !p.word && p.at.IsZero() }
func (p position) isTime() bool   { return !p.word && !p.at.IsZero() }

func parsePosition(flag, v, word string) (position, error) {
	if v == "" || v == word {
		return position{text: v, word: true}, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			// Kafka's offsets start at 0; a negative one would be recorded
			// as offsets Kafka deleted, which it never had.
			return position{}, fmt.Errorf("%w: %s %s: an offset is 0 or more; use %s, an offset, or an RFC3339 time", ErrBadOption, flag, v, word)
		}
		return position{text: v, offset: n}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return position{text: v, at: t}, nil
	}
	return position{}, fmt.Errorf("%w: %s %q: use %s, an offset, or an RFC3339 time such as 2026-09-14T08:47:00Z", ErrBadOption, flag, v, word)
}

// checkPositions refuses --from and --until that cannot be meant: each on
// its own, a --from that is not before --until (which is exclusive), and an
// --until with --follow, which only an interrupt stops.
func checkPositions(opts Options) error {
	from, err := parsePosition("--from", opts.From, "earliest")
	if err != nil {
		return err
	}
	until, err := parsePosition("--until", opts.Until, "now")
	if err != nil {
		return err
	}
	if opts.Follow && !until.word {
		return fmt.Errorf("%w: --follow with --until %s: --follow dumps until interrupted and --until stops at one point; drop one of them", ErrBadOption, until.text)
	}
	if from.isOffset() && until.isOffset() && from.offset >= until.offset ||
		from.isTime() && until.isTime() && !from.at.Before(until.at) {
		return fmt.Errorf("%w: --from %s is not before --until %s (--until is exclusive), so nothing would be dumped; give a --from before --until", ErrBadOption, from.text, until.text)
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
		return fmt.Errorf("%w: --partitions %s: topic %s has no partition %s (it has %s)", ErrBadOption, flag, t, strings.Join(names, ", "), has)
	}
	return nil
}

// parsePartitions reads "0,3-5" into a set; nil means all.
func parsePartitions(s string) (map[int32]bool, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[int32]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		lo, hi, isRange := strings.Cut(f, "-")
		a, err1 := strconv.ParseInt(lo, 10, 32)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.ParseInt(hi, 10, 32)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, fmt.Errorf("%w: --partitions %q: use a list such as 0,3-5", ErrBadOption, s)
		}
		for p := a; p <= b; p++ {
			out[int32(p)] = true
		}
	}
	return out, nil
}

// resolveTopics returns the topics --topic and --topic-regex select
// together, sorted, and the cluster's topics as listed.
func resolveTopics(ctx context.Context, adm *kadm.Client, names []string, regex, who string) ([]string, kadm.TopicDetails, error) {
	all, err := adm.ListTopics(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("list topics: %w", classify(err))
	}
	var out []string
	for _, n := range names {
		if _, ok := all[n]; !ok {
			// The broker leaves out of the list the topics the principal
			// may not describe; asked by name, it says so.
			if _, err := adm.Metadata(ctx, n); isAuthz(err) {
				return nil, nil, &AuthzError{Principal: who, Action: fmt.Sprintf("describe topic %q", n), Topic: n, Ops: "DESCRIBE and READ", Err: err}
			}
			msg := fmt.Sprintf("topic %q does not exist on the cluster", n)
			if c := closest(n, all.Names()); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			}
			return nil, nil, fmt.Errorf("%w: %s", ErrUnknownTopic, msg)
		}
		out = append(out, n)
	}
	if regex != "" {
		re, err := regexp.Compile(regex)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: --topic-regex: %v", ErrBadOption, err)
		}
		n := 0
		for _, t := range all.Names() {
			if !re.MatchString(t) || strings.HasPrefix(t, "__") {
				continue
			}
			n++ // a topic also named with --topic still matches
			if !contains(out, t) {
				out = append(out, t)
			}
		}
		if n == 0 {
			return nil, nil, fmt.Errorf("%w: no topic matches --topic-regex %q", ErrUnknownTopic, regex)
		}
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("%w: name a topic with --topic NAME or --topic-regex", ErrBadOption)
	}
	sort.Strings(out)
	return out, all, nil
}

type dumper struct {
	opts   Options
	dir    *catalog.Dir
	conn   Conn
	cl     *kgo.Client
	adm    *kadm.Client
	who    string // the principal, for messages
	parts  map[int32]bool
	locks  map[catalog.TopicPartition]*catalog.Lock
	warned map[string]bool
}

// warn tells Progress of what could not be read, once per run.
func (d *dumper) warn(msg string) {
	if d.warned[msg] || d.opts.Progress == nil {
		return
	}
	d.warned[msg] = true
	d.opts.Progress.Warn(msg)
}

// denied turns an authorization failure on topic into an AuthzError.
func (d *dumper) denied(action, topic, ops string, err error) error {
	if !isAuthz(err) {
		return nil
	}
	return &AuthzError{Principal: d.who, Action: action, Topic: topic, Ops: ops, Err: err}
}

func (d *dumper) unlockAll() {
	for _, l := range d.locks {
		l.Unlock()
	}
}

// cut is the state of one topic at a snapshot's start.
type cut struct {
	id     string
	asOf   time.Time
	state  *catalog.ClusterSnapshot
	starts map[int32]int64
	ends   map[int32]int64
	stable map[int32]int64
}

func (d *dumper) takeCut(ctx context.Context, topic string) (*cut, error) {
	now := time.Now().UTC()
	c := &cut{id: catalog.NewSnapshotID(now), asOf: now, starts: map[int32]int64{}, ends: map[int32]int64{}, stable: map[int32]int64{}}
	md, err := d.adm.Metadata(ctx, topic)
	if ae := d.denied(fmt.Sprintf("describe topic %q", topic), topic, "DESCRIBE and READ", err); ae != nil {
		return nil, ae
	}
	if err != nil {
		return nil, fmt.Errorf("describe topic %s: %w", topic, classify(err))
	}
	td, ok := md.Topics[topic]
	if !ok || td.Err != nil {
		if td.Err != nil && !errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
			return nil, fmt.Errorf("describe topic %s: %w", topic, classify(td.Err))
		}
		return nil, fmt.Errorf("%w: topic %q is gone from the cluster", ErrUnknownTopic, topic)
	}
	list := func(what string, f func(context.Context, ...string) (kadm.ListedOffsets, error), into map[int32]int64) error {
		lo, err := f(ctx, topic)
		if ae := d.denied(fmt.Sprintf("list the %s offsets of topic %q", what, topic), topic, "DESCRIBE and READ", err); ae != nil {
			return ae
		}
		if err != nil {
			return fmt.Errorf("list %s offsets of %s: %w", what, topic, classify(err))
		}
		var ferr error
		lo.Each(func(o kadm.ListedOffset) {
			if o.Err != nil && ferr == nil {
				ferr = fmt.Errorf("list %s offset of %s/%d: %w", what, topic, o.Partition, classify(o.Err))
			}
			into[o.Partition] = o.Offset
		})
		return ferr
	}
	if err := list("start", d.adm.ListStartOffsets, c.starts); err != nil {
		return nil, err
	}
	if err := list("end", d.adm.ListEndOffsets, c.ends); err != nil {
		return nil, err
	}
	if err := list("last stable", d.adm.ListCommittedOffsets, c.stable); err != nil {
		return nil, err
	}
	st := &catalog.ClusterSnapshot{ID: c.id, Topic: topic, AsOf: now, PartitionCount: len(td.Partitions), Configs: map[string]string{}}
	for _, b := range md.Brokers {
		st.Brokers = append(st.Brokers, fmt.Sprintf("%d=%s:%d", b.NodeID, b.Host, b.Port))
	}
	for _, p := range td.Partitions.Sorted() {
		st.ReplicationFactor = max(st.ReplicationFactor, len(p.Replicas))
		st.Partitions = append(st.Partitions, catalog.PartitionState{
			Partition: p.Partition, LogStart: c.starts[p.Partition], HighWatermark: c.ends[p.Partition],
			LastStable: c.stable[p.Partition], Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
			Replicas: p.Replicas, ISR: p.ISR,
		})
	}
	if rc, err := d.adm.DescribeTopicConfigs(ctx, topic); err == nil {
		for _, r := range rc {
			if r.Err != nil {
				st.ConfigsError = fmt.Sprintf("read the configs of topic %s: %v", topic, r.Err)
			}
			for _, cfg := range r.Configs {
				switch cfg.Key {
				case "cleanup.policy", "retention.ms", "retention.bytes", "min.insync.replicas", "segment.ms", "segment.bytes", "message.timestamp.type", "max.message.bytes":
					if cfg.Value != nil {
						st.Configs[cfg.Key] = *cfg.Value
					}
				}
			}
		}
	} else if isAuthz(err) {
		st.ConfigsError = fmt.Sprintf("%s may not read the configs of topic %s (DESCRIBE_CONFIGS): %v", d.who, topic, err)
	} else {
		return nil, fmt.Errorf("describe configs of %s: %w", topic, classify(err))
	}
	if st.ConfigsError != "" {
		d.warn(st.ConfigsError + "; the snapshot records no configs")
	}
	st.Groups, st.GroupsError, err = d.groups(ctx, topic)
	if err != nil {
		return nil, err
	}
	if st.GroupsError != "" {
		d.warn(st.GroupsError + "; the snapshot records the consumer groups as not fully known")
	}
	c.state = st
	return c, nil
}

// groups returns the consumer groups with committed offsets on topic, and,
// if the principal may not see them all, why (the groups are then those it
// could read). Groups are optional to a dump: not being allowed to read
// them is no error.
func (d *dumper) groups(ctx context.Context, topic string) ([]catalog.GroupState, string, error) {
	var unknown []string
	if !d.mayDescribeCluster(ctx) {
		unknown = append(unknown, fmt.Sprintf("%s lacks DESCRIBE on the cluster, so the broker lists only the consumer groups it may describe", d.who))
	}
	listed, err := d.adm.ListGroups(ctx)
	if isAuthz(err) {
		return nil, fmt.Sprintf("%s may not list the consumer groups: %v", d.who, err), nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("list groups: %w", classify(err))
	}
	names := listed.Groups()
	if len(names) == 0 {
		return nil, strings.Join(unknown, "; "), nil
	}
	offs := d.adm.FetchManyOffsets(ctx, names...)
	desc, err := d.adm.DescribeGroups(ctx, names...)
	if err != nil && len(desc) == 0 && !isAuthz(err) {
		return nil, "", fmt.Errorf("describe groups: %w", classify(err))
	}
	var unread []string
	var out []catalog.GroupState
	for _, g := range names {
		r, ok := offs[g]
		if !ok || r.Err != nil {
			if ok && r.Err != nil {
				unread = append(unread, fmt.Sprintf("%s (%v)", g, r.Err))
			}
			continue
		}
		tos, ok := r.Fetched[topic]
		if !ok || len(tos) == 0 {
			continue
		}
		gs := catalog.GroupState{Group: g}
		for p, o := range tos {
			if o.Err != nil || o.At < 0 {
				continue
			}
			gs.Offsets = append(gs.Offsets, catalog.GroupOffset{Partition: p, Offset: o.At, LeaderEpoch: o.LeaderEpoch, Metadata: o.Metadata})
		}
		if len(gs.Offsets) == 0 {
			continue
		}
		sort.Slice(gs.Offsets, func(i, j int) bool { return gs.Offsets[i].Partition < gs.Offsets[j].Partition })
		if dg, ok := desc[g]; ok {
			gs.State, gs.Protocol, gs.ProtocolType = dg.State, dg.Protocol, dg.ProtocolType
			for _, m := range dg.Members {
				gm := catalog.GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
				if m.InstanceID != nil {
					gm.InstanceID = *m.InstanceID
				}
				if ca, ok := m.Assigned.AsConsumer(); ok {
					for _, t := range ca.Topics {
						if t.Topic == topic {
							gm.Assigned = append(gm.Assigned, t.Partitions...)
						}
					}
				}
				gs.Members = append(gs.Members, gm)
			}
		}
		out = append(out, gs)
	}
	if len(unread) > 0 {
		sort.Strings(unread)
		unknown = append(unknown, fmt.Sprintf("%s could not read the offsets of consumer groups %s", d.who, strings.Join(unread, ", ")))
	}
	return out, strings.Join(unknown, "; "), nil
}

// mayDescribeCluster reports whether the principal has DESCRIBE on the
// cluster, without which ListGroups leaves out the groups it may not
// describe. A broker too old to say (before Kafka 2.8) is taken at its word.
func (d *dumper) mayDescribeCluster(ctx context.Context) bool {
	req := kmsg.NewPtrDescribeClusterRequest()
	req.IncludeClusterAuthorizedOperations = true
	resp, err := req.RequestWith(ctx, d.cl)
	if err != nil || resp.ErrorCode != 0 || resp.ClusterAuthorizedOperations == math.MinInt32 {
		return true
	}
	return slices.Contains(kadm.DecodeACLOperations(resp.ClusterAuthorizedOperations), kadm.OpDescribe)
}

// plan is what one partition will do in this snapshot.
type plan struct {
	tp       catalog.TopicPartition
	manifest *catalog.Manifest
	from     int64 // first offset to read
	until    int64 // exclusive end
	lost     []catalog.LostRange
}

func (d *dumper) snapshot(ctx context.Context, topic string, sum *Summary) error {
	c, err := d.takeCut(ctx, topic)
	if err != nil {
		return err
	}
	var plans []*plan
	for _, ps := range c.state.Partitions {
		p := ps.Partition
		if d.parts != nil && !d.parts[p] {
			continue
		}
		tp := catalog.TopicPartition{Topic: topic, Partition: p}
		if d.locks[tp] == nil {
			l, err := d.dir.LockPartition(tp)
			if err != nil {
				return fmt.Errorf("%w (another topicsnap dump is writing %s; wait for it, or dump other partitions with --partitions)", err, tp)
			}
			d.locks[tp] = l
		}
		m, err := d.dir.ReadManifest(tp)
		if err != nil {
			return err
		}
		if _, err := d.dir.CleanPartition(m); err != nil {
			return err
		}
		pl, err := d.planPartition(ctx, c, m)
		if err != nil {
			return err
		}
		plans = append(plans, pl)
	}
	if d.parts != nil && len(plans) == 0 {
		return fmt.Errorf("%w: --partitions %q selects no partition of %s (it has %d)", ErrBadOption, d.opts.Partitions, topic, len(c.state.Partitions))
	}
	sum.Snapshots = append(sum.Snapshots, c.id)
	if err := d.readAll(ctx, c, plans, sum); err != nil {
		return err
	}
	for _, pl := range plans {
		c.state.Dumped = append(c.state.Dumped, pl.tp.Partition)
	}
	return d.dir.WriteClusterSnapshot(c.state)
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
				pl.from = max(off, logStart)
			}
		}
	}
	if pl.until < pl.from {
		pl.until = pl.from
	}
	return pl, nil
}

func (d *dumper) offsetAfter(ctx context.Context, tp catalog.TopicPartition, t time.Time) (int64, error) {
	lo, err := d.adm.ListOffsetsAfterMilli(ctx, t.UnixMilli(), tp.Topic)
	if err != nil {
		return 0, fmt.Errorf("list offsets of %s after %s: %w", tp.Topic, t.Format(time.RFC3339), classify(err))
	}
	o, ok := lo.Lookup(tp.Topic, tp.Partition)
	if !ok || o.Err != nil {
		return -1, nil
	}
	return o.Offset, nil
}

// item is what the reader hands a partition's writer, in offset order.
type item struct {
	recs []*kgo.Record
	lost *catalog.LostRange
}

// readAll consumes every planned partition up to its end, with one client,
// and a writer goroutine per partition.
func (d *dumper) readAll(ctx context.Context, c *cut, plans []*plan, sum *Summary) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	assign := map[int32]kgo.Offset{}
	writers := map[int32]*writer{}
	var wg sync.WaitGroup
	errc := make(chan error, len(plans))
	var records, bytes, files, lostN, lostOffsets atomic.Int64
	for _, pl := range plans {
		w := &writer{d: d, c: c, pl: pl, in: make(chan item, 1), fileRows: d.opts.FileRows, fileBytes: d.opts.FileBytes,
			records: &records, bytes: &bytes, files: &files, lostN: &lostN, lostOffsets: &lostOffsets, next: pl.from, readAt: pl.from, groupRows: groupRowsFor(len(plans))}
		writers[pl.tp.Partition] = w
		if d.opts.Progress != nil {
			d.opts.Progress.Start(pl.tp, pl.from, pl.until)
		}
		if pl.from < pl.until {
			assign[pl.tp.Partition] = kgo.NewOffset().At(pl.from)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.run(ctx); err != nil {
				errc <- err
				cancel()
			}
		}()
	}
	rerr := d.consume(ctx, c, assign, writers)
	for _, w := range writers {
		w.close()
	}
	wg.Wait()
	close(errc)
	sum.Partitions += len(plans)
	sum.Records += records.Load()
	sum.Bytes += bytes.Load()
	sum.Files += int(files.Load())
	sum.Lost += int(lostN.Load())
	sum.LostOffsets += lostOffsets.Load()
	if werr := <-errc; werr != nil {
		return werr
	}
	return rerr
}

func (d *dumper) consume(ctx context.Context, c *cut, assign map[int32]kgo.Offset, writers map[int32]*writer) error {
	if len(assign) == 0 {
		return nil
	}
	topic := c.state.Topic
	fetchMax := d.opts.FetchMaxBytes
	if fetchMax <= 0 {
		fetchMax = 16 << 20
	}
	cl, err := NewClient(d.conn,
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: assign}),
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()),
		kgo.KeepControlRecords(),
		kgo.FetchMaxBytes(fetchMax),
		kgo.FetchMaxPartitionBytes(min(fetchMax, 4<<20)),
		kgo.FetchMaxWait(500*time.Millisecond),
		kgo.WithHooks(&waitHook{p: d.opts.Progress}),
	)
	if err != nil {
		return err
	}
	defer cl.Close()
	remaining := len(assign)
	for remaining > 0 {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ferr error
		fetches.EachError(func(t string, p int32, err error) {
			if ferr != nil {
				return
			}
			if errors.Is(err, kerr.OffsetOutOfRange) {
				ferr = d.handleOutOfRange(ctx, cl, c, writers[p])
				return
			}
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				ferr = ctx.Err()
				return
			}
			if ae := d.denied(fmt.Sprintf("read partition %d of topic %q", p, t), t, "READ", err); ae != nil {
				ferr = ae
				return
			}
			cerr := classify(err)
			if errors.Is(cerr, ErrAuthentication) || errors.Is(cerr, ErrAuthorization) {
				ferr = fmt.Errorf("read %s/%d: %w", t, p, cerr)
				return
			}
			if d.opts.Progress != nil {
				d.opts.Progress.Waiting(fmt.Sprintf("%s/%d: %v (retrying)", t, p, err))
			}
		})
		if ferr != nil {
			return ferr
		}
		fetches.EachPartition(func(fp kgo.FetchTopicPartition) {
			w := writers[fp.Partition]
			if w == nil || w.finished || len(fp.Records) == 0 {
				return
			}
			recs := fp.Records
			// Keep only offsets below the cut; anything later is the next snapshot's.
			n := sort.Search(len(recs), func(i int) bool { return recs[i].Offset >= w.pl.until })
			done := n < len(recs) || (n > 0 && recs[n-1].Offset >= w.pl.until-1)
			if n > 0 {
				select {
				case w.in <- item{recs: recs[:n]}:
				case <-ctx.Done():
				}
				w.readAt = recs[n-1].Offset + 1
			}
			if done {
				w.finished = true
				remaining--
				cl.RemoveConsumePartitions(map[string][]int32{topic: {fp.Partition}})
			}
		})
	}
	return nil
}

// handleOutOfRange records the offsets retention deleted under our feet and
// resumes from the new log start. It never jumps silently.
func (d *dumper) handleOutOfRange(ctx context.Context, cl *kgo.Client, c *cut, w *writer) error {
	lo, err := d.adm.ListStartOffsets(ctx, w.pl.tp.Topic)
	if err != nil {
		return fmt.Errorf("list start offsets of %s after offset out of range: %w", w.pl.tp.Topic, classify(err))
	}
	o, ok := lo.Lookup(w.pl.tp.Topic, w.pl.tp.Partition)
	if !ok || o.Err != nil {
		return fmt.Errorf("list start offset of %s after offset out of range: %v", w.pl.tp, o.Err)
	}
	from := w.readAt
	if o.Offset <= from {
		return fmt.Errorf("read %s at offset %d: broker says out of range, yet its log starts at %d; refusing to guess", w.pl.tp, from, o.Offset)
	}
	lost := &catalog.LostRange{Kind: catalog.LostBetween, From: from, To: min(o.Offset, w.pl.until) - 1, DetectedAt: time.Now().UTC(), Snapshot: c.id}
	select {
	case w.in <- item{lost: lost}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if o.Offset >= w.pl.until {
		w.finished = true
		cl.RemoveConsumePartitions(map[string][]int32{w.pl.tp.Topic: {w.pl.tp.Partition}})
		return nil
	}
	w.readAt = o.Offset
	cl.SetOffsets(map[string]map[int32]kgo.EpochOffset{w.pl.tp.Topic: {w.pl.tp.Partition: {Epoch: -1, Offset: o.Offset}}})
	return nil
}

// schemaID reads a Confluent Schema Registry wire-format header.
func schemaID(v []byte) *int32 {
	if len(v) >= 5 && v[0] == 0 {
		id := int32(binary.BigEndian.Uint32(v[1:5]))
		return &id
	}
	return nil
}
