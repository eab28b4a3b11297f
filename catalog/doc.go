// Package catalog owns the on-disk layout of a snapshot folder. The folder is
// the source of truth: everything topicsnap knows about what was dumped can be
// rebuilt by reading it, and nothing else (no database, no cache) is trusted.
//
// A snapshot folder looks like this:
//
//	DIR/topicsnap.json                                  format version of the folder
//	DIR/topic=NAME/partition=N/manifest.json           what is committed for that partition
//	DIR/topic=NAME/partition=N/FIRST-LAST.parquet      records FIRST..LAST (inclusive, zero padded)
//	DIR/topic=NAME/partition=N/.lock                   held (flock) by the one dumper of N
//	DIR/snapshots/ID.json                               cluster state at a snapshot's cut
//
// Two types carry most of the meaning:
//
//   - [Row] is one Kafka record, data or control marker, exactly as it is
//     written to Parquet. Its column names (partition, offset, timestamp, key,
//     value, headers, ...) are the ones Spark's Kafka source and kcat use.
//   - [Manifest] lists, per topic-partition, the committed files, the next
//     offset to dump, the ranges Kafka had deleted before we read them
//     ([LostRange]) and the snapshots that touched the partition.
//
// Every write goes temp file → fsync → rename → fsync folder ([WriteFileAtomic]).
// A Parquet file is renamed into place before the manifest that names it is
// written, so a crash can leave an unlisted file (cleaned up by the next
// writer) but never a listed file that is incomplete. Readers only read files
// a manifest lists, never a glob.
//
// [Open] reads a folder and never writes: a path that does not exist, is a
// file, or holds other files and no topicsnap.json is [ErrNoCatalog], never
// an empty catalog. [Create] (the dump) makes one. [Dir.ReadTopic] reads a
// topic's manifests past a damaged one, which it names in
// [TopicManifests.Damaged]; [Dir.Manifests] is the all-or-nothing form.
//
// The same layout lives in a bucket, under s3://BUCKET/PREFIX ([OpenAt],
// [CreateAt]; s3.go), with the same promises kept by other means: a data
// file is uploaded whole (multipart above 16 MiB) before the manifest that
// lists it is replaced; a manifest is replaced only by a conditional PUT on
// the ETag this Dir read (If-Match; If-None-Match: * to create), so of two
// writers one commits and the other gets [ErrConflict]; the partition lock
// is an object created only if absent, with an owner and an expiry, renewed
// while held and taken over when stale. [Copy] moves a catalog between a
// folder and a bucket.
//
// This package is pure Go and never imports DuckDB or the Kafka client.
package catalog
