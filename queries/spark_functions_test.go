package queries

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestSparkPartitionersKafkaVectors holds Spark's murmur2, kafka_partition
// and kafka_partition_crc32 (sql/engine/spark_functions.sql) to Kafka's own
// test vectors (UtilsTest.testMurmur2), librdkafka's (every tail length,
// unaligned starts, empty) and to the Go partitioners DuckDB registers.
func TestSparkPartitionersKafkaVectors(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	if err := execScript(ctx, s, "sql/engine/spark_functions.sql"); err != nil {
		t.Fatal(err)
	}
	const unaligned = "PreAmbleWillBeRemoved,ThePrePartThatIs"
	tests := []struct {
		key  string
		want uint32 // Java's Utils.murmur2, as an unsigned 32-bit value; 0: not listed
	}{
		// Kafka's UtilsTest.testMurmur2.
		{"21", 0xc5f2f8ec},
		{"foobar", 0xd0e47bbe},
		{"a-little-bit-long-string", 0xc53b1da0},
		{"a-little-bit-longer-string", 0xa768c9c3},
		{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", 0xfc7d49cd},
		{"abc", 479470107},
		// librdkafka's unittest_murmur2: every tail length, unaligned, empty.
		{"kafka", 0xd067cf64},
		{"giberish123456789", 0x8f552b0c},
		{"1234", 0x9fc97b14},
		{"234", 0xe7c009ca},
		{"34", 0x873930da},
		{"4", 0x5a4b5ca1},
		{unaligned, 0x78424f1c},
		{unaligned[1:], 0x4a62b377},
		{unaligned[2:], 0xe0e4e09e},
		{unaligned[3:], 0x62b8b43f},
		{"", 0x106e08d9},
		// librdkafka's 0048-partitioner keys, and bytes that are not UTF-8.
		{"this is another string with more length to it perhaps", 0},
		{"hejsan", 0},
		{"\xff\x00\x80binary", 0},
	}
	var values []string
	for i, tt := range tests {
		key := []byte(tt.key)
		if tt.want != 0 && uint32(catalog.Murmur2(key)) != tt.want {
			t.Fatalf("the vector for %q is wrong: Go says %#08x", tt.key, uint32(catalog.Murmur2(key)))
		}
		k, err := s.Literal(key)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int32{1, 6, 17, 1000} {
			values = append(values, fmt.Sprintf("(%d, %s, %d)", i, k, n))
		}
	}
	// One statement: a query on Spark costs a second whatever its size.
	q := "SELECT i, n, murmur2(k) AS m, kafka_partition(k, n) AS p, kafka_partition_crc32(k, n) AS c FROM VALUES " +
		strings.Join(values, ", ") + " AS v(i, k, n) ORDER BY i, n"
	_, rows, err := s.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(values) {
		t.Fatalf("%d rows for %d keys and counts", len(rows), len(values))
	}
	for _, r := range rows {
		key, n := []byte(tests[r[0].(int32)].key), r[1].(int32)
		if r[2] != catalog.Murmur2(key) || r[3] != catalog.JavaPartition(key, n) || r[4] != catalog.CRC32Partition(key, n) {
			t.Errorf("%q on %d partitions: Spark murmur2 %v, kafka_partition %v, crc32 %v; want %d, %d, %d",
				key, n, r[2], r[3], r[4], catalog.Murmur2(key), catalog.JavaPartition(key, n), catalog.CRC32Partition(key, n))
		}
	}
}

// TestSparkRowTextIsDuckDBs holds Spark's tsnap_row_text (duplicates'
// default id, shown) to DuckDB's own text of row(k, v) for two BLOBs, on
// keys and values made to meet every rule: each byte value, the characters
// that make DuckDB quote a text inside a row, spaces at either end, empty,
// "null" in any case, NULL; and tsnap_blob_text to DuckDB's text of one
// BLOB.
func TestSparkRowTextIsDuckDBs(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	if err := execScript(ctx, s, "sql/engine/spark_functions.sql"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := catalog.Create(dir); err != nil {
		t.Fatal(err)
	}
	duck, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	rnd := rand.New(rand.NewPCG(17, 4))
	special := []byte(" (),:=[]{}\\'\"nulNUL\x00\xff\t\nabc")
	var blobs [][]byte
	for b := 0; b < 256; b++ {
		blobs = append(blobs, []byte{byte(b)}, []byte{'a', byte(b), 'z'})
	}
	blobs = append(blobs, nil, []byte{}, []byte("null"), []byte("NULL"), []byte("Null"), []byte(" "), []byte("a b"),
		[]byte(" lead"), []byte("trail "), []byte(`{"a": 1, "b": [2, 3]}`), []byte("x\\y"))
	for i := 0; i < 300; i++ {
		b := make([]byte, rnd.IntN(9))
		for j := range b {
			if rnd.IntN(2) == 0 {
				b[j] = special[rnd.IntN(len(special))]
			} else {
				b[j] = byte(rnd.IntN(256))
			}
		}
		blobs = append(blobs, b)
	}
	var duckVals, sparkVals []string
	for i := range blobs {
		k, v := blobs[i], blobs[(i*7+3)%len(blobs)]
		dk, dv := "NULL::BLOB", "NULL::BLOB"
		if k != nil {
			dk = fmt.Sprintf("unhex('%x')", k)
		}
		if v != nil {
			dv = fmt.Sprintf("unhex('%x')", v)
		}
		duckVals = append(duckVals, fmt.Sprintf("(%d, %s, %s)", i, dk, dv))
		sk, err := s.Literal(k)
		if err != nil {
			t.Fatal(err)
		}
		sv, err := s.Literal(v)
		if err != nil {
			t.Fatal(err)
		}
		if k == nil {
			sk = "CAST(NULL AS BINARY)"
		}
		if v == nil {
			sv = "CAST(NULL AS BINARY)"
		}
		sparkVals = append(sparkVals, fmt.Sprintf("(%d, %s, %s)", i, sk, sv))
	}
	// tsnap_blob_text(k) is DuckDB's k::VARCHAR (duplicates --id key_raw,
	// shown): Spark's CAST showed \xFF\xFEk as two U+FFFD and a k.
	for _, f := range []struct{ duck, spark string }{
		{"row(k, v)::VARCHAR", "tsnap_row_text(k, v)"},
		{"coalesce(k::VARCHAR, 'NULL')", "coalesce(tsnap_blob_text(k), 'NULL')"},
	} {
		rows, err := duck.Query(ctx, "SELECT "+f.duck+" FROM (VALUES "+strings.Join(duckVals, ", ")+") AS t(i, k, v) ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for rows.Next() {
			var x string
			if err := rows.Scan(&x); err != nil {
				t.Fatal(err)
			}
			want = append(want, x)
		}
		rows.Close()
		_, got, err := s.Query(ctx, "SELECT "+f.spark+" FROM VALUES "+strings.Join(sparkVals, ", ")+" AS t(i, k, v) ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows on Spark, %d on DuckDB", f.spark, len(got), len(want))
		}
		bad := 0
		for i := range want {
			if got[i][0] != want[i] {
				if bad++; bad <= 10 {
					t.Errorf("%s of (%q, %q): Spark %q, DuckDB %q", f.spark, blobs[i], blobs[(i*7+3)%len(blobs)], got[i][0], want[i])
				}
			}
		}
	}
}
