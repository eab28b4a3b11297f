-- name: spark_functions
-- summary: the functions topicsnap's SQL uses that Spark has not, as Spark
--          SQL functions of the session (DuckDB's are Go functions, see
--          functions.go): epoch, and Kafka's partitioners murmur2,
--          kafka_partition (the Java client's default: murmur2 with the sign
--          bit cleared, modulo the partition count) and kafka_partition_crc32
--          (librdkafka's "consistent": crc32 modulo the count). murmur2 works
--          on unsigned 32-bit values held in BIGINTs (a product of two of
--          them fits in 63 bits), masked after every multiplication; the
--          result is Java's signed int. A lambda may not call a session
--          function, so the loop spells its arithmetic out.
--          TestSparkPartitionersKafkaVectors
--          holds them to Kafka's and librdkafka's test vectors.
-- params: none; one statement per ";" at a line's end.
CREATE OR REPLACE TEMPORARY FUNCTION epoch(t TIMESTAMP) RETURNS DOUBLE
  RETURN unix_micros(t) / 1e6;
CREATE OR REPLACE TEMPORARY FUNCTION tsnap_murmur2_u(b BINARY) RETURNS BIGINT
  RETURN aggregate(
    transform(
      transform(
        transform(filter(sequence(0, octet_length(b) DIV 4), i -> i < octet_length(b) DIV 4),
                  i -> CAST(conv(hex(substring(b, 4 * i + 1, 4)), 16, 10) AS BIGINT)),
        be -> shiftleft(be & 255, 24) | shiftleft(shiftright(be, 8) & 255, 16) | shiftleft(shiftright(be, 16) & 255, 8) | (shiftright(be, 24) & 255)),
      w -> ((((w * 1540483477L) & 4294967295L) ^ shiftright((w * 1540483477L) & 4294967295L, 24)) * 1540483477L) & 4294967295L),
    2538058380L ^ CAST(octet_length(b) AS BIGINT),
    (h, k) -> ((h * 1540483477L) & 4294967295L) ^ k,
    h -> aggregate(array(CASE WHEN octet_length(b) % 4 = 0 THEN h
                   ELSE ((h ^ CASE WHEN octet_length(b) % 4 >= 3 THEN shiftleft(CAST(conv(hex(substring(b, octet_length(b) - octet_length(b) % 4 + 3, 1)), 16, 10) AS BIGINT), 16) ELSE 0L END
                           ^ CASE WHEN octet_length(b) % 4 >= 2 THEN shiftleft(CAST(conv(hex(substring(b, octet_length(b) - octet_length(b) % 4 + 2, 1)), 16, 10) AS BIGINT), 8) ELSE 0L END
                           ^ CAST(conv(hex(substring(b, octet_length(b) - octet_length(b) % 4 + 1, 1)), 16, 10) AS BIGINT)) * 1540483477L) & 4294967295L END),
                   0L, (z, t) -> (((t ^ shiftright(t, 13)) * 1540483477L) & 4294967295L) ^ shiftright(((t ^ shiftright(t, 13)) * 1540483477L) & 4294967295L, 15)));
CREATE OR REPLACE TEMPORARY FUNCTION murmur2(b BINARY) RETURNS INT
  RETURN CAST(CASE WHEN tsnap_murmur2_u(b) >= 2147483648L THEN tsnap_murmur2_u(b) - 4294967296L ELSE tsnap_murmur2_u(b) END AS INT);
CREATE OR REPLACE TEMPORARY FUNCTION kafka_partition(b BINARY, n INT) RETURNS INT
  RETURN CAST((tsnap_murmur2_u(b) & 2147483647L) % n AS INT);
CREATE OR REPLACE TEMPORARY FUNCTION kafka_partition_crc32(b BINARY, n INT) RETURNS INT
  RETURN CAST(crc32(b) % n AS INT);
