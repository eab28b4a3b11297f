package consumeroffsets

import (
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// kafka44 are records of share, regex and streams groups as Kafka 4.4.0
// writes them: the bytes are MessageUtil.toVersionPrefixedByteBuffer of
// kafka-group-coordinator-4.4.0's generated key (version: the record
// type) and value (version 0), made with the values of want (the Java
// program that made them is testdata/Kafka44Golden.java).
var kafka44 = []struct {
	name       string
	key, value string
	want       Record
}{
	{"share member metadata", "000a000374656100026d31", "0000000a626172697374612d310a2f31302e302e302e3703076f726465727308726566756e647300",
		Record{Kind: KindShareGroupMemberMetadata, Type: 10, Group: "tea", Member: "m1", MemberMetadata: &MemberMetadata{
			ClientID: "barista-1", ClientHost: "/10.0.0.7", SubscribedTopicNames: []string{"orders", "refunds"}, RebalanceTimeoutMs: -1}}},
	{"share group epoch", "000b0003746561", "000000000005fffffee08e04fb3500",
		Record{Kind: KindShareGroupMetadata, Type: 11, Group: "tea", GroupEpoch: &ConsumerGroupEpoch{Epoch: 5, MetadataHash: -1234567890123, CreationTimeMs: -1}}},
	{"share target epoch", "000c0003746561", "0000000000050100080000019af232b27b",
		Record{Kind: KindShareGroupTargetAssignment, Type: 12, Group: "tea", TargetEpoch: &TargetAssignmentEpoch{AssignmentEpoch: 5, AssignmentTimestampMs: 1765000000123}}},
	{"share target member", "000d000374656100026d31", "000002000102030405060708090a0b0c0d0e0f0300000000000000020000",
		Record{Kind: KindShareGroupTargetMember, Type: 13, Group: "tea", Member: "m1", Target: &TargetAssignment{
			Partitions: []TopicPartitions{{TopicID: "00010203-0405-0607-0809-0a0b0c0d0e0f", Partitions: []int32{0, 2}}}}}},
	{"share current member", "000e000374656100026d31", "000000000005000000040002000102030405060708090a0b0c0d0e0f040000000000000001000000020000",
		Record{Kind: KindShareGroupCurrentMember, Type: 14, Group: "tea", Member: "m1", Current: &CurrentAssignment{MemberEpoch: 5, PreviousMemberEpoch: 4,
			Assigned: []TopicPartitions{{TopicID: "00010203-0405-0607-0809-0a0b0c0d0e0f", Partitions: []int32{0, 1, 2}}}, PendingRevocation: []TopicPartitions{}}}},
	{"share state partitions", "000f0003746561", "000002101112131415161718191a1b1c1d1e1f08726566756e647302000000030002000102030405060708090a0b0c0d0e0f076f7264657273040000000000000001000000020002101112131415161718191a1b1c1d1e1f046f6c640000",
		Record{Kind: KindShareGroupStatePartitions, Type: 15, Group: "tea", ShareState: &ShareState{
			Initializing: []TopicPartitions{{Topic: "refunds", TopicID: "10111213-1415-1617-1819-1a1b1c1d1e1f", Partitions: []int32{3}}},
			Initialized:  []TopicPartitions{{Topic: "orders", TopicID: "00010203-0405-0607-0809-0a0b0c0d0e0f", Partitions: []int32{0, 1, 2}}},
			Deleting:     []TopicPartitions{{Topic: "old", TopicID: "10111213-1415-1617-1819-1a1b1c1d1e1f", Partitions: []int32{}}}}}},
	{"consumer group regular expression", "001000016700056f72642e2a", "000002076f726465727300000000000000070000019af232b20000",
		Record{Kind: KindConsumerGroupRegex, Type: 16, Group: "g", Regex: "ord.*", RegexTopics: &RegexTopics{Topics: []string{"orders"}, Version: 7, TimestampMs: 1765000000000}}},
	{"streams group epoch with every tag", "0011000467616c65", "000000000003000000000000002a03000400000001011902156e756d2e7374616e6462792e7265706c69636173023100020400000001",
		Record{Kind: KindStreamsGroupMetadata, Type: 17, Group: "gale", StreamsEpoch: &StreamsGroupEpoch{Epoch: 3, MetadataHash: 42, ValidatedTopologyEpoch: ptr(int32(1)),
			LastAssignmentConfigs: []KeyValue{{"num.standby.replicas", "1"}}, StoredDescriptionTopologyEpoch: ptr(int32(1))}}},
	{"streams group epoch without tags", "0011000467616c65", "000000000003000000000000002a00",
		Record{Kind: KindStreamsGroupMetadata, Type: 17, Group: "gale", StreamsEpoch: &StreamsGroupEpoch{Epoch: 3, MetadataHash: 42}}},
	{"streams member", "0013000467616c6500027331", "000000077261636b2d610767616c652d310a2f31302e302e302e380000753000000001053761316601066170702d311f900002057a6f6e6502620000",
		Record{Kind: KindStreamsGroupMemberMetadata, Type: 19, Group: "gale", Member: "s1", StreamsMember: &StreamsMemberMetadata{RackID: ptr("rack-a"),
			ClientID: "gale-1", ClientHost: "/10.0.0.8", RebalanceTimeoutMs: 30000, TopologyEpoch: 1, ProcessID: "7a1f", UserEndpoint: ptr("app-1:8080"),
			ClientTags: []KeyValue{{"zone", "b"}}}}},
	{"streams member without an endpoint", "0013000467616c6500027331", "000001010767616c652d310a2f31302e302e302e3800007530000000010537613166ff0100",
		Record{Kind: KindStreamsGroupMemberMetadata, Type: 19, Group: "gale", Member: "s1", StreamsMember: &StreamsMemberMetadata{InstanceID: ptr(""), RackID: ptr(""),
			ClientID: "gale-1", ClientHost: "/10.0.0.8", RebalanceTimeoutMs: 30000, TopologyEpoch: 1, ProcessID: "7a1f", ClientTags: []KeyValue{}}}},
	{"streams target epoch", "0014000467616c65", "00000000000300",
		Record{Kind: KindStreamsGroupTargetAssignment, Type: 20, Group: "gale", TargetEpoch: &TargetAssignmentEpoch{AssignmentEpoch: 3}}},
	{"streams target member", "0015000467616c6500027331", "000002023004000000000000000100000002000202310200000004000100",
		Record{Kind: KindStreamsGroupTargetMember, Type: 21, Group: "gale", Member: "s1", StreamsTarget: &StreamsTasks{
			Active: []TaskIDs{{"0", []int32{0, 1, 2}}}, Standby: []TaskIDs{{"1", []int32{4}}}, Warmup: []TaskIDs{}}}},
	{"streams current member", "0016000467616c6500027331", "000000000003000000020102023003000000000000000101000903000000020000000301020231020000000500020230020000000200010100",
		Record{Kind: KindStreamsGroupCurrentMember, Type: 22, Group: "gale", Member: "s1", StreamsCurrent: &StreamsCurrent{MemberEpoch: 3, PreviousMemberEpoch: 2, State: 1,
			Active: []TaskIDs{{"0", []int32{0, 1}}}, Standby: []TaskIDs{}, Warmup: []TaskIDs{{"1", []int32{5}}},
			ActivePendingRevocation: []TaskIDs{{"0", []int32{2}}}, StandbyPendingRevocation: []TaskIDs{}, WarmupPendingRevocation: []TaskIDs{}}}},
	{"streams topology", "0017000467616c65", "0000000000010302300206677573747301021567616c652d73746f72652d6368616e67656c6f6700000000ffff020f636c65616e75702e706f6c69637908636f6d706163740000020967616c652d726570010100023101020863616c6d2d2e2a0101020967616c652d72657000000004000101000201020000020000000000",
		Record{Kind: KindStreamsGroupTopology, Type: 23, Group: "gale", Topology: &Topology{Epoch: 1, Subtopologies: []Subtopology{
			{SubtopologyID: "0", SourceTopics: []string{"gusts"}, SourceTopicRegex: []string{}, StateChangelogTopics: []string{"gale-store-changelog"},
				RepartitionSinkTopics: []string{"gale-rep"}, RepartitionSourceTopics: []string{}},
			{SubtopologyID: "1", SourceTopics: []string{}, SourceTopicRegex: []string{"calm-.*"}, StateChangelogTopics: []string{},
				RepartitionSinkTopics: []string{}, RepartitionSourceTopics: []string{"gale-rep"}}}}}},
}

// TestDecodeKafka44Groups: Kafka 4's share groups (KIP-932), streams
// groups (KIP-1071) and consumer-group regular expressions write record
// types 10 to 23 to __consumer_offsets. Before, each was ErrUnknownType
// ("unknown record type: type 14 (other) is not decoded"), so group_log
// showed them as decode_error and check members counted them as
// undecodable records that might be the group's. Now each decodes as
// Kafka 4.4 wrote it; its tombstone names its group and member.
func TestDecodeKafka44Groups(t *testing.T) {
	for _, g := range kafka44 {
		t.Run(g.name, func(t *testing.T) {
			want := g.want
			want.ValueVersion, want.Partition = 0, -1
			got, err := Decode(unhex(g.key), unhex(g.value))
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			tomb, err := Decode(unhex(g.key), nil)
			if err != nil || !tomb.Tombstone || tomb.Kind != want.Kind || tomb.Group != want.Group || tomb.Member != want.Member || tomb.Regex != want.Regex {
				t.Errorf("tombstone %+v, %v", tomb, err)
			}
		})
	}
}

// TestDecodeKafka44GroupsHostile: a record cut short anywhere, with a
// byte too many, of a version Kafka 4.4 does not write, or whose counts
// lie, costs that record: an error naming why, its bytes kept, nothing
// decoded, no panic.
func TestDecodeKafka44GroupsHostile(t *testing.T) {
	check := func(t *testing.T, what string, key, value []byte, want error) {
		t.Helper()
		r, err := Decode(key, value)
		if !errors.Is(err, want) {
			t.Fatalf("%s: error %v, want %v", what, err, want)
		}
		if r.Error != err.Error() || len(r.Raw) != len(value) || r.MemberMetadata != nil || r.GroupEpoch != nil || r.TargetEpoch != nil ||
			r.Target != nil || r.Current != nil || r.ShareState != nil || r.RegexTopics != nil || r.StreamsEpoch != nil ||
			r.StreamsMember != nil || r.StreamsTarget != nil || r.StreamsCurrent != nil || r.Topology != nil {
			t.Fatalf("%s: %+v", what, r)
		}
	}
	for _, g := range kafka44 {
		t.Run(g.name, func(t *testing.T) {
			key, value := unhex(g.key), unhex(g.value)
			for n := 2; n < len(value); n++ {
				check(t, "value cut to "+hex.EncodeToString(value[:n]), key, value[:n], ErrMalformed)
			}
			check(t, "a byte too many", key, append(value[:len(value):len(value)], 0), ErrMalformed)
			check(t, "version 1", key, append([]byte{0, 1}, value[2:]...), ErrUnknownVersion)
			for n := 2; n < len(key); n++ {
				check(t, "key cut to "+hex.EncodeToString(key[:n]), key[:n], value, ErrMalformed)
			}
			check(t, "key with a byte too many", append(key[:len(key):len(key)], 0), value, ErrMalformed)
		})
	}
	// Counts near 2^31 in a few bytes: refused before anything is
	// allocated for them.
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0x07}
	for _, tc := range []struct {
		name       string
		key, value []byte
	}{
		{"share subscription", kip848Key(10, "g", "m"), append(append(v0(), 0, 2, 'c', 2, 'h'), huge...)},
		{"share assignment", kip848Key(14, "g", "m"), append(append(v0(), 0, 0, 0, 1, 0, 0, 0, 0, 0), huge...)},
		{"share state topics", kip848Key(15, "g"), append(v0(), huge...)},
		{"streams tasks", kip848Key(21, "g", "m"), append(v0(), huge...)},
		{"streams task partitions", kip848Key(22, "g", "m"), append(append(v0(), 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 2, '0'), huge...)},
		{"streams subtopologies", kip848Key(23, "g"), append(append(v0(), 0, 0, 0, 1), huge...)},
		{"streams client tags", kip848Key(19, "g", "m"), append(append(v0(), 0, 0, 2, 'c', 2, 'h', 0, 0, 0, 1, 0, 0, 0, 1, 2, 'p', 0xff), huge...)},
		{"streams assignment configs", kip848Key(17, "g"), append(append(v0(), 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 5), huge...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if allocs := testing.AllocsPerRun(10, func() { Decode(tc.key, tc.value) }); allocs > 20 {
				t.Errorf("allocated %v times", allocs)
			}
			check(t, tc.name, tc.key, tc.value, ErrMalformed)
		})
	}
	// A user endpoint marked neither null (-1) nor present (1).
	v := append(v0(), 0, 0, 2, 'c', 2, 'h', 0, 0, 0, 1, 0, 0, 0, 1, 2, 'p', 7, 1, 0)
	if _, err := Decode(kip848Key(19, "g", "m"), v); !errors.Is(err, ErrMalformed) || err.Error() != "malformed record: streams_group_member_metadata value version 0: user endpoint marked 7 (neither -1 nor 1)" {
		t.Errorf("endpoint marked 7: %v", err)
	}
}
