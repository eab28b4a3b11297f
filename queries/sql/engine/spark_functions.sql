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
--          tsnap_row_text(k, v) is DuckDB's text of row(k, v) for two BLOBs
--          (duplicates' default id): each BLOB's text is a byte 0x20-0x7E
--          other than " ' \ as itself, any other as \xHH; then, inside the
--          row, a text that is empty, null in any case, holds one of
--          ( ) , : = [ ] { } or starts or ends with a space is put in single
--          quotes with each \ doubled (such a text holds no quote); NULL is
--          NULL. One function of built-ins only (a SQL function in a lambda
--          is refused). TestSparkRowTextIsDuckDBs holds it to DuckDB's own
--          cast. tsnap_blob_text(b) is DuckDB's text of one BLOB (b::VARCHAR),
--          the same bytes rule (an id of key_raw in duplicates).
--          TestSparkFloatTextIsDuckDBs holds it to DuckDB's own cast.
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
CREATE OR REPLACE TEMPORARY FUNCTION tsnap_row_text(k BINARY, v BINARY) RETURNS STRING
  RETURN concat('(', array_join(transform(
    transform(array(k, v), b -> array_join(transform(filter(sequence(0, octet_length(b)), i -> i > 0),
      i -> CASE WHEN hex(substring(b, i, 1)) BETWEEN '20' AND '7E' AND hex(substring(b, i, 1)) NOT IN ('22', '27', '5C')
                THEN CAST(substring(b, i, 1) AS STRING) ELSE concat(chr(92), 'x', hex(substring(b, i, 1))) END), '')),
    t -> CASE WHEN t IS NULL THEN 'NULL'
      WHEN t = '' OR lower(t) = 'null' OR length(translate(t, '(),:=[]{}', '')) < length(t) OR startswith(t, ' ') OR endswith(t, ' ')
      THEN concat(chr(39), replace(t, chr(92), concat(chr(92), chr(92))), chr(39))
      ELSE t END), ', '), ')');
CREATE OR REPLACE TEMPORARY FUNCTION tsnap_blob_text(b BINARY) RETURNS STRING
  RETURN array_join(transform(filter(sequence(0, octet_length(b)), i -> i > 0),
    i -> CASE WHEN hex(substring(b, i, 1)) BETWEEN '20' AND '7E' AND hex(substring(b, i, 1)) NOT IN ('22', '27', '5C')
              THEN CAST(substring(b, i, 1) AS STRING) ELSE concat(chr(92), 'x', hex(substring(b, i, 1))) END), '');
