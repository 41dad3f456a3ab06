package lcp

import "syscall"

// processCPU returns the process's user and system CPU time (getrusage
// RUSAGE_SELF: every thread, the runtime's included) in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
