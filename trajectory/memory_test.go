package trajectory

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sphereClump is n spheres of radius 0.1 m all centred at one point.
func sphereClump(t *testing.T, n int) *stepper.World {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	for range n {
		b, err := body.New(body.Params{Mass: 1, Inertia: body.SphereInertia(1, 0.1), Pos: mgl64.Vec3{0, 0, 1}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		k, err := w.AddBody(b)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: k, Shape: contact.Shape{Kind: contact.Sphere, Radius: 0.1}, Material: stepper.Material{Friction: 0.5}})
		require.NoError(t, err)
	}
	return w
}

// Issue 28: 2 000 spheres at one point grew memory for 24 s in step 1.
// With a 1 GiB limit the run is refused before its first step, from the
// estimate, and RunFiles creates no file; the same world under Run takes
// no step either.
func TestMaxMemoryRefusesBeforeTheRun(t *testing.T) {
	w := sphereClump(t, 2000)
	dir := t.TempDir()
	_, err := RunFiles(context.Background(), w, Files{Trajectory: filepath.Join(dir, "t.csv"), Stats: filepath.Join(dir, "s.csv")},
		Options{Steps: 10, MaxMemory: 1 << 30})
	var me *MemoryError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 0, me.Step)
	assert.Greater(t, me.Estimate.Bytes, int64(1<<30))
	assert.True(t, me.Estimate.Partial)
	assert.Contains(t, err.Error(), "refused before the first step: the world needs about ")
	assert.Contains(t, err.Error(), "more than the memory limit of 1 GiB")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	assert.Empty(t, files)
	rep, err := Run(context.Background(), w, Options{Steps: 10, MaxMemory: 1 << 30})
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
