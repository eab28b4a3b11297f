package catalog

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// FormatVersion is the version of the manifest, cut and schema files this
// build writes and reads. A file with a newer version is refused.
const FormatVersion = 1

// FolderFormatVersion is the version of the folder's layout, written in its
// topicsnap.json; a folder with a newer one is refused whole.
//
//	1: cuts in snapshots/ID.json.
//	2: cuts kept by topic, in snapshots/topic=NAME/ID.json (1's are still
//	   read). A build that reads up to 1 would not see them, so a writer
//	   that opens a folder of version 1 marks it 2 before it writes
//	   anything (CreateAt): an older build then refuses the folder with
//	   ErrNewerFormat rather than answer without its newer cuts.
const FolderFormatVersion = 2

// TopicPartition names one partition of one topic.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s/%d", tp.Topic, tp.Partition) }

// OffsetRange is an inclusive range of offsets, First..Last.
type OffsetRange struct {
	First int64 `json:"first"`
	Last  int64 `json:"last"`
}

// Len is the number of offsets in the range.
func (r OffsetRange) Len() int64 { return r.Last - r.First + 1 }

// Header is one record header. Order and duplicates are kept; a null value
// stays null.
type Header struct {
	Key   string `parquet:"key"`
	Value []byte `parquet:"value,optional"`
}

// Timestamp types as Kafka defines them.
const (
	TimestampCreate    = "create"
	TimestampLogAppend = "log_append"
	// TimestampNone is a v0 message's (Kafka before 0.10): it has no
	// timestamp, and the row's timestamp is -1. Only imports write it.
	TimestampNone = "none"
	// TimestampUnknown is an import's that read the timestamp, or not even
	// that, without its type (kcat -f prints %T alone).
	TimestampUnknown = "unknown"
	ControlCommit    = "commit"
	ControlAbort     = "abort"
	TxnCommitted     = "committed"
	TxnAborted       = "aborted"
	TxnOpen          = "open" // no marker seen yet when the file was written
)

// MaxTimestampMillis bounds the record timestamps (ms) a data file holds
// as they are: DuckDB reads the timestamp column in microseconds, so a time
// further than this from 1970 (past the year 294,247; Kafka takes any
// int64, such as a producer's nanoseconds taken for milliseconds) would
// make every query of its topic fail ("Could not convert Timestamp(MS) to
// Timestamp(US)").
const MaxTimestampMillis = 9_223_372_036_854_000

// StoredTimestamp is timestamp ms as a data file stores it: itself, or
// past MaxTimestampMillis, that bound on its side (clamped true). Writers
// say so: the record is kept, its time is not.
func StoredTimestamp(ms int64) (stored int64, clamped bool) {
	switch {
	case ms > MaxTimestampMillis:
		return MaxTimestampMillis, true
	case ms < -MaxTimestampMillis:
		return -MaxTimestampMillis, true
	}
	return ms, false
}

// Row is one Kafka record as stored in Parquet: data records and transaction
// control markers alike. Key and Value are the exact bytes; nil is null, which
// is not the same as empty.
type Row struct {
	Partition     int32    `parquet:"partition,delta"`
	Offset        int64    `parquet:"offset,delta"`
	Timestamp     int64    `parquet:"timestamp,timestamp(millisecond),delta"`
	TimestampType string   `parquet:"timestamp_type,dict"`
	Key           []byte   `parquet:"key,optional"`
	Value         []byte   `parquet:"value,optional"`
	Headers       []Header `parquet:"headers,list"`
	LeaderEpoch   int32    `parquet:"leader_epoch,delta"`
	ProducerID    int64    `parquet:"producer_id,delta"`
	ProducerEpoch int32    `parquet:"producer_epoch,delta"`
	Transactional bool     `parquet:"is_transactional"`
	Control       bool     `parquet:"is_control"`
	// ControlType is "commit" or "abort" for a control marker, null otherwise.
	ControlType *string `parquet:"control_type,optional,dict"`
	// TxnState is "committed", "aborted" or "open" for records of a
	// transaction (data and markers), null for others. "open" means the
	// marker was not in the same file; readers resolve it from later markers.
	TxnState *string `parquet:"txn_state,optional,dict"`
	// SchemaID is the Confluent Schema Registry id of a wire-format value
	// (magic byte 0 then a 4-byte big-endian id), null otherwise.
	SchemaID *int32 `parquet:"schema_id,optional"`
	// ValueDecoded is a wire-format value decoded with its writer schema
	// (DIR/schemas/ID.json), as JSON text; null when it was not decoded.
	// Value keeps the exact bytes either way.
	ValueDecoded []byte `parquet:"value_decoded,optional,string"`
	// ValueDecodeError says why a wire-format value was not decoded (its
	// schema unknown or not reachable, its payload not decoding with it).
	ValueDecodeError *string `parquet:"value_decode_error,optional,dict"`
	// KeySchemaID, KeyDecoded and KeyDecodeError are the same for the key
	// (subject TOPIC-key): its schema id, its JSON text, why it was not
	// decoded. Key keeps the exact bytes either way.
	KeySchemaID    *int32  `parquet:"key_schema_id,optional"`
	KeyDecoded     []byte  `parquet:"key_decoded,optional,string"`
	KeyDecodeError *string `parquet:"key_decode_error,optional,dict"`
}

// Lost range kinds. The first two are a dump's (and an import's before the
// first offset present); the others only an import writes.
const (
	LostBeforeFirst = "expired-before-first-snapshot"
	LostBetween     = "expired-between-snapshots"
	// LostCompacted: offsets missing between or inside the batches of an
	// imported segment (the log cleaner removed their records).
	LostCompacted = "compacted"
	// LostDamaged: a batch an import could not read (CRC mismatch, over a
	// bound, torn by a crash mid-write); Reason says which.
	LostDamaged = "damaged"
	// LostNotInFile: offsets a kcat file passes over.
	LostNotInFile = "not-in-file"
)

// LostRange is a range of offsets Kafka had deleted (by retention or
// DeleteRecords) before topicsnap read them, or that an import did not
// find. It is recorded, never hidden.
type LostRange struct {
	Kind string `json:"kind"`
	// Reason says more where the kind alone does not (a damaged batch's
	// cause, with its file and byte range).
	Reason     string    `json:"reason,omitempty"`
	From       int64     `json:"from"`
	To         int64     `json:"to"` // inclusive
	DetectedAt time.Time `json:"detected_at"`
	Snapshot   string    `json:"snapshot"`
}

// FileEntry is one committed Parquet file.
type FileEntry struct {
	Name           string `json:"name"`
	FirstOffset    int64  `json:"first_offset"`
	LastOffset     int64  `json:"last_offset"`
	Records        int64  `json:"records"` // rows in the file (data + control)
	ControlRecords int64  `json:"control_records"`
	// OpenTxnRecords counts rows of transactions whose marker was not in
	// this file (txn_state "open"); readers resolve them from later markers.
	OpenTxnRecords int64 `json:"open_txn_records,omitempty"`
	MinTimestamp   int64 `json:"min_timestamp_ms"`
	MaxTimestamp   int64 `json:"max_timestamp_ms"`
	// MaxRecordBytes is an upper bound of the largest record's size: its
	// key, value and headers' bytes, with 10 bytes a header (RecordBytes).
	// A restore whose target takes records that large reads no file to
	// check them (restore's checkLimits). 0: not recorded (a file written
	// before it was, or a merge of one): the file is read to check.
	MaxRecordBytes int64 `json:"max_record_bytes,omitempty"`
	// SchemaIDs are the schema ids of the file's wire-format values; the
	// folder stores each in schemas/ID.json (catalog verify names those it
	// lacks). Decoded and DecodeErrors count the values decoded with them
	// and those that were not.
	SchemaIDs    []int32 `json:"schema_ids,omitempty"`
	Decoded      int64   `json:"decoded,omitempty"`
	DecodeErrors int64   `json:"decode_errors,omitempty"`
	// KeySchemaIDs, KeysDecoded and KeyDecodeErrors are the same for the
	// file's wire-format keys.
	KeySchemaIDs    []int32 `json:"key_schema_ids,omitempty"`
	KeysDecoded     int64   `json:"keys_decoded,omitempty"`
	KeyDecodeErrors int64   `json:"key_decode_errors,omitempty"`
	// Typed says which typed column holds which top-level field of the
	// file's decoded values (see Typed); nil for a file written without
	// typed columns (undecoded values, or a dump older than them).
	Typed     *TypedColumns `json:"typed,omitempty"`
	Bytes     int64         `json:"bytes"`
	Snapshot  string        `json:"snapshot"`
	WrittenAt time.Time     `json:"written_at"`
	// Source is where an imported file's records were read: a segment
	// file's or a kcat file's path as given, and the byte range
	// [SourceFrom, SourceUntil) of it. Empty for a dump's files.
	Source      string `json:"source,omitempty"`
	SourceFrom  int64  `json:"source_from,omitempty"`
	SourceUntil int64  `json:"source_until,omitempty"`
	// History is the version of the partition's log the file was dumped
	// from: 0 until the dump first noticed the log rewritten under it (see
	// Rewrite), then one more for each rewrite. A file of history N > 0 is
	// named FIRST-LAST.hN.parquet (FileNameIn), so that the versions of the
	// same offsets never share a name.
	History int `json:"history,omitempty"`
	// LastLeaderEpoch is the leader epoch of the file's last record, which
	// the next dump asks the leader about (OffsetForLeaderEpoch, KIP-320)
	// before it appends; nil in files written before it was recorded.
	LastLeaderEpoch *int32 `json:"last_leader_epoch,omitempty"`
}

// Rewrite kinds.
const (
	// RewriteTruncated: the leader no longer has the history the folder
	// holds: asked for the leader epoch of the last record dumped
	// (OffsetForLeaderEpoch, KIP-320), it ends that epoch before the next
	// offset to dump, or does not know the epoch. An unclean leader
	// election, or a leader that lost its tail, did this.
	RewriteTruncated = "truncated"
	// RewriteEndBack: the log's end offset went below the next offset to
	// dump, or its start went back below where it was (a topic deleted
	// and made again, its offsets reused).
	RewriteEndBack = "end-moved-back"
	// RewriteRecreated: the topic's id changed since the last dump: it
	// was deleted and made again under the same name, and every offset
	// the folder holds may be another record now.
	RewriteRecreated = "topic-recreated"
)

// Rewrite is one divergence the dump noticed: offsets First..Last (both
// inclusive) were dumped from one history of the log, and Kafka now holds
// other records at (some of) them. Both versions are kept: the files of
// the old history at or after Redumped are moved to Manifest.Superseded,
// and the dump reads the new history from Redumped on, in files of
// history History.
type Rewrite struct {
	Kind  string `json:"kind"`
	First int64  `json:"first"` // first offset the new history may differ at
	Last  int64  `json:"last"`  // last offset the folder had dumped from the old history
	// Redumped is where the dump read the log again: First, or the first
	// offset of the file First fell in (a file is superseded whole).
	Redumped int64 `json:"redumped"`
	// OldEpoch is the leader epoch of the last record dumped (-1 when no
	// file recorded it); NewEpoch the partition's leader epoch at the cut
	// that noticed it; EpochEnd what the leader answered for OldEpoch (-1:
	// unknown epoch).
	OldEpoch   int32     `json:"old_leader_epoch"`
	NewEpoch   int32     `json:"new_leader_epoch"`
	EpochEnd   int64     `json:"epoch_end_offset"`
	History    int       `json:"history"` // the history the new files belong to
	DetectedAt time.Time `json:"detected_at"`
	Snapshot   string    `json:"snapshot"`
	// SupersededLost are the lost ranges recorded at or after Redumped in
	// the old history, moved here from Manifest.Lost.
	SupersededLost []LostRange `json:"superseded_lost,omitempty"`
}

// Len is the number of offsets the rewrite covers.
func (r Rewrite) Len() int64 { return r.Last - r.First + 1 }

// PartitionSnapshot records what one snapshot did to one partition. A dump
// whose snapshot finds nothing new in a partition writes none (its
// manifest stays as it was): the snapshot's cut (ClusterSnapshot.Dumped
// and Partitions) records it.
type PartitionSnapshot struct {
	ID            string    `json:"id"`
	AsOf          time.Time `json:"as_of"`
	LogStart      int64     `json:"log_start_offset"`
	HighWatermark int64     `json:"high_watermark"`
	LastStable    int64     `json:"last_stable_offset"`
	From          int64     `json:"from"`  // first offset this snapshot asked for
	Until         int64     `json:"until"` // exclusive end this snapshot dumped to
	Complete      bool      `json:"complete"`
	// Imported says an import, not a dump, wrote this snapshot, and from
	// what ("segments", "kcat"). Its LogStart is the first offset present
	// in what was imported; HighWatermark and LastStable are -1: no broker
	// said them.
	Imported string `json:"imported,omitempty"`
	// Note says what the import could not record (compacted holes past
	// the manifest's bound of lost ranges).
	Note string `json:"note,omitempty"`
	// TopicID is the topic's id at the cut (base64), empty when the
	// cluster gave none: a topic made again under the same name has
	// another one.
	TopicID string `json:"topic_id,omitempty"`
}

// Manifest is the committed state of one topic-partition.
type Manifest struct {
	FormatVersion int                 `json:"format_version"`
	Topic         string              `json:"topic"`
	Partition     int32               `json:"partition"`
	NextOffset    int64               `json:"next_offset"` // next offset to dump; -1 when never dumped
	Files         []FileEntry         `json:"files"`
	Lost          []LostRange         `json:"lost"`
	Snapshots     []PartitionSnapshot `json:"snapshots"`
	// Rewrites are the divergences the dump noticed (see Rewrite), in the
	// order noticed; Superseded the files of the old histories, kept
	// beside Files (which hold one version of each offset: the current
	// history's).
	Rewrites   []Rewrite   `json:"rewrites,omitempty"`
	Superseded []FileEntry `json:"superseded,omitempty"`
	// Retired are data files compaction merged into another: no longer
	// listed in Files, never read by a reader that reads this manifest,
	// kept for a grace period for readers that read an older one, then
	// removed by a later compact. A dump's cleaning leaves them alone.
	Retired []RetiredFile `json:"retired,omitempty"`
	// Fence is a token a bucket's writer sets before it removes the
	// leftovers of a writer whose lock it took over (CleanPartition): it
	// makes the manifest's content, so its ETag, new, so that the other
	// writer's conditional write of the version before fails. Readers
	// ignore it.
	Fence string `json:"fence,omitempty"`
}

// RetiredFile is a data file compaction replaced, and since when.
type RetiredFile struct {
	Name      string    `json:"name"`
	RetiredAt time.Time `json:"retired_at"`
}

// History is the version of the log the next file belongs to.
func (m *Manifest) History() int {
	if n := len(m.Rewrites); n > 0 {
		return m.Rewrites[n-1].History
	}
	return 0
}

// AllFiles are the current history's files and the superseded ones: every
// data file the partition's folder holds.
func (m *Manifest) AllFiles() []FileEntry {
	if len(m.Superseded) == 0 {
		return m.Files
	}
	return append(append([]FileEntry(nil), m.Files...), m.Superseded...)
}

// RewrittenOffsets is how many offsets the rewrites cover (an offset
// rewritten twice counts twice; saturating, never overflowing).
func (m *Manifest) RewrittenOffsets() (n int64) {
	for _, r := range m.Rewrites {
		if n > math.MaxInt64-r.Len() {
			return math.MaxInt64
		}
		n += r.Len()
	}
	return n
}

// TP returns the manifest's topic-partition.
func (m *Manifest) TP() TopicPartition { return TopicPartition{m.Topic, m.Partition} }

// Records is the number of rows in all committed files.
func (m *Manifest) Records() (n int64) {
	for _, f := range m.Files {
		n += f.Records
	}
	return n
}

// Bytes is the size of all committed files.
func (m *Manifest) Bytes() (n int64) {
	for _, f := range m.Files {
		n += f.Bytes
	}
	return n
}

// ClusterSnapshot is the cluster's state for one topic at a snapshot's cut,
// written to DIR/snapshots/topic=NAME/ID.json (DIR/snapshots/ID.json in a
// folder written before cuts were kept by topic).
type ClusterSnapshot struct {
	FormatVersion     int       `json:"format_version"`
	ID                string    `json:"id"`
	Topic             string    `json:"topic"`
	AsOf              time.Time `json:"as_of"`
	Brokers           []string  `json:"brokers"`
	PartitionCount    int       `json:"partition_count"`
	ReplicationFactor int       `json:"replication_factor"`
	// TopicID is the topic's id (base64), empty when the cluster gave none.
	TopicID string            `json:"topic_id,omitempty"`
	Configs map[string]string `json:"configs"`
	// ConfigsError says why Configs is empty or partial (e.g. the principal
	// may not DESCRIBE_CONFIGS the topic); empty when they were read.
	ConfigsError string           `json:"configs_error,omitempty"`
	Partitions   []PartitionState `json:"partitions"`
	Groups       []GroupState     `json:"groups"`
	// GroupsError says why Groups may be incomplete (e.g. the principal may
	// not list every group or read their offsets); empty when every group
	// was read. Groups is then what could be read, not all there were.
	GroupsError string  `json:"groups_error,omitempty"`
	Dumped      []int32 `json:"dumped_partitions"`
}

// PartitionState is one partition's offsets and replicas at the cut.
type PartitionState struct {
	Partition     int32   `json:"partition"`
	LogStart      int64   `json:"log_start_offset"`
	HighWatermark int64   `json:"high_watermark"`
	LastStable    int64   `json:"last_stable_offset"`
	Leader        int32   `json:"leader"`
	LeaderEpoch   int32   `json:"leader_epoch"`
	Replicas      []int32 `json:"replicas"`
	ISR           []int32 `json:"isr"`
}

// GroupState is one consumer group with offsets on the topic, or one
// share group (KIP-932, ProtocolType "share") that reads it.
type GroupState struct {
	Group        string        `json:"group"`
	State        string        `json:"state"`
	Protocol     string        `json:"protocol"`
	ProtocolType string        `json:"protocol_type"`
	Offsets      []GroupOffset `json:"offsets"`
	Members      []GroupMember `json:"members"`
	// Share is a share group's state on each partition of the topic
	// (DescribeShareGroupOffsets). A share group commits no offsets: its
	// members acknowledge records one by one, so Offsets stays empty and
	// no consumer's lag is computed from Share.
	Share []ShareOffset `json:"share_offsets,omitempty"`
}

// ProtocolShare is GroupState.ProtocolType of a share group.
const ProtocolShare = "share"

// ShareOffset is a share group's state on one partition, as Kafka said
// it: StartOffset is the share-partition start offset (every record below
// it was acknowledged or archived; records at or past it may be in flight,
// acknowledged or not yet delivered), -1 when the group has none there
// yet; Lag is Kafka's count of the records from StartOffset on not yet
// acknowledged (KIP-1226), -1 when the broker did not say.
type ShareOffset struct {
	Partition   int32 `json:"partition"`
	StartOffset int64 `json:"start_offset"`
	LeaderEpoch int32 `json:"leader_epoch"`
	Lag         int64 `json:"lag"`
}

// GroupOffset is a committed offset of a group on one partition. Offset
// is what Kafka answered: a negative one (-1) is Kafka's "no committed
// offset" (kafka-consumer-groups shows "-"), kept as said; it is no
// position, and no lag or replay is ever computed from it (NoOffset).
type GroupOffset struct {
	Partition   int32  `json:"partition"`
	Offset      int64  `json:"offset"`
	LeaderEpoch int32  `json:"leader_epoch"`
	Metadata    string `json:"metadata"`
}

// NoOffset reports whether Kafka answered that the group has no committed
// offset on the partition (a negative offset, -1).
func (o GroupOffset) NoOffset() bool { return o.Offset < 0 }

// GroupMember is one member of a group and what it was assigned.
type GroupMember struct {
	MemberID   string  `json:"member_id"`
	InstanceID string  `json:"instance_id,omitempty"`
	ClientID   string  `json:"client_id"`
	Host       string  `json:"host"`
	Assigned   []int32 `json:"assigned_partitions"`
}

// MaxPartitionList bounds how many partitions a partition list ("0,3-5")
// may name, so that "0-2000000000" is refused rather than expanded.
const MaxPartitionList = 100_000

// ErrPartitionList marks a partition list that cannot be read.
var ErrPartitionList = errors.New("use a list of partitions such as 0,3-5")

// ParsePartitions reads a partition list such as "0,3-5" into a set; an
// empty list is nil (every partition). The error wraps ErrPartitionList.
func ParsePartitions(s string) (map[int32]bool, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[int32]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		lo, hi, isRange := strings.Cut(f, "-")
		a, err1 := strconv.ParseInt(strings.TrimSpace(lo), 10, 32)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.ParseInt(strings.TrimSpace(hi), 10, 32)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, fmt.Errorf("%q: %w", f, ErrPartitionList)
		}
		if b-a+1 > MaxPartitionList || len(out)+int(b-a+1) > MaxPartitionList {
			return nil, fmt.Errorf("%q names more than %d partitions: %w", f, MaxPartitionList, ErrPartitionList)
		}
		for p := a; p <= b; p++ {
			out[int32(p)] = true
		}
	}
	return out, nil
}

// RecordBytes is what FileEntry.MaxRecordBytes counts of a record: its key
// and value bytes, each header's key and value bytes and 10 more a header
// (its two lengths' varints, at most 5 bytes each).
func RecordBytes(key, value []byte, headers []Header) int64 {
	n := int64(len(key) + len(value))
	for _, h := range headers {
		n += int64(len(h.Key)+len(h.Value)) + 10
	}
	return n
}
