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
//	DIR/snapshots/topic=NAME/ID.json                    cluster state of topic NAME at a snapshot's cut
//
// A topic's cuts are kept in its own folder so that a reader of one topic
// reads its cuts and no other's ([Dir.ClusterSnapshotsOf]): a cut holds
// everything about its topic (offsets, configs, and the groups with
// offsets on it, their members). A folder written before cuts were kept by
// topic holds them as DIR/snapshots/ID.json: they are read as they are
// (each parsed, since only its content says its topic), and the next cuts
// go to the topics' folders. A new folder of cuts is made with each
// folder on its way fsynced into its parent.
//
// Two types carry most of the meaning:
//
//   - [Row] is one Kafka record, data or control marker, exactly as it is
//     written to Parquet. Its column names (partition, offset, timestamp, key,
//     value, headers, ...) are the ones Spark's Kafka source and kcat use.
//   - [Manifest] lists, per topic-partition, the committed files, the next
//     offset to dump, the ranges Kafka had deleted before we read them
//     ([LostRange]) and the snapshots that touched the partition. Its Files
//     are one version of each offset, Kafka's current history; when the dump
//     found the log rewritten after it read it ([Rewrite]: a truncation, a
//     topic made again), the old history's files are kept in Superseded and
//     new files carry the next History (named FIRST-LAST.hN.parquet).
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
// # A folder is read as hostile
//
// A snapshot folder is often handed over from another machine, so its
// metadata is data someone else chose. Every metadata file is read through
// internal/safefile (opened inside the folder with os.Root, so a link
// leading out of it is refused; non-blocking, so a FIFO never hangs a
// reader; regular files only; size-capped before and during the read),
// and a bucket's objects by a capped GET (ContentLength, then a
// LimitReader): Store.Get takes the cap, the same per kind:
//
//	topicsnap.json        64 KiB   MaxFolderFileBytes
//	manifest.json         64 MiB   MaxManifestBytes (MaxManifestFiles, MaxManifestSnapshots, MaxLostRanges entries)
//	snapshots/…/ID.json   64 MiB   MaxSnapshotBytes
//	schemas/ID.json        8 MiB   MaxSchemaBytes
//	.etags.json           16 MiB   MaxETagsBytes (a copy's hint; skipped when unreadable)
//	a bucket's lock       64 KiB   MaxLockBytes
//
// Its JSON objects are counted before it is decoded (MaxManifestObjects,
// MaxSnapshotObjects, MaxSchemaObjects), as "{}" is two bytes of text and
// hundreds once decoded. Then it is validated: a manifest's topic and
// partition are its folder's, each file is named FIRST-LAST.parquet after
// its own offsets (one path element, inside the partition's folder),
// offsets are >= 0, files and lost ranges (both inclusive) are in order
// and do not overlap, so no length overflows, and counts are >= 0 and no
// larger than their range; a cluster snapshot's id is its file's name and
// one path element ([ValidSnapshotID]), its topic a topic name, and its
// folder's topic when it is in a topic's folder of cuts. A name
// read from inside a file never becomes a path unchecked ([ErrBadName]).
// What fails costs itself: [Dir.ReadTopic] names a damaged partition in
// [TopicManifests.Damaged] and [Dir.ClusterSnapshots] a damaged snapshot
// as a [SnapshotError], each by its path relative to the folder, never an
// absolute one; the rest stays readable. [Dir.ReadManifest] (the dump's
// read before it appends) returns the [ManifestError], so a damaged
// manifest is refused, never overwritten. The writers keep the same
// bounds, so a dump never commits a file the next reader refuses.
//
// # Where the objects live: one store interface
//
// A Dir knows the layout and the promises; where the bytes live is a
// [Store] (package catalog/store), one interface whose calls each take a
// context: Get (a small object whole, capped), Put (replace, or
// create-if-absent / replace-if-matching: store.Cond), List, Delete, Lock
// (the partition lock), TempFile + Place (a data file written locally,
// then committed whole), Upload (a data file streamed), Open (read a data
// file as a stream or at random), CheckData, Unfinished, and Vacant,
// Writable, Create for the root. Two backends implement it, each a package
// of its own:
//
//   - catalog/folder, a local folder: every write temp file → fsync →
//     rename → fsync folder, the lock a flock, every file read inside the
//     root through os.Root ([Open], [Create], or a Dir{Path: p} literal).
//   - catalog/bucket, s3://BUCKET/PREFIX ([OpenAt], [CreateAt]), the one
//     package that imports the AWS SDK. The same promises are kept by
//     other means: a data file is uploaded whole (multipart above 16 MiB)
//     before the manifest that lists it is replaced; a manifest is
//     replaced only by a conditional PUT on the ETag this Dir read
//     (If-Match; If-None-Match: * to create), so of two writers one
//     commits and the other gets [ErrConflict]; the partition lock is an
//     object created only if absent, with an owner and an expiry, renewed
//     while held and taken over when stale. It registers itself for s3://
//     when a program imports it ([Register], as a database/sql driver
//     does): cmd/topicsnap does, and so does each test that uses a bucket.
//     A program that does not (queries, server, dump) does not link the
//     SDK, and an s3:// location there is [ErrNoCatalog] saying so.
//
// A store's errors say their kind: a missing object wraps os.ErrNotExist;
// one that is there but unusable (not a regular file, past its cap, a
// link out) is marked store.Damaged, so the Dir names it as damaged and
// goes on; anything else (a bucket unreachable, access denied) stops the
// call. Every Dir method that reaches the store takes a context and
// passes it to the store, so that Ctrl-C ends every read and write; a Dir
// keeps none (the ctx OpenAt and CreateAt take bounds their own requests
// only). A lock in a bucket is renewed while the ctx LockPartition was
// given lasts.
//
// To add a backend (another object store, say): a package implementing
// store.Store over the same names (forward slashes, relative to its root),
// whose Put honours store.Cond if its writers are not kept apart by Lock,
// whose Lock fails at once with store.ErrLocked when held, and whose
// Place and Upload make a data file appear whole or not at all; then
// catalog.Register("scheme", open) in its init, and a test that runs the
// catalog's bucket tests (s3_test.go, compact_kill_test.go) against it.
// [Copy] moves a catalog between any two stores.
//
// [Dir.Compact] merges a partition's small files into large ones under its
// lock, every row copied column by column by the dump's writer, the merged
// file read back, then one manifest write (compact.go). The files it
// replaced are listed as [RetiredFile] for a grace period, so a reader of
// the older manifest still finds them; [Dir.CleanPartition] leaves them.
//
// This package is pure Go and never imports DuckDB, the Kafka client or
// the AWS SDK.
package catalog
