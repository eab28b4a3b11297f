package consumeroffsets

import "fmt"

// The records of Kafka 4's share groups (KIP-932, key types 10 to 15), of
// a consumer-protocol group's regular expressions (type 16) and of Kafka
// Streams groups (KIP-1071, types 17 and 19 to 23; 18, a partition
// metadata record of early 4.x releases, is no longer written and is kept
// as bytes). Every one has value version 0, flexible. Read after Kafka
// 4.4's own message definitions (CoordinatorRecordType and the generated
// classes of kafka-group-coordinator 4.4.0; their JSON is
// group-coordinator/src/main/resources/common/message in apache/kafka),
// checked against bytes Kafka 4.4 itself wrote (groups4_test.go).
//
// Share groups have the consumer protocol's records without the classic
// members and the revocation (a share partition is consumed by many
// members at once): their member metadata (type 10) is a MemberMetadata
// with only the rack, client id, host and subscription set; the group
// epoch (11) a ConsumerGroupEpoch (metadata_hash is a plain field there);
// the target epoch (12), the target (13) and the current assignment (14)
// the consumer protocol's types. Type 15 says which of the group's
// partitions have their share state initialized (ShareState).
//
// Streams groups assign tasks, not partitions: a task is a subtopology of
// the application's topology and a partition number, and the topology
// record (type 23) names the topics each subtopology reads.

// Share, regex and streams kinds, from the key's type.
const (
	KindShareGroupMemberMetadata     Kind = "share_group_member_metadata"          // type 10
	KindShareGroupMetadata           Kind = "share_group_metadata"                 // type 11: the group epoch
	KindShareGroupTargetAssignment   Kind = "share_group_target_assignment"        // type 12: its epoch
	KindShareGroupTargetMember       Kind = "share_group_target_member"            // type 13
	KindShareGroupCurrentMember      Kind = "share_group_current_member"           // type 14
	KindShareGroupStatePartitions    Kind = "share_group_state_partition_metadata" // type 15
	KindConsumerGroupRegex           Kind = "consumer_group_regular_expression"    // type 16
	KindStreamsGroupMetadata         Kind = "streams_group_metadata"               // type 17: the group epoch
	KindStreamsGroupMemberMetadata   Kind = "streams_group_member_metadata"        // type 19
	KindStreamsGroupTargetAssignment Kind = "streams_group_target_assignment"      // type 20: its epoch
	KindStreamsGroupTargetMember     Kind = "streams_group_target_member"          // type 21
	KindStreamsGroupCurrentMember    Kind = "streams_group_current_member"         // type 22
	KindStreamsGroupTopology         Kind = "streams_group_topology"               // type 23
)

// kinds4 are the kinds of key types 10 to 23, and whether the key names a
// member after the group.
var kinds4 = map[int16]struct {
	kind   Kind
	member bool
}{
	10: {KindShareGroupMemberMetadata, true},
	11: {KindShareGroupMetadata, false},
	12: {KindShareGroupTargetAssignment, false},
	13: {KindShareGroupTargetMember, true},
	14: {KindShareGroupCurrentMember, true},
	15: {KindShareGroupStatePartitions, false},
	16: {KindConsumerGroupRegex, false}, // then the expression, in Regex
	17: {KindStreamsGroupMetadata, false},
	19: {KindStreamsGroupMemberMetadata, true},
	20: {KindStreamsGroupTargetAssignment, false},
	21: {KindStreamsGroupTargetMember, true},
	22: {KindStreamsGroupCurrentMember, true},
	23: {KindStreamsGroupTopology, false},
}

// ShareState is a share group's ShareGroupStatePartitionMetadataValue:
// the partitions whose share state is being initialized, those
// initialized, and the topics whose state is being deleted (no
// partitions). Topics by id and name.
type ShareState struct {
	Initializing []TopicPartitions `json:"initializing"`
	Initialized  []TopicPartitions `json:"initialized"`
	Deleting     []TopicPartitions `json:"deleting"`
}

// RegexTopics is a consumer-protocol group's regular expression resolved
// (ConsumerGroupRegularExpressionValue): the topics it matched, at which
// metadata version and when.
type RegexTopics struct {
	Topics      []string `json:"topics"`
	Version     int64    `json:"version"`
	TimestampMs int64    `json:"timestamp_ms"`
}

// StreamsGroupEpoch is a streams group's epoch (StreamsGroupMetadataValue).
// The tagged fields are nil when the record does not carry them.
type StreamsGroupEpoch struct {
	Epoch                          int32      `json:"epoch"`
	MetadataHash                   int64      `json:"metadata_hash"`
	ValidatedTopologyEpoch         *int32     `json:"validated_topology_epoch"`          // tag 0
	LastAssignmentConfigs          []KeyValue `json:"last_assignment_configs"`           // tag 1
	StoredDescriptionTopologyEpoch *int32     `json:"stored_description_topology_epoch"` // tag 2
	FailedDescriptionTopologyEpoch *int32     `json:"failed_description_topology_epoch"` // tag 3
}

// KeyValue is a key and its value (a config, a client tag).
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// StreamsMemberMetadata is a streams group's member
// (StreamsGroupMemberMetadataValue).
type StreamsMemberMetadata struct {
	InstanceID         *string    `json:"instance_id"`
	RackID             *string    `json:"rack_id"`
	ClientID           string     `json:"client_id"`
	ClientHost         string     `json:"client_host"`
	RebalanceTimeoutMs int32      `json:"rebalance_timeout_ms"`
	TopologyEpoch      int32      `json:"topology_epoch"`
	ProcessID          string     `json:"process_id"`
	UserEndpoint       *string    `json:"user_endpoint"` // host:port, nil when none
	ClientTags         []KeyValue `json:"client_tags"`
}

// TaskIDs are the tasks of one subtopology: its partition numbers.
type TaskIDs struct {
	SubtopologyID string  `json:"subtopology_id"`
	Partitions    []int32 `json:"partitions"`
}

// StreamsTasks is a streams member's target assignment
// (StreamsGroupTargetAssignmentMemberValue).
type StreamsTasks struct {
	Active  []TaskIDs `json:"active"`
	Standby []TaskIDs `json:"standby"`
	Warmup  []TaskIDs `json:"warmup"`
}

// StreamsCurrent is a streams member's current assignment
// (StreamsGroupCurrentMemberAssignmentValue): the tasks it holds and those
// it is asked to give up (which it holds until it says it has).
type StreamsCurrent struct {
	MemberEpoch              int32     `json:"member_epoch"`
	PreviousMemberEpoch      int32     `json:"previous_member_epoch"`
	State                    int8      `json:"state"`
	Active                   []TaskIDs `json:"active"`
	Standby                  []TaskIDs `json:"standby"`
	Warmup                   []TaskIDs `json:"warmup"`
	ActivePendingRevocation  []TaskIDs `json:"active_pending_revocation"`
	StandbyPendingRevocation []TaskIDs `json:"standby_pending_revocation"`
	WarmupPendingRevocation  []TaskIDs `json:"warmup_pending_revocation"`
}

// Topology is a streams group's topology (StreamsGroupTopologyValue): its
// epoch and subtopologies, with the topics each reads and writes by name
// (the internal topics' configs and the copartition groups are read, not
// kept: group_log's value_raw has them).
type Topology struct {
	Epoch         int32         `json:"epoch"`
	Subtopologies []Subtopology `json:"subtopologies"`
}

// Subtopology is one subtopology of a streams topology.
type Subtopology struct {
	SubtopologyID           string   `json:"subtopology_id"`
	SourceTopics            []string `json:"source_topics"`
	SourceTopicRegex        []string `json:"source_topic_regex"`
	StateChangelogTopics    []string `json:"state_changelog_topics"`
	RepartitionSinkTopics   []string `json:"repartition_sink_topics"`
	RepartitionSourceTopics []string `json:"repartition_source_topics"`
}

// decode4 decodes the value (after its version) of key types 10 to 23.
func decode4(r *Record, src []byte) error {
	b := reader{src: src}
	switch r.Kind {
	case KindShareGroupMemberMetadata:
		m := &MemberMetadata{RebalanceTimeoutMs: -1}
		m.RackID = b.cnstr()
		m.ClientID = b.cstr()
		m.ClientHost = b.cstr()
		m.SubscribedTopicNames = b.strings()
		b.tags(nil)
		r.MemberMetadata = m
	case KindShareGroupMetadata:
		r.GroupEpoch = &ConsumerGroupEpoch{Epoch: b.int32(), MetadataHash: b.int64(), CreationTimeMs: -1}
		b.tags(nil)
	case KindShareGroupTargetAssignment, KindStreamsGroupTargetAssignment:
		e, err := decodeTargetEpoch(src)
		r.TargetEpoch = e
		return err
	case KindShareGroupTargetMember:
		t, err := decodeTarget(src)
		r.Target = t
		return err
	case KindShareGroupCurrentMember:
		c := &CurrentAssignment{MemberEpoch: b.int32(), PreviousMemberEpoch: b.int32(), State: b.int8(), PendingRevocation: []TopicPartitions{}}
		c.Assigned = b.topicPartitions()
		b.tags(nil)
		r.Current = c
	case KindShareGroupStatePartitions:
		s := &ShareState{Initializing: b.namedTopics(true), Initialized: b.namedTopics(true), Deleting: b.namedTopics(false)}
		b.tags(nil)
		r.ShareState = s
	case KindConsumerGroupRegex:
		x := &RegexTopics{Topics: b.strings(), Version: b.int64(), TimestampMs: b.int64()}
		b.tags(nil)
		r.RegexTopics = x
	case KindStreamsGroupMetadata:
		g := &StreamsGroupEpoch{Epoch: b.int32(), MetadataHash: b.int64()}
		b.tags(func(tag uint32, t *reader) {
			switch tag {
			case 0:
				g.ValidatedTopologyEpoch = t.int32ptr()
			case 1:
				g.LastAssignmentConfigs = t.keyValues()
			case 2:
				g.StoredDescriptionTopologyEpoch = t.int32ptr()
			case 3:
				g.FailedDescriptionTopologyEpoch = t.int32ptr()
			}
		})
		r.StreamsEpoch = g
	case KindStreamsGroupMemberMetadata:
		m := &StreamsMemberMetadata{InstanceID: b.cnstr(), RackID: b.cnstr(), ClientID: b.cstr(), ClientHost: b.cstr(),
			RebalanceTimeoutMs: b.int32(), TopologyEpoch: b.int32(), ProcessID: b.cstr()}
		// UserEndpoint, a nullable struct: -1 for null, 1 and then its
		// host, port (uint16) and tagged fields.
		switch present := b.int8(); present {
		case -1:
		case 1:
			host := b.cstr()
			port := uint16(b.int16())
			b.tags(nil)
			if b.err == nil {
				e := fmt.Sprintf("%s:%d", host, port)
				m.UserEndpoint = &e
			}
		default:
			b.fail(fmt.Errorf("user endpoint marked %d (neither -1 nor 1)", present))
		}
		m.ClientTags = b.keyValues()
		b.tags(nil)
		r.StreamsMember = m
	case KindStreamsGroupTargetMember:
		s := &StreamsTasks{Active: b.tasks(), Standby: b.tasks(), Warmup: b.tasks()}
		b.tags(nil)
		r.StreamsTarget = s
	case KindStreamsGroupCurrentMember:
		c := &StreamsCurrent{MemberEpoch: b.int32(), PreviousMemberEpoch: b.int32(), State: b.int8()}
		c.Active, c.Standby, c.Warmup = b.tasks(), b.tasks(), b.tasks()
		c.ActivePendingRevocation, c.StandbyPendingRevocation, c.WarmupPendingRevocation = b.tasks(), b.tasks(), b.tasks()
		b.tags(nil)
		r.StreamsCurrent = c
	case KindStreamsGroupTopology:
		tp := &Topology{Epoch: b.int32()}
		n := b.carray(1 + 1 + 1 + 1 + 1 + 1 + 1 + 1)
		if n > MaxTopics {
			return fmt.Errorf("%w: %d subtopologies, past the %d decoded", ErrTooLarge, n, MaxTopics)
		}
		tp.Subtopologies = make([]Subtopology, 0, n)
		for range n {
			s := Subtopology{SubtopologyID: b.cstr(), SourceTopics: b.strings(), SourceTopicRegex: b.strings()}
			s.StateChangelogTopics = b.topicInfos()
			s.RepartitionSinkTopics = b.strings()
			s.RepartitionSourceTopics = b.topicInfos()
			// CopartitionGroups: three arrays of int16 indexes each.
			for range b.carray(1 + 1 + 1 + 1) {
				for range 3 {
					for range b.carray(2) {
						b.int16()
					}
				}
				b.tags(nil)
			}
			b.tags(nil)
			if b.err != nil {
				break
			}
			tp.Subtopologies = append(tp.Subtopologies, s)
		}
		b.tags(nil)
		r.Topology = tp
	}
	return b.done()
}

// strings reads a compact array of compact strings (null: empty), at
// most MaxTopics.
func (b *reader) strings() []string {
	n := b.carray(1)
	if n > MaxTopics {
		b.fail(fmt.Errorf("%w: %d names, past the %d decoded", ErrTooLarge, n, MaxTopics))
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		s := b.cstr()
		if b.err != nil {
			return out
		}
		out = append(out, s)
	}
	return out
}

// int32ptr reads an int32, nil when it is not there.
func (b *reader) int32ptr() *int32 {
	v := b.int32()
	if b.err != nil {
		return nil
	}
	return &v
}

// keyValues reads a compact array of {key, value, tagged fields}.
func (b *reader) keyValues() []KeyValue {
	n := b.carray(3)
	out := make([]KeyValue, 0, n)
	for range n {
		kv := KeyValue{Key: b.cstr(), Value: b.cstr()}
		b.tags(nil)
		if b.err != nil {
			return out
		}
		out = append(out, kv)
	}
	return out
}

// namedTopics reads a compact array of {uuid TopicId, TopicName,
// [Partitions], tagged fields}.
func (b *reader) namedTopics(partitions bool) []TopicPartitions {
	n := b.carray(16 + 1 + 1)
	if n > MaxTopics {
		b.fail(fmt.Errorf("%w: %d topics, past the %d decoded", ErrTooLarge, n, MaxTopics))
		return nil
	}
	out := make([]TopicPartitions, 0, n)
	for range n {
		t := TopicPartitions{TopicID: b.uuid(), Topic: b.cstr(), Partitions: []int32{}}
		if partitions {
			t.Partitions = b.int32s()
		}
		b.tags(nil)
		if b.err != nil {
			return out
		}
		out = append(out, t)
	}
	return out
}

// int32s reads a compact array of int32.
func (b *reader) int32s() []int32 {
	k := b.carray(4)
	out := make([]int32, 0, k)
	for range k {
		out = append(out, b.int32())
	}
	if b.err != nil {
		return []int32{}
	}
	return out
}

// tasks reads a compact array of {SubtopologyId, Partitions, tagged
// fields} (the current assignment's tag 0, each partition's assignment
// epoch, is skipped).
func (b *reader) tasks() []TaskIDs {
	n := b.carray(1 + 1 + 1)
	if n > MaxTopics {
		b.fail(fmt.Errorf("%w: %d subtopologies' tasks, past the %d decoded", ErrTooLarge, n, MaxTopics))
		return nil
	}
	out := make([]TaskIDs, 0, n)
	for range n {
		t := TaskIDs{SubtopologyID: b.cstr(), Partitions: b.int32s()}
		b.tags(nil)
		if b.err != nil {
			return out
		}
		out = append(out, t)
	}
	return out
}

// topicInfos reads a compact array of a topology's TopicInfo {Name,
// Partitions, ReplicationFactor, TopicConfigs, tagged fields}: the names.
func (b *reader) topicInfos() []string {
	n := b.carray(1 + 4 + 2 + 1 + 1)
	out := make([]string, 0, n)
	for range n {
		name := b.cstr()
		b.int32()
		b.int16()
		b.keyValues()
		b.tags(nil)
		if b.err != nil {
			return out
		}
		out = append(out, name)
	}
	return out
}
