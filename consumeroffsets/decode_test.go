package consumeroffsets

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func ptr[T any](v T) *T { return &v }

func commitKey(version int16, group, topic string, p int32) []byte {
	k := kmsg.OffsetCommitKey{Version: version, Group: group, Topic: topic, Partition: p}
	return k.AppendTo(nil)
}

func commitValue(version int16, offset int64, epoch int32, meta string, commit, expire int64) []byte {
	v := kmsg.OffsetCommitValue{Version: version, Offset: offset, LeaderEpoch: epoch, Metadata: meta, CommitTimestamp: commit, ExpireTimestamp: expire}
	return v.AppendTo(nil)
}

func groupKey(group string) []byte {
	k := kmsg.GroupMetadataKey{Version: 2, Group: group}
	return k.AppendTo(nil)
}

func consumerAssignment(topics map[string][]int32) []byte {
	a := kmsg.ConsumerMemberAssignment{Version: 0}
	for _, t := range []string{"orders", "turbines"} {
		if p, ok := topics[t]; ok {
			a.Topics = append(a.Topics, kmsg.ConsumerMemberAssignmentTopic{Topic: t, Partitions: p})
		}
	}
	return a.AppendTo(nil)
}

func classicValue(version int16, protocolType string, members ...kmsg.GroupMetadataValueMember) []byte {
	v := kmsg.GroupMetadataValue{Version: version, ProtocolType: protocolType, Generation: 7, Protocol: ptr("cooperative-sticky"),
		Leader: ptr("m-1"), CurrentStateTimestamp: 1_700_000_000_000, Members: members}
	return v.AppendTo(nil)
}

// kip848Key builds a KIP-848 record key: its type, then group (and member).
func kip848Key(typ int16, group string, member ...string) []byte {
	b := kbin.AppendInt16(nil, typ)
	b = kbin.AppendString(b, group)
	for _, m := range member {
		b = kbin.AppendString(b, m)
	}
	return b
}

// tagged appends a tagged-fields section of the given fields, in tag order.
func tagged(dst []byte, fields ...[]byte) []byte {
	dst = kbin.AppendUvarint(dst, uint32(len(fields)))
	for i, f := range fields {
		dst = kbin.AppendUvarint(dst, uint32(i))
		dst = kbin.AppendUvarint(dst, uint32(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

func topicPartitionsBytes(dst []byte, tps ...TopicPartitions) []byte {
	dst = kbin.AppendCompactArrayLen(dst, len(tps))
	for _, tp := range tps {
		var id [16]byte
		copy(id[:], tp.TopicID)
		dst = kbin.AppendUuid(dst, id)
		dst = kbin.AppendCompactArrayLen(dst, len(tp.Partitions))
		for _, p := range tp.Partitions {
			dst = kbin.AppendInt32(dst, p)
		}
		dst = tagged(dst, kbin.AppendCompactArrayLen(nil, 0)) // AssignmentEpochs: skipped
	}
	return dst
}

func v0() []byte { return kbin.AppendInt16(nil, 0) }

func memberMetadataValue(classic bool) []byte {
	b := v0()
	b = kbin.AppendCompactNullableString(b, ptr("watcher-1"))
	b = kbin.AppendCompactNullableString(b, nil)
	b = kbin.AppendCompactString(b, "watcher")
	b = kbin.AppendCompactString(b, "/10.0.0.9")
	b = kbin.AppendCompactArrayLen(b, 2)
	b = kbin.AppendCompactString(b, "orders")
	b = kbin.AppendCompactString(b, "turbines")
	b = kbin.AppendCompactNullableString(b, nil)
	b = kbin.AppendInt32(b, 45000)
	b = kbin.AppendCompactNullableString(b, ptr("uniform"))
	if !classic {
		return tagged(b)
	}
	s := kbin.AppendInt8(nil, 1)
	s = kbin.AppendInt32(s, 10000)
	s = kbin.AppendCompactArrayLen(s, 1)
	s = kbin.AppendCompactString(s, "range")
	s = kbin.AppendCompactBytes(s, []byte{0, 1})
	s = tagged(s)
	s = tagged(s)
	return tagged(b, s)
}

// uuidOf is a topic id whose 16 bytes are the string's, padded.
func uuidOf(s string) string { var u [16]byte; copy(u[:], s); return string(u[:]) }

func TestDecode(t *testing.T) {
	orders := uuidOf("orders-topic-id!")
	ordersID := uuidString([16]byte([]byte(orders)))
	member := kmsg.GroupMetadataValueMember{MemberID: "m-1", InstanceID: ptr("i-1"), ClientID: "watcher", ClientHost: "/10.0.0.9",
		RebalanceTimeoutMillis: 60000, SessionTimeoutMillis: 45000, Subscription: []byte{0},
		Assignment: consumerAssignment(map[string][]int32{"turbines": {0, 3}})}
	for _, tc := range []struct {
		name       string
		key, value []byte
		want       Record
		err        error
	}{
		{"commit v3", commitKey(1, "g", "turbines", 4), commitValue(3, 510, 2, "m", 1000, 0),
			Record{Kind: KindOffsetCommit, Type: 1, ValueVersion: 3, Group: "g", Topic: "turbines", Partition: 4,
				Commit: &OffsetCommit{Offset: 510, LeaderEpoch: 2, Metadata: "m", CommitTimestampMs: 1000, ExpireTimestampMs: -1}}, nil},
		{"commit v1 has an expiry", commitKey(0, "g", "t", 0), commitValue(1, 9, 0, "", 1000, 2000),
			Record{Kind: KindOffsetCommit, Type: 0, ValueVersion: 1, Group: "g", Topic: "t", Partition: 0,
				Commit: &OffsetCommit{Offset: 9, LeaderEpoch: -1, CommitTimestampMs: 1000, ExpireTimestampMs: 2000}}, nil},
		{"commit v4 flexible", commitKey(1, "g", "t", 1), commitValue(4, 11, 5, "x", 3000, 0),
			Record{Kind: KindOffsetCommit, Type: 1, ValueVersion: 4, Group: "g", Topic: "t", Partition: 1,
				Commit: &OffsetCommit{Offset: 11, LeaderEpoch: 5, Metadata: "x", CommitTimestampMs: 3000, ExpireTimestampMs: -1}}, nil},
		{"commit tombstone", commitKey(1, "g", "t", 2), nil,
			Record{Kind: KindOffsetCommit, Type: 1, ValueVersion: -1, Group: "g", Topic: "t", Partition: 2, Tombstone: true}, nil},
		{"commit unknown version", commitKey(1, "g", "t", 2), append(kbin.AppendInt16(nil, 9), 1, 2, 3),
			Record{Kind: KindOffsetCommit, Type: 1, ValueVersion: 9, Group: "g", Topic: "t", Partition: 2, Raw: []byte{0, 9, 1, 2, 3}}, ErrUnknownVersion},
		{"commit cut short", commitKey(1, "g", "t", 2), commitValue(3, 1, 1, "meta", 1, 0)[:12],
			Record{Kind: KindOffsetCommit, Type: 1, ValueVersion: 3, Group: "g", Topic: "t", Partition: 2, Raw: commitValue(3, 1, 1, "meta", 1, 0)[:12]}, ErrMalformed},
		{"key cut short", commitKey(1, "g", "turbines", 2)[:9], commitValue(3, 1, 1, "", 1, 0),
			Record{Kind: KindOffsetCommit, Type: 1, ValueVersion: -1, Partition: -1, Raw: commitValue(3, 1, 1, "", 1, 0)}, ErrMalformed},
		{"key without a type", []byte{1}, nil, Record{Type: -1, ValueVersion: -1, Partition: -1}, ErrMalformed},
		{"classic consumer group v3", groupKey("g"), classicValue(3, "consumer", member),
			Record{Kind: KindGroupMetadata, Type: 2, ValueVersion: 3, Group: "g", Partition: -1, Classic: &GroupMetadata{
				ProtocolType: "consumer", Generation: 7, Protocol: ptr("cooperative-sticky"), Leader: ptr("m-1"), CurrentStateTimestampMs: 1_700_000_000_000,
				Members: []ClassicMember{{MemberID: "m-1", InstanceID: ptr("i-1"), ClientID: "watcher", ClientHost: "/10.0.0.9", RebalanceTimeoutMs: 60000,
					SessionTimeoutMs: 45000, Assignment: []TopicPartitions{{Topic: "turbines", Partitions: []int32{0, 3}}}}}}}, nil},
		{"classic v0 has no rebalance timeout nor state time", groupKey("g"), classicValue(0, "consumer", kmsg.GroupMetadataValueMember{MemberID: "m", ClientID: "c", ClientHost: "h", SessionTimeoutMillis: 1}),
			Record{Kind: KindGroupMetadata, Type: 2, ValueVersion: 0, Group: "g", Partition: -1, Classic: &GroupMetadata{
				ProtocolType: "consumer", Generation: 7, Protocol: ptr("cooperative-sticky"), Leader: ptr("m-1"), CurrentStateTimestampMs: -1,
				Members: []ClassicMember{{MemberID: "m", ClientID: "c", ClientHost: "h", RebalanceTimeoutMs: -1, SessionTimeoutMs: 1, Assignment: []TopicPartitions{}}}}}, nil},
		{"classic v4 flexible, other protocol keeps its assignment", groupKey("g"), classicValue(4, "connect", kmsg.GroupMetadataValueMember{MemberID: "m", ClientID: "c", ClientHost: "h", RebalanceTimeoutMillis: 2, SessionTimeoutMillis: 1, Assignment: []byte{9, 9}}),
			Record{Kind: KindGroupMetadata, Type: 2, ValueVersion: 4, Group: "g", Partition: -1, Classic: &GroupMetadata{
				ProtocolType: "connect", Generation: 7, Protocol: ptr("cooperative-sticky"), Leader: ptr("m-1"), CurrentStateTimestampMs: 1_700_000_000_000,
				Members: []ClassicMember{{MemberID: "m", ClientID: "c", ClientHost: "h", RebalanceTimeoutMs: 2, SessionTimeoutMs: 1, Assignment: []TopicPartitions{},
					AssignmentError: `protocol type "connect": assignment not decoded`, RawAssignment: []byte{9, 9}}}}}, nil},
		{"classic garbage assignment is kept", groupKey("g"), classicValue(3, "consumer", kmsg.GroupMetadataValueMember{MemberID: "m", ClientID: "c", ClientHost: "h", RebalanceTimeoutMillis: 2, SessionTimeoutMillis: 1, Assignment: []byte{0, 0, 0x7f, 0xff, 0xff, 0xff}}),
			Record{Kind: KindGroupMetadata, Type: 2, ValueVersion: 3, Group: "g", Partition: -1, Classic: &GroupMetadata{
				ProtocolType: "consumer", Generation: 7, Protocol: ptr("cooperative-sticky"), Leader: ptr("m-1"), CurrentStateTimestampMs: 1_700_000_000_000,
				Members: []ClassicMember{{MemberID: "m", ClientID: "c", ClientHost: "h", RebalanceTimeoutMs: 2, SessionTimeoutMs: 1, Assignment: []TopicPartitions{},
					AssignmentError: "malformed record: consumer assignment cut short or garbage", RawAssignment: []byte{0, 0, 0x7f, 0xff, 0xff, 0xff}}}}}, nil},
		{"classic empty group", groupKey("g"), classicValue(3, "consumer"),
			Record{Kind: KindGroupMetadata, Type: 2, ValueVersion: 3, Group: "g", Partition: -1, Classic: &GroupMetadata{
				ProtocolType: "consumer", Generation: 7, Protocol: ptr("cooperative-sticky"), Leader: ptr("m-1"), CurrentStateTimestampMs: 1_700_000_000_000, Members: []ClassicMember{}}}, nil},
		{"classic tombstone", groupKey("g"), nil, Record{Kind: KindGroupMetadata, Type: 2, ValueVersion: -1, Group: "g", Partition: -1, Tombstone: true}, nil},
		{"classic member count past the bytes", groupKey("g"), append(classicValue(3, "consumer")[:len(classicValue(3, "consumer"))-4], 0x7f, 0xff, 0xff, 0xff),
			Record{Kind: KindGroupMetadata, Type: 2, ValueVersion: 3, Group: "g", Partition: -1, Raw: append(classicValue(3, "consumer")[:len(classicValue(3, "consumer"))-4], 0x7f, 0xff, 0xff, 0xff)}, ErrMalformed},
		{"consumer group epoch", kip848Key(3, "g"), tagged(kbin.AppendInt32(v0(), 12), kbin.AppendInt64(nil, 99), kbin.AppendInt64(nil, 5000)),
			Record{Kind: KindConsumerGroupMetadata, Type: 3, ValueVersion: 0, Group: "g", Partition: -1, GroupEpoch: &ConsumerGroupEpoch{Epoch: 12, MetadataHash: 99, CreationTimeMs: 5000}}, nil},
		{"consumer group epoch without tags", kip848Key(3, "g"), tagged(kbin.AppendInt32(v0(), 12)),
			Record{Kind: KindConsumerGroupMetadata, Type: 3, ValueVersion: 0, Group: "g", Partition: -1, GroupEpoch: &ConsumerGroupEpoch{Epoch: 12, CreationTimeMs: -1}}, nil},
		{"member metadata", kip848Key(5, "g", "m-9"), memberMetadataValue(false),
			Record{Kind: KindConsumerGroupMemberMetadata, Type: 5, ValueVersion: 0, Group: "g", Member: "m-9", Partition: -1, MemberMetadata: &MemberMetadata{
				InstanceID: ptr("watcher-1"), ClientID: "watcher", ClientHost: "/10.0.0.9", SubscribedTopicNames: []string{"orders", "turbines"},
				RebalanceTimeoutMs: 45000, ServerAssignor: ptr("uniform")}}, nil},
		{"member metadata of a classic member", kip848Key(5, "g", "m-9"), memberMetadataValue(true),
			Record{Kind: KindConsumerGroupMemberMetadata, Type: 5, ValueVersion: 0, Group: "g", Member: "m-9", Partition: -1, MemberMetadata: &MemberMetadata{
				InstanceID: ptr("watcher-1"), ClientID: "watcher", ClientHost: "/10.0.0.9", SubscribedTopicNames: []string{"orders", "turbines"},
				RebalanceTimeoutMs: 45000, ServerAssignor: ptr("uniform"), ClassicSessionTimeoutMs: ptr(int32(10000))}}, nil},
		{"member tombstone", kip848Key(5, "g", "m-9"), nil,
			Record{Kind: KindConsumerGroupMemberMetadata, Type: 5, ValueVersion: -1, Group: "g", Member: "m-9", Partition: -1, Tombstone: true}, nil},
		{"target assignment epoch", kip848Key(6, "g"), tagged(kbin.AppendInt32(v0(), 4), kbin.AppendInt64(nil, 777)),
			Record{Kind: KindConsumerGroupTargetAssignment, Type: 6, ValueVersion: 0, Group: "g", Partition: -1, TargetEpoch: &TargetAssignmentEpoch{AssignmentEpoch: 4, AssignmentTimestampMs: 777}}, nil},
		{"target member", kip848Key(7, "g", "m-9"), tagged(topicPartitionsBytes(v0(), TopicPartitions{TopicID: orders, Partitions: []int32{1, 2}})),
			Record{Kind: KindConsumerGroupTargetMember, Type: 7, ValueVersion: 0, Group: "g", Member: "m-9", Partition: -1,
				Target: &TargetAssignment{Partitions: []TopicPartitions{{TopicID: ordersID, Partitions: []int32{1, 2}}}}}, nil},
		{"current member", kip848Key(8, "g", "m-9"),
			tagged(topicPartitionsBytes(topicPartitionsBytes(kbin.AppendInt8(kbin.AppendInt32(kbin.AppendInt32(v0(), 5), 4), 0), TopicPartitions{TopicID: orders, Partitions: []int32{0}}))),
			Record{Kind: KindConsumerGroupCurrentMember, Type: 8, ValueVersion: 0, Group: "g", Member: "m-9", Partition: -1,
				Current: &CurrentAssignment{MemberEpoch: 5, PreviousMemberEpoch: 4, Assigned: []TopicPartitions{{TopicID: ordersID, Partitions: []int32{0}}}, PendingRevocation: []TopicPartitions{}}}, nil},
		{"current member with a partition count past the bytes", kip848Key(8, "g", "m"), append(kbin.AppendInt8(kbin.AppendInt32(kbin.AppendInt32(v0(), 5), 4), 0), 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0xff, 0xff, 0xff, 0x7f),
			Record{Kind: KindConsumerGroupCurrentMember, Type: 8, ValueVersion: 0, Group: "g", Member: "m", Partition: -1,
				Raw: append(kbin.AppendInt8(kbin.AppendInt32(kbin.AppendInt32(v0(), 5), 4), 0), 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0xff, 0xff, 0xff, 0x7f)}, ErrMalformed},
		{"consumer group value of version 1", kip848Key(3, "g"), tagged(kbin.AppendInt32(kbin.AppendInt16(nil, 1), 12)),
			Record{Kind: KindConsumerGroupMetadata, Type: 3, ValueVersion: 1, Group: "g", Partition: -1, Raw: tagged(kbin.AppendInt32(kbin.AppendInt16(nil, 1), 12))}, ErrUnknownVersion},
		{"bytes left over", kip848Key(3, "g"), append(tagged(kbin.AppendInt32(v0(), 12)), 0),
			Record{Kind: KindConsumerGroupMetadata, Type: 3, ValueVersion: 0, Group: "g", Partition: -1, Raw: append(tagged(kbin.AppendInt32(v0(), 12)), 0)}, ErrMalformed},
		{"partition metadata is kept", kip848Key(4, "g"), []byte{0, 0, 1},
			Record{Kind: KindConsumerGroupPartitionMeta, Type: 4, ValueVersion: -1, Group: "g", Partition: -1, Raw: []byte{0, 0, 1}}, ErrUnknownType},
		{"streams partition metadata (type 18, no longer written) is kept", kip848Key(18, "s"), []byte{0, 0, 7},
			Record{Kind: KindOther, Type: 18, ValueVersion: -1, Group: "s", Partition: -1, Raw: []byte{0, 0, 7}}, ErrUnknownType},
		{"a type from the future is kept", kip848Key(999, "x"), []byte{0, 0},
			Record{Kind: KindOther, Type: 999, ValueVersion: -1, Group: "x", Partition: -1, Raw: []byte{0, 0}}, ErrUnknownType},
		{"negative type", []byte{0xff, 0xff}, []byte{1},
			Record{Kind: KindOther, Type: -1, ValueVersion: -1, Partition: -1, Raw: []byte{1}}, ErrUnknownType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.key, tc.value)
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err != nil {
				if got.Error != err.Error() {
					t.Errorf("Error %q, want the error's text %q", got.Error, err)
				}
				got.Error = ""
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
				if got.Classic != nil && tc.want.Classic != nil {
					t.Errorf("classic got %+v\nwant %+v", got.Classic.Members, tc.want.Classic.Members)
				}
			}
		})
	}
}

func TestDecodeBounds(t *testing.T) {
	if _, err := Decode(make([]byte, MaxKeyBytes+1), nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a key past MaxKeyBytes: %v", err)
	}
	r, err := Decode(commitKey(1, "g", "t", 0), make([]byte, MaxValueBytes+1))
	if !errors.Is(err, ErrTooLarge) || len(r.Raw) != MaxValueBytes+1 {
		t.Errorf("a value past MaxValueBytes: %v, kept %d bytes", err, len(r.Raw))
	}
	// A count of members near 2^31 in a few bytes allocates nothing.
	v := kbin.AppendInt16(nil, 3)
	v = kbin.AppendString(v, "consumer")
	v = kbin.AppendInt32(v, 1)
	v = kbin.AppendNullableString(v, nil)
	v = kbin.AppendNullableString(v, nil)
	v = kbin.AppendInt64(v, 0)
	v = kbin.AppendInt32(v, 1<<31-1)
	if allocs := testing.AllocsPerRun(10, func() { Decode(groupKey("g"), v) }); allocs > 20 {
		t.Errorf("a huge member count allocated %v times", allocs)
	}
	if _, err := Decode(groupKey("g"), v); !errors.Is(err, ErrMalformed) {
		t.Errorf("a huge member count: %v", err)
	}
}

func TestTally(t *testing.T) {
	var tl Tally
	for _, kv := range [][2][]byte{
		{commitKey(1, "g", "t", 0), commitValue(3, 1, 0, "", 0, 0)},
		{commitKey(1, "g", "t", 0), nil},
		{commitKey(1, "g", "t", 0), kbin.AppendInt16(nil, 42)},
		{kip848Key(18, "s"), []byte{0, 0}},
		{[]byte{0}, nil},
		{groupKey("g"), []byte{0, 3, 1}},
	} {
		tl.Add(Decode(kv[0], kv[1]))
	}
	want := Tally{Records: 6, ByKind: map[Kind]int64{KindOffsetCommit: 3, KindOther: 1, KindGroupMetadata: 1}, Tombstones: 1, UnknownType: 1, UnknownVersion: 1, Malformed: 2}
	if !reflect.DeepEqual(tl, want) {
		t.Errorf("got %+v, want %+v", tl, want)
	}
}

func FuzzDecode(f *testing.F) {
	member := kmsg.GroupMetadataValueMember{MemberID: "m", ClientID: "c", ClientHost: "h", Assignment: consumerAssignment(map[string][]int32{"orders": {1}})}
	for _, kv := range [][2][]byte{
		{commitKey(1, "g", "t", 0), commitValue(3, 1, 0, "m", 5, 0)},
		{commitKey(1, "g", "t", 0), commitValue(4, 1, 0, "m", 5, 0)},
		{groupKey("g"), classicValue(3, "consumer", member)},
		{groupKey("g"), classicValue(4, "consumer", member)},
		{kip848Key(5, "g", "m"), memberMetadataValue(true)},
		{kip848Key(8, "g", "m"), tagged(topicPartitionsBytes(topicPartitionsBytes(kbin.AppendInt8(kbin.AppendInt32(kbin.AppendInt32(v0(), 5), 4), 0), TopicPartitions{TopicID: uuidOf("x"), Partitions: []int32{0}})))},
		{kip848Key(3, "g"), tagged(kbin.AppendInt32(v0(), 12), kbin.AppendInt64(nil, 99))},
	} {
		f.Add(kv[0], kv[1])
	}
	for _, g := range kafka44 {
		f.Add(unhex(g.key), unhex(g.value))
	}
	f.Fuzz(func(t *testing.T, key, value []byte) {
		r, err := Decode(key, value)
		if err != nil {
			if r.Error == "" || !strings.Contains(r.Error, err.Error()[:5]) {
				t.Fatalf("error %v not in the record's Error %q", err, r.Error)
			}
			if len(value) > 0 && len(r.Raw) != len(value) {
				t.Fatalf("value of %d bytes not kept: %d", len(value), len(r.Raw))
			}
			for _, e := range []error{ErrUnknownType, ErrUnknownVersion, ErrMalformed, ErrTooLarge} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("untyped error %v", err)
		}
		if value == nil && !r.Tombstone {
			t.Fatal("a null value is a tombstone")
		}
	})
}
