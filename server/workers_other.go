//go:build !linux

package server

import "syscall"

// workerSysProcAttr: without Pdeathsig, a worker leaves when its standard
// input closes with the front.
func workerSysProcAttr() *syscall.SysProcAttr { return nil }

// residentBytes is unknown off Linux: the memory cap there is DuckDB's
// memory_limit alone.
func residentBytes(pid int) int64 { return 0 }

func highWaterBytes(pid int) int64 { return 0 }
