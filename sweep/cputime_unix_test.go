//go:build unix

package sweep

import (
	"syscall"
	"time"
)

// processCPU returns the process's CPU time (user + system, all
// threads), or 0 when the clock cannot be read.
func processCPU() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
