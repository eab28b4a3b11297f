package catalog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FormatVersion is the version of the folder layout and manifest schema this
// build writes and reads. A folder with a newer version is refused.
const FormatVersion = 1

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
	ControlCommit      = "commit"
	ControlAbort       = "abort"
	TxnCommitted       = "committed"
	TxnAborted         = "aborted"
	TxnOpen            = "open" // no marker seen yet when the file was written
)

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

// Lost range kinds.
const (
	LostBeforeFirst = "expired-before-first-snapshot"
	LostBetween     = "expired-between-snapshots"
)

// LostRange is a range of offsets Kafka had deleted (by retention or
// DeleteRecords) before topicsnap read them. It is recorded, never hidden.
type LostRange struct {
	Kind       string    `json:"kind"`
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
}

// PartitionSnapshot records what one snapshot did to one partition.
type PartitionSnapshot struct {
	ID            string    `json:"id"`
	AsOf          time.Time `json:"as_of"`
	LogStart      int64     `json:"log_start_offset"`
	HighWatermark int64     `json:"high_watermark"`
	LastStable    int64     `json:"last_stable_offset"`
	From          int64     `json:"from"`  // first offset this snapshot asked for
	Until         int64     `json:"until"` // exclusive end this snapshot dumped to
	Complete      bool      `json:"complete"`
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
	// Retired are data files compaction merged into another: no longer
	// listed in Files, never read by a reader that reads this manifest,
	// kept for a grace period for readers that read an older one, then
	// removed by a later compact. A dump's cleaning leaves them alone.
	Retired []RetiredFile `json:"retired,omitempty"`
}

// RetiredFile is a data file compaction replaced, and since when.
type RetiredFile struct {
	Name      string    `json:"name"`
	RetiredAt time.Time `json:"retired_at"`
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
// written to DIR/snapshots/ID.json.
type ClusterSnapshot struct {
	FormatVersion     int               `json:"format_version"`
	ID                string            `json:"id"`
	Topic             string            `json:"topic"`
	AsOf              time.Time         `json:"as_of"`
	Brokers           []string          `json:"brokers"`
	PartitionCount    int               `json:"partition_count"`
	ReplicationFactor int               `json:"replication_factor"`
	Configs           map[string]string `json:"configs"`
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

// GroupState is one consumer group with offsets on the topic.
type GroupState struct {
	Group        string        `json:"group"`
	State        string        `json:"state"`
	Protocol     string        `json:"protocol"`
	ProtocolType string        `json:"protocol_type"`
	Offsets      []GroupOffset `json:"offsets"`
	Members      []GroupMember `json:"members"`
}

// GroupOffset is a committed offset of a group on one partition.
type GroupOffset struct {
	Partition   int32  `json:"partition"`
	Offset      int64  `json:"offset"`
	LeaderEpoch int32  `json:"leader_epoch"`
	Metadata    string `json:"metadata"`
}

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
