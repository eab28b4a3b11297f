package catalog_test

import (
	"hash/crc32"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
)

// The catalog package itself never imports the Kafka client; only this
// external test does, to cross-check the partitioners against franz-go:
//
//   - kgo.StickyKeyPartitioner(nil) places keyed records exactly like the
//     Java client (murmur2, sign bit cleared, % n);
//   - kgo.SaramaHasher(crc32.ChecksumIEEE) is documented to match
//     librdkafka's "consistent" partitioner on 64-bit platforms (on 32-bit
//     ones franz-go keeps a historical, different placement for CRCs with
//     the high bit set, so that half of the check is skipped there).
func TestPartitionersMatchFranzGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := [][]byte{
		[]byte("21"), []byte("foobar"), []byte("abc"), []byte("u000001"),
		[]byte("Harbor"), []byte("Northgate"), []byte("Oldtown"), []byte("Riverside"),
		[]byte("123456789"), []byte("hejsan"), []byte{},
	}
	for i := 0; i < 2000; i++ {
		k := make([]byte, rng.IntN(40)+1)
		for j := range k {
			k[j] = byte(rng.Uint32())
		}
		keys = append(keys, k)
	}
	counts := []int32{1, 2, 3, 6, 7, 12, 17, 24, 100, 1000, math.MaxInt32}

	java := kgo.StickyKeyPartitioner(nil).ForTopic("t")
	crc := kgo.SaramaHasher(crc32.ChecksumIEEE)
	for _, n := range counts {
		for _, k := range keys {
			want := java.Partition(&kgo.Record{Key: k}, int(n))
			if got := catalog.JavaPartition(k, n); int(got) != want {
				t.Fatalf("JavaPartition(%q, %d) = %d, franz-go StickyKeyPartitioner = %d", k, n, got, want)
			}
			if bits.UintSize == 64 {
				want := crc(k, int(n))
				if got := catalog.CRC32Partition(k, n); int(got) != want {
					t.Fatalf("CRC32Partition(%q, %d) = %d, franz-go SaramaHasher(crc32) = %d", k, n, got, want)
				}
			}
		}
	}
}
