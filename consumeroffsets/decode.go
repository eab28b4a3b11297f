package consumeroffsets

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Errors a caller can tell apart with errors.Is. With each, Decode still
// returns the Record: its kind and key as far as they were read, and the
// value's bytes in Raw.
var (
	// ErrUnknownType is a key whose type (its first int16) this package
	// does not decode.
	ErrUnknownType = errors.New("unknown record type")
	// ErrUnknownVersion is a value whose version this package does not know.
	ErrUnknownVersion = errors.New("unknown value version")
	// ErrMalformed is a key or value whose bytes do not decode: cut short,
	// a length or count past the bytes left, or garbage.
	ErrMalformed = errors.New("malformed record")
	// ErrTooLarge is a key or value past MaxKeyBytes or MaxValueBytes.
	ErrTooLarge = errors.New("record too large")
)

// Bounds on what Decode reads. A key is a group id and a member id or a
// topic name; a group's metadata holds every member's subscription and
// assignment, which Kafka bounds by its own message size.
const (
	MaxKeyBytes   = 1 << 16
	MaxValueBytes = 64 << 20
	// MaxMembers bounds the members of one classic generation, and
	// MaxTopics the topics one record names (a member's subscription, the
	// assignments of a generation or a member): past them a value of a few
	// bytes an element decodes to gigabytes (2.6 million members in 60 MiB
	// took 3.7 GB to query), so it is ErrTooLarge. Kafka's own groups stay
	// far below: a classic group rebalances every member at each join.
	MaxMembers = 100_000
	MaxTopics  = 1_000_000
)

// Kind names what a record of __consumer_offsets is about.
type Kind string

// The kinds of record, from the key's type.
const (
	KindOffsetCommit                  Kind = "offset_commit"                     // types 0, 1
	KindGroupMetadata                 Kind = "group_metadata"                    // type 2: a classic group
	KindConsumerGroupMetadata         Kind = "consumer_group_metadata"           // type 3: KIP-848 group epoch
	KindConsumerGroupPartitionMeta    Kind = "consumer_group_partition_metadata" // type 4: kept as bytes
	KindConsumerGroupMemberMetadata   Kind = "consumer_group_member_metadata"    // type 5
	KindConsumerGroupTargetAssignment Kind = "consumer_group_target_assignment"  // type 6: its epoch
	KindConsumerGroupTargetMember     Kind = "consumer_group_target_member"      // type 7
	KindConsumerGroupCurrentMember    Kind = "consumer_group_current_member"     // type 8
	KindOther                         Kind = "other"                             // type 18 and types Kafka 4.4 does not write: kept as bytes
)

// Record is one decoded record of __consumer_offsets. Exactly one of the
// value fields is set when the value decoded; none when it is a tombstone
// or could not be decoded (then Raw holds its bytes).
type Record struct {
	Kind         Kind   `json:"kind"`
	Type         int16  `json:"type"`          // the key's first int16
	ValueVersion int16  `json:"value_version"` // -1: tombstone, or not read
	Group        string `json:"group"`
	Member       string `json:"member,omitempty"` // key types 5, 7, 8, 10, 13, 14, 19, 21, 22
	Regex        string `json:"regex,omitempty"`  // key type 16
	Topic        string `json:"topic,omitempty"`  // key types 0, 1
	Partition    int32  `json:"partition"`        // key types 0, 1
	Tombstone    bool   `json:"tombstone"`

	Commit         *OffsetCommit          `json:"commit,omitempty"`
	Classic        *GroupMetadata         `json:"classic,omitempty"`
	GroupEpoch     *ConsumerGroupEpoch    `json:"group_epoch,omitempty"`
	MemberMetadata *MemberMetadata        `json:"member_metadata,omitempty"`
	TargetEpoch    *TargetAssignmentEpoch `json:"target_epoch,omitempty"`
	Target         *TargetAssignment      `json:"target,omitempty"`
	Current        *CurrentAssignment     `json:"current,omitempty"`
	ShareState     *ShareState            `json:"share_state,omitempty"`
	RegexTopics    *RegexTopics           `json:"regex_topics,omitempty"`
	StreamsEpoch   *StreamsGroupEpoch     `json:"streams_epoch,omitempty"`
	StreamsMember  *StreamsMemberMetadata `json:"streams_member,omitempty"`
	StreamsTarget  *StreamsTasks          `json:"streams_target,omitempty"`
	StreamsCurrent *StreamsCurrent        `json:"streams_current,omitempty"`
	Topology       *Topology              `json:"topology,omitempty"`

	Raw   []byte `json:"-"`
	Error string `json:"error,omitempty"` // why the value is in Raw
}

// RawHex is Raw as hexadecimal, for JSON and reports.
func (r *Record) RawHex() string { return hex.EncodeToString(r.Raw) }

// OffsetCommit is the value of an offset commit (OffsetCommitValue).
type OffsetCommit struct {
	Offset            int64  `json:"offset"`
	LeaderEpoch       int32  `json:"leader_epoch"` // -1 before version 3
	Metadata          string `json:"metadata"`
	CommitTimestampMs int64  `json:"commit_timestamp_ms"`
	ExpireTimestampMs int64  `json:"expire_timestamp_ms"` // -1 but in version 1
	TopicID           string `json:"topic_id,omitempty"`  // tagged field 0, version 4+
}

// GroupMetadata is a classic group's generation (GroupMetadataValue).
type GroupMetadata struct {
	ProtocolType            string          `json:"protocol_type"`
	Generation              int32           `json:"generation"`
	Protocol                *string         `json:"protocol"`
	Leader                  *string         `json:"leader"`
	CurrentStateTimestampMs int64           `json:"current_state_timestamp_ms"` // -1 before version 2
	Members                 []ClassicMember `json:"members"`
}

// ClassicMember is a member of a classic group's generation.
type ClassicMember struct {
	MemberID           string  `json:"member_id"`
	InstanceID         *string `json:"instance_id"`
	ClientID           string  `json:"client_id"`
	ClientHost         string  `json:"client_host"`
	RebalanceTimeoutMs int32   `json:"rebalance_timeout_ms"`
	SessionTimeoutMs   int32   `json:"session_timeout_ms"`
	// Assignment is the member's assignment decoded, for protocol type
	// "consumer" (ConsumerProtocol); AssignmentError says why it is not.
	Assignment      []TopicPartitions `json:"assignment"`
	AssignmentError string            `json:"assignment_error,omitempty"`
	// RawAssignment is the assignment's bytes when not decoded.
	RawAssignment []byte `json:"raw_assignment,omitempty"`
}

// TopicPartitions are partitions of one topic, named by name (classic) or
// by id (KIP-848).
type TopicPartitions struct {
	Topic      string  `json:"topic,omitempty"`
	TopicID    string  `json:"topic_id,omitempty"`
	Partitions []int32 `json:"partitions"`
}

// ConsumerGroupEpoch is a KIP-848 group's epoch (ConsumerGroupMetadataValue).
type ConsumerGroupEpoch struct {
	Epoch          int32 `json:"epoch"`
	MetadataHash   int64 `json:"metadata_hash"`    // tag 0
	CreationTimeMs int64 `json:"creation_time_ms"` // tag 1, -1 when absent
}

// MemberMetadata is a KIP-848 member (ConsumerGroupMemberMetadataValue).
type MemberMetadata struct {
	InstanceID           *string  `json:"instance_id"`
	RackID               *string  `json:"rack_id"`
	ClientID             string   `json:"client_id"`
	ClientHost           string   `json:"client_host"`
	SubscribedTopicNames []string `json:"subscribed_topic_names"`
	SubscribedTopicRegex *string  `json:"subscribed_topic_regex"`
	RebalanceTimeoutMs   int32    `json:"rebalance_timeout_ms"`
	ServerAssignor       *string  `json:"server_assignor"`
	// Classic is set for a member that joined with the classic protocol
	// into a consumer-protocol group (tag 0): its session timeout.
	ClassicSessionTimeoutMs *int32 `json:"classic_session_timeout_ms"`
}

// TargetAssignmentEpoch is a KIP-848 group's assignment epoch
// (ConsumerGroupTargetAssignmentMetadataValue).
type TargetAssignmentEpoch struct {
	AssignmentEpoch       int32 `json:"assignment_epoch"`
	AssignmentTimestampMs int64 `json:"assignment_timestamp_ms"` // tag 0, 0 when absent
}

// TargetAssignment is a member's target assignment
// (ConsumerGroupTargetAssignmentMemberValue).
type TargetAssignment struct {
	Partitions []TopicPartitions `json:"partitions"`
}

// CurrentAssignment is a member's current assignment
// (ConsumerGroupCurrentMemberAssignmentValue).
type CurrentAssignment struct {
	MemberEpoch         int32             `json:"member_epoch"`
	PreviousMemberEpoch int32             `json:"previous_member_epoch"`
	State               int8              `json:"state"`
	Assigned            []TopicPartitions `json:"assigned"`
	PendingRevocation   []TopicPartitions `json:"pending_revocation"`
}

// maxValueVersion is the newest value version decoded, by key type.
var maxValueVersion = map[int16]int16{0: 4, 1: 4, 2: 4, 3: 0, 5: 0, 6: 0, 7: 0, 8: 0,
	10: 0, 11: 0, 12: 0, 13: 0, 14: 0, 15: 0, 16: 0, 17: 0, 19: 0, 20: 0, 21: 0, 22: 0, 23: 0}

// Decode decodes one record of __consumer_offsets. value nil is a
// tombstone. The error, when not nil, is one of the package's errors (by
// errors.Is) and the Record still says what was read; its Raw holds the
// value's bytes.
func Decode(key, value []byte) (Record, error) {
	r := Record{Type: -1, ValueVersion: -1, Partition: -1}
	fail := func(err error) (Record, error) {
		r.Raw = value
		r.Error = err.Error()
		return r, err
	}
	if len(key) > MaxKeyBytes {
		return fail(fmt.Errorf("%w: key of %d bytes, past %d", ErrTooLarge, len(key), MaxKeyBytes))
	}
	if len(value) > MaxValueBytes {
		return fail(fmt.Errorf("%w: value of %d bytes, past %d", ErrTooLarge, len(value), MaxValueBytes))
	}
	if len(key) < 2 {
		return fail(fmt.Errorf("%w: key of %d bytes has no type", ErrMalformed, len(key)))
	}
	r.Type = int16(binary.BigEndian.Uint16(key))
	if err := decodeKey(&r, key); err != nil {
		return fail(err)
	}
	if value == nil {
		r.Tombstone = true
		return r, nil
	}
	if r.Kind == KindOther || r.Kind == KindConsumerGroupPartitionMeta {
		return fail(fmt.Errorf("%w: type %d (%s) is not decoded", ErrUnknownType, r.Type, r.Kind))
	}
	if len(value) < 2 {
		return fail(fmt.Errorf("%w: value of %d bytes has no version", ErrMalformed, len(value)))
	}
	r.ValueVersion = int16(binary.BigEndian.Uint16(value))
	if r.ValueVersion < 0 || r.ValueVersion > maxValueVersion[r.Type] {
		return fail(fmt.Errorf("%w: %s value version %d (known: 0 to %d)", ErrUnknownVersion, r.Kind, r.ValueVersion, maxValueVersion[r.Type]))
	}
	var err error
	switch r.Kind {
	case KindOffsetCommit:
		r.Commit, err = decodeCommit(value)
	case KindGroupMetadata:
		r.Classic, err = decodeClassic(value)
	case KindConsumerGroupMetadata:
		r.GroupEpoch, err = decodeGroupEpoch(value[2:])
	case KindConsumerGroupMemberMetadata:
		r.MemberMetadata, err = decodeMemberMetadata(value[2:])
	case KindConsumerGroupTargetAssignment:
		r.TargetEpoch, err = decodeTargetEpoch(value[2:])
	case KindConsumerGroupTargetMember:
		r.Target, err = decodeTarget(value[2:])
	case KindConsumerGroupCurrentMember:
		r.Current, err = decodeCurrent(value[2:])
	default:
		err = decode4(&r, value[2:])
	}
	if err != nil {
		r.Commit, r.Classic, r.GroupEpoch, r.MemberMetadata, r.TargetEpoch, r.Target, r.Current = nil, nil, nil, nil, nil, nil, nil
		r.ShareState, r.RegexTopics, r.StreamsEpoch, r.StreamsMember, r.StreamsTarget, r.StreamsCurrent, r.Topology = nil, nil, nil, nil, nil, nil, nil
		if errors.Is(err, ErrTooLarge) {
			return fail(fmt.Errorf("%s value version %d: %w", r.Kind, r.ValueVersion, err))
		}
		return fail(fmt.Errorf("%w: %s value version %d: %v", ErrMalformed, r.Kind, r.ValueVersion, err))
	}
	return r, nil
}

// decodeKey reads the key's group, member, topic and partition by its type.
func decodeKey(r *Record, key []byte) error {
	bad := func(err error) error {
		return fmt.Errorf("%w: key of type %d: %v", ErrMalformed, r.Type, err)
	}
	switch r.Type {
	case 0, 1:
		r.Kind = KindOffsetCommit
		var k kmsg.OffsetCommitKey
		if err := k.ReadFrom(key); err != nil {
			return bad(err)
		}
		r.Group, r.Topic, r.Partition = k.Group, k.Topic, k.Partition
		return nil
	case 2:
		r.Kind = KindGroupMetadata
		var k kmsg.GroupMetadataKey
		if err := k.ReadFrom(key); err != nil {
			return bad(err)
		}
		r.Group = k.Group
		return nil
	case 3, 4, 6:
		r.Kind = map[int16]Kind{3: KindConsumerGroupMetadata, 4: KindConsumerGroupPartitionMeta, 6: KindConsumerGroupTargetAssignment}[r.Type]
		b := reader{src: key[2:]}
		r.Group = b.str()
		return bad0(b.err, bad)
	case 5, 7, 8:
		r.Kind = map[int16]Kind{5: KindConsumerGroupMemberMetadata, 7: KindConsumerGroupTargetMember, 8: KindConsumerGroupCurrentMember}[r.Type]
		b := reader{src: key[2:]}
		r.Group = b.str()
		r.Member = b.str()
		return bad0(b.err, bad)
	}
	if k, ok := kinds4[r.Type]; ok {
		r.Kind = k.kind
		b := reader{src: key[2:]}
		r.Group = b.str()
		switch {
		case k.member:
			r.Member = b.str()
		case r.Kind == KindConsumerGroupRegex:
			r.Regex = b.str()
		}
		if b.err == nil && len(b.src) > 0 {
			b.err = fmt.Errorf("%d bytes left over", len(b.src))
		}
		return bad0(b.err, bad)
	}
	// Later groups: the group id comes first in every key Kafka defines
	// so far; read it when it is there, keep the rest.
	r.Kind = KindOther
	b := reader{src: key[2:]}
	if g := b.str(); b.err == nil {
		r.Group = g
	}
	return nil
}

func bad0(err error, bad func(error) error) error {
	if err != nil {
		return bad(err)
	}
	return nil
}

func decodeCommit(value []byte) (*OffsetCommit, error) {
	var v kmsg.OffsetCommitValue
	if err := v.ReadFrom(value); err != nil {
		return nil, err
	}
	c := &OffsetCommit{Offset: v.Offset, LeaderEpoch: -1, Metadata: v.Metadata, CommitTimestampMs: v.CommitTimestamp, ExpireTimestampMs: -1}
	if v.Version >= 3 {
		c.LeaderEpoch = v.LeaderEpoch
	}
	if v.Version == 1 {
		c.ExpireTimestampMs = v.ExpireTimestamp
	}
	if v.TopicID != [16]byte{} {
		c.TopicID = uuidString(v.TopicID)
	}
	return c, nil
}

func decodeClassic(value []byte) (*GroupMetadata, error) {
	// kmsg allocates the members the count claims before reading them,
	// once the bytes left could hold them (10 bytes a member at least; a
	// count they cannot hold is malformed, as kmsg says): the count is read
	// and bounded first.
	if n, left, err := classicMembers(value); err != nil {
		return nil, err
	} else if n > MaxMembers && int64(n)*10 <= int64(left) {
		return nil, fmt.Errorf("%w: a generation of %d members, past the %d decoded", ErrTooLarge, n, MaxMembers)
	}
	var v kmsg.GroupMetadataValue
	if err := v.ReadFrom(value); err != nil {
		return nil, err
	}
	// ConsumerProtocol's assignments: a version, then the topics' count,
	// which kmsg allocates before reading them once the bytes could hold
	// them (6 a topic; else the assignment is garbage, kept): all counted
	// before any is decoded.
	topics := 0
	for _, m := range v.Members {
		if v.ProtocolType != "consumer" || len(m.Assignment) < 6 {
			continue
		}
		if n := int32(binary.BigEndian.Uint32(m.Assignment[2:6])); n > 0 && int64(n)*6 <= int64(len(m.Assignment)-6) {
			if topics += int(n); topics > MaxTopics {
				return nil, fmt.Errorf("%w: assignments of more than %d topics, past the %d decoded", ErrTooLarge, topics, MaxTopics)
			}
		}
	}
	g := &GroupMetadata{ProtocolType: v.ProtocolType, Generation: v.Generation, Protocol: v.Protocol, Leader: v.Leader,
		CurrentStateTimestampMs: -1, Members: make([]ClassicMember, 0, len(v.Members))}
	if v.Version >= 2 {
		g.CurrentStateTimestampMs = v.CurrentStateTimestamp
	}
	for _, m := range v.Members {
		cm := ClassicMember{MemberID: m.MemberID, InstanceID: m.InstanceID, ClientID: m.ClientID, ClientHost: m.ClientHost,
			RebalanceTimeoutMs: m.RebalanceTimeoutMillis, SessionTimeoutMs: m.SessionTimeoutMillis, Assignment: []TopicPartitions{}}
		if v.Version < 1 {
			cm.RebalanceTimeoutMs = -1
		}
		switch {
		case v.ProtocolType != "consumer":
			cm.AssignmentError = fmt.Sprintf("protocol type %q: assignment not decoded", v.ProtocolType)
			cm.RawAssignment = m.Assignment
		case len(m.Assignment) == 0:
			// A member that joined but was not assigned yet.
		default:
			var a kmsg.ConsumerMemberAssignment
			if err := a.ReadFrom(m.Assignment); err != nil {
				// kmsg says only that the bytes ran out.
				cm.AssignmentError = fmt.Sprintf("%v: consumer assignment cut short or garbage", ErrMalformed)
				cm.RawAssignment = m.Assignment
				break
			}
			for _, t := range a.Topics {
				cm.Assignment = append(cm.Assignment, TopicPartitions{Topic: t.Topic, Partitions: nonNil(t.Partitions)})
			}
		}
		g.Members = append(g.Members, cm)
	}
	return g, nil
}

func decodeGroupEpoch(src []byte) (*ConsumerGroupEpoch, error) {
	b := reader{src: src}
	g := &ConsumerGroupEpoch{Epoch: b.int32(), CreationTimeMs: -1}
	b.tags(func(tag uint32, t *reader) {
		switch tag {
		case 0:
			g.MetadataHash = t.int64()
		case 1:
			g.CreationTimeMs = t.int64()
		}
	})
	return g, b.done()
}

func decodeMemberMetadata(src []byte) (*MemberMetadata, error) {
	b := reader{src: src}
	m := &MemberMetadata{RebalanceTimeoutMs: -1}
	m.InstanceID = b.cnstr()
	m.RackID = b.cnstr()
	m.ClientID = b.cstr()
	m.ClientHost = b.cstr()
	n := b.carray(1)
	if n > MaxTopics {
		return nil, fmt.Errorf("%w: a subscription of %d topics, past the %d decoded", ErrTooLarge, n, MaxTopics)
	}
	m.SubscribedTopicNames = make([]string, 0, n)
	for range n {
		m.SubscribedTopicNames = append(m.SubscribedTopicNames, b.cstr())
	}
	m.SubscribedTopicRegex = b.cnstr()
	m.RebalanceTimeoutMs = b.int32()
	m.ServerAssignor = b.cnstr()
	b.tags(func(tag uint32, t *reader) {
		// ClassicMemberMetadata, a nullable struct: -1 for null, 1 and
		// then SessionTimeoutMs and the protocols (not kept).
		if tag == 0 && t.int8() == 1 {
			s := t.int32()
			if t.err == nil {
				m.ClassicSessionTimeoutMs = &s
			}
			t.src = nil // the protocols are not kept
		}
	})
	return m, b.done()
}

func decodeTargetEpoch(src []byte) (*TargetAssignmentEpoch, error) {
	b := reader{src: src}
	e := &TargetAssignmentEpoch{AssignmentEpoch: b.int32()}
	b.tags(func(tag uint32, t *reader) {
		if tag == 0 {
			e.AssignmentTimestampMs = t.int64()
		}
	})
	return e, b.done()
}

func decodeTarget(src []byte) (*TargetAssignment, error) {
	b := reader{src: src}
	a := &TargetAssignment{Partitions: b.topicPartitions()}
	b.tags(nil)
	return a, b.done()
}

func decodeCurrent(src []byte) (*CurrentAssignment, error) {
	b := reader{src: src}
	c := &CurrentAssignment{MemberEpoch: b.int32(), PreviousMemberEpoch: b.int32(), State: b.int8()}
	c.Assigned = b.topicPartitions()
	c.PendingRevocation = b.topicPartitions()
	b.tags(nil)
	return c, b.done()
}

func nonNil(p []int32) []int32 {
	if p == nil {
		return []int32{}
	}
	return p
}

func uuidString(u [16]byte) string {
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// classicMembers reads the count of members of a GroupMetadataValue,
// whose fields before it are read (and checked) on the way, and the bytes
// left after it.
func classicMembers(value []byte) (int, int, error) {
	b := reader{src: value}
	flexible := b.int16() >= 4
	if flexible {
		b.cstr()         // protocol type
		b.int32()        // generation
		b.cnstr()        // protocol
		b.cnstr()        // leader
		b.int64()        // current state timestamp
		n := b.uvarint() // the members' count + 1; 0 is null
		if b.err != nil {
			return 0, 0, b.err
		}
		return max(int(n)-1, 0), len(b.src), nil
	}
	version := int16(binary.BigEndian.Uint16(value))
	b.str()
	b.int32()
	b.nstr()
	b.nstr()
	if version >= 2 {
		b.int64()
	}
	n := b.int32()
	if b.err != nil {
		return 0, 0, b.err
	}
	return max(int(n), 0), len(b.src), nil
}

// Tally counts the records of a log by kind, and those not decoded by why.
type Tally struct {
	Records        int64          `json:"records"`
	ByKind         map[Kind]int64 `json:"by_kind"`
	Tombstones     int64          `json:"tombstones"`
	UnknownType    int64          `json:"unknown_type"`
	UnknownVersion int64          `json:"unknown_version"`
	Malformed      int64          `json:"malformed"`
	TooLarge       int64          `json:"too_large"`
}

// Add counts one record and the error Decode gave it.
func (t *Tally) Add(r Record, err error) {
	if t.ByKind == nil {
		t.ByKind = map[Kind]int64{}
	}
	t.Records++
	if r.Kind != "" {
		t.ByKind[r.Kind]++
	}
	if r.Tombstone {
		t.Tombstones++
	}
	switch {
	case err == nil:
	case errors.Is(err, ErrUnknownType):
		t.UnknownType++
	case errors.Is(err, ErrUnknownVersion):
		t.UnknownVersion++
	case errors.Is(err, ErrTooLarge):
		t.TooLarge++
	default:
		t.Malformed++
	}
}
