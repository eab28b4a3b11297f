// Package offsetstest builds records of __consumer_offsets by code, as the
// group coordinator writes them, for tests of what reads them: the classic
// ones with franz-go's kmsg types, the KIP-848 ones after Kafka's message
// definitions.
package offsetstest

import (
	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Commit returns the key and value (version 3) of an offset commit.
func Commit(group, topic string, partition int32, offset int64, leaderEpoch int32, metadata string, commitMs int64) (key, value []byte) {
	k := kmsg.OffsetCommitKey{Version: 1, Group: group, Topic: topic, Partition: partition}
	v := kmsg.OffsetCommitValue{Version: 3, Offset: offset, LeaderEpoch: leaderEpoch, Metadata: metadata, CommitTimestamp: commitMs}
	return k.AppendTo(nil), v.AppendTo(nil)
}

// CommitWithTopicID returns the key and value (version 4, as Kafka 4 writes
// it) of an offset commit that names its topic's id.
func CommitWithTopicID(group, topic string, topicID [16]byte, partition int32, offset int64, commitMs int64) (key, value []byte) {
	k := kmsg.OffsetCommitKey{Version: 1, Group: group, Topic: topic, Partition: partition}
	v := kmsg.OffsetCommitValue{Version: 4, Offset: offset, LeaderEpoch: -1, CommitTimestamp: commitMs, TopicID: topicID}
	return k.AppendTo(nil), v.AppendTo(nil)
}

// CommitKey is the key of an offset commit, for a tombstone.
func CommitKey(group, topic string, partition int32) []byte {
	k := kmsg.OffsetCommitKey{Version: 1, Group: group, Topic: topic, Partition: partition}
	return k.AppendTo(nil)
}

// Member is a classic group's member; Assigned, by topic, is encoded as
// the ConsumerProtocol assignment.
type Member struct {
	ID, InstanceID, ClientID, Host string
	SessionMs, RebalanceMs         int32
	Assigned                       map[string][]int32
	Topics                         []string // the order of Assigned's topics
}

// Group returns the key and value (version 3) of a classic consumer
// group's generation.
func Group(group string, generation int32, protocol, leader string, stateMs int64, members ...Member) (key, value []byte) {
	k := kmsg.GroupMetadataKey{Version: 2, Group: group}
	v := kmsg.GroupMetadataValue{Version: 3, ProtocolType: "consumer", Generation: generation, Protocol: &protocol, Leader: &leader, CurrentStateTimestamp: stateMs}
	for _, m := range members {
		a := kmsg.ConsumerMemberAssignment{}
		for _, t := range m.Topics {
			a.Topics = append(a.Topics, kmsg.ConsumerMemberAssignmentTopic{Topic: t, Partitions: m.Assigned[t]})
		}
		gm := kmsg.GroupMetadataValueMember{MemberID: m.ID, ClientID: m.ClientID, ClientHost: m.Host,
			SessionTimeoutMillis: m.SessionMs, RebalanceTimeoutMillis: m.RebalanceMs, Assignment: a.AppendTo(nil)}
		if m.InstanceID != "" {
			gm.InstanceID = &m.InstanceID
		}
		v.Members = append(v.Members, gm)
	}
	return k.AppendTo(nil), v.AppendTo(nil)
}

// Key848 is a KIP-848 record's key: its type, the group, and the member
// for the member's records.
func Key848(typ int16, group string, member ...string) []byte {
	b := kbin.AppendInt16(nil, typ)
	b = kbin.AppendString(b, group)
	for _, m := range member {
		b = kbin.AppendString(b, m)
	}
	return b
}

// MemberMetadata is the value of a KIP-848 member's metadata (type 5).
func MemberMetadata(instanceID *string, clientID, host string, topics []string, rebalanceMs int32, assignor string) []byte {
	b := kbin.AppendInt16(nil, 0)
	b = kbin.AppendCompactNullableString(b, instanceID)
	b = kbin.AppendCompactNullableString(b, nil)
	b = kbin.AppendCompactString(b, clientID)
	b = kbin.AppendCompactString(b, host)
	b = kbin.AppendCompactArrayLen(b, len(topics))
	for _, t := range topics {
		b = kbin.AppendCompactString(b, t)
	}
	b = kbin.AppendCompactNullableString(b, nil)
	b = kbin.AppendInt32(b, rebalanceMs)
	b = kbin.AppendCompactNullableString(b, &assignor)
	return kbin.AppendUvarint(b, 0)
}

// CurrentAssignment is the value of a KIP-848 member's current assignment
// (type 8): partitions of one topic, by id.
func CurrentAssignment(epoch, previous int32, topicID [16]byte, partitions ...int32) []byte {
	b := kbin.AppendInt16(nil, 0)
	b = kbin.AppendInt32(b, epoch)
	b = kbin.AppendInt32(b, previous)
	b = kbin.AppendInt8(b, 0)
	b = kbin.AppendCompactArrayLen(b, 1)
	b = kbin.AppendUuid(b, topicID)
	b = kbin.AppendCompactArrayLen(b, len(partitions))
	for _, p := range partitions {
		b = kbin.AppendInt32(b, p)
	}
	b = kbin.AppendUvarint(b, 0)         // the topic's tagged fields
	b = kbin.AppendCompactArrayLen(b, 0) // nothing pending revocation
	return kbin.AppendUvarint(b, 0)
}

// ShareMemberMetadata is the value of a share group member's metadata
// (type 10).
func ShareMemberMetadata(clientID, host string, topics []string) []byte {
	b := kbin.AppendInt16(nil, 0)
	b = kbin.AppendCompactNullableString(b, nil) // rack
	b = kbin.AppendCompactString(b, clientID)
	b = kbin.AppendCompactString(b, host)
	b = kbin.AppendCompactArrayLen(b, len(topics))
	for _, t := range topics {
		b = kbin.AppendCompactString(b, t)
	}
	return kbin.AppendUvarint(b, 0)
}

// ShareCurrentAssignment is the value of a share group member's current
// assignment (type 14): partitions of one topic, by id.
func ShareCurrentAssignment(epoch, previous int32, topicID [16]byte, partitions ...int32) []byte {
	b := kbin.AppendInt16(nil, 0)
	b = kbin.AppendInt32(b, epoch)
	b = kbin.AppendInt32(b, previous)
	b = kbin.AppendInt8(b, 0)
	b = kbin.AppendCompactArrayLen(b, 1)
	b = kbin.AppendUuid(b, topicID)
	b = kbin.AppendCompactArrayLen(b, len(partitions))
	for _, p := range partitions {
		b = kbin.AppendInt32(b, p)
	}
	b = kbin.AppendUvarint(b, 0) // the topic's tagged fields
	return kbin.AppendUvarint(b, 0)
}

// ShareState is the value of a share group's state partition metadata
// (type 15): one topic initialized, by id and name.
func ShareState(topicID [16]byte, topic string, partitions ...int32) []byte {
	b := kbin.AppendInt16(nil, 0)
	b = kbin.AppendCompactArrayLen(b, 0) // initializing
	b = kbin.AppendCompactArrayLen(b, 1) // initialized
	b = kbin.AppendUuid(b, topicID)
	b = kbin.AppendCompactString(b, topic)
	b = kbin.AppendCompactArrayLen(b, len(partitions))
	for _, p := range partitions {
		b = kbin.AppendInt32(b, p)
	}
	b = kbin.AppendUvarint(b, 0)
	b = kbin.AppendCompactArrayLen(b, 0) // deleting
	return kbin.AppendUvarint(b, 0)
}

// StreamsMemberMetadata is the value of a streams group member's metadata
// (type 19), without an endpoint or client tags.
func StreamsMemberMetadata(clientID, host, processID string) []byte {
	b := kbin.AppendInt16(nil, 0)
	b = kbin.AppendCompactNullableString(b, nil) // instance
	b = kbin.AppendCompactNullableString(b, nil) // rack
	b = kbin.AppendCompactString(b, clientID)
	b = kbin.AppendCompactString(b, host)
	b = kbin.AppendInt32(b, 30000) // rebalance timeout
	b = kbin.AppendInt32(b, 0)     // topology epoch
	b = kbin.AppendCompactString(b, processID)
	b = kbin.AppendInt8(b, -1)           // no user endpoint
	b = kbin.AppendCompactArrayLen(b, 0) // client tags
	return kbin.AppendUvarint(b, 0)
}

// StreamsCurrentAssignment is the value of a streams group member's
// current assignment (type 22): active tasks of one subtopology, nothing
// standby, warming up or pending revocation.
func StreamsCurrentAssignment(epoch, previous int32, subtopology string, partitions ...int32) []byte {
	b := kbin.AppendInt16(nil, 0)
	b = kbin.AppendInt32(b, epoch)
	b = kbin.AppendInt32(b, previous)
	b = kbin.AppendInt8(b, 0)
	b = kbin.AppendCompactArrayLen(b, 1)
	b = kbin.AppendCompactString(b, subtopology)
	b = kbin.AppendCompactArrayLen(b, len(partitions))
	for _, p := range partitions {
		b = kbin.AppendInt32(b, p)
	}
	b = kbin.AppendUvarint(b, 0)
	for range 5 {
		b = kbin.AppendCompactArrayLen(b, 0)
	}
	return kbin.AppendUvarint(b, 0)
}

// StreamsTopology is the value of a streams group's topology (type 23):
// one subtopology reading the source topics.
func StreamsTopology(epoch int32, subtopology string, sources ...string) []byte {
	b := kbin.AppendInt16(nil, 0)
	b = kbin.AppendInt32(b, epoch)
	b = kbin.AppendCompactArrayLen(b, 1)
	b = kbin.AppendCompactString(b, subtopology)
	b = kbin.AppendCompactArrayLen(b, len(sources))
	for _, s := range sources {
		b = kbin.AppendCompactString(b, s)
	}
	for range 5 { // regex, changelogs, repartition sinks and sources, copartition groups
		b = kbin.AppendCompactArrayLen(b, 0)
	}
	b = kbin.AppendUvarint(b, 0)
	return kbin.AppendUvarint(b, 0)
}
