// Package segments reads Kafka's own on-disk log, with no broker: the
// .log segment files of a partition folder (TOPIC-N/) and their
// .txnindex, and the lines of kcat -C -J, and imports them into a
// snapshot folder as a dump would have written them.
//
// The segments lie on the disk or in a bucket (s3:// PATHs, read through
// a [Bucket]: its objects listed once under the prefix, each segment read
// by 8 MiB ranges).
//
// A [Scanner] decodes one segment file batch by batch: record batches of
// magic 2 (header read with franz-go's kmsg.RecordBatch, CRC-32C checked,
// records decompressed with the libraries franz-go uses: gzip, snappy raw
// or xerial-framed, lz4, zstd) and the message sets of magic 0 and 1 that
// Kafka before 0.11 wrote (CRC-32 checked; compressed wrappers unwrapped,
// their relative offsets made absolute). Kafka 4 cannot write v0/v1, so
// their tests use segments made by code.
//
// Every byte is read as hostile. A batch longer than the file or than
// Limits.MaxBatchBytes, a CRC that does not match, a record count, header
// count or field length past the bytes that hold it, offsets out of their
// batch, a decompression past Limits.MaxDecompressed (a zip bomb), or
// records and headers that take more than it in memory once decoded is a
// [Damage]: that batch is lost, with its reason, and the scan goes on with
// the next one. Only a header that cannot say where the next batch starts
// (a length shorter than any batch's, a file that ends inside a batch: a
// crash mid-write) ends the file, as a fatal Damage (Torn for the latter).
//
// [Import] writes what a Scanner reads with the dump's commit protocol (a
// Parquet file committed, then the manifest that lists it; see sink.go):
// a first pass reads the markers (headers only for data batches) and the
// .txnindex files, so the second can mark each transactional record
// committed, aborted or, when no marker was imported, open. Offsets no
// batch holds are lost ranges: damaged (with the reason), compacted, or
// before the first segment. The log start a log directory's
// log-start-offset-checkpoint records ([ParseCheckpoint]) ends what is
// imported from below: records under it (DeleteRecords, retention) may
// still be on disk, but their offsets are a lost range whose reason says
// deleted and names the file. Each manifest entry names its source file and
// byte range; a partition snapshot is recorded only when something changed,
// so importing the same segments twice changes nothing. No watermark, group
// state or cluster snapshot is invented.
//
// [ImportKcat] does the same for the lines of kcat -C -J, whose gaps are
// lost ranges not-in-file and whose missing columns are said ([KcatLacks]),
// and for the output of kcat -C -f FORMAT: [ParseKcatFormat] makes the
// format a reader, refusing one whose output cannot be read back without
// guessing; a message's key or value is read by the length before it, or
// up to the text after it (one such field at most, each place that text
// occurs tried until the rest of the message reads); lines that do not
// match are counted; [KcatFormat.Lacks] says what the format does not
// carry.
package segments
