// Command encodebench measures what writing topicsnap's Parquet files costs
// with different codecs and settings, on rows read back from a real dump. It
// is a bench tool, not part of the product: it rebuilds the writer the way
// catalog's file writer does (same schema, row groups, page buffer) and
// varies one thing at a time, writing to memory (no disk, no fsync).
//
//	go run ./scripts/benchtools/encodebench /tmp/topicsnap-bench/snap/topic=bench/partition=0/*.parquet
//
// For each variant it prints the CPU time per million rows on one core, the
// bytes written, and the rows/s one core can encode.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/lz4"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"

	kzstd "github.com/klauspost/compress/zstd"

	"github.com/topicsnap/topicsnap/catalog"
)

type variant struct {
	name     string
	codec    compress.Codec
	pageBuf  int
	rowGroup int
	extra    []parquet.WriterOption
}

func main() {
	reps := flag.Int("reps", 3, "encode each variant this many times, keep the fastest")
	only := flag.String("only", "", "run only the variants whose name contains this")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the encoding to this file")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: encodebench FILE.parquet...")
		os.Exit(2)
	}
	var rows []catalog.Row
	var inBytes int64
	for _, p := range flag.Args() {
		r, err := catalog.ReadDataFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		rows = append(rows, r...)
		if st, err := os.Stat(p); err == nil {
			inBytes += st.Size()
		}
	}
	var kv int64
	for i := range rows {
		kv += int64(len(rows[i].Key) + len(rows[i].Value))
	}
	fmt.Printf("%d rows, %.1f MB key+value, %.1f MB as dumped (%d file(s)); GOMAXPROCS=1\n",
		len(rows), float64(kv)/1e6, float64(inBytes)/1e6, flag.NArg())
	runtime.GOMAXPROCS(1)

	variants := []variant{
		{"zstd fastest (what dump uses)", &zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}, 1 << 20, catalog.RowGroupRows, nil},
		{"zstd default", &zstd.Codec{Level: zstd.SpeedDefault, Concurrency: 1}, 1 << 20, catalog.RowGroupRows, nil},
		{"lz4 fastest", &lz4.Codec{Level: lz4.Fastest}, 1 << 20, catalog.RowGroupRows, nil},
		{"snappy", &snappy.Codec{}, 1 << 20, catalog.RowGroupRows, nil},
		{"uncompressed", &uncompressed.Codec{}, 1 << 20, catalog.RowGroupRows, nil},
		{"zstd fastest, 8 KiB page buffer", &zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}, 8 << 10, catalog.RowGroupRows, nil},
		{"zstd fastest, 32K-row groups", &zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}, 1 << 20, 32 * 1024, nil},
		{"zstd fastest, 256 KiB page buffer", &zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}, 256 << 10, catalog.RowGroupRows, nil},
		{"zstd fastest, 4 MiB page buffer", &zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}, 4 << 20, catalog.RowGroupRows, nil},
		{"zstd fastest, no page bounds/stats on bytes", &zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}, 1 << 20, catalog.RowGroupRows,
			[]parquet.WriterOption{parquet.SkipPageBounds("key"), parquet.SkipPageBounds("value"), parquet.SkipPageBounds("headers", "list", "element", "key"), parquet.SkipPageBounds("headers", "list", "element", "value"),
				parquet.SkipPageStatistics("key"), parquet.SkipPageStatistics("value")}},
		{"uncompressed, no page bounds/stats on bytes", &uncompressed.Codec{}, 1 << 20, catalog.RowGroupRows,
			[]parquet.WriterOption{parquet.SkipPageBounds("key"), parquet.SkipPageBounds("value"), parquet.SkipPageBounds("headers", "list", "element", "key"), parquet.SkipPageBounds("headers", "list", "element", "value"),
				parquet.SkipPageStatistics("key"), parquet.SkipPageStatistics("value")}},
		{"kzstd fastest, lower mem", newKZ(kzstd.WithLowerEncoderMem(true)), 1 << 20, catalog.RowGroupRows, nil},
		{"kzstd fastest, 256 KiB window", newKZ(kzstd.WithWindowSize(256 << 10)), 1 << 20, catalog.RowGroupRows, nil},
		{"kzstd fastest, single segment", newKZ(kzstd.WithSingleSegment(true)), 1 << 20, catalog.RowGroupRows, nil},
		{"kzstd fastest, no entropy", newKZ(kzstd.WithNoEntropyCompression(true)), 1 << 20, catalog.RowGroupRows, nil},
	}
	schema := parquet.SchemaOf(catalog.Row{})
	fmt.Println()
	fmt.Println("| variant | CPU s per 1M rows | rows/s on one core | MB/s key+value | output MB |")
	fmt.Println("|---|---:|---:|---:|---:|")
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			panic(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	for _, v := range variants {
		if !strings.Contains(v.name, *only) {
			continue
		}
		best := time.Duration(1 << 62)
		var size int
		for rep := 0; rep < *reps; rep++ {
			runtime.GC()
			var buf bytes.Buffer
			buf.Grow(int(inBytes) * 2)
			t0 := time.Now()
			opts := append([]parquet.WriterOption{schema,
				parquet.Compression(v.codec),
				parquet.MaxRowsPerRowGroup(int64(v.rowGroup)),
				parquet.PageBufferSize(v.pageBuf),
			}, v.extra...)
			pw := parquet.NewGenericWriter[catalog.Row](&buf, opts...)
			for i := 0; i < len(rows); i += v.rowGroup {
				end := min(i+v.rowGroup, len(rows))
				if _, err := pw.Write(rows[i:end]); err != nil {
					panic(err)
				}
				if err := pw.Flush(); err != nil {
					panic(err)
				}
			}
			if err := pw.Close(); err != nil {
				panic(err)
			}
			if d := time.Since(t0); d < best {
				best = d
			}
			size = buf.Len()
		}
		s := best.Seconds()
		fmt.Printf("| %s | %.2f | %.0f | %.0f | %.1f |\n", v.name, s/float64(len(rows))*1e6, float64(len(rows))/s, float64(kv)/s/1e6, float64(size)/1e6)
	}
}

// kz is a zstd codec with klauspost/compress options the parquet-go codec
// does not expose, one encoder reused (GOMAXPROCS=1 here).
type kz struct {
	e *kzstd.Encoder
	zstd.Codec
}

func newKZ(opts ...kzstd.EOption) *kz {
	opts = append([]kzstd.EOption{kzstd.WithEncoderConcurrency(1), kzstd.WithEncoderLevel(kzstd.SpeedFastest),
		kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false)}, opts...)
	e, err := kzstd.NewWriter(nil, opts...)
	if err != nil {
		panic(err)
	}
	return &kz{e: e}
}

func (c *kz) CompressionCodec() format.CompressionCodec { return format.Zstd }
func (c *kz) Encode(dst, src []byte) ([]byte, error)    { return c.e.EncodeAll(src, dst[:0]), nil }
