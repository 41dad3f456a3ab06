//go:build unix

package study

import (
	"syscall"
	"time"
)

// cpuMillis runs f and returns the process CPU time (user + system) it
// took, in ms.
func cpuMillis(f func() error) (float64, error) {
	var a, b syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &a); err != nil {
		return 0, err
	}
	err := f()
	if e := syscall.Getrusage(syscall.RUSAGE_SELF, &b); e != nil && err == nil {
		err = e
	}
	cpu := func(r *syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return float64(cpu(&b)-cpu(&a)) / float64(time.Millisecond), err
}
