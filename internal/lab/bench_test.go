package lab

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// percentile is the nearest-rank quantile: the ⌈qn⌉-th smallest value.
func TestPercentileNearestRank(t *testing.T) {
	v := []float64{7, 1, 10, 3, 5, 9, 2, 8, 4, 6} // 1…10, unsorted
	for _, c := range []struct{ q, want float64 }{{0.1, 1}, {0.5, 5}, {0.9, 9}, {0.95, 10}, {1, 10}, {0.55, 6}} {
		assert.Equal(t, c.want, percentile(v, c.q), "q = %v", c.q)
	}
	assert.Equal(t, []float64{7, 1, 10, 3, 5, 9, 2, 8, 4, 6}, v, "the input is not reordered")
	assert.True(t, math.IsNaN(percentile(nil, 0.5)))
}
