package constraint

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTendonRows: on random poses and velocities, a tendon L = 2θ − 0.5 s
// over a hinge (bodies 0, 1) and a slider (1, 2) has Length 2·Angle −
// 0.5·Slide exactly, Rate and its rows' J v equal 2·AngleRate − 0.5·SlideRate to
// 1e-12 (the same blocks, summed on the shared body 1), φ = L − lo and
// hi − L for a range and L − lo for an equality, and Violation the same
// φ; bad input is an error naming what is wrong.
func TestTendonRows(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	bs := randWorld(t, r, 5)
	h, err := NewHinge(bs, 0, 1, randVec(r, 1), randVec(r, 1))
	require.NoError(t, err)
	p, err := NewPrismatic(bs, 2, 1, randVec(r, 1), randVec(r, 1))
	require.NoError(t, err)
	// Move the bodies so the coordinates are not 0.
	for _, b := range bs {
		b.Pos = b.Pos.Add(randVec(r, 0.1))
		b.Rot = b.Rot.Mul(mgl64.QuatRotate(0.3, randVec(r, 1).Normalize())).Normalize()
	}
	ctx := &Context{Bodies: bs, H: 0.01}
	th, err := h.Angle(ctx)
	require.NoError(t, err)
	s, err := p.Slide(ctx)
	require.NoError(t, err)
	dth, _ := h.AngleRate(ctx)
	ds, _ := p.SlideRate(ctx)
	l, ldot := 2*th-0.5*s, 2*dth-0.5*ds
	for _, c := range []struct {
		lo, hi float64
		kinds  []Kind
		phi    []float64
		sign   []float64
	}{
		{l - 0.1, l + 0.2, []Kind{LimitLower, LimitUpper}, []float64{0.1, 0.2}, []float64{1, -1}},
		{math.Inf(-1), l + 0.2, []Kind{LimitUpper}, []float64{0.2}, []float64{-1}},
		{l - 0.3, l - 0.3, []Kind{Bilateral}, []float64{0.3}, []float64{1}},
	} {
		td, err := NewTendon([]Coordinate{h, p}, []float64{2, -0.5}, c.lo, c.hi)
		require.NoError(t, err)
		assert.Equal(t, []int{0, 1, 2}, td.Bodies())
		got, err := td.Length(ctx)
		require.NoError(t, err)
		assert.Equal(t, l, got)
		rate, err := td.Rate(ctx)
		require.NoError(t, err)
		assert.InDelta(t, ldot, rate, 1e-12)
		rows := make([]Row, td.Dim())
		require.Equal(t, len(c.kinds), len(rows))
		require.NoError(t, td.Fill(rows, ctx))
		viol := make([]float64, td.Dim())
		require.NoError(t, td.Violation(ctx, viol))
		for i := range rows {
			require.NoError(t, rows[i].Validate(len(bs)))
			assert.Equal(t, c.kinds[i], rows[i].Kind)
			assert.InDelta(t, c.phi[i], rows[i].Phi, 1e-12)
			assert.Equal(t, rows[i].Phi, viol[i])
			assert.InDelta(t, c.sign[i]*ldot, rows[i].Velocity(bs), 1e-12)
		}
	}
	h2, err := NewHinge(bs, 3, 4, randVec(r, 1), randVec(r, 1))
	require.NoError(t, err)
	for _, c := range []struct {
		joints []Coordinate
		coef   []float64
		lo, hi float64
		want   string
	}{
		{[]Coordinate{h, p, h2}, []float64{1, 1, 1}, 0, 1, "the joints touch more than 4 bodies"},
		{[]Coordinate{h, h}, []float64{1, 1}, 0, 1, "joint 1: the same joint as joint 0"},
		{[]Coordinate{h}, []float64{0}, 0, 1, "coefficient 0: must be finite and non-zero, got 0"},
		{[]Coordinate{h}, []float64{1, 2}, 0, 1, "need one coefficient per joint"},
		{[]Coordinate{h}, []float64{1}, 1, 0, "range: need lower ≤ upper, got [1, 0]"},
		{[]Coordinate{h}, []float64{1}, math.Inf(-1), math.Inf(1), "at least one side must be finite"},
		{[]Coordinate{nil}, []float64{1}, 0, 1, "joint 0: is nil"},
	} {
		_, err := NewTendon(c.joints, c.coef, c.lo, c.hi)
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

// BenchmarkTendonFill fills a two-sided tendon's rows: no allocation.
func BenchmarkTendonFill(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	bs := randWorld(b, r, 3)
	h, _ := NewHinge(bs, 0, 1, randVec(r, 1), randVec(r, 1))
	p, _ := NewPrismatic(bs, 2, 1, randVec(r, 1), randVec(r, 1))
	td, err := NewTendon([]Coordinate{h, p}, []float64{1, 2}, -1, 1)
	if err != nil {
		b.Fatal(err)
	}
	ctx := &Context{Bodies: bs, H: 0.01}
	rows := make([]Row, 2)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := td.Fill(rows, ctx); err != nil {
			b.Fatal(err)
		}
	}
}
