package restore

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// Options of one restore.
type Options struct {
	Conn       kafkaconn.Conn
	Dir        string
	Topic      string // the source topic in Dir
	ToTopic    string // the target topic; empty is Topic
	Partitions string // "0,3-5"; empty is every partition in Dir
	From       string // first record: a source OFFSET or an RFC3339 time; empty is the first stored
	Until      string // exclusive end: a source OFFSET or an RFC3339 time; empty is the last stored
	DryRun     bool   // say what would be produced; produce nothing, create nothing
	// A transaction commits after TxnRecords records (default 500,000) or
	// TxnInterval (default 1s), whichever comes first, once the data files
	// it holds records of are read to their ends (see fileGate).
	TxnRecords  int
	TxnInterval time.Duration
	// Compression of the produced batches: lz4 (the default, when empty),
	// none, snappy, zstd or gzip. The broker stores a batch as it comes
	// (unless the target's compression.type names another codec), so none
	// costs the least CPU and the most network and disk.
	Compression string
	// WaitUnreachable bounds how long a restore waits for a cluster that
	// went out of reach while it produced (connections refused, or a
	// broker that answers nothing: hung, a network cut), counted from the
	// first request that failed; then it stops with UnreachableError
	// (kafkaconn.ErrUnreachable, exit 3), what it committed committed.
	// 0 waits without end (until ctx is done).
	WaitUnreachable time.Duration
	// Progress, if set, is told of records as their transaction commits
	// (by target partition); it must be safe for concurrent use.
	Progress kafkaconn.Progress
}

// restoreCodec is the producer's compression option of --compression:
// lz4 through lz4Compressor, the others franz-go's own.
func restoreCodec(name string) (kgo.Opt, error) {
	c, err := CompressionCodec(name)
	if err != nil {
		return nil, err
	}
	if c == kgo.Lz4Compression() {
		return kgo.WithCompressor(newLz4Compressor()), nil
	}
	return kgo.ProducerBatchCompression(c, kgo.NoCompression()), nil
}

// CompressionCodec is the produce codec a --compression value names: lz4
// (also for ""), none, snappy, zstd or gzip.
func CompressionCodec(name string) (kgo.CompressionCodec, error) {
	switch name {
	case "", "lz4":
		return kgo.Lz4Compression(), nil
	case "none":
		return kgo.NoCompression(), nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	case "gzip":
		return kgo.GzipCompression(), nil
	}
	return kgo.CompressionCodec{}, exit.Errorf(kafkaconn.ErrBadOption, "--compression %q: use lz4, none, snappy, zstd or gzip", name)
}

// restorePositions parses --from and --until: a source offset (0 or more)
// or an RFC3339 time; empty (or earliest / now) is no bound.
func restorePositions(from, until string) (kafkaconn.Position, kafkaconn.Position, error) {
	f, err := kafkaconn.ParsePosition("--from", from, "earliest")
	if err != nil {
		return f, f, err
	}
	u, err := kafkaconn.ParsePosition("--until", until, "now")
	if err != nil {
		return f, u, err
	}
	if f.IsOffset() && u.IsOffset() && f.Offset >= u.Offset || f.IsTime() && u.IsTime() && !f.At.Before(u.At) {
		return f, u, exit.Errorf(kafkaconn.ErrBadOption, "--from %s is not before --until %s (--until is exclusive), so nothing would be restored; give a --from before --until", f.Text, u.Text)
	}
	return f, u, nil
}

func checkRestorePartitions(opts Options, parts map[int32]bool, src *source) error {
	if parts == nil {
		return nil
	}
	have := map[int32]bool{}
	for _, m := range src.manifests {
		have[m.Partition] = true
	}
	var missing []string
	for p := range parts {
		if !have[p] {
			missing = append(missing, strconv.Itoa(int(p)))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	return exit.Errorf(kafkaconn.ErrBadOption, "--partitions %s: %s holds no partition %s of topic %s (it holds %d partitions)",
		opts.Partitions, opts.Dir, strings.Join(missing, ", "), opts.Topic, len(src.manifests))
}
