package lab

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
)

// Issue 18: bench hung in decadeTicks when every curve was flat. Degenerate
// data must render (or be refused with an error) quickly, never loop.
func TestPlotsDegenerateData(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	flat := func(v float64, n int) []float64 {
		y := make([]float64, n)
		for i := range y {
			y[i] = v
		}
		return y
	}
	xs := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i + 1)
		}
		return x
	}
	cases := []struct {
		name    string
		y       [][]float64 // one entry per series; nil: no series
		wantErr bool        // NaN or ±Inf values are refused with an error
	}{
		{"no series", nil, false},
		{"empty series", [][]float64{{}}, false},
		{"one point", [][]float64{{1e-3}}, false},
		{"flat at a power of ten", [][]float64{flat(1e-3, 5), flat(1e-3, 3)}, false},
		{"flat between powers", [][]float64{flat(3e-7, 5)}, false},
		{"all zero", [][]float64{flat(0, 5), flat(0, 2)}, false},
		{"negative", [][]float64{flat(-2, 4)}, false},
		{"smallest subnormal", [][]float64{flat(5e-324, 4)}, false},
		{"largest finite", [][]float64{flat(math.MaxFloat64, 4)}, false},
		{"both extremes", [][]float64{{5e-324, math.MaxFloat64}}, false},
		{"NaN", [][]float64{{1, nan, 2}}, true},
		{"+Inf", [][]float64{{1, inf}}, true},
		{"-Inf", [][]float64{{-inf, 1}}, true},
	}
	for _, c := range cases {
		var ss []series
		for i, y := range c.y {
			ss = append(ss, series{Label: fmt.Sprint("s", i), X: xs(len(y)), Y: y})
		}
		for _, logY := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/linePlot/log=%v", c.name, logY), func(t *testing.T) {
				lp := &linePlot{Title: c.name, LogY: logY, LogFloor: 1e-16, Series: ss}
				b, err := withDeadline(t, func() ([]byte, error) { return lp.png() })
				// On a linear axis the infinities are refused by gonum
				// itself and NaN by our check, so both paths must error.
				checkRendered(t, b, err, c.wantErr)
			})
		}
		t.Run(c.name+"/logPanel", func(t *testing.T) {
			lp := &logPanel{Title: c.name, Solid: ss, Dashed: ss, Thin: ss}
			b, err := withDeadline(t, func() ([]byte, error) {
				return panelsPNG([][]*logPanel{{lp}}, 4*vg.Inch, 3*vg.Inch)
			})
			checkRendered(t, b, err, c.wantErr)
		})
	}
}

// withDeadline runs f and fails the test if it has not returned in 20 s
// (a render takes milliseconds; 20 s leaves room for a loaded -race run).
func withDeadline(t *testing.T, f func() ([]byte, error)) ([]byte, error) {
	t.Helper()
	type out struct {
		b   []byte
		err error
	}
	done := make(chan out, 1)
	go func() {
		b, err := f()
		done <- out{b, err}
	}()
	select {
	case o := <-done:
		return o.b, o.err
	case <-time.After(20 * time.Second):
		t.Fatal("plotting did not return within 20 s")
		return nil, nil
	}
}

func checkRendered(t *testing.T, b []byte, err error, wantErr bool) {
	t.Helper()
	if wantErr {
		require.Error(t, err)
		return
	}
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(b, []byte("\x89PNG")), "not a PNG")
}

// decadeTicks over any range: bounded work, ticks inside [lo, hi], and
// every power of ten inside the range labelled.
func TestDecadeTicksProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 2))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1, -1e-3, 5e-324, 1e-300, 1, 10, math.MaxFloat64}
	pick := func() float64 {
		if rng.IntN(3) == 0 {
			return special[rng.IntN(len(special))]
		}
		return math.Pow(10, rng.Float64()*600-300) * float64(1-2*rng.IntN(2)*rng.IntN(2))
	}
	for i := 0; i < 2000; i++ {
		lo, hi := pick(), pick()
		ticks := decadeTicks{}.Ticks(lo, hi)
		// 9 ticks per decade over at most 633 decades of float64.
		require.LessOrEqual(t, len(ticks), 9*634, "lo %v hi %v", lo, hi)
		labels := 0
		for _, tk := range ticks {
			require.True(t, tk.Value >= lo && tk.Value <= hi, "tick %v outside [%v, %v]", tk.Value, lo, hi)
			if tk.Label != "" {
				labels++
			}
		}
		if lo > 0 && hi >= 10*lo && !math.IsInf(hi, 1) {
			require.Positive(t, labels, "no labelled decade in [%v, %v]", lo, hi)
		}
	}
}
