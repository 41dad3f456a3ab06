package lcp

import "syscall"

// threadCPU returns the calling thread's user and system CPU time
// (getrusage RUSAGE_THREAD) in nanoseconds.
func threadCPU() int64 {
	const rusageThread = 1
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
