package study_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/gorigid/gorigid/study"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// 100 steps of the chain: the paper's ordering (Figs. 3, 4, 7): no
// stabilization drifts most, Baumgarte 50/s less, post-stabilization
// least; progress reaches its total.
func TestChain6(t *testing.T) {
	var last [2]int
	res, err := study.Chain6(context.Background(), study.Options{Steps: 100, Progress: func(d, n int) { last = [2]int{d, n} }})
	require.NoError(t, err)
	assert.Equal(t, [2]int{600, 600}, last, "6 modes × 100 steps")
	assert.Equal(t, 0.001, res.H)
	require.Len(t, res.Runs, len(study.Chain6Modes))
	peak := map[string]float64{}
	for i := range res.Runs {
		r := &res.Runs[i]
		require.Len(t, r.Separation, 100, r.Mode.Name)
		assert.LessOrEqual(t, r.Final(), r.Max(), r.Mode.Name)
		assert.False(t, math.IsNaN(r.Max()), r.Mode.Name)
		peak[r.Mode.Name] = r.Max()
	}
	assert.Greater(t, peak["none"], peak["baumgarte_50"])
	assert.Greater(t, peak["baumgarte_50"], peak["post"])
}

// Example: 50 steps of the chain; post-stabilization holds the joints
// far tighter than no stabilization.
func ExampleChain6() {
	res, err := study.Chain6(context.Background(), study.Options{Steps: 50})
	if err != nil {
		fmt.Println(err)
		return
	}
	none, post := res.Runs[0], res.Runs[len(res.Runs)-1]
	fmt.Println(none.Mode.Name, "vs", post.Mode.Name+":", post.Max() < none.Max()/100)
	// Output:
	// none vs post: true
}
