//go:build unix

package stepper

import (
	"syscall"
	"time"
)

// processCPU returns the process's CPU time (user + system, all
// threads) and true, or false when the clock cannot be read.
func processCPU() (time.Duration, bool) {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0, false
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano()), true
}
