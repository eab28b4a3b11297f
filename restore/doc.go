// Package restore produces a snapshot folder's committed records back into
// a Kafka topic, exactly once: Run(ctx, Options) returns a Summary.
//
// What a run does, one file a concern:
//
//   - restore.go: Run, which does the steps below in order;
//   - options.go: the options, --partitions, --from, --until and
//     --compression checked before anything is opened;
//   - source.go: what the folder holds of the source topic (its manifests
//     and newest cluster snapshot), and the scan of its data files: only
//     the columns a record is made of are read, every row is held to its
//     file's manifest entry (catalog.RowCheck), markers and records of
//     aborted transactions are counted and left out, and a partition stops
//     at a transaction no marker decides, as a read_committed consumer does;
//   - target.go: the target topic: one with fewer partitions than the
//     source is refused (TargetError, exit 12) before anything is
//     produced; a missing one is created from the snapshot's configs,
//     adjusted to this cluster (and said); the source topic itself, still
//     holding the records, is refused unless named (SameTopicError);
//   - limits.go: the target's max.message.bytes and timestamp window: the
//     producers' batch limit, the window a new target is created with, and
//     the read of every planned record before anything is produced that
//     refuses a target that would refuse one (LimitError, exit 12), and a
//     record whose timestamp franz-go's producer cannot write (before 1677,
//     after 2262: it counts time in int64 nanoseconds);
//   - plan.go: each partition's source range (the committed progress,
//     --from, --until, the stored end) and the sharing out of partitions
//     between the producers; a dry run (Options.DryRun) scans the plan and
//     produces nothing, creates nothing;
//   - holes.go: the offsets of a partition's planned range that no data
//     file holds, said before anything is produced (a lost range's, and on
//     a topic not compacted the others: a file taken out of the folder);
//   - unreachable.go: the bound on a cluster out of reach while producing
//     (Options.WaitUnreachable, UnreachableError, exit 3);
//   - txn.go and gate.go: the transactional producers, and the gate that
//     lets a transaction commit only whole data files;
//   - progress.go: the committed progress (offsets of consumer group
//     ID(target)) and what a caller's kafkaconn.Progress is told;
//   - summary.go: what a run did, as the command prints it;
//   - errors.go: the errors a run returns, each with its exit code and
//     hint (TargetError; refusals by the cluster's ACLs, naming the
//     operations to grant).
//
// Guarantees. Every partition's records go to the same partition number,
// with their key and value bytes (null stays null), headers in order and
// timestamps. Each of two producers (transactional ids TxnIDs(target))
// commits, in the same transaction as a batch of records, the next source
// offset of each of its partitions as the offsets of group ID(target): the
// records and the progress that counts them become visible together or
// not at all. The progress names the source topic and the target's topic
// id, so progress of another source is refused (ErrTarget) and that of a
// deleted and recreated target ignored.
//
// Resuming after a kill. A run killed at any instant leaves at most one
// open transaction per producer. The next run starts both producers,
// whatever partitions it restores; their first request fences every
// earlier producer of the same ids, and the broker aborts the open
// transactions (or completes one whose commit was already decided). Only
// then is the progress read (stable offsets only), and each partition
// starts from it. A run that is taken over by another is told so
// (ErrFenced). What it does not cover: a consumer reading read_uncommitted
// sees records of aborted transactions, as with any transactional producer.
//
// The Kafka client comes from package kafkaconn; the Parquet is read with
// catalog's reader, so the package builds without cgo.
package restore
