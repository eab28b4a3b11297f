// Command dumpprof runs topicsnap's dump (package dump, exactly the code
// `topicsnap dump` runs) in-process with Go's profilers on, to see where a
// dump's time and memory go. It is a bench tool, not part of the product.
//
//	go build -o /tmp/dumpprof ./scripts/benchtools/dumpprof
//	/tmp/dumpprof --brokers 127.0.0.1:39192 --topic bench --dir /tmp/snap \
//	    --cpuprofile cpu.pprof --memprofile mem.pprof
//	go tool pprof -top -nodecount 40 /tmp/dumpprof cpu.pprof
//
// It prints the dump summary, the peak Go heap (sampled every 50 ms), GC
// counts and pauses. Like the dump command it sets a soft memory limit
// (--memory-limit, default 448 MiB, the command's default).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/topicsnap/topicsnap/dump"
)

func main() {
	brokers := flag.String("brokers", "127.0.0.1:39192", "bootstrap brokers")
	topic := flag.String("topic", "bench", "topic")
	dir := flag.String("dir", "", "snapshot folder (required; should be fresh)")
	fileRows := flag.Int("file-rows", 0, "like topicsnap dump --file-rows (0: its default)")
	fileBytes := flag.Int64("file-bytes", 0, "like topicsnap dump --file-bytes (0: its default)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile here")
	memprofile := flag.String("memprofile", "", "write an allocation profile here (at the end)")
	traceFile := flag.String("trace", "", "write a runtime execution trace here")
	memLimit := flag.Int64("memory-limit", 448<<20, "soft memory limit in bytes, like topicsnap dump --memory-limit (0: none; GOMEMLIMIT wins when set)")
	flag.Parse()
	if os.Getenv("GOMEMLIMIT") == "" && *memLimit > 0 {
		debug.SetMemoryLimit(*memLimit)
	}
	if *dir == "" {
		fatalf("--dir is required")
	}

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fatalf("%v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fatalf("%v", err)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if *traceFile != "" {
		f, err := os.Create(*traceFile)
		if err != nil {
			fatalf("%v", err)
		}
		if err := trace.Start(f); err != nil {
			fatalf("%v", err)
		}
		defer func() { trace.Stop(); f.Close() }()
	}

	var peakHeap, peakSys atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peakHeap.Load() {
				peakHeap.Store(ms.HeapInuse)
			}
			if s := ms.Sys - ms.HeapReleased; s > peakSys.Load() {
				peakSys.Store(s)
			}
		}
	}()

	opts := dump.Options{
		Conn:      dump.Conn{Brokers: strings.Split(*brokers, ",")},
		Dir:       *dir,
		Topics:    []string{*topic},
		FileRows:  *fileRows,
		FileBytes: *fileBytes,
	}
	sum, err := dump.Run(context.Background(), opts)
	close(stop)
	fmt.Println(sum.String())
	if err != nil {
		fatalf("dump: %v", err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("peak heap in use %.0f MiB, peak Go memory from the OS %.0f MiB, %d GCs, GC pause total %.1f ms, GC CPU fraction %.1f%%, allocated %.0f MiB in all\n",
		float64(peakHeap.Load())/(1<<20), float64(peakSys.Load())/(1<<20), ms.NumGC, float64(ms.PauseTotalNs)/1e6,
		100*ms.GCCPUFraction, float64(ms.TotalAlloc)/(1<<20))
	if *memprofile != "" {
		f, err := os.Create(*memprofile)
		if err != nil {
			fatalf("%v", err)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fatalf("%v", err)
		}
		f.Close()
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "dumpprof: "+format+"\n", args...)
	os.Exit(1)
}
