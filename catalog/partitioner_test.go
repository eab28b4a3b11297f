package catalog

import (
	"hash/crc32"
	"math"
	"testing"
)

// Golden murmur2 values. Every one comes from a test in a Kafka client that
// was itself checked against the Java client:
//
//   - Kafka's clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java
//     (testMurmur2), copied verbatim into franz-go's
//     pkg/kgo/partitioner_test.go (TestMurmur2KafkaVectors);
//   - librdkafka's src/rdmurmur2.c (unittest_murmur2, "java_murmur2_results"),
//     which covers every tail length (0–3 bytes) and unaligned starts.
func TestMurmur2GoldenVectors(t *testing.T) {
	const unaligned = "PreAmbleWillBeRemoved,ThePrePartThatIs"
	tests := []struct {
		name string
		key  []byte
		want int32
	}{
		// Kafka UtilsTest.testMurmur2.
		{"kafka/21", []byte("21"), -973932308},
		{"kafka/foobar", []byte("foobar"), -790332482},
		{"kafka/a-little-bit-long-string", []byte("a-little-bit-long-string"), -985981536},
		{"kafka/a-little-bit-longer-string", []byte("a-little-bit-longer-string"), -1486304829},
		{"kafka/lkjh...", []byte("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971},
		{"kafka/abc", []byte{'a', 'b', 'c'}, 479470107},
		// librdkafka unittest_murmur2 (values are the Java ints as uint32).
		{"rdkafka/kafka", []byte("kafka"), u2i(0xd067cf64)},
		{"rdkafka/giberish123456789", []byte("giberish123456789"), u2i(0x8f552b0c)},
		{"rdkafka/1234", []byte("1234"), u2i(0x9fc97b14)},
		{"rdkafka/234", []byte("234"), u2i(0xe7c009ca)},
		{"rdkafka/34", []byte("34"), u2i(0x873930da)},
		{"rdkafka/4", []byte("4"), u2i(0x5a4b5ca1)},
		{"rdkafka/unaligned+0", []byte(unaligned), u2i(0x78424f1c)},
		{"rdkafka/unaligned+1", []byte(unaligned[1:]), u2i(0x4a62b377)},
		{"rdkafka/unaligned+2", []byte(unaligned[2:]), u2i(0xe0e4e09e)},
		{"rdkafka/unaligned+3", []byte(unaligned[3:]), u2i(0x62b8b43f)},
		{"rdkafka/empty", []byte{}, u2i(0x106e08d9)},
		{"rdkafka/nil", nil, u2i(0x106e08d9)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Murmur2(tt.key); got != tt.want {
				t.Errorf("Murmur2(%q) = %d (%#08x), want %d (%#08x)", tt.key, got, uint32(got), tt.want, uint32(tt.want))
			}
		})
	}
}

func u2i(u uint32) int32 { return int32(u) }

// librdkafka's tests/0048-partitioner.c (do_test_partitioners) gives the
// expected partition of five keys on a 17-partition topic for each built-in
// partitioner. Its "murmur2" constants were produced by the Java client
// (tests/java/Murmur2Cli) and its "consistent" constants with the crc32 tool.
func TestPartitionersLibrdkafka0048(t *testing.T) {
	const n = 17
	tests := []struct {
		name     string
		key      []byte
		wantJava uint32 // toPositive(murmur2) as librdkafka lists it
		wantCRC  uint32 // crc32 as librdkafka lists it
	}{
		{"nil", nil, 0x106e08d9, 0x0},
		{"empty", []byte(""), 0x106e08d9, 0x0},
		{"unaligned", []byte("123456"[1:]), 0x058d780f, 0xb1b451d7},
		{"long", []byte("this is another string with more length to it perhaps"), 0x4f7703da, 0xb0150df7},
		{"short", []byte("hejsan"), 0x5ec19395, 0xd077037e},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := JavaPartition(tt.key, n), int32(tt.wantJava%n); got != want {
				t.Errorf("JavaPartition(%q, %d) = %d, want %d", tt.key, n, got, want)
			}
			if got := uint32(toPositive(Murmur2(tt.key))); got != tt.wantJava {
				t.Errorf("toPositive(Murmur2(%q)) = %#08x, want %#08x", tt.key, got, tt.wantJava)
			}
			if got := crc32.ChecksumIEEE(tt.key); got != tt.wantCRC {
				t.Errorf("crc32(%q) = %#08x, want %#08x", tt.key, got, tt.wantCRC)
			}
			if got, want := CRC32Partition(tt.key, n), int32(tt.wantCRC%n); got != want {
				t.Errorf("CRC32Partition(%q, %d) = %d, want %d", tt.key, n, got, want)
			}
		})
	}
}

func TestJavaPartition(t *testing.T) {
	tests := []struct {
		key  string
		n    int32
		want int32
	}{
		// Kafka UtilsTest values through toPositive and % n by hand:
		// "21": -973932308 & 0x7fffffff = 1173551340.
		{"21", 1, 0},
		{"21", 6, 1173551340 % 6},
		{"21", 100, 1173551340 % 100},
		// "foobar": -790332482 & 0x7fffffff = 1357151166.
		{"foobar", 6, 1357151166 % 6},
		{"foobar", 24, 1357151166 % 24},
		// "abc": 479470107 is already positive.
		{"abc", 7, 479470107 % 7},
		// n = MaxInt32 exposes all 31 bits of toPositive(murmur2).
		{"a-little-bit-long-string", math.MaxInt32, -985981536 & 0x7fffffff},
		{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", math.MaxInt32, -58897971 & 0x7fffffff},
	}
	for _, tt := range tests {
		if got := JavaPartition([]byte(tt.key), tt.n); got != tt.want {
			t.Errorf("JavaPartition(%q, %d) = %d, want %d", tt.key, tt.n, got, tt.want)
		}
	}
}

func TestCRC32Partition(t *testing.T) {
	tests := []struct {
		name string
		key  []byte
		n    int32
		want int32
	}{
		{"nil key is partition 0", nil, 6, 0},
		{"empty key is partition 0", []byte{}, 6, 0},
		// The standard CRC-32 check value: crc32("123456789") = 0xcbf43926
		// = 3421780262. The high bit is set, so the unsigned modulo (2)
		// differs from a sign-masked one (0x4bf43926 % 10 = 4).
		{"check value unsigned modulo", []byte("123456789"), 10, 2},
		{"check value n=6", []byte("123456789"), 6, 3421780262 % 6},
		{"one partition", []byte("anything"), 1, 0},
		{"MaxInt32 partitions", []byte("123456789"), math.MaxInt32, int32(uint32(3421780262) % math.MaxInt32)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CRC32Partition(tt.key, tt.n); got != tt.want {
				t.Errorf("CRC32Partition(%q, %d) = %d, want %d", tt.key, tt.n, got, tt.want)
			}
		})
	}
}

func TestPartitionRangeAndPanics(t *testing.T) {
	for n := int32(1); n <= 64; n++ {
		for i := 0; i < 200; i++ {
			key := []byte{byte(i), byte(i >> 3), 'k', byte(n)}[:1+i%4]
			if p := JavaPartition(key, n); p < 0 || p >= n {
				t.Fatalf("JavaPartition(%q, %d) = %d out of range", key, n, p)
			}
			if p := CRC32Partition(key, n); p < 0 || p >= n {
				t.Fatalf("CRC32Partition(%q, %d) = %d out of range", key, n, p)
			}
		}
	}
	for _, n := range []int32{0, -1, math.MinInt32} {
		for name, f := range map[string]func([]byte, int32) int32{"JavaPartition": JavaPartition, "CRC32Partition": CRC32Partition} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s(_, %d) did not panic", name, n)
					}
				}()
				f([]byte("k"), n)
			}()
		}
	}
}
