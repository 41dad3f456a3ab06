//go:build !linux

package lcp

// processCPU returns 0: the process's CPU time is read on Linux only.
func processCPU() int64 { return 0 }
