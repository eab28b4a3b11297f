package catalog

import (
	"fmt"
	"hash/crc32"
)

// This file reproduces the two key → partition formulas a snapshot is most
// likely to have been written with, so that checks can say which partition a
// key should be on without a Kafka client:
//
//   - [JavaPartition]: the Java producer's default for keyed records
//     (BuiltInPartitioner.partitionForKey: toPositive(murmur2(key)) % n).
//     franz-go's default (StickyKeyPartitioner(nil)) and librdkafka's
//     "murmur2"/"murmur2_random" partitioners place keyed records the same way.
//   - [CRC32Partition]: librdkafka's "consistent" partitioner
//     (rd_kafka_msg_partitioner_consistent: rd_crc32(key, keylen) %
//     partition_cnt). librdkafka's own default, "consistent_random", places
//     non-empty keys the same way.
//
// Both depend on the partition count: a topic that grew from 6 to 8
// partitions placed a key by "% 6" before the change and "% 8" after it.

// murmur2Seed and murmur2M are the constants of Kafka's Utils.murmur2.
const (
	murmur2Seed uint32 = 0x9747b28c
	murmur2M    uint32 = 0x5bd1e995
	murmur2R           = 24
)

// Murmur2 is the 32-bit MurmurHash2 exactly as the Kafka Java client computes
// it (org.apache.kafka.common.utils.Utils.murmur2, seed 0x9747b28c), returned
// as the Java int (so it can be negative). Bytes are read little-endian four
// at a time, the 1–3 byte tail folded in as Java's fall-through switch does.
// A nil slice hashes like an empty one.
func Murmur2(b []byte) int32 {
	h := murmur2Seed ^ uint32(len(b))
	for len(b) >= 4 {
		k := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
		k *= murmur2M
		k ^= k >> murmur2R
		k *= murmur2M
		h *= murmur2M
		h ^= k
		b = b[4:]
	}
	switch len(b) {
	case 3:
		h ^= uint32(b[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(b[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(b[0])
		h *= murmur2M
	}
	h ^= h >> 13
	h *= murmur2M
	h ^= h >> 15
	return int32(h)
}

// toPositive is Kafka's Utils.toPositive: it clears the sign bit (it is not
// Math.abs, which would map differently and overflow on MinInt32).
func toPositive(h int32) int32 { return h & 0x7fffffff }

// JavaPartition is the partition the Java producer's default partitioner
// picks for a record with this key on a topic with n partitions:
// toPositive(murmur2(key)) % n.
//
// It is only meaningful for records that had a key. The Java producer does
// not hash a null key (it uses the sticky/uniform partitioner instead); here
// a nil key is hashed like an empty one, which is what librdkafka's
// "murmur2" partitioner does (partition 0x106e08d9 % n).
//
// n must be positive; JavaPartition panics otherwise, as the Java modulo
// would throw.
func JavaPartition(key []byte, n int32) int32 {
	mustPositive(n)
	return toPositive(Murmur2(key)) % n
}

// CRC32Partition is the partition librdkafka's "consistent" partitioner picks
// for this key on a topic with n partitions: crc32(key) % n, with the CRC-32
// (IEEE, as hash/crc32.ChecksumIEEE and zlib compute it) taken as an
// unsigned 32-bit value and the modulo done unsigned, as the C expression
// rd_crc32(key, keylen) % partition_cnt does (uint32_t % int32_t promotes
// to unsigned). There is no sign-bit masking: a key whose CRC has the high
// bit set lands where librdkafka puts it, not where toPositive would.
//
// A nil or empty key has CRC 0 and therefore lands on partition 0, which is
// exactly what "consistent" does ("Empty and NULL keys are mapped to single
// partition"). librdkafka's "consistent_random" would instead pick a random
// partition for those; that case is not modelled.
//
// n must be positive; CRC32Partition panics otherwise.
func CRC32Partition(key []byte, n int32) int32 {
	mustPositive(n)
	return int32(crc32.ChecksumIEEE(key) % uint32(n))
}

func mustPositive(n int32) {
	if n <= 0 {
		panic(fmt.Sprintf("catalog: partition count must be positive, got %d", n))
	}
}
