// Command dumpproto is a throwaway prototype for the dump benchmarks, NOT
// the product: a stripped-down copy of dump's read→write pipeline (one
// client, direct assignment, one writer goroutine per partition, files
// written with the product's own catalog.WriteDataFile and committed with
// catalog.WriteManifest) with the knobs that the profile of `topicsnap dump`
// points at, so their effect can be measured before anyone changes package
// dump:
//
//	--fetch-max-bytes / --fetch-max-partition-bytes  (dump: 64 MiB / 16 MiB)
//	--queue         batches buffered per partition between reader and writer (dump: 64)
//	--reuse-rows    keep the []catalog.Row between files instead of
//	                re-growing it from zero for every file (dump: false)
//	--file-bytes / --file-rows                       (dump: 48 MiB / 512Ki rows)
//
// It handles no transactions, lost ranges or resumption; it reads every
// partition from its log start to the high watermark at start.
//
//	go build -o /tmp/dumpproto ./scripts/benchtools/dumpproto
//	/tmp/dumpproto --brokers 127.0.0.1:39192 --topic bench --dir /tmp/proto-snap
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
)

type writer struct {
	tp        catalog.TopicPartition
	until     int64
	in        chan []*kgo.Record
	rows      []catalog.Row
	rowBytes  int64
	manifest  *catalog.Manifest
	finished  bool
	fileRows  int
	fileBytes int64
	reuse     bool
}

func main() {
	brokers := flag.String("brokers", "127.0.0.1:39192", "bootstrap brokers")
	topic := flag.String("topic", "bench", "topic")
	dirPath := flag.String("dir", "", "output folder (required, fresh)")
	fetchMax := flag.Int("fetch-max-bytes", 64<<20, "FetchMaxBytes")
	partMax := flag.Int("fetch-max-partition-bytes", 16<<20, "FetchMaxPartitionBytes")
	queue := flag.Int("queue", 64, "batches buffered per partition between reader and writer")
	reuse := flag.Bool("reuse-rows", false, "reuse the row slice between files")
	fileRows := flag.Int("file-rows", 512*1024, "roll a file after this many rows")
	fileBytes := flag.Int64("file-bytes", 48<<20, "roll a file after this many bytes (key+value+64 per row)")
	flag.Parse()
	if *dirPath == "" {
		fatalf("--dir is required")
	}
	start := time.Now()
	ctx := context.Background()
	dir, err := catalog.Create(*dirPath)
	if err != nil {
		fatalf("%v", err)
	}
	admCl, err := kgo.NewClient(kgo.SeedBrokers(*brokers))
	if err != nil {
		fatalf("%v", err)
	}
	adm := kadm.NewClient(admCl)
	starts, err := adm.ListStartOffsets(ctx, *topic)
	if err != nil {
		fatalf("%v", err)
	}
	ends, err := adm.ListEndOffsets(ctx, *topic)
	if err != nil {
		fatalf("%v", err)
	}
	admCl.Close()
	snapID := catalog.NewSnapshotID(time.Now().UTC())

	writers := map[int32]*writer{}
	assign := map[int32]kgo.Offset{}
	ends.Each(func(o kadm.ListedOffset) {
		s, _ := starts.Lookup(o.Topic, o.Partition)
		if o.Offset <= s.Offset {
			return
		}
		tp := catalog.TopicPartition{Topic: *topic, Partition: o.Partition}
		m, err := dir.ReadManifest(tp)
		if err != nil {
			fatalf("%v", err)
		}
		writers[o.Partition] = &writer{tp: tp, until: o.Offset, in: make(chan []*kgo.Record, *queue), manifest: m,
			fileRows: *fileRows, fileBytes: *fileBytes, reuse: *reuse}
		assign[o.Partition] = kgo.NewOffset().At(s.Offset)
	})

	var records, files, diskBytes atomic.Int64
	var wg sync.WaitGroup
	for _, w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for recs := range w.in {
				for _, r := range recs {
					w.add(r)
					if len(w.rows) >= w.fileRows || w.rowBytes >= w.fileBytes {
						w.flush(dir, snapID, &files, &diskBytes)
					}
				}
				records.Add(int64(len(recs)))
			}
			w.flush(dir, snapID, &files, &diskBytes)
		}()
	}

	cl, err := kgo.NewClient(
		kgo.SeedBrokers(*brokers),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{*topic: assign}),
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()),
		kgo.KeepControlRecords(),
		kgo.FetchMaxBytes(int32(*fetchMax)),
		kgo.FetchMaxPartitionBytes(int32(*partMax)),
		kgo.FetchMaxWait(500*time.Millisecond),
	)
	if err != nil {
		fatalf("%v", err)
	}
	remaining := len(assign)
	for remaining > 0 {
		fetches := cl.PollFetches(ctx)
		fetches.EachError(func(t string, p int32, err error) { fatalf("fetch %s/%d: %v", t, p, err) })
		fetches.EachPartition(func(fp kgo.FetchTopicPartition) {
			w := writers[fp.Partition]
			if w == nil || w.finished || len(fp.Records) == 0 {
				return
			}
			recs := fp.Records
			n := sort.Search(len(recs), func(i int) bool { return recs[i].Offset >= w.until })
			if n > 0 {
				w.in <- recs[:n]
			}
			if n < len(recs) || recs[n-1].Offset >= w.until-1 {
				w.finished = true
				remaining--
				close(w.in)
				cl.RemoveConsumePartitions(map[string][]int32{*topic: {fp.Partition}})
			}
		})
	}
	cl.Close()
	wg.Wait()
	secs := time.Since(start).Seconds()
	fmt.Printf("records=%d files=%d bytes=%d seconds=%.3f rate=%.0f/s\n", records.Load(), files.Load(), diskBytes.Load(), secs, float64(records.Load())/secs)
}

func (w *writer) add(r *kgo.Record) {
	row := catalog.Row{
		Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp.UnixMilli(),
		TimestampType: catalog.TimestampCreate, Key: r.Key, Value: r.Value,
		LeaderEpoch: r.LeaderEpoch, ProducerID: r.ProducerID, ProducerEpoch: int32(r.ProducerEpoch),
		Transactional: r.Attrs.IsTransactional(), Control: r.Attrs.IsControl(),
	}
	if r.Attrs.TimestampType() == 1 {
		row.TimestampType = catalog.TimestampLogAppend
	}
	if len(r.Headers) > 0 {
		row.Headers = make([]catalog.Header, len(r.Headers))
		for i, h := range r.Headers {
			row.Headers[i] = catalog.Header{Key: h.Key, Value: h.Value}
		}
	}
	if v := r.Value; !row.Control && len(v) >= 5 && v[0] == 0 {
		id := int32(binary.BigEndian.Uint32(v[1:5]))
		row.SchemaID = &id
	}
	w.rowBytes += int64(len(r.Key)+len(r.Value)) + 64
	w.rows = append(w.rows, row)
}

func (w *writer) flush(dir *catalog.Dir, snapID string, files, diskBytes *atomic.Int64) {
	if len(w.rows) == 0 {
		return
	}
	fe, err := dir.WriteDataFile(w.tp, w.rows, snapID)
	if err != nil {
		fatalf("%v", err)
	}
	w.manifest.Files = append(w.manifest.Files, fe)
	w.manifest.NextOffset = fe.LastOffset + 1
	if err := dir.WriteManifest(w.manifest); err != nil {
		fatalf("%v", err)
	}
	files.Add(1)
	diskBytes.Add(fe.Bytes)
	if w.reuse {
		clear(w.rows) // drop the references to the fetched buffers
		w.rows = w.rows[:0]
	} else {
		w.rows = w.rows[:0:0] // what dump does today
	}
	w.rowBytes = 0
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "dumpproto: "+format+"\n", args...)
	os.Exit(1)
}
