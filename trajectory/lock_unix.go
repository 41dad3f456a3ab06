//go:build unix

package trajectory

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this id exists: kill(pid, 0)
// succeeds, or fails only for lack of permission (EPERM).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
