//go:build !unix

package stepper

import "time"

// processCPU reports false: there is no process CPU clock here, and the
// workPool keeps its helpers (poolShare).
func processCPU() (time.Duration, bool) { return 0, false }
