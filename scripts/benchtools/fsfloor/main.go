// Command fsfloor measures what the dump's commit protocol alone costs a
// partition on this machine's disk, without Kafka, Parquet or topicsnap
// (issue 32): for N partitions (4 a topic) of a new folder, what a first
// dump does to the file system for each: create its folder, create and
// flock its lock file, write a data file of 10 KB and a manifest of 1 KB,
// each as a temp file fsynced, renamed and its folder fsynced. It runs them
// one at a time, then 16 and 64 at once, and prints the wall time and the
// process's CPU time (user and system) a partition. The dump cannot commit
// a partition for less; scripts/bench-many.sh's many-topics figure is to
// be read against it. Last, one at a time without any fsync: what the
// files and folders cost a partition even on a disk that synced for
// free (no crash safety; a floor under the floor).
//
//	go run ./scripts/benchtools/fsfloor [DIR [N]]   # DIR default $TMPDIR, N 1200
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func main() {
	base, n := os.TempDir(), 1200
	if len(os.Args) > 1 {
		base = os.Args[1]
	}
	if len(os.Args) > 2 {
		v, err := strconv.Atoi(os.Args[2])
		if err != nil || v < 1 {
			fail(fmt.Errorf("N %q: give a number of partitions", os.Args[2]))
		}
		n = v
	}
	for _, r := range []struct {
		par  int
		sync bool
	}{{1, true}, {16, true}, {64, true}, {1, false}} {
		par := r.par
		syncing = r.sync
		root, err := os.MkdirTemp(base, "fsfloor-")
		if err != nil {
			fail(err)
		}
		c0, t0 := cpuTime(), time.Now()
		if err := run(root, n, par); err != nil {
			fail(err)
		}
		wall, cpu := time.Since(t0), cpuTime()-c0
		how := "fsynced"
		if !syncing {
			how = "no fsync"
		}
		fmt.Printf("%d partitions, %2d at once, %-8s: %6.3f s, %6.3f CPU s; a partition %4.0f µs wall, %4.0f µs CPU\n",
			n, par, how, wall.Seconds(), cpu.Seconds(), float64(wall.Microseconds())/float64(n), float64(cpu.Microseconds())/float64(n))
		if err := os.RemoveAll(root); err != nil {
			fail(err)
		}
	}
}

func run(root string, n, par int) error {
	work := make(chan int, n)
	for i := range n {
		work <- i
	}
	close(work)
	errs := make(chan error, par)
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := partition(filepath.Join(root, fmt.Sprintf("topic=t%05d", i/4), fmt.Sprintf("partition=%d", i%4))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// partition does to dir what a first dump of one partition does.
func partition(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return err
	}
	if err := commit(dir, "00000000000000000000-00000000000000000049.parquet", 10_000); err != nil {
		return err
	}
	return commit(dir, "manifest.json", 1_000)
}

// syncing is false for the run without fsync.
var syncing = true

// commit writes size bytes to name in dir: temp file, fsync, rename, fsync
// of the folder (no fsync when syncing is false).
func commit(dir, name string, size int) error {
	f, err := os.CreateTemp(dir, ".tmp-"+name+"-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(make([]byte, size)); err != nil {
		f.Close()
		return err
	}
	if syncing {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		return err
	}
	if !syncing {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fsfloor:", err)
	os.Exit(1)
}
