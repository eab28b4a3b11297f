// Package dump copies Kafka topic partitions into a snapshot folder.
//
// A dump never joins a consumer group and never commits an offset: it reads
// partitions by direct assignment (kgo.ConsumePartitions) and keeps its
// position in the catalog's manifests. One run is a snapshot:
//
//  1. the cut: per partition, the log start offset, high watermark and last
//     stable offset are listed once, with the cluster's state (leaders,
//     replicas, configs, consumer groups and their members);
//  2. each partition is read from its manifest's next offset (or --from)
//     up to the high watermark of the cut, read-uncommitted with control
//     records kept, so transaction markers and aborted records are stored
//     and flagged, never silently dropped;
//  3. a writer goroutine per partition encodes Parquet files and commits
//     each one (file first, then manifest) so a crash at any instant
//     resumes with no offset duplicated and none skipped.
//
// A run of many topics takes their snapshots several at once (round.go):
// a cluster of small topics costs its fsyncs and the brokers' round trips,
// which overlap, rather than a fixed time a partition one after another.
//
// Offsets Kafka deleted before they were read are never skipped silently:
// the reader uses NoResetOffset, and every such range is written to the
// manifest as a catalog.LostRange.
//
// Two histories of a log are never merged: before appending to a partition
// the folder already holds, the dump asks its leader where the leader epoch
// of the last record dumped ends (OffsetForLeaderEpoch, KIP-320), compares
// the cut's end offset with the next offset to dump and the topic's id with
// the last cut's (rewrite.go). A log truncated after the dump (an unclean
// leader election) or a topic made again gets a catalog.Rewrite: the files
// of the old history from there on are kept as superseded, and the new
// records are dumped at the same offsets.
//
// How to reach the cluster (Conn, the client, the errors a user sees) is
// package kafkaconn's, shared with package restore, which does the way
// back: a snapshot folder produced into a topic. dump never imports
// restore. CreateTopic, Produce and CommitGroupOffsets (produce.go) make
// fixtures for the demo and the tests.
package dump
