package consumeroffsets

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkDecode: the records a busy log is mostly made of, offset
// commits, and a classic group's generation of ten members.
func BenchmarkDecode(b *testing.B) {
	var members []kmsg.GroupMetadataValueMember
	for range 10 {
		members = append(members, kmsg.GroupMetadataValueMember{MemberID: "watcher-1-0123456789", ClientID: "watcher", ClientHost: "/10.0.0.9",
			Assignment: consumerAssignment(map[string][]int32{"turbines": {0, 1, 2, 3, 4, 5}})})
	}
	for _, bc := range []struct {
		name       string
		key, value []byte
	}{
		{"commit", commitKey(1, "galewatch-writers", "turbine-readings", 18), commitValue(3, 1_234_567, 4, "", 1_767_225_600_000, 0)},
		{"generation", groupKey("galewatch-writers"), classicValue(3, "consumer", members...)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(bc.key, bc.value); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
