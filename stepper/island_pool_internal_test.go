package stepper

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// islandPool.sort orders the islands as a stable sort by rows, most
// first, would within each half (cut in island order before the first
// island at which the rows before it reach half of all), the second half
// reversed: on 2 000 draws of up to 400 islands of 1–60 rows (many ties,
// as in a settled pile, where most islands are a box alone on the ground
// with 12 rows) and of 1–5 000 rows, its order is the comparison sort's,
// element for element.
func TestIslandPoolSortOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 7))
	var p islandPool
	rows := make([]int32, 5000)
	for draw := range 2000 {
		n := rng.IntN(401)
		most := 60
		if draw%2 == 1 {
			most = 5000
		}
		active := randomIslands(rng, n, rows[:most])
		want := make([]int32, n)
		total, cut := 0, n
		for k := range want {
			want[k] = int32(k)
			total += len(active[k].rows)
		}
		for k, sum := 0, 0; k < n; k++ {
			if 2*sum >= total {
				cut = k
				break
			}
			sum += len(active[k].rows)
		}
		most1st := func(a, b int32) int { return len(active[b].rows) - len(active[a].rows) }
		slices.SortStableFunc(want[:cut], most1st)
		slices.SortStableFunc(want[cut:], most1st)
		slices.Reverse(want[cut:])
		p.sort(active)
		require.Equal(t, want, p.order, "draw %d: %d islands", draw, n)
	}
}

// islandPool.group cuts the order into runs that each reach
// islandTaskRows rows with their last island and not before (the last
// run may fall short), covering the order once: on 500 draws of up to 400
// islands of 1–60 rows, every run holds between 1 and islandTaskRows
// islands, and rows before its last island < islandTaskRows ≤ rows with
// it.
func TestIslandPoolGroup(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 11))
	var p islandPool
	rows := make([]int32, 60)
	for draw := range 500 {
		active := randomIslands(rng, rng.IntN(401), rows)
		n := len(active)
		p.sort(active)
		p.group(active)
		require.Equal(t, int32(0), p.tasks[0], "draw %d", draw)
		require.Equal(t, int32(n), p.tasks[len(p.tasks)-1], "draw %d", draw)
		for k := 0; k+1 < len(p.tasks); k++ {
			run := p.order[p.tasks[k]:p.tasks[k+1]]
			require.NotEmpty(t, run, "draw %d task %d", draw, k)
			sum := 0
			for _, i := range run[:len(run)-1] {
				sum += len(active[i].rows)
			}
			require.Less(t, sum, islandTaskRows, "draw %d task %d", draw, k)
			if k+2 < len(p.tasks) {
				require.GreaterOrEqual(t, sum+len(active[run[len(run)-1]].rows), islandTaskRows, "draw %d task %d", draw, k)
			}
		}
	}
}

// randomIslands returns n islands of 1 to len(rows) rows, drawn
// uniformly, their rows slices of rows.
func randomIslands(rng *rand.Rand, n int, rows []int32) []*islandSlot {
	active := make([]*islandSlot, n)
	for k := range active {
		active[k] = &islandSlot{rows: rows[:1+rng.IntN(len(rows))]}
	}
	return active
}
