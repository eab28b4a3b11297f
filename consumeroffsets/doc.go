// Package consumeroffsets decodes the records of Kafka's internal topic
// __consumer_offsets: the group coordinator's own log, where every offset
// commit and every change of a group's membership is a record.
//
// Decode takes one record's key and value and returns a Record: its Kind
// (from the key's first int16, its type), the group (and member) the key
// names, and one of the decoded values:
//
//   - OffsetCommit (key types 0 and 1): the committed offset of one partition.
//   - GroupMetadata (key type 2): a classic group's generation, its members
//     and, for protocol type "consumer", each member's assignment decoded.
//   - the KIP-848 consumer protocol's records (key types 3 to 8): the group
//     epoch, each member's metadata, the target assignment and each member's
//     current assignment (topics named by id).
//   - Kafka 4's share groups (KIP-932, key types 10 to 15), a consumer
//     group's resolved regular expressions (16) and Kafka Streams groups
//     (KIP-1071, 17 and 19 to 23): the same epochs, member metadata,
//     target and current assignments (a streams member's are tasks: a
//     subtopology and its partitions), a share group's initialized
//     partitions and a streams group's topology (groups4.go).
//
// A null value is a tombstone: the key's offset, group or member was
// deleted. Record.Tombstone says so and no value is decoded.
//
// Nothing is lost and nothing invented: a key type or a value version this
// package does not know, and bytes that do not decode, come back as a
// Record with the value's bytes in Raw and an error that says why
// (ErrUnknownType, ErrUnknownVersion, ErrMalformed, ErrTooLarge: past
// MaxKeyBytes, MaxValueBytes, MaxMembers or MaxTopics, counted before
// anything of that size is allocated), never a panic. Tally counts them.
//
// The classic records are read with franz-go's kmsg types; kmsg has no
// types for the newer records, so those are read here after Kafka's own
// message definitions (group-coordinator/src/main/resources/common/message
// in apache/kafka; for types 10 to 23, Kafka 4.4.0's generated classes,
// with test vectors Kafka 4.4 wrote), with every length and count bounded
// by the bytes left. Types 4 and 18 (partition metadata, no longer written
// by Kafka 4.4) are kept as bytes.
package consumeroffsets
