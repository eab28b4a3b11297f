package server

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// workerSysProcAttr makes the kernel kill a worker when the front dies,
// and puts it in a process group of its own, so a Ctrl-C at the terminal
// reaches the front alone: the front finishes its requests, then stops
// the workers.
func workerSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

var pageSize = int64(os.Getpagesize())

// residentBytes is a process's resident memory from /proc/PID/statm; 0
// when it cannot be read (the process is gone).
func residentBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * pageSize
}

// highWaterBytes is a process's peak resident memory (VmHWM); 0 when it
// cannot be read.
func highWaterBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(v)
			if len(f) > 0 {
				kb, err := strconv.ParseInt(string(f[0]), 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
