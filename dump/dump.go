package dump

import (
	"context"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"io"
	"io/fs"
	"net"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/suggest"
	"github.com/topicsnap/topicsnap/internal/units"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/schemas"
	"slices"
)

// Options of one dump.
type Options struct {
	Conn       kafkaconn.Conn
	Dir        string           // a folder, or s3://bucket/prefix
	S3         catalog.S3Config // how to reach Dir when it is a bucket
	Topics     []string
	TopicRegex string
	Partitions string // "0,3-5"; empty is all
	From       string // earliest | OFFSET | RFC3339 time; for partitions never dumped
	Until      string // now | OFFSET (exclusive) | RFC3339 time
	Follow     bool
	Interval   time.Duration // pause between snapshots with Follow
	// WaitUnreachable bounds how long a one-shot dump (not Follow) waits
	// for a cluster it can no longer reach, once it started reading: past
	// it, the dump stops with what it read committed and an error of
	// kafkaconn.ErrUnreachable (exit 3). 0 waits without end, as Follow
	// always does.
	WaitUnreachable time.Duration
	FileRows        int   // roll a file after this many rows
	FileBytes       int64 // or this many bytes of keys, values and headers
	// FetchMaxBytes bounds one fetch response (default 16 MiB; a partition's
	// share at most 4 MiB): how far the reader may run ahead of the writers.
	FetchMaxBytes int32
	// MaxDecompressedBytes bounds what one fetched batch may decompress to
	// (default DefaultMaxDecompressedBytes): a partition whose batch
	// decompresses past it stops there (BatchTooLargeError).
	MaxDecompressedBytes int
	// Registry, if set, is the Schema Registry (over the config file's
	// schema.registry.* keys) that values in the
	// Confluent wire format are decoded with; SchemaDir a folder of schema
	// files (ID.avsc, ID.proto, ID.json) standing for registry ids. Every
	// schema met is stored in the folder (schemas/ID.json), which is asked
	// first: a folder that holds its schemas needs neither.
	Registry  *schemas.Registry
	SchemaDir string
	// Progress, if set, is told about every committed file and finished
	// partition; it must be safe for concurrent use.
	Progress kafkaconn.Progress
	// Compact, with Follow, compacts the dump's own files between rounds
	// (followcompact.go); nil never does.
	Compact *FollowCompact
}

// Summary of one run.
type Summary struct {
	Snapshots   []string
	Partitions  int // distinct partitions, whatever the rounds
	seen        map[catalog.TopicPartition]bool
	Records     int64
	Bytes       int64 // bytes written to disk
	Files       int
	Lost        int // lost ranges recorded by this run
	LostOffsets int64
	// Decoded counts the wire-format values decoded with their schema,
	// DecodeErrors those that were not (kept as bytes, with the reason in
	// value_decode_error).
	Decoded      int64
	DecodeErrors int64
	// KeysDecoded and KeyDecodeErrors are the same for wire-format keys
	// (key_decode_error).
	KeysDecoded     int64
	KeyDecodeErrors int64
	// Rewrites counts the partitions this run found rewritten after an
	// earlier dump (see catalog.Rewrite), RewrittenOffsets their offsets.
	Rewrites         int
	RewrittenOffsets int64
	Elapsed          time.Duration
}

func (s Summary) String() string {
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(s.Records) / s.Elapsed.Seconds()
	}
	out := fmt.Sprintf("dumped %d records (%s) in %d files from %d partitions in %.1fs, %.0f records/s, %d lost ranges (%d offsets)",
		s.Records, units.Bytes(s.Bytes), s.Files, s.Partitions, s.Elapsed.Seconds(), rate, s.Lost, s.LostOffsets)
	if s.Decoded > 0 || s.DecodeErrors > 0 {
		out += fmt.Sprintf(", %d values decoded with their schema, %d not decoded (kept as bytes; see check values)", s.Decoded, s.DecodeErrors)
	}
	if s.Rewrites > 0 {
		parts := "partitions"
		if s.Rewrites == 1 {
			parts = "partition"
		}
		out += fmt.Sprintf(", %d %s found rewritten after an earlier dump (%d offsets of another history, both versions kept; see check gaps, check durability)", s.Rewrites, parts, s.RewrittenOffsets)
	}
	if s.KeysDecoded > 0 || s.KeyDecodeErrors > 0 {
		out += fmt.Sprintf(", %d keys decoded with their schema, %d not decoded (kept as bytes; see key_error)", s.KeysDecoded, s.KeyDecodeErrors)
	}
	return out
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
	parts, err := kafkaconn.ParsePartitions(opts.Partitions)
	if err != nil {
		return sum, err
	}
	if err := checkPositions(opts); err != nil {
		return sum, err
	}
	if err := catalog.CheckCreateAt(ctx, opts.Dir, opts.S3); err != nil {
		return sum, err
	}
	// The registry's settings and the --schema files are read before
	// anything is written: bad ones leave DIR as it was.
	reg, err := kafkaconn.RegistryOf(ctx, opts.Conn.ConfigFile, opts.Registry)
	if err != nil {
		return sum, err
	}
	var res *schemas.Resolver
	if reg != nil || opts.SchemaDir != "" {
		if res, err = schemas.NewResolver(ctx, schemas.Options{Folder: &catalog.Dir{Path: opts.Dir}, Registry: reg, SchemaDir: opts.SchemaDir}); err != nil {
			return sum, fmt.Errorf("%w: %w", kafkaconn.ErrBadConfig, err)
		}
	}
	if reg != nil {
		// A certificate the CA given does not vouch for is a setting to
		// fix (exit 10), found before anything is written; a registry
		// that is down is only a warning, later.
		if err := reg.CheckTLS(ctx); err != nil {
			return sum, err
		}
	}
	cl, adm, err := kafkaconn.Connect(ctx, opts.Conn)
	if err != nil {
		return sum, err
	}
	defer cl.Close()
	who := kafkaconn.Principal(ctx, opts.Conn)
	topics, all, err := resolveTopics(ctx, adm, opts.Topics, opts.TopicRegex, who)
	if err != nil {
		return sum, err
	}
	if err := checkPartitions(opts.Partitions, parts, topics, all); err != nil {
		return sum, err
	}
	if err := checkFromPastEnd(ctx, adm, opts, topics, parts); err != nil {
		return sum, err
	}
	dir, err := catalog.CreateAt(ctx, opts.Dir, opts.S3)
	if err != nil {
		return sum, err
	}
	// Take every partition's lock once, for the whole run.
	d := &dumper{opts: opts, dir: dir, conn: opts.Conn, cl: cl, adm: adm, who: who, parts: parts,
		locks: map[catalog.TopicPartition]*catalog.Lock{}, warned: map[string]bool{}, res: res}
	res.SetWarn(d.warn)
	defer d.unlockAll()
	d.unlisted(ctx, all)
	var compacted time.Time
	for {
		if err := d.round(ctx, topics, &sum); err != nil {
			sum.Elapsed = time.Since(start)
			return sum, err
		}
		if !opts.Follow {
			break
		}
		compacted = d.compactHeld(ctx, compacted, time.Now())
		select {
		case <-ctx.Done():
			sum.Elapsed = time.Since(start)
			return sum, ctx.Err()
		case <-time.After(opts.Interval):
		}
		if opts.TopicRegex != "" {
			topics = d.newlyMatched(ctx, topics)
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// maxUnlisted bounds the topics unlisted names one by one.
const maxUnlisted = 10

// unlisted warns of each topic of the folder that --topic-regex matches
// and the cluster does not list: a nightly dump of every topic left it out
// without a word, whether it was deleted or the principal lost DESCRIBE on
// it (the broker lists only the topics it may describe). Asked by name, the
// broker says which, as far as it tells a principal without DESCRIBE.
func (d *dumper) unlisted(ctx context.Context, all kadm.TopicDetails) {
	if d.opts.TopicRegex == "" {
		return
	}
	re, err := regexp.Compile(d.opts.TopicRegex)
	if err != nil {
		return
	}
	have, _, err := d.dir.TopicFolders(ctx)
	if err != nil {
		return
	}
	var gone []string
	for _, t := range have {
		if _, ok := all[t]; !ok && re.MatchString(t) {
			gone = append(gone, t)
		}
	}
	for i, t := range gone {
		if i == maxUnlisted {
			d.warn(fmt.Sprintf("%d more topics of the folder match --topic-regex %q but the cluster does not list them (%s): they are not dumped", len(gone)-maxUnlisted, d.opts.TopicRegex, strings.Join(gone[maxUnlisted:], ", ")))
			break
		}
		why := "deleted from the cluster, or " + d.who + " may not describe it"
		if _, err := d.adm.Metadata(ctx, t); kafkaconn.IsAuthz(err) {
			why = d.who + " may not describe it, or it was deleted (to a principal without DESCRIBE on a topic, Kafka says the same of both)"
		} else if errors.Is(err, kerr.UnknownTopicOrPartition) || err == nil {
			why = "deleted from the cluster"
		}
		d.warn(fmt.Sprintf("topic %s of the folder matches --topic-regex %q but the cluster does not list it: %s; it is not dumped, and what the folder holds of it stays", t, d.opts.TopicRegex, why))
	}
}

// newlyMatched is topics with, following a --topic-regex, the topics
// made since that it matches (a pattern subscription's behaviour): each is
// said and followed from then on, from --from. A topic --partitions does
// not fit is said and left out; a listing that fails leaves topics as they
// are (the next round asks again).
func (d *dumper) newlyMatched(ctx context.Context, topics []string) []string {
	now, all, err := resolveTopics(ctx, d.adm, nil, d.opts.TopicRegex, d.who)
	if err != nil {
		return topics
	}
	var added bool
	for _, t := range now {
		if slices.Contains(topics, t) {
			continue
		}
		if err := checkPartitions(d.opts.Partitions, d.parts, []string{t}, all); err != nil {
			d.warn(fmt.Sprintf("topic %s now matches --topic-regex %q but is not followed: %v", t, d.opts.TopicRegex, err))
			continue
		}
		d.warn(fmt.Sprintf("topic %s now matches --topic-regex %q: it is followed from now on", t, d.opts.TopicRegex))
		topics = append(slices.Clone(topics), t)
		added = true
	}
	if added {
		sort.Strings(topics)
	}
	return topics
}

// transient reports whether err is worth another try in --follow: the
// cluster was unreachable or answered with a retriable error. An error of
// the folder's files is not the cluster's: a syscall.Errno is a net.Error
// (it has Timeout and Temporary), so the limit of open files (EMFILE) or a
// folder not writable (EACCES) was taken for an outage, and a follow of
// more partitions than ulimit -n allows said "snapshot of T failed (...
// too many open files ...); trying again in 30s" every round for ever,
// never dumping those topics, where a one-shot dump stops with exit 2 and
// its Try. A full disk is still waited out (space may be freed).
func transient(err error) bool {
	if errors.Is(err, store.ErrDiskFull) {
		return true
	}
	var pe *fs.PathError
	if errors.Is(err, catalog.ErrTooManyFiles) || errors.Is(err, store.ErrNotWritable) || errors.As(err, &pe) {
		return false
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Retriable
	}
	var ne net.Error
	return errors.Is(err, kafkaconn.ErrUnreachable) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// resolveTopics returns the topics --topic and --topic-regex select
// together, sorted, and the cluster's topics as listed. An internal topic
// (__consumer_offsets, __transaction_state, as the broker marks them) is
// dumped when --topic names it, like any other; --topic-regex never
// selects one, but does select a user's topic whose name starts with "__".
func resolveTopics(ctx context.Context, adm *kadm.Client, names []string, regex, who string) ([]string, kadm.TopicDetails, error) {
	// kadm's ListTopics leaves the internal topics out of a full listing.
	all, err := adm.ListTopicsWithInternal(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("list topics: %w", kafkaconn.Classify(err))
	}
	var out []string
	for _, n := range names {
		if _, ok := all[n]; !ok {
			// The broker leaves out of the list the topics the principal
			// may not describe; asked by name, it says so.
			if _, err := adm.Metadata(ctx, n); kafkaconn.IsAuthz(err) {
				return nil, nil, &kafkaconn.AuthzError{Principal: who, Action: fmt.Sprintf("describe topic %q", n), Topic: n, Ops: "DESCRIBE and READ", Err: err}
			}
			msg := fmt.Sprintf("topic %q does not exist on the cluster", n)
			if c := suggest.Closest(n, all.Names()); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			}
			return nil, nil, fmt.Errorf("%w: %s", kafkaconn.ErrUnknownTopic, msg)
		}
		out = append(out, n)
	}
	if regex != "" {
		re, err := regexp.Compile(regex)
		if err != nil {
			return nil, nil, exit.Errorf(kafkaconn.ErrBadOption, "--topic-regex: %v", err)
		}
		n := 0
		for _, t := range all.Names() {
			// Kafka's own topics (__consumer_offsets, __transaction_state,
			// __share_group_state) by the broker's word, not by their "__":
			// a user's topic may start so too (Debezium's
			// __debezium-heartbeat.*), and it was left out in silence.
			if !re.MatchString(t) || all[t].IsInternal {
				continue
			}
			n++ // a topic also named with --topic still matches
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		if n == 0 {
			return nil, nil, fmt.Errorf("%w: no topic matches --topic-regex %q", kafkaconn.ErrUnknownTopic, regex)
		}
	}
	if len(out) == 0 {
		return nil, nil, exit.Errorf(kafkaconn.ErrBadOption, "name a topic with --topic NAME or --topic-regex")
	}
	sort.Strings(out)
	return out, all, nil
}

type dumper struct {
	opts  Options
	dir   *catalog.Dir
	conn  kafkaconn.Conn
	cl    *kgo.Client
	adm   *kadm.Client
	who   string // the principal, for messages
	parts map[int32]bool
	res   *schemas.Resolver // nil: values are not decoded

	// budget is the partitions the topics of a round read together; nil
	// with one topic (see round).
	budget *readBudget

	lockMu sync.Mutex
	locks  map[catalog.TopicPartition]*catalog.Lock

	// groupsAt is the consumer groups as read this round, for every
	// topic (see readGroups).
	groupsMu sync.Mutex
	groupsAt *groupsRead

	warnMu sync.Mutex
	warned map[string]bool
}

// warn tells Progress of what could not be read, once per run.
func (d *dumper) warn(msg string) {
	d.warnMu.Lock()
	defer d.warnMu.Unlock()
	if d.warned[msg] || d.opts.Progress == nil {
		return
	}
	d.warned[msg] = true
	d.opts.Progress.Warn(msg)
}

// denied turns an authorization failure on topic into a kafkaconn.AuthzError.
func (d *dumper) denied(action, topic, ops string, err error) error {
	if !kafkaconn.IsAuthz(err) {
		return nil
	}
	return &kafkaconn.AuthzError{Principal: d.who, Action: action, Topic: topic, Ops: ops, Err: err}
}

func (d *dumper) unlockAll() {
	d.lockMu.Lock()
	defer d.lockMu.Unlock()
	for _, l := range d.locks {
		l.Unlock()
	}
}

// lock takes tp's lock, once for the whole run.
func (d *dumper) lock(ctx context.Context, tp catalog.TopicPartition) error {
	d.lockMu.Lock()
	held := d.locks[tp] != nil
	d.lockMu.Unlock()
	if held {
		return nil
	}
	l, err := d.dir.LockPartition(ctx, tp)
	if errors.Is(err, catalog.ErrLocked) {
		return fmt.Errorf("%w (another topicsnap dump is writing %s; wait for it, or dump other partitions with --partitions)", err, tp)
	}
	if err != nil {
		return err
	}
	d.lockMu.Lock()
	d.locks[tp] = l
	d.lockMu.Unlock()
	return nil
}

// snapshot takes one snapshot of topic.
//
// A partition with nothing new since the folder's last dump of it (the
// cut's end offset is the manifest's next offset, its log start did not
// pass it, the log still holds the history dumped, and no --until) is
// idle: its manifest, read without the lock, is all this snapshot needs
// of it, and nothing of it is written, locked or cleaned; the cut lists
// it as dumped, with its offsets, as it lists every partition. An
// incremental dump of a cluster where little is new costs a manifest read
// a partition, not a lock, a manifest write and two fsyncs (issue 32).
// Every other partition is locked, and its manifest read again under the
// lock, before anything is decided from it: a dumper that wrote it since
// the first read is seen.
func (d *dumper) snapshot(ctx context.Context, topic string, sum *Summary) error {
	c, err := d.takeCut(ctx, topic)
	if err != nil {
		return err
	}
	var ms []*catalog.Manifest
	for _, ps := range c.state.Partitions {
		p := ps.Partition
		if d.parts != nil && !d.parts[p] {
			continue
		}
		tp := catalog.TopicPartition{Topic: topic, Partition: p}
		if d.opts.Follow {
			// A follower holds its partitions' locks for its whole run,
			// idle or not (a catalog compact beside it skips them).
			if err := d.lock(ctx, tp); err != nil {
				return err
			}
		}
		m, err := d.dir.ReadManifest(ctx, tp)
		if err != nil {
			return err
		}
		ms = append(ms, m)
	}
	if d.parts != nil && len(ms) == 0 {
		return exit.Errorf(kafkaconn.ErrBadOption, "--partitions %q selects no partition of %s (it has %d)", d.opts.Partitions, topic, len(c.state.Partitions))
	}
	epochs, err := d.lastEpochEnds(ctx, c, ms, nil)
	if err != nil {
		return err
	}
	var busy, idle []*catalog.Manifest
	for _, m := range ms {
		if d.idle(c, m, epochs) {
			idle = append(idle, m)
		} else {
			busy = append(busy, m)
		}
	}
	for i, m := range busy {
		tp := m.TP()
		if !d.holds(tp) {
			if err := d.lock(ctx, tp); err != nil {
				return err
			}
			// Read again under the lock: everything below is decided from
			// this version.
			if busy[i], err = d.dir.ReadManifest(ctx, tp); err != nil {
				return err
			}
		}
		if _, err := d.dir.CleanPartition(ctx, busy[i]); err != nil {
			return err
		}
	}
	if err := d.checkRewrites(ctx, c, busy, epochs, sum); err != nil {
		return err
	}
	if err := d.supersedeVanished(ctx, c, sum); err != nil {
		return err
	}
	var plans []*plan
	for _, m := range busy {
		pl, err := d.planPartition(ctx, c, m)
		if err != nil {
			return err
		}
		plans = append(plans, pl)
	}
	sum.Snapshots = append(sum.Snapshots, c.id)
	reading := 0
	for _, pl := range plans {
		if pl.from < pl.until {
			reading++
		}
	}
	share, release := 1.0, func() {}
	if reading > 0 {
		if share, release, err = d.budget.take(ctx, reading); err != nil {
			return err
		}
	}
	err = d.readAll(ctx, c, plans, share, sum)
	release()
	if err != nil {
		if hc := historyChanged(err); len(hc) > 0 && ctx.Err() == nil {
			d.recordChangedHistory(ctx, topic, hc, sum)
		}
		return err
	}
	for _, m := range idle {
		sum.saw(m.TP())
	}
	if d.opts.Progress != nil {
		for _, m := range idle {
			d.opts.Progress.Start(m.TP(), m.NextOffset, m.NextOffset)
			d.opts.Progress.Done(m.TP())
		}
	}
	// Every partition, idle or not, in the cut's order.
	for _, m := range ms {
		c.state.Dumped = append(c.state.Dumped, m.Partition)
	}
	return d.dir.WriteClusterSnapshot(ctx, c.state)
}

// historyChanged is every HistoryChangedError in err (the partitions of a
// topic stopped short are joined).
func historyChanged(err error) []*HistoryChangedError {
	var hc *HistoryChangedError
	if errors.As(err, &hc) {
		return []*HistoryChangedError{hc}
	}
	var out []*HistoryChangedError
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, historyChanged(e)...)
		}
	}
	return out
}

// recordChangedHistory records at once, as the next run would, the
// rewrite of the partitions whose log went back below what was read while
// it was read (an unclean election mid-dump): against a new cut, the
// leader is asked where the epoch of the last record dumped ends, and the
// offsets dumped past it are recorded as rewritten (checkRewrites). Until
// then the folder's checks said nothing of them: "OK gaps: 0 missing
// offsets" on records Kafka no longer has. What cannot be asked now is
// left to the next run, with a warning.
func (d *dumper) recordChangedHistory(ctx context.Context, topic string, hc []*HistoryChangedError, sum *Summary) {
	c, err := d.takeCut(ctx, topic)
	var ms []*catalog.Manifest
	for _, h := range hc {
		if err != nil {
			break
		}
		var m *catalog.Manifest
		if m, err = d.dir.ReadManifest(ctx, h.TP); err == nil {
			ms = append(ms, m)
		}
	}
	before := sum.Rewrites
	if err == nil {
		err = d.checkRewrites(ctx, c, ms, nil, sum)
	}
	if err != nil {
		d.warn(fmt.Sprintf("%s: its history changed while it was read, and the offsets it no longer holds could not be recorded now (%v): the next run records them", topic, err))
		return
	}
	if sum.Rewrites == before {
		return
	}
	for _, h := range hc {
		for _, m := range ms {
			if m.TP() == h.TP && len(m.Rewrites) > 0 && m.Rewrites[len(m.Rewrites)-1].Snapshot == c.id {
				h.Recorded = true
			}
		}
	}
}

// idle reports whether this snapshot has nothing to write of m's
// partition (see snapshot); epochs are the leaders' ends of the last
// dumped epochs (lastEpochEnds).
func (d *dumper) idle(c *cut, m *catalog.Manifest, epochs map[int32]epochEnd) bool {
	if u := d.opts.Until; u != "" && u != "now" {
		return false
	}
	p := m.Partition
	end, ok := c.ends[p]
	start, sok := c.starts[p]
	if m.NextOffset < 0 || !ok || !sok || end != m.NextOffset || start > m.NextOffset {
		return false
	}
	return !rewriteChecked(m) || divergenceOf(c, m, endsOf(epochs)) == nil
}

// holds reports whether this run holds tp's lock.
func (d *dumper) holds(tp catalog.TopicPartition) bool {
	d.lockMu.Lock()
	defer d.lockMu.Unlock()
	return d.locks[tp] != nil
}
