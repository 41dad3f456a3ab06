package trajectory

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A chain of 10 000 links (50 000 joint rows, 406 MiB estimated) under a
// 100 MiB limit is refused before its first step, from the estimate, and
// RunFiles creates no file; the same world under Run takes no step either.
func TestMaxMemoryRefusesBeforeTheRun(t *testing.T) {
	w := scene(t, "chain6", map[string]string{"links": "10000"})
	dir := t.TempDir()
	_, err := RunFiles(context.Background(), w, Files{Trajectory: filepath.Join(dir, "t.csv"), Stats: filepath.Join(dir, "s.csv")},
		Options{Steps: 10, MaxMemory: 100 << 20})
	var me *MemoryError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 0, me.Step)
	assert.Equal(t, 50000, me.Estimate.Rows)
	assert.False(t, me.Estimate.Partial, "joints are counted whole")
	assert.EqualError(t, err, "refused before the first step: the world needs about 406 MiB, more than the memory limit of 100 MiB (10000 bodies, 10000 joints, 0 contact pairs: 50000 rows, 999925 nonzeros of A)")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	assert.Empty(t, files)
	rep, err := Run(context.Background(), w, Options{Steps: 10, MaxMemory: 100 << 20})
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 0, rep.Steps)
	assert.Equal(t, 0, w.Steps())
}

// A world within its estimate whose heap then passes the limit (here the
// test process's own heap is above a limit set just over the estimate)
// stops after its first step with that step's rows written, the heap
// reported; the check allocates nothing.
func TestMaxMemoryStopsWhenTheHeapPasses(t *testing.T) {
	w := scene(t, "pendulum", nil)
	est := w.EstimateMemory(0)
	hw := newHeapWatch()
	require.Zero(t, testing.AllocsPerRun(100, func() { hw.bytes() }), "the per-step check allocates nothing")
	limit := est.Bytes + 1
	if h := hw.bytes(); h <= limit {
		ballast := make([]byte, limit-h+1<<20) // make the heap pass the limit
		defer func() { _ = ballast[0] }()
		for i := range ballast {
			ballast[i] = 1
		}
	}
	out := filepath.Join(t.TempDir(), "t.csv")
	rep, err := RunFiles(context.Background(), w, Files{Trajectory: out}, Options{Steps: 10, MaxMemory: limit})
	var me *MemoryError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 1, me.Step)
	assert.Greater(t, me.Heap, limit)
	assert.Equal(t, 1, rep.Steps)
	assert.Equal(t, 2, rep.Frames, "step 0 and step 1 written")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(b), "\n1,0.001,0,")
	_, err = Run(context.Background(), w, Options{Steps: 1, MaxMemory: -1})
	assert.EqualError(t, err, "trajectory: Options.MaxMemory: must be ≥ 0 bytes, got -1")
}
