package consumeroffsets

import (
	"errors"
	"runtime"
	"testing"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDecodeBoundsCounts: a value of a few bytes an element, well within
// MaxValueBytes, decoded to gigabytes: one classic generation of 2.6
// million empty members (60 MiB, a 6.8 KiB segment once compressed) took
// 3.7 GB and 13 s to query group_generations. Past MaxMembers members or
// MaxTopics topics a record is now ErrTooLarge (not decoded, its bytes
// kept, counted by Tally), found before the elements are allocated; at
// the bound it still decodes.
func TestDecodeBoundsCounts(t *testing.T) {
	classic := func(version int16, members int, assignment []byte) []byte {
		v := kmsg.GroupMetadataValue{Version: version, ProtocolType: "consumer", Generation: 1, Members: make([]kmsg.GroupMetadataValueMember, members)}
		for i := range v.Members {
			v.Members[i].Assignment = assignment
		}
		return v.AppendTo(nil)
	}
	// A ConsumerProtocol assignment of n topics named "t", no partitions.
	assignment := func(n int) []byte {
		b := kbin.AppendInt16(nil, 0)
		b = kbin.AppendInt32(b, int32(n))
		for range n {
			b = kbin.AppendString(b, "t")
			b = kbin.AppendInt32(b, 0)
		}
		return kbin.AppendNullableBytes(b, nil)
	}
	subscription := func(n int) []byte {
		b := kbin.AppendInt16(nil, 0)
		b = kbin.AppendCompactNullableString(b, nil)
		b = kbin.AppendCompactNullableString(b, nil)
		b = kbin.AppendCompactString(b, "c")
		b = kbin.AppendCompactString(b, "h")
		b = kbin.AppendCompactArrayLen(b, n)
		for range n {
			b = kbin.AppendCompactString(b, "t")
		}
		b = kbin.AppendCompactNullableString(b, nil)
		b = kbin.AppendInt32(b, 1000)
		b = kbin.AppendCompactNullableString(b, nil)
		return kbin.AppendUvarint(b, 0)
	}
	current := func(n int) []byte {
		b := kbin.AppendInt16(nil, 0)
		b = kbin.AppendInt32(b, 1)
		b = kbin.AppendInt32(b, 0)
		b = kbin.AppendInt8(b, 0)
		b = kbin.AppendCompactArrayLen(b, n)
		for range n {
			b = kbin.AppendUuid(b, [16]byte{1})
			b = kbin.AppendCompactArrayLen(b, 0)
			b = kbin.AppendUvarint(b, 0)
		}
		b = kbin.AppendCompactArrayLen(b, 0)
		return kbin.AppendUvarint(b, 0)
	}
	memberKey := func(typ int16) []byte {
		b := kbin.AppendInt16(nil, typ)
		b = kbin.AppendString(b, "g")
		return kbin.AppendString(b, "m")
	}
	half := assignment(MaxTopics/2 + 1)
	tests := []struct {
		name     string
		key      []byte
		value    []byte
		tooLarge bool
	}{
		{"classic v3, one member past the bound", groupKey("g"), classic(3, MaxMembers+1, nil), true},
		{"classic v4 (flexible), one member past the bound", groupKey("g"), classic(4, MaxMembers+1, nil), true},
		{"classic, at the bound", groupKey("g"), classic(3, MaxMembers, nil), false},
		{"classic, two members' assignments past the topics' bound", groupKey("g"), classic(3, 2, half), true},
		{"classic, one member's assignment within it", groupKey("g"), classic(3, 1, half), false},
		{"a subscription past the topics' bound", memberKey(5), subscription(MaxTopics + 1), true},
		{"a current assignment past the topics' bound", memberKey(8), current(MaxTopics + 1), true},
		{"a current assignment at it", memberKey(8), current(MaxTopics), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r, err := Decode(tc.key, tc.value)
			runtime.ReadMemStats(&after)
			if !tc.tooLarge {
				if err != nil {
					t.Fatalf("within the bounds: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrTooLarge) || r.Classic != nil || r.MemberMetadata != nil || r.Current != nil || len(r.Raw) != len(tc.value) {
				t.Fatalf("err %v, record %+v: want ErrTooLarge, the bytes kept", err, r.Kind)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(tc.value))+1<<20 {
				t.Errorf("refusing a value of %d bytes allocated %d", len(tc.value), alloc)
			}
			var tl Tally
			tl.Add(r, err)
			if tl.TooLarge != 1 {
				t.Errorf("tally %+v", tl)
			}
		})
	}
}
