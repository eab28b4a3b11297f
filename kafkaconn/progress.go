package kafkaconn

import "github.com/topicsnap/topicsnap/catalog"

// Progress receives events while a dump or a restore runs; it must be safe
// for concurrent use.
//
//   - Start: a partition begins; a dump gives the offsets it reads from
//     and until, a restore 0 and the stored rows in its planned range
//     (the records it produces are fewer by markers and aborted ones).
//   - Advance: records and their bytes committed: a dump's file, a
//     restore's transaction.
//   - Done: a partition is finished.
//   - Waiting: what the client waits for (WaitHook: a broker it cannot
//     reach), so a wait does not look like a hang.
//   - Warn: something the run could not do but did not need (a dump that
//     cannot read the consumer groups: it is also in the snapshot) or
//     adjusted (a restore's target created with another config).
type Progress interface {
	Start(tp catalog.TopicPartition, from, until int64)
	Advance(tp catalog.TopicPartition, records, bytes int64)
	Done(tp catalog.TopicPartition)
	Waiting(what string)
	Warn(what string)
}
