package dump

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// cut is the state of one topic at a snapshot's start.
type cut struct {
	id     string
	asOf   time.Time
	state  *catalog.ClusterSnapshot
	starts map[int32]int64
	ends   map[int32]int64
	stable map[int32]int64
}

// leaderWait is how long the cut waits for a partition between leaders.
var leaderWait = 30 * time.Second

// NoLeaderError is a topic whose cut could not list a partition's offsets
// within leaderWait: its leader stayed unavailable (its broker down, an
// election that does not end). Nothing of the topic is dumped: a cut
// records every partition's offsets, and none is invented.
type NoLeaderError struct {
	Topic  string
	Err    error // the last listing's
	Waited time.Duration
}

func (e *NoLeaderError) Error() string {
	return fmt.Sprintf("%v, still after %s: the topic's snapshot needs every partition's offsets, and none is invented", e.Err, e.Waited)
}

func (e *NoLeaderError) Unwrap() error { return e.Err }

func (e *NoLeaderError) ExitCode() exit.Code { return exit.Error }

func (e *NoLeaderError) Hint() string {
	return fmt.Sprintf("see which partitions of %s have no leader (kafka-topics.sh --describe --topic %s: Leader: none) and bring their brokers back; the dump's other topics are not held up by this one", e.Topic, e.Topic)
}

// errRemade is a topic deleted and made again under its name while its cut
// was taken: the cut is taken again, of the new topic.
var errRemade = errors.New("the topic was deleted and made again while its cut was taken")

// takeCut reads the state of topic now. A cut is of one topic: its
// offsets are listed by name, so a topic deleted and made again while they
// were (the wait for a leader below can sit through both) would have the
// old topic's id and partitions with the new topic's offsets, and its
// rewrite be taken for a truncation, a broker's loss. The topic id read
// before the offsets is read again after them: a change takes the cut
// again (twice at most), a topic gone is said so.
func (d *dumper) takeCut(ctx context.Context, topic string) (*cut, error) {
	for try := 1; ; try++ {
		c, err := d.takeCutOnce(ctx, topic)
		if !errors.Is(err, errRemade) || try == 3 {
			return c, err
		}
	}
}

// sameTopic reads topic's metadata again and says whether it is still the
// topic of id: errRemade when another topic has its name now, the unknown
// topic error when none has.
func (d *dumper) sameTopic(ctx context.Context, topic string, id kadm.TopicID) error {
	md, err := d.adm.Metadata(ctx, topic)
	if err != nil {
		return nil // not known: the listing's own error stands
	}
	td, ok := md.Topics[topic]
	switch {
	case !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) || errors.Is(td.Err, kerr.UnknownTopicID):
		return exit.With(fmt.Errorf("%w: topic %q is gone from the cluster", kafkaconn.ErrUnknownTopic, topic), exit.UnknownTopic, goneHint)
	case td.Err == nil && id != (kadm.TopicID{}) && td.ID != (kadm.TopicID{}) && td.ID != id:
		return fmt.Errorf("%w: topic %s (id %s, now %s)", errRemade, topic, id, td.ID)
	}
	return nil
}

func (d *dumper) takeCutOnce(ctx context.Context, topic string) (*cut, error) {
	now := time.Now().UTC()
	c := &cut{id: catalog.NewSnapshotID(now), asOf: now, starts: map[int32]int64{}, ends: map[int32]int64{}, stable: map[int32]int64{}}
	describe := func() (kadm.Metadata, kadm.TopicDetail, error) {
		md, err := d.adm.Metadata(ctx, topic)
		if ae := d.denied(fmt.Sprintf("describe topic %q", topic), topic, "DESCRIBE and READ", err); ae != nil {
			return md, kadm.TopicDetail{}, ae
		}
		if err != nil {
			return md, kadm.TopicDetail{}, fmt.Errorf("describe topic %s: %w", topic, kafkaconn.Classify(err))
		}
		td, ok := md.Topics[topic]
		if !ok || td.Err != nil {
			if td.Err != nil && !errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
				return md, td, fmt.Errorf("describe topic %s: %w", topic, kafkaconn.Classify(td.Err))
			}
			return md, td, exit.With(fmt.Errorf("%w: topic %q is gone from the cluster", kafkaconn.ErrUnknownTopic, topic), exit.UnknownTopic, goneHint)
		}
		return md, td, nil
	}
	md, td, err := describe()
	if err != nil {
		return nil, err
	}
	firstID := td.ID // the topic the cut is of; one made again under its name is another
	list := func(what string, f func(context.Context, ...string) (kadm.ListedOffsets, error), into map[int32]int64) error {
		lo, err := f(ctx, topic)
		if ae := d.denied(fmt.Sprintf("list the %s offsets of topic %q", what, topic), topic, "DESCRIBE and READ", err); ae != nil {
			return ae
		}
		if err != nil {
			return fmt.Errorf("list %s offsets of %s: %w", what, topic, kafkaconn.Classify(err))
		}
		var ferr error
		lo.Each(func(o kadm.ListedOffset) {
			if o.Err != nil && ferr == nil {
				ferr = fmt.Errorf("list %s offset of %s/%d: %w", what, topic, o.Partition, kafkaconn.Classify(o.Err))
			}
			into[o.Partition] = o.Offset
		})
		return ferr
	}
	// A partition between leaders (an election, a broker restarting: a
	// rolling restart during a nightly dump) answers a retriable error:
	// waited out for up to leaderWait, as the reading waits out an
	// outage, before the topic's cut fails naming the partition. So is a
	// leader that cannot be reached while the metadata above was answered:
	// a broker that just crashed, still named leader until the controller
	// fences it and elects another (broker.session.timeout.ms, 9 s by
	// default), not the cluster out of reach.
	deadline := time.Now().Add(leaderWait)
	waited := false
	for wait := 100 * time.Millisecond; ; wait, waited = min(2*wait, 2*time.Second), true {
		err := list("start", d.adm.ListStartOffsets, c.starts)
		if err == nil {
			err = list("end", d.adm.ListEndOffsets, c.ends)
		}
		if err == nil {
			err = list("last stable", d.adm.ListCommittedOffsets, c.stable)
		}
		if err == nil {
			// After a wait, the offsets are of the topic the metadata
			// described first only if its id is the same after them.
			// (Without one, the milliseconds between the two requests are
			// too short for a deletion and a creation: no request more.)
			if waited {
				if err := d.sameTopic(ctx, topic, firstID); err != nil {
					return nil, err
				}
			}
			break
		}
		var ke *kerr.Error
		if !errors.Is(err, kafkaconn.ErrUnreachable) && (!errors.As(err, &ke) || !ke.Retriable) {
			return nil, err
		}
		if errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.UnknownTopicID) {
			// Not a partition between leaders: the topic deleted (and
			// maybe made again) since its metadata was read.
			if err := d.sameTopic(ctx, topic, firstID); err != nil {
				return nil, err
			}
		}
		if time.Now().After(deadline) {
			return nil, &NoLeaderError{Topic: topic, Err: err, Waited: leaderWait}
		}
		if d.opts.Progress != nil {
			d.opts.Progress.Waiting(fmt.Sprintf("%v; waiting for a leader", err))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		// Described again: the cut records the leaders, ISR and partitions
		// its offsets were listed with, not the crashed leader's; and a
		// cluster that answers no metadata either is out of reach (exit 3),
		// not a partition waiting for a leader.
		if md, td, err = describe(); err != nil {
			return nil, err
		}
		if firstID != (kadm.TopicID{}) && td.ID != (kadm.TopicID{}) && td.ID != firstID {
			return nil, fmt.Errorf("%w: topic %s (id %s, now %s)", errRemade, topic, firstID, td.ID)
		}
	}
	st := &catalog.ClusterSnapshot{ID: c.id, Topic: topic, AsOf: now, PartitionCount: len(td.Partitions), Configs: map[string]string{}}
	if td.ID != (kadm.TopicID{}) {
		st.TopicID = td.ID.String()
	}
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
				case "cleanup.policy", "retention.ms", "retention.bytes", "min.insync.replicas", "unclean.leader.election.enable", "segment.ms", "segment.bytes", "message.timestamp.type", "max.message.bytes",
					"message.timestamp.before.max.ms", "message.timestamp.after.max.ms": // restore creates a target that takes the same records
					if cfg.Value != nil {
						st.Configs[cfg.Key] = *cfg.Value
					}
				}
			}
		}
	} else if kafkaconn.IsAuthz(err) {
		st.ConfigsError = fmt.Sprintf("%s may not read the configs of topic %s (DESCRIBE_CONFIGS): %v", d.who, topic, err)
	} else {
		return nil, fmt.Errorf("describe configs of %s: %w", topic, kafkaconn.Classify(err))
	}
	if st.ConfigsError != "" {
		d.warn(st.ConfigsError + "; the snapshot records no configs")
	}
	st.Groups, st.GroupsError, err = d.groups(ctx, topic, td.ID)
	if err != nil {
		return nil, err
	}
	if st.GroupsError != "" {
		d.warn(st.GroupsError + "; the snapshot records the consumer groups as not fully known")
	}
	c.state = st
	return c, nil
}

// groupsRead is what one round read of the consumer groups, for every
// topic it dumps (see dumper.readGroups).
type groupsRead struct {
	unknown []string // why the groups listed may not be all of them
	names   []string
	offs    kadm.FetchOffsetsResponses
	desc    kadm.DescribedGroups
	// cdesc describes the groups of the consumer protocol (KIP-848),
	// which the classic DescribeGroups answers as "Dead" without members.
	cdesc map[string]kmsg.ConsumerGroupDescribeResponseGroup
	// share names the share groups (KIP-932), described by sdesc, their
	// state on each partition in soffs; shareUnknown says why some of that
	// is missing.
	share        []string
	sdesc        kadm.DescribedShareGroups
	soffs        kadm.DescribedShareGroupsOffsets
	shareUnknown []string
	// sdescStreams describes the groups of the streams protocol (KIP-1071)
	// with StreamsGroupDescribe: the classic DescribeGroups answers them
	// GROUP_ID_NOT_FOUND.
	sdescStreams map[string]kmsg.StreamsGroupDescribeResponseGroup
	// denied is set when the principal may not list the groups at all.
	denied string
}

// readGroups reads the consumer groups and their committed offsets once a
// round (dumper.round clears them), not once a topic: a cluster of
// thousands of topics asks for them once. A failure is not kept: the next
// topic asks again.
func (d *dumper) readGroups(ctx context.Context) (*groupsRead, error) {
	d.groupsMu.Lock()
	defer d.groupsMu.Unlock()
	if d.groupsAt != nil {
		return d.groupsAt, nil
	}
	g := &groupsRead{}
	if !d.mayDescribeCluster(ctx) {
		g.unknown = append(g.unknown, fmt.Sprintf("%s lacks DESCRIBE on the cluster, so the broker lists only the consumer groups it may describe", d.who))
	}
	listed, err := d.listGroups(ctx)
	var partial *kadm.ShardErrors
	switch {
	case kafkaconn.IsAuthz(err):
		g.denied = fmt.Sprintf("%s may not list the consumer groups: %v", d.who, err)
	case errors.As(err, &partial) && !partial.AllFailed:
		// Some brokers answered: the groups the others coordinate are
		// not known, and said so (the cut records the groups as not
		// fully known), not the whole dump stopped as if the cluster
		// were out of reach.
		var which []string
		for _, se := range partial.Errs {
			which = append(which, fmt.Sprintf("broker %d (%s:%d): %v", se.Broker.NodeID, se.Broker.Host, se.Broker.Port, kafkaconn.Classify(se.Err)))
		}
		g.unknown = append(g.unknown, fmt.Sprintf("the consumer groups could not be listed on %s, still after %s, so the groups it coordinates are not recorded", strings.Join(which, "; "), leaderWait))
		g.names = listed.Groups()
	case err != nil:
		return nil, fmt.Errorf("list groups: %w", kafkaconn.Classify(err))
	default:
		g.names = listed.Groups()
	}
	if len(g.names) > 0 {
		var classic, consumer, streams, committing []string
		for _, n := range g.names {
			switch listed[n].GroupType {
			case "consumer":
				consumer = append(consumer, n)
			case "streams":
				streams = append(streams, n)
			case catalog.ProtocolShare:
				// A share group commits no offsets (OffsetFetch knows
				// nothing of it): its state is asked for below.
				g.share = append(g.share, n)
				continue
			default:
				classic = append(classic, n)
			}
			committing = append(committing, n)
		}
		if len(committing) > 0 {
			g.offs = d.adm.FetchManyOffsets(ctx, committing...)
		}
		if len(g.share) > 0 {
			d.readShareGroups(ctx, g)
		}
		if len(classic) > 0 {
			g.desc, err = d.adm.DescribeGroups(ctx, classic...)
			if err != nil && len(g.desc) == 0 && !kafkaconn.IsAuthz(err) {
				return nil, fmt.Errorf("describe groups: %w", kafkaconn.Classify(err))
			}
		}
		if len(consumer) > 0 {
			if g.cdesc, err = d.describeConsumerGroups(ctx, consumer); err != nil {
				return nil, err
			}
		}
		if len(streams) > 0 {
			g.sdescStreams = d.describeStreamsGroups(ctx, streams)
		}
	}
	// A partial read is kept for the round too: a broker that stays out of
	// reach would otherwise hold every topic's cut for the wait again.
	d.groupsAt = g
	return g, nil
}

// listGroups lists the consumer groups on every broker. Some brokers
// failing while others answer (one just crashed, still in the metadata
// until the controller fences it, broker.session.timeout.ms) is asked
// again for up to leaderWait, as the cut waits for a partition's leader;
// it returns what was listed and the last error.
func (d *dumper) listGroups(ctx context.Context) (kadm.ListedGroups, error) {
	deadline := time.Now().Add(leaderWait)
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		listed, err := d.adm.ListGroups(ctx)
		var se *kadm.ShardErrors
		if err == nil || kafkaconn.IsAuthz(err) || !errors.As(err, &se) || se.AllFailed || time.Now().After(deadline) {
			return listed, err
		}
		if d.opts.Progress != nil {
			d.opts.Progress.Waiting(fmt.Sprintf("list the consumer groups: %v; asking again", kafkaconn.Classify(err)))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// readShareGroups describes the share groups g lists and their state on
// each partition. Like the other groups' descriptions, what cannot be read
// is said (shareUnknown), never taken for "no share group".
func (d *dumper) readShareGroups(ctx context.Context, g *groupsRead) {
	var err error
	g.sdesc, err = d.adm.DescribeShareGroups(ctx, g.share...)
	if err != nil {
		g.shareUnknown = append(g.shareUnknown, fmt.Sprintf("%s could not describe share groups: %v", d.who, kafkaconn.Classify(err)))
	}
	g.soffs, err = d.adm.DescribeShareGroupOffsets(ctx, g.share...)
	if err != nil {
		g.shareUnknown = append(g.shareUnknown, fmt.Sprintf("%s could not read the state of share groups: %v", d.who, kafkaconn.Classify(err)))
	}
}

// shareGroup is share group name's state on topic, and whether it reads
// the topic at all (a member is assigned a partition of it, or the group
// has a state on one); what of it could not be read is added to unknown.
func shareGroup(rd *groupsRead, name, topic string, unknown *[]string) (catalog.GroupState, bool) {
	gs := catalog.GroupState{Group: name, ProtocolType: catalog.ProtocolShare}
	desc, described := rd.sdesc[name]
	switch {
	case !described:
		*unknown = append(*unknown, fmt.Sprintf("share group %s was not described, so its state and members are not known", name))
	case desc.Err != nil:
		*unknown = append(*unknown, fmt.Sprintf("share group %s was not described (%v), so its state and members are not known", name, desc.Err))
	default:
		gs.State, gs.Protocol = desc.GroupState, desc.Assignor
		for _, m := range desc.Members {
			gm := catalog.GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
			for p := range m.Assignment[topic] {
				gm.Assigned = append(gm.Assigned, p)
			}
			slices.Sort(gm.Assigned)
			gs.Members = append(gs.Members, gm)
		}
	}
	offs, read := rd.soffs[name]
	switch {
	case !read:
		*unknown = append(*unknown, fmt.Sprintf("the state of share group %s on the topic's partitions was not read", name))
	case offs.Err != nil:
		*unknown = append(*unknown, fmt.Sprintf("the state of share group %s on the topic's partitions was not read (%v)", name, offs.Err))
	}
	var failed []string
	for p, o := range offs.Offsets[topic] {
		if o.Err != nil {
			failed = append(failed, fmt.Sprintf("%d (%v)", p, o.Err))
			continue
		}
		gs.Share = append(gs.Share, catalog.ShareOffset{Partition: p, StartOffset: max(o.StartOffset, -1), LeaderEpoch: o.LeaderEpoch, Lag: max(o.Lag, -1)})
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		*unknown = append(*unknown, fmt.Sprintf("the state of share group %s on partitions %s was not read", name, strings.Join(failed, ", ")))
	}
	// A partition a member is assigned and the group has no state on yet
	// is recorded as Kafka shows it: no start offset, no lag (-1).
	have := map[int32]bool{}
	for _, o := range gs.Share {
		have[o.Partition] = true
	}
	for _, m := range gs.Members {
		for _, p := range m.Assigned {
			if !have[p] {
				have[p] = true
				gs.Share = append(gs.Share, catalog.ShareOffset{Partition: p, StartOffset: -1, LeaderEpoch: -1, Lag: -1})
			}
		}
	}
	slices.SortFunc(gs.Share, func(a, b catalog.ShareOffset) int { return cmp.Compare(a.Partition, b.Partition) })
	return gs, len(gs.Share) > 0 || len(failed) > 0
}

// describeStreamsGroups describes groups of the streams protocol (KIP-1071)
// with StreamsGroupDescribe, sent to each group's coordinator (franz-go
// routes no streams request itself). A group not answered is in the map
// with the error that kept it out, so it is named as not described.
func (d *dumper) describeStreamsGroups(ctx context.Context, groups []string) map[string]kmsg.StreamsGroupDescribeResponseGroup {
	out := map[string]kmsg.StreamsGroupDescribeResponseGroup{}
	failed := func(g string, err error) {
		sg := kmsg.NewStreamsGroupDescribeResponseGroup()
		sg.Group, sg.ErrorCode = g, kerr.CoordinatorNotAvailable.Code
		if ke := (*kerr.Error)(nil); errors.As(err, &ke) {
			sg.ErrorCode = ke.Code
		}
		msg := err.Error()
		sg.ErrorMessage = &msg
		out[g] = sg
	}
	byNode := map[int32][]string{}
	for g, c := range d.adm.FindGroupCoordinators(ctx, groups...) {
		if c.Err != nil {
			failed(g, c.Err)
			continue
		}
		byNode[c.NodeID] = append(byNode[c.NodeID], g)
	}
	for node, gs := range byNode {
		req := kmsg.NewPtrStreamsGroupDescribeRequest()
		req.Groups = gs
		resp, err := d.cl.Broker(int(node)).Request(ctx, req)
		if err != nil {
			for _, g := range gs {
				failed(g, err)
			}
			continue
		}
		for _, g := range resp.(*kmsg.StreamsGroupDescribeResponse).Groups {
			out[g.Group] = g
		}
	}
	for _, g := range groups {
		if _, ok := out[g]; !ok {
			failed(g, kerr.CoordinatorNotAvailable)
		}
	}
	return out
}

// streamsAssigned is the partitions of topic a streams group member's
// active tasks read: a task is a subtopology and a partition number, and
// reads that partition of each of the subtopology's source topics.
func streamsAssigned(g kmsg.StreamsGroupDescribeResponseGroup, m kmsg.StreamsGroupDescribeResponseGroupMember, topic string) []int32 {
	reads := map[string]bool{}
	if g.Topology != nil {
		for _, st := range g.Topology.Subtopologies {
			in := slices.Contains(st.SourceTopics, topic)
			for _, r := range st.RepartitionSourceTopics {
				in = in || r.Topic == topic
			}
			reads[st.SubtopologyID] = in
		}
	}
	var out []int32
	for _, t := range m.Assignment.ActiveTasks {
		if reads[t.SubtopologyID] {
			out = append(out, t.Partitions...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// describeConsumerGroups describes groups of the consumer protocol
// (KIP-848) with ConsumerGroupDescribe. It asks itself rather than through
// kadm, which keeps an assignment's topic names only: a broker may name the
// assigned topics by id alone. A group the answer lacks (its coordinator
// did not answer) is one of the groups not described.
func (d *dumper) describeConsumerGroups(ctx context.Context, groups []string) (map[string]kmsg.ConsumerGroupDescribeResponseGroup, error) {
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = groups
	out := map[string]kmsg.ConsumerGroupDescribeResponseGroup{}
	var firstErr error
	for _, sh := range d.cl.RequestSharded(ctx, req) {
		if sh.Err != nil {
			if firstErr == nil {
				firstErr = sh.Err
			}
			continue
		}
		for _, g := range sh.Resp.(*kmsg.ConsumerGroupDescribeResponse).Groups {
			out[g.Group] = g
		}
	}
	if firstErr != nil && len(out) == 0 && !kafkaconn.IsAuthz(firstErr) {
		return nil, fmt.Errorf("describe consumer groups: %w", kafkaconn.Classify(firstErr))
	}
	for _, g := range groups {
		if _, ok := out[g]; !ok {
			cg := kmsg.NewConsumerGroupDescribeResponseGroup()
			cg.Group, cg.ErrorCode = g, kerr.CoordinatorNotAvailable.Code
			if kafkaconn.IsAuthz(firstErr) {
				cg.ErrorCode = kerr.GroupAuthorizationFailed.Code
			}
			out[g] = cg
		}
	}
	return out, nil
}

// groups returns the consumer groups with committed offsets on topic, and,
// if the principal may not see them all, why (the groups are then those it
// could read). Groups are optional to a dump: not being allowed to read
// them is no error.
func (d *dumper) groups(ctx context.Context, topic string, topicID kadm.TopicID) ([]catalog.GroupState, string, error) {
	rd, err := d.readGroups(ctx)
	if err != nil {
		return nil, "", err
	}
	if rd.denied != "" {
		return nil, rd.denied, nil
	}
	unknown := slices.Clone(rd.unknown)
	names, offs, desc, cdesc := rd.names, rd.offs, rd.desc, rd.cdesc
	if len(names) == 0 {
		return nil, strings.Join(unknown, "; "), nil
	}
	var unread, undescribed []string
	var out []catalog.GroupState
	var shareUnknown []string
	for _, g := range rd.share {
		if gs, reads := shareGroup(rd, g, topic, &shareUnknown); reads {
			out = append(out, gs)
		}
	}
	for _, g := range names {
		if slices.Contains(rd.share, g) {
			continue
		}
		r, ok := offs[g]
		if !ok || r.Err != nil {
			if ok && r.Err != nil {
				unread = append(unread, fmt.Sprintf("%s (%v)", g, r.Err))
			}
			continue
		}
		// A group is recorded when it committed on the topic or when a
		// member of it is assigned a partition of the topic: one
		// consuming without ever committing is a group Kafka shows
		// (kafka-consumer-groups lists its partitions with "-"), never
		// left out as if nobody read the topic.
		gs := catalog.GroupState{Group: g}
		var descErr error // said only of a group the cut records
		if sg, ok := rd.sdescStreams[g]; ok {
			if err := kerr.ErrorForCode(sg.ErrorCode); err != nil {
				descErr = err
			} else {
				gs.State, gs.ProtocolType = sg.State, "streams"
				if sg.AssignorName != nil {
					gs.Protocol = *sg.AssignorName
				}
				for _, m := range sg.Members {
					gm := catalog.GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, Assigned: streamsAssigned(sg, m, topic)}
					if m.InstanceID != nil {
						gm.InstanceID = *m.InstanceID
					}
					gs.Members = append(gs.Members, gm)
				}
			}
		} else if cg, ok := cdesc[g]; ok {
			if err := kerr.ErrorForCode(cg.ErrorCode); err != nil {
				descErr = err
			} else {
				gs.State, gs.Protocol, gs.ProtocolType = cg.State, cg.AssignorName, "consumer"
				for _, m := range cg.Members {
					gm := catalog.GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
					if m.InstanceID != nil {
						gm.InstanceID = *m.InstanceID
					}
					// The assignment names the topic, or only its id.
					for _, tp := range m.Assignment.TopicPartitions {
						if tp.Topic == topic || (tp.Topic == "" && topicID != (kadm.TopicID{}) && kadm.TopicID(tp.TopicID) == topicID) {
							gm.Assigned = append(gm.Assigned, tp.Partitions...)
						}
					}
					slices.Sort(gm.Assigned)
					gs.Members = append(gs.Members, gm)
				}
			}
		} else if dg, ok := desc[g]; ok {
			descErr = dg.Err
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
		have := map[int32]bool{}
		for p, o := range r.Fetched[topic] {
			// A committed offset of -1 is Kafka's "no committed offset":
			// kept as Kafka said it (GroupOffset.NoOffset), so the group
			// is known and its missing offset is said, never a lag.
			if o.Err != nil {
				continue
			}
			have[p] = true
			gs.Offsets = append(gs.Offsets, catalog.GroupOffset{Partition: p, Offset: o.At, LeaderEpoch: o.LeaderEpoch, Metadata: o.Metadata})
		}
		// A partition a member is assigned and the group never committed
		// on is "no committed offset" too (-1), as Kafka shows it.
		for _, m := range gs.Members {
			for _, p := range m.Assigned {
				if !have[p] {
					have[p] = true
					gs.Offsets = append(gs.Offsets, catalog.GroupOffset{Partition: p, Offset: -1, LeaderEpoch: -1})
				}
			}
		}
		if len(gs.Offsets) == 0 {
			continue
		}
		if descErr != nil {
			undescribed = append(undescribed, fmt.Sprintf("%s (%v)", g, descErr))
		}
		sort.Slice(gs.Offsets, func(i, j int) bool { return gs.Offsets[i].Partition < gs.Offsets[j].Partition })
		out = append(out, gs)
	}
	if len(unread) > 0 {
		sort.Strings(unread)
		unknown = append(unknown, fmt.Sprintf("%s could not read the offsets of consumer groups %s", d.who, strings.Join(unread, ", ")))
	}
	if len(undescribed) > 0 {
		sort.Strings(undescribed)
		unknown = append(unknown, fmt.Sprintf("%s could not describe consumer groups %s, so their state and members are not known", d.who, strings.Join(undescribed, ", ")))
	}
	unknown = append(unknown, rd.shareUnknown...)
	unknown = append(unknown, shareUnknown...)
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
