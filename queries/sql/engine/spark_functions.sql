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
--          tsnap_float_text(s) is DuckDB's text of a DOUBLE or a FLOAT
--          (x::VARCHAR: 1e+16, 12345678.0, 1e-05) from Spark's CAST(x AS
--          STRING) of it (Java's: 1.0E16, 1.2345678E7, 1.0E-5): its digits,
--          sign and exponent written again (tsnap_float_parse,
--          tsnap_float_digits, tsnap_float_render). Java 17's digits are
--          not always the shortest that read back, DuckDB's are: for those
--          few values the texts differ (9.999999999999999e+22 for 1e+23,
--          4.9e-324 for 5e-324, 1.00000003e+16 for the float 1e+16). Cutting
--          them to the shortest in SQL (17 round trips) made a what-if key
--          plan that took the 1 GiB server down.
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
CREATE OR REPLACE TEMPORARY FUNCTION tsnap_float_render(neg BOOLEAN, d STRING, x INT) RETURNS STRING
  RETURN concat(CASE WHEN neg THEN '-' ELSE '' END,
    CASE WHEN x < -4 OR x >= 16 THEN concat(substr(d, 1, 1), CASE WHEN length(d) > 1 THEN concat('.', substr(d, 2)) ELSE '' END,
                                           'e', CASE WHEN x < 0 THEN '-' ELSE '+' END, CASE WHEN abs(x) < 10 THEN '0' ELSE '' END, CAST(abs(x) AS STRING))
         WHEN x < 0 THEN concat('0.', repeat('0', -x - 1), d)
         WHEN length(d) <= x + 1 THEN concat(d, repeat('0', x + 1 - length(d)), '.0')
         ELSE concat(substr(d, 1, x + 1), '.', substr(d, x + 2)) END);
CREATE OR REPLACE TEMPORARY FUNCTION tsnap_float_digits(neg BOOLEAN, raw STRING, x INT) RETURNS STRING
  RETURN CASE WHEN regexp_replace(raw, '^0+', '') = '' THEN CASE WHEN neg THEN '-0.0' ELSE '0.0' END
    ELSE tsnap_float_render(neg, regexp_replace(regexp_replace(raw, '^0+', ''), '0+$', ''),
                            x - (length(raw) - length(regexp_replace(raw, '^0+', '')))) END;
CREATE OR REPLACE TEMPORARY FUNCTION tsnap_float_parse(s STRING) RETURNS STRING
  RETURN tsnap_float_digits(startswith(s, '-'), replace(substring_index(regexp_replace(s, '^-', ''), 'E', 1), '.', ''),
    CASE WHEN s LIKE '%E%' THEN CAST(substring_index(s, 'E', -1) AS INT) ELSE 0 END
    + length(substring_index(substring_index(regexp_replace(s, '^-', ''), 'E', 1), '.', 1)) - 1);
CREATE OR REPLACE TEMPORARY FUNCTION tsnap_float_text(s STRING) RETURNS STRING
  RETURN CASE WHEN s = 'NaN' THEN 'nan' WHEN s = 'Infinity' THEN 'inf' WHEN s = '-Infinity' THEN '-inf'
    ELSE tsnap_float_parse(s) END;
