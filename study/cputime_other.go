//go:build !unix

package study

import "time"

// cpuMillis runs f and returns the wall-clock time it took, in ms (no
// process CPU clock here).
func cpuMillis(f func() error) (float64, error) {
	t := time.Now()
	err := f()
	return float64(time.Since(t)) / float64(time.Millisecond), err
}
