package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gorigid/gorigid/trajectory"
)

// partialSuffix marks an output that is still being written (or whose run
// crashed).
const partialSuffix = trajectory.PartialSuffix

// writeFileAtomic writes data to path through path+".partial".
func writeFileAtomic(path string, data []byte) error { return trajectory.WriteFileAtomic(path, data) }

// appendJSONFloat appends v's shortest round-trip decimal, null for NaN
// and ±Inf, which JSON cannot hold.
func appendJSONFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// interruptedError reports a run stopped by SIGINT or SIGTERM after its
// outputs were closed.
type interruptedError struct{ msg string }

func (e interruptedError) Error() string { return e.msg }

func interruptedf(format string, a ...any) error {
	return interruptedError{fmt.Sprintf(format, a...)}
}
