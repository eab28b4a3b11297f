// Package queries turns a snapshot folder into a database: an in-memory
// DuckDB whose views read exactly the Parquet files the catalog's manifests
// list, never a glob. DuckDB holds nothing of its own: it is rebuilt from the
// folder on Open and on Refresh, so a dump can run while queries read.
//
// For each topic T there are two views:
//
//   - "T$all": every stored row, data records and transaction markers alike,
//     with key (text when UTF-8) and key_raw, value (a STRUCT inferred from
//     the data for JSON topics, the bytes otherwise) and value_raw, headers,
//     producer and transaction columns.
//   - "T": what a user means by the topic: committed data records once each
//     (no control markers, no records of aborted transactions).
//
// Both read the current history of the log. A topic the dump found
// rewritten under the folder (catalog.Rewrite) also has "T$superseded":
// every stored row of the old histories' files (DuckDB only).
//
// A JSON topic's value is parsed at query time (from_json). Before a query
// runs, its syntax tree (DuckDB's json_serialize_sql) is read and, when every
// use of value is a field access such as value.event_id, the structure is
// narrowed to those fields for that query alone (narrow.go): DuckDB then
// builds one field per record instead of all of them. A query of exactly one
// field reads it with json_extract_string (or from_json of the one member)
// through TEMP views on its own connection, at the speed of DuckDB's own
// JSON path functions, with the same answers.
//
// An engine opened with Lazy (one-shot `topicsnap sql -c`) builds a topic's
// views and a catalog table only when a query names them (lazy.go): a short
// query then pays for DuckDB's start and the one view it reads, not for the
// whole catalog.
//
// Metadata tables come from the catalog: snapshots, files (with history and
// superseded), rewrites, partitions, topic_configs, group_offsets,
// group_members, lost_ranges, and the
// membership history derived from the cuts, group_history_cuts and
// group_commits (history.go), with the view group_history
// (sql/group_history.sql): the commit log's runs for a (topic, group) the
// log holds, the cuts' elsewhere. A folder holding a dump of __consumer_offsets
// also has the views group_log, group_commit_log, group_generations,
// group_log_coverage and group_log_history, the group coordinator's own log
// decoded (grouplog.go). The table macro lag_at(group, time) gives a
// group's lag at any moment the folder covers (sql/lag_at.sql).
//
// Kafka-aware scalar functions are registered from Go: murmur2(key),
// kafka_partition(key, n) (the Java client's default partitioner),
// kafka_partition_crc32(key, n) (librdkafka's consistent partitioner) and
// kafka_offsets_record(key, value) (a record of __consumer_offsets as JSON).
//
// An Engine opened with Locked set is safe for SQL typed by people who are
// not the operator: only the folder's files are readable, one read-only
// statement per request, configuration locked, memory and threads bounded
// and a timeout on every query.
//
// The DuckDB connection is made only in this package.
package queries
