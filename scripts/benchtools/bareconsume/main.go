// Command bareconsume is the "how fast can franz-go read this topic at all"
// ceiling for scripts/bench-dump.sh: it assigns every partition directly (no
// group), reads each from its log start to the high watermark taken at
// start, discards the records and prints what it read. It is a bench tool,
// not part of the product.
//
// The fetch settings default to the ones topicsnap's dump uses, so the two
// differ only in what happens to a record after it is fetched.
//
// Output, one line: records=N bytes=B (key+value) seconds=S rate=R/s
// With --count-only it prints only the number of offsets in the topic.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	brokers := flag.String("brokers", "127.0.0.1:39192", "bootstrap brokers")
	topic := flag.String("topic", "bench", "topic")
	fetchMax := flag.Int("fetch-max-bytes", 16<<20, "FetchMaxBytes (topicsnap dump: 16 MiB)")
	partMax := flag.Int("fetch-max-partition-bytes", 4<<20, "FetchMaxPartitionBytes (topicsnap dump: 4 MiB)")
	countOnly := flag.Bool("count-only", false, "print the number of offsets between log start and high watermark, summed over partitions, and exit")
	flag.Parse()

	start := time.Now()
	ctx := context.Background()
	admCl, err := kgo.NewClient(kgo.SeedBrokers(*brokers), kgo.ClientID("topicsnap-bench-bareconsume"))
	if err != nil {
		fatalf("client: %v", err)
	}
	adm := kadm.NewClient(admCl)
	starts, err := adm.ListStartOffsets(ctx, *topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		fatalf("list start offsets: %v", err)
	}
	ends, err := adm.ListEndOffsets(ctx, *topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		fatalf("list end offsets: %v", err)
	}
	admCl.Close()

	until := map[int32]int64{}
	assign := map[int32]kgo.Offset{}
	ends.Each(func(o kadm.ListedOffset) {
		s, _ := starts.Lookup(o.Topic, o.Partition)
		if o.Offset > s.Offset {
			until[o.Partition] = o.Offset
			assign[o.Partition] = kgo.NewOffset().At(s.Offset)
		}
	})

	if *countOnly {
		var n int64
		ends.Each(func(o kadm.ListedOffset) {
			s, _ := starts.Lookup(o.Topic, o.Partition)
			n += o.Offset - s.Offset
		})
		fmt.Println(n)
		return
	}

	var records, bytes int64
	if len(assign) > 0 {
		cl, err := kgo.NewClient(
			kgo.SeedBrokers(*brokers),
			kgo.ClientID("topicsnap-bench-bareconsume"),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{*topic: assign}),
			kgo.FetchIsolationLevel(kgo.ReadUncommitted()),
			kgo.FetchMaxBytes(int32(*fetchMax)),
			kgo.FetchMaxPartitionBytes(int32(*partMax)),
			kgo.FetchMaxWait(500*time.Millisecond),
		)
		if err != nil {
			fatalf("client: %v", err)
		}
		defer cl.Close()
		remaining := len(assign)
		for remaining > 0 {
			fetches := cl.PollFetches(ctx)
			fetches.EachError(func(t string, p int32, err error) {
				fatalf("fetch %s/%d: %v", t, p, err)
			})
			fetches.EachPartition(func(fp kgo.FetchTopicPartition) {
				end, ok := until[fp.Partition]
				if !ok || len(fp.Records) == 0 {
					return
				}
				for _, r := range fp.Records {
					if r.Offset >= end {
						break
					}
					records++
					bytes += int64(len(r.Key) + len(r.Value))
				}
				if fp.Records[len(fp.Records)-1].Offset >= end-1 {
					delete(until, fp.Partition)
					remaining--
					cl.PauseFetchPartitions(map[string][]int32{*topic: {fp.Partition}})
				}
			})
		}
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("records=%d bytes=%d seconds=%.3f rate=%.0f/s\n", records, bytes, secs, float64(records)/secs)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bareconsume: "+format+"\n", args...)
	os.Exit(1)
}
