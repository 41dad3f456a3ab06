package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorigid/gorigid/trajectory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 28: two `sim run`s writing one --out both wrote FILE.partial; one
// exited 0 and the final file was a mix. Here process A runs chain6 into
// t.csv; a second run of the same --out, in another process and in this
// one, is refused at once (exit 2, one line naming A's pid and the lock),
// writing nothing; A, interrupted, keeps every row it wrote: its file has
// frames 0…k once each, in order, and no lock or .partial is left.
func TestRunTwoWritersOneOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	traj, stats := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.csv")
	a, _, aErr := startSim(t, "run", "chain6", "--steps", "100000000", "--quiet", "--out", traj, "--stats", stats)
	deadline := time.Now().Add(20 * time.Second)
	for {
		fi, err := os.Stat(stats + trajectory.PartialSuffix)
		if err == nil && fi.Size() > 0 {
			break
		}
		require.False(t, time.Now().After(deadline), "no output after 20 s; stderr: %s", aErr.String())
		time.Sleep(20 * time.Millisecond)
	}
	lock, err := os.ReadFile(traj + trajectory.LockSuffix)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(lock), strconv.Itoa(a.Process.Pid)+" "), "%q", lock)

	want := fmt.Sprintf("sim: --out: %s is being written by another run (process %d); wait for it to finish or write elsewhere", traj, a.Process.Pid)
	b, _, bErr := startSim(t, "run", "pendulum", "--steps", "5", "--quiet", "--out", traj)
	err = b.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "%v: %s", err, bErr.String())
	assert.Equal(t, 2, ee.ExitCode())
	assert.True(t, strings.HasPrefix(bErr.String(), want), bErr.String())
	assert.Equal(t, 1, strings.Count(bErr.String(), "\n"), bErr.String())

	other := filepath.Join(dir, "other.csv")
	_, stderr, code := runSim(t, "run", "pendulum", "--steps", "5", "--quiet", "--out", other, "--stats", stats)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, fmt.Sprintf("sim: --stats: %s is being written by another run (process %d)", stats, a.Process.Pid))
	assert.NoFileExists(t, other, "a refused run writes nothing")
	assert.NoFileExists(t, other+trajectory.LockSuffix)

	require.NoError(t, a.Process.Signal(syscall.SIGINT))
	err = a.Wait()
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, 130, ee.ExitCode(), aErr.String())
	_, trows := readCSV(t, traj)
	_, srows := readCSV(t, stats)
	k := len(srows)
	require.Positive(t, k)
	require.Len(t, trows, 6*(k+1), "frames 0…k of 6 links, each once")
	for i, r := range trows {
		require.Equal(t, strconv.Itoa(i/6), r[0], "row %d", i)
		require.Equal(t, strconv.Itoa(i%6), r[2], "row %d", i)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	assert.ElementsMatch(t, []string{traj, stats}, files, "no lock, no .partial left")
}
