package trajectory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// LockSuffix names an output's lock file: PATH.lock, held by the run
// writing PATH (LockOutput).
const LockSuffix = ".lock"

// OutputLock is a run's exclusive claim on an output path: the file
// PATH.lock, created only if it does not exist (O_EXCL) and holding the
// owner's process id and host name ("1234 host"). A second run asking for
// the same path, in this or another process, is refused with a
// *LockedError while the owner lives; a lock left by a process of this
// host that no longer exists (kill -9) is taken over. A lock of another
// host (a shared file system) is never taken to be stale.
type OutputLock struct {
	path, lock string
	pid        int
}

// lockHost is this machine's name as locks record it ("" if unknown).
var lockHost, _ = os.Hostname()

// LockedError is LockOutput's error when a live run holds PATH.lock.
type LockedError struct {
	Path, Lock string
	PID        int // the owner's process id; 0 if the lock file is being written
}

func (e *LockedError) Error() string {
	who := "another run"
	if e.PID > 0 {
		who = fmt.Sprintf("another run (process %d)", e.PID)
		if e.PID == os.Getpid() {
			who = "another run in this process"
		}
	}
	return fmt.Sprintf("%s is being written by %s; wait for it to finish or write elsewhere (a lock left by a process that no longer runs is taken over; else remove %s)",
		e.Path, who, e.Lock)
}

// lockGrace is how long an empty or unreadable lock file counts as being
// written by its creator (between its O_EXCL create and the pid's write)
// before it is stale.
const lockGrace = 10 * time.Second

// LockOutput claims path for writing: it creates PATH.lock with O_EXCL and
// writes this process's id into it. A lock whose process is not running
// (on Unix, kill(pid, 0) fails with ESRCH; elsewhere a lock is never taken
// to be stale) or that stayed empty for 10 s is removed and claimed. A lock
// held by a live process, this one included, is a *LockedError. Unlock
// removes the lock.
func LockOutput(path string) (*OutputLock, error) {
	l := &OutputLock{path: path, lock: path + LockSuffix, pid: os.Getpid()}
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(l.lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.WriteString(strconv.Itoa(l.pid) + " " + strings.Join(strings.Fields(lockHost), "_") + "\n")
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				_ = os.Remove(l.lock)
				return nil, werr
			}
			return l, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		pid, stale := readLock(l.lock)
		if !stale || attempt >= 2 {
			return nil, &LockedError{Path: path, Lock: l.lock, PID: pid}
		}
		// Take the stale lock over: remove it only if it still names the
		// dead owner, then create it again (a run racing for it either
		// creates it first, and this one is refused, or is refused).
		if again, _ := readLock(l.lock); again == pid {
			_ = os.Remove(l.lock)
		}
	}
}

// readLock returns the pid a lock file names and whether the lock is
// stale: its process, of this host, does not run, or it stayed empty
// past lockGrace.
func readLock(lock string) (pid int, stale bool) {
	b, err := os.ReadFile(lock)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, true // removed meanwhile: try again
	}
	f := strings.Fields(string(b))
	var perr error = errors.New("empty")
	if len(f) > 0 {
		pid, perr = strconv.Atoi(f[0])
	}
	if err != nil || perr != nil || pid <= 0 {
		fi, serr := os.Stat(lock)
		return 0, serr == nil && time.Since(fi.ModTime()) > lockGrace
	}
	if len(f) > 1 && f[1] != strings.Join(strings.Fields(lockHost), "_") {
		return pid, false // another host's process: cannot tell
	}
	return pid, !processAlive(pid)
}

// Unlock removes the lock file if it is still this run's; calling it
// again, or on nil, does nothing.
func (l *OutputLock) Unlock() error {
	if l == nil || l.lock == "" {
		return nil
	}
	lock := l.lock
	l.lock = ""
	if pid, _ := readLock(lock); pid != l.pid {
		return nil // taken over (this process was thought dead): not ours
	}
	return os.Remove(lock)
}
