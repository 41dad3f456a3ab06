package main

import (
	"fmt"

	"github.com/gorigid/gorigid/trajectory"
)

// partialSuffix marks an output that is still being written (or whose run
// crashed).
const partialSuffix = trajectory.PartialSuffix

// writeFileAtomic writes data to path through path+".partial".
func writeFileAtomic(path string, data []byte) error { return trajectory.WriteFileAtomic(path, data) }

// interruptedError reports a run stopped by SIGINT or SIGTERM after its
// outputs were closed.
type interruptedError struct{ msg string }

func (e interruptedError) Error() string { return e.msg }

func interruptedf(format string, a ...any) error {
	return interruptedError{fmt.Sprintf(format, a...)}
}
