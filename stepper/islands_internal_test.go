package stepper

import (
	"testing"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/stretchr/testify/assert"
)

// TestIslandSet builds the islands of six bodies: 0 static ground, 1–2
// stacked on it, 3 alone on it, 4–5 joined to each other and to a
// kinematic body 6, plus one row between the ground and the kinematic body.
// Static and kinematic bodies split nothing, so the islands are {1, 2},
// {3}, {4, 5}, numbered by their smallest body.
func TestIslandSet(t *testing.T) {
	bodies := make([]*body.Body, 7)
	for i := range bodies {
		bodies[i] = &body.Body{Mass: 1}
	}
	bodies[0].Static = true
	bodies[6].Kinematic = true
	row := func(a, b int) constraint.Row {
		if b < 0 {
			return constraint.Row{N: 1, Body: [constraint.MaxBodies]int{a}}
		}
		return constraint.Row{N: 2, Body: [constraint.MaxBodies]int{a, b}}
	}
	rows := []constraint.Row{
		row(5, 4), // 0: joint between 4 and 5
		row(2, 0), // 1: box 2 on the ground
		row(6, 0), // 2: kinematic–static: loose
		row(1, 0), // 3: box 1 on the ground
		row(2, 1), // 4: box 2 on box 1
		row(3, 0), // 5: box 3 on the ground
		row(6, 5), // 6: kinematic arm holding 5
		row(3, -1),
	}
	var is islandSet
	for range 2 { // a second build reuses the storage and gives the same
		is.build(bodies, rows)
		assert.Equal(t, 3, is.n())
		assert.Equal(t, []int32{-1, 0, 0, 1, 2, 2, -1}, is.of)
		assert.Equal(t, []int32{1, 2}, is.islandBodies(0))
		assert.Equal(t, []int32{3}, is.islandBodies(1))
		assert.Equal(t, []int32{4, 5}, is.islandBodies(2))
		assert.Equal(t, []int32{1, 3, 4}, is.islandRows(0))
		assert.Equal(t, []int32{5, 7}, is.islandRows(1))
		assert.Equal(t, []int32{0, 6}, is.islandRows(2))
		assert.Equal(t, []int32{2}, is.loose)
	}
	allocs := testing.AllocsPerRun(10, func() { is.build(bodies, rows) })
	assert.Zero(t, allocs, "a rebuild at the same size allocates nothing")

	// A build on changed input builds anew, not the set the same input
	// left: box 3 stacked on box 2 joins island {1, 2}; then body 6 made
	// dynamic joins 4–5 to it and takes the ground–arm row from loose.
	rows[5] = row(3, 2)
	is.build(bodies, rows)
	assert.Equal(t, 2, is.n())
	assert.Equal(t, []int32{-1, 0, 0, 0, 1, 1, -1}, is.of)
	assert.Equal(t, []int32{1, 3, 4, 5, 7}, is.islandRows(0))
	bodies[6].Kinematic = false
	is.build(bodies, rows)
	assert.Equal(t, []int32{-1, 0, 0, 0, 1, 1, 1}, is.of)
	assert.Equal(t, []int32{0, 2, 6}, is.islandRows(1))
	assert.Empty(t, is.loose)
	// Fewer rows: the last (box 3's one-body row) dropped.
	is.build(bodies, rows[:7])
	assert.Equal(t, []int32{1, 3, 4, 5}, is.islandRows(0))
}
