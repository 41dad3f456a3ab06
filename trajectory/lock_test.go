package trajectory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 28: two runs writing one output both wrote FILE.partial, one
// exited 0 and the final file was a mix. Here run A holds the output (it
// waits inside its first step) while run B asks for the same trajectory:
// B is refused with a *FileError wrapping a *LockedError naming this
// process, before it writes anything; A then finishes and its file is
// byte for byte the file of the same run made alone, with no lock or
// .partial file left.
func TestConcurrentRunsOneOutput(t *testing.T) {
	dir := t.TempDir()
	out, stats := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.csv")
	ref := filepath.Join(t.TempDir(), "t.csv")
	_, err := RunFiles(context.Background(), scene(t, "chain6", nil), Files{Trajectory: ref}, Options{Steps: 20})
	require.NoError(t, err)

	held, release := make(chan struct{}), make(chan struct{})
	var repA Report
	var errA error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		once := sync.Once{}
		repA, errA = RunFiles(context.Background(), scene(t, "chain6", nil), Files{Trajectory: out, Stats: stats}, Options{Steps: 20,
			OnStep: func(int, *stepper.Stats) { once.Do(func() { close(held); <-release }) }})
	}()
	<-held
	for _, f := range []Files{{Trajectory: out}, {Stats: stats}, {Trajectory: filepath.Join(dir, "other.csv"), Stats: stats}} {
		_, errB := RunFiles(context.Background(), scene(t, "chain6", nil), f, Options{Steps: 20})
		var fe *FileError
		var le *LockedError
		require.ErrorAs(t, errB, &fe, "%+v", f)
		require.ErrorAs(t, errB, &le)
		assert.Equal(t, os.Getpid(), le.PID)
		assert.Contains(t, errB.Error(), "is being written by another run in this process")
	}
	left, _ := filepath.Glob(filepath.Join(dir, "other.csv*"))
	assert.Empty(t, left, "the refused run created nothing, nor left its other output's lock")
	close(release)
	wg.Wait()
	require.NoError(t, errA)
	assert.Equal(t, 21, repA.Frames)
	want, err := os.ReadFile(ref)
	require.NoError(t, err)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, want, got, "the output is the run's alone")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	assert.ElementsMatch(t, []string{out, stats}, files, "no lock, no .partial left")

	// Two fields naming one file are refused before anything is written.
	_, err = RunFiles(context.Background(), scene(t, "chain6", nil), Files{Trajectory: out, Stats: filepath.Join(dir, ".", "t.csv")}, Options{Steps: 1})
	assert.EqualError(t, err, "Stats: "+filepath.Join(dir, ".", "t.csv")+" is also the Trajectory output")
}

// A lock left by a killed run (its process gone) is taken over and
// removed at the end; a lock of a live process is not, nor one naming
// another host; an empty lock is being written by its creator for 10 s
// and stale after.
func TestStaleLockTakenOver(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a dead owner is told from a live one on Unix only (processAlive)")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "t.csv")
	dead := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, dead.Run())
	require.False(t, processAlive(dead.Process.Pid), "pid %d ended", dead.Process.Pid)
	require.NoError(t, os.WriteFile(out+LockSuffix, []byte(strconv.Itoa(dead.Process.Pid)+"\n"), 0o644))
	_, err := RunFiles(context.Background(), scene(t, "pendulum", nil), Files{Trajectory: out}, Options{Steps: 3})
	require.NoError(t, err)
	assert.NoFileExists(t, out+LockSuffix)
	assert.FileExists(t, out)

	// The dead pid on another host (a shared file system): not stale.
	require.NoError(t, os.WriteFile(out+LockSuffix, []byte(strconv.Itoa(dead.Process.Pid)+" elsewhere.example\n"), 0o644))
	_, err = LockOutput(out)
	var le *LockedError
	require.ErrorAs(t, err, &le, "another host's lock is held")
	assert.Equal(t, dead.Process.Pid, le.PID)

	live := exec.Command("sleep", "30")
	require.NoError(t, live.Start())
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	require.NoError(t, os.WriteFile(out+LockSuffix, []byte(fmt.Sprintln(live.Process.Pid)), 0o644))
	_, err = LockOutput(out)
	require.ErrorAs(t, err, &le)
	assert.Equal(t, live.Process.Pid, le.PID)
	assert.Contains(t, err.Error(), fmt.Sprintf("by another run (process %d)", live.Process.Pid))

	require.NoError(t, os.WriteFile(out+LockSuffix, nil, 0o644))
	_, err = LockOutput(out)
	require.ErrorAs(t, err, &le, "an empty lock just created is held")
	assert.Equal(t, 0, le.PID)
	old := time.Now().Add(-2 * lockGrace)
	require.NoError(t, os.Chtimes(out+LockSuffix, old, old))
	l, err := LockOutput(out)
	require.NoError(t, err, "an empty lock older than lockGrace is stale")
	b, _ := os.ReadFile(out + LockSuffix)
	assert.Equal(t, strconv.Itoa(os.Getpid())+" "+strings.Join(strings.Fields(lockHost), "_")+"\n", string(b))
	require.NoError(t, l.Unlock())
	require.NoError(t, l.Unlock(), "twice is a no-op")
	assert.NoFileExists(t, out+LockSuffix)
}

// WriteFileAtomic from 8 goroutines at once, 20 times each, 256 KiB of a
// distinct byte each: the file is always one writer's whole content, and
// no temporary file is left (with one shared FILE.partial, writers
// truncated each other's file and renamed a mix, or failed to rename).
func TestWriteFileAtomicConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "step.json")
	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data := bytes.Repeat([]byte{byte('a' + g)}, 256<<10)
			for range 20 {
				if err := WriteFileAtomic(path, data); err != nil {
					errs <- err
				}
				got, err := os.ReadFile(path)
				if err == nil && (len(got) != len(data) || !bytes.Equal(got, bytes.Repeat(got[:1], len(got)))) {
					errs <- errors.New("a mixed or truncated file")
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	assert.Equal(t, []string{path}, files)
}
