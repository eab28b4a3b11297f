package catalogtest

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

// LimitOpenFiles lowers the process's limit of open files (RLIMIT_NOFILE)
// so that headroom more files can be opened and the next one fails with
// EMFILE (headroom 0: the next open fails). A new file takes the lowest
// free descriptor, and one at or past the limit is refused, so the limit
// is the free descriptor headroom places past the lowest (a count of the
// files open would let an open reuse a hole below it). It returns the limit
// set and a func that puts the old one back, which t's cleanup also calls.
func LimitOpenFiles(t testing.TB, headroom int) (limit uint64, restore func()) {
	t.Helper()
	if headroom < 0 {
		t.Fatalf("LimitOpenFiles: headroom %d", headroom)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	names, err := d.Readdirnames(-1)
	self := int(d.Fd()) // free again once closed
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	open := map[int]bool{}
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd != self {
			open[fd] = true
		}
	}
	fd := 0
	for free := -1; ; fd++ {
		if !open[fd] {
			if free++; free == headroom {
				break
			}
		}
	}
	if uint64(fd) > lim.Max {
		t.Fatalf("a limit of open files with room for %d more is out of range (hard limit %d)", headroom, lim.Max)
	}
	low := lim
	low.Cur = uint64(fd)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	restore = func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(restore)
	return low.Cur, restore
}
