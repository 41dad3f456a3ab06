package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"text/tabwriter"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"gonum.org/v1/plot/vg"
)

// The brick-wall study of energy-error-measure.md §5.2 (Figs. 8–9,
// Eqs. 28–29). Phase 1 runs the registered brickwall scene with its
// defaults (block pivoting, no budget, h = 1/60 s) and keeps a deep copy of
// every step's MLCP. Phase 2 solves each stored MLCP with projected
// Gauss–Seidel for wallSweeps sweeps from x = 0 (no warm start), records
// the FB (Eq. 7), natural-residual (Eq. 10) and energy (Eq. 23, diagonal
// effective mass) totals after every sweep through an errmeasure.Picker with
// Trace, and reduces them per sweep to the mean (Eq. 28) and the sample
// standard deviation (Eq. 29) over the steps.

// wallSweeps is the paper's PGS iteration count per stored MLCP.
const wallSweeps = 100

func init() {
	registerStudy(study{
		Name:         "brickwall",
		Doc:          "30-brick wall under block pivoting, then PGS error-vs-iteration curves (energy-error paper §5.2, Fig. 9)",
		DefaultSteps: 500,
		Run:          studyBrickWall,
	})
}

// storedMLCP is a deep copy of one step's MLCP: the upper triangle of the
// symmetric A in compressed rows (row i holds cols[ptr[i]:ptr[i+1]], all
// ≥ i, with vals), and b, lo, hi.
type storedMLCP struct {
	n         int
	ptr       []int32
	cols      []int32
	vals      []float64
	b, lo, hi []float64
}

// copyMLCP deep-copies p. A is read through the lcp.Matrix interface
// (At over the upper triangle), so any matrix type works; only the
// non-zeros are kept.
func copyMLCP(p *lcp.Problem) *storedMLCP {
	n := p.N()
	s := &storedMLCP{n: n, ptr: make([]int32, n+1),
		b: append([]float64(nil), p.B...), lo: append([]float64(nil), p.Lo...), hi: append([]float64(nil), p.Hi...)}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if v := p.A.At(i, j); v != 0 {
				s.cols = append(s.cols, int32(j))
				s.vals = append(s.vals, v)
			}
		}
		s.ptr[i+1] = int32(len(s.cols))
	}
	return s
}

// problem loads s into the reusable sparse matrix sp and returns the
// problem; it is valid until sp is loaded again.
func (s *storedMLCP) problem(sp *lcp.Sparse) *lcp.Problem {
	sp.Reset(s.n)
	for i := 0; i < s.n; i++ {
		for k := s.ptr[i]; k < s.ptr[i+1]; k++ {
			sp.Add(i, int(s.cols[k]), s.vals[k])
		}
	}
	sp.Finish()
	return &lcp.Problem{A: sp, B: s.b, Lo: s.lo, Hi: s.hi}
}

// wallRun is what phase 1 records.
type wallRun struct {
	problems        []*storedMLCP
	contacts, iters []int // per step
	maxDisp         float64
	h               float64
}

// runWall steps the default wall steps times with its own solver (block
// pivoting, no budget) and keeps every step's MLCP.
func runWall(ctx context.Context, steps int) (*wallRun, error) {
	s, err := scenes.Lookup("brickwall")
	if err != nil {
		return nil, err
	}
	w, err := s.Build(nil)
	if err != nil {
		return nil, err
	}
	start := make([][3]float64, len(w.Bodies))
	for i, b := range w.Bodies {
		start[i] = b.Pos
	}
	r := &wallRun{h: w.Settings.H}
	for k := 1; k <= steps; k++ {
		st, err := w.Step()
		if err != nil {
			return nil, fmt.Errorf("brickwall: step %d: %w", k, err)
		}
		if p := w.LastProblem(); p != nil {
			r.problems = append(r.problems, copyMLCP(p))
		}
		r.contacts = append(r.contacts, st.Contacts)
		r.iters = append(r.iters, st.Iterations)
		for i, b := range w.Bodies {
			if b.Static {
				continue
			}
			d := b.Pos.Sub(start[i]).Len()
			r.maxDisp = math.Max(r.maxDisp, d)
		}
		if ctx.Err() != nil && k < steps {
			return nil, interruptedf("brickwall: interrupted at step %d of %d; nothing written", k, steps)
		}
	}
	return r, nil
}

// wallCurves solves every stored problem with PGS for wallSweeps sweeps
// from x = 0 and returns each step's totals per sweep. A solve that
// converges exactly before wallSweeps (a sweep that changes nothing) keeps
// its last totals for the remaining sweeps, as further sweeps would not
// change x.
func wallCurves(ctx context.Context, problems []*storedMLCP) ([][]errmeasure.Totals, error) {
	var (
		sp     lcp.Sparse
		res    lcp.Result
		solver lcp.PGS
	)
	pk := errmeasure.NewPicker(errmeasure.Energy)
	pk.Trace = true
	curves := make([][]errmeasure.Totals, len(problems))
	for k, s := range problems {
		p := s.problem(&sp)
		pk.Reset(p, errmeasure.Energy)
		// Tolerance 1e-300: never stop on a small change, only on none.
		err := solver.Solve(&res, p, lcp.Settings{MaxIterations: wallSweeps, Tolerance: 1e-300, Observer: pk})
		if err != nil {
			return nil, fmt.Errorf("brickwall: PGS on step %d: %w", k+1, err)
		}
		if len(pk.History) == 0 {
			return nil, fmt.Errorf("brickwall: PGS on step %d: no iterate observed", k+1)
		}
		c := make([]errmeasure.Totals, wallSweeps)
		n := copy(c, pk.History)
		for i := n; i < wallSweeps; i++ {
			c[i] = c[n-1]
		}
		curves[k] = c
		if ctx.Err() != nil && k+1 < len(problems) {
			return nil, interruptedf("brickwall: interrupted in the PGS phase at step %d of %d; nothing written", k+1, len(problems))
		}
	}
	return curves, nil
}

// meanStd returns the mean (Eq. 28) and the sample standard deviation
// (Eq. 29, 1/(T−1)) of v; the deviation of a single value is 0.
func meanStd(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)-1))
}

// wallMeasures names the three measures in CSV and plot order.
var wallMeasures = []struct {
	Name, Label, Unit string
	Of                errmeasure.Measure
}{
	{"fb", "Fischer–Burmeister δψ_FB (Eq. 7)", "m/s + N·s, mixed", errmeasure.FB},
	{"residual", "natural residual δψ_res (Eq. 10)", "m/s + N·s, mixed", errmeasure.Residual},
	{"energy", "energy error δe (Eq. 23)", "J", errmeasure.Energy},
}

func studyBrickWall(ctx context.Context, o studyOptions) error {
	run, err := runWall(ctx, o.Steps)
	if err != nil {
		return err
	}
	if len(run.problems) == 0 {
		return fmt.Errorf("brickwall: no step had constraint rows")
	}
	curves, err := wallCurves(ctx, run.problems)
	if err != nil {
		return err
	}
	T := len(curves)

	// mean[m][i], std[m][i] for measure m after sweep i+1.
	mean := make([][]float64, len(wallMeasures))
	std := make([][]float64, len(wallMeasures))
	col := make([]float64, T)
	for m, wm := range wallMeasures {
		mean[m] = make([]float64, wallSweeps)
		std[m] = make([]float64, wallSweeps)
		for i := 0; i < wallSweeps; i++ {
			for k := range curves {
				col[k] = curves[k][i].Of(wm.Of)
			}
			mean[m][i], std[m][i] = meanStd(col)
		}
	}

	// errors.csv
	rows := make([][]string, wallSweeps)
	for i := range rows {
		r := []string{fmt.Sprint(i + 1)}
		for m := range wallMeasures {
			r = append(r, fmtFloat(mean[m][i]), fmtFloat(std[m][i]))
		}
		rows[i] = r
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "errors.csv"),
		[]string{"iteration", "fb_mean", "fb_std", "residual_mean", "residual_std", "energy_mean", "energy_std"}, rows); err != nil {
		return err
	}
	// curves.csv, long format.
	rows = make([][]string, 0, T*wallSweeps)
	for k, c := range curves {
		for i, t := range c {
			rows = append(rows, []string{fmt.Sprint(k + 1), fmt.Sprint(i + 1), fmtFloat(t.FB), fmtFloat(t.Residual), fmtFloat(t.Energy)})
		}
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "curves.csv"), []string{"step", "iteration", "fb", "residual", "energy"}, rows); err != nil {
		return err
	}

	// summary.csv and the table on stdout.
	contacts := make([]float64, len(run.contacts))
	for i, c := range run.contacts {
		contacts[i] = float64(c)
	}
	cMean, _ := meanStd(contacts)
	iters := make([]float64, len(run.iters))
	itMax := 0
	for i, v := range run.iters {
		iters[i] = float64(v)
		itMax = max(itMax, v)
	}
	itMean, _ := meanStd(iters)
	peak := func(v []float64) int {
		best := 0
		for i := range v {
			if v[i] > v[best] {
				best = i
			}
		}
		return best + 1
	}
	summary := [][]string{
		{"steps", fmt.Sprint(len(run.iters))},
		{"contacts_per_step_mean", fmtFloat(cMean)},
		{"iterations_mean", fmtFloat(itMean)},
		{"iterations_max", fmt.Sprint(itMax)},
		{"max_displacement_m", fmtFloat(run.maxDisp)},
	}
	for m, wm := range wallMeasures {
		for _, it := range []int{1, 10, 50, 100} {
			summary = append(summary, []string{fmt.Sprintf("%s_mean_iter%d", wm.Name, it), fmtFloat(mean[m][it-1])})
		}
	}
	summary = append(summary,
		[]string{"fb_mean_peak_iteration", fmt.Sprint(peak(mean[0]))},
		[]string{"residual_mean_peak_iteration", fmt.Sprint(peak(mean[1]))},
		[]string{"energy_mean_peak_iteration", fmt.Sprint(peak(mean[2]))},
	)
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"quantity", "value"}, summary); err != nil {
		return err
	}

	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "brickwall (energy-error paper §5.2, Fig. 9): %d steps of h = %.4g s with block pivoting; %d PGS sweeps from x = 0 per stored MLCP\n",
		len(run.iters), run.h, wallSweeps)
	fmt.Fprintf(tw, "contacts/step %.4g, BPP iterations/step mean %.3g max %d, max brick displacement %.3g m\n",
		cMean, itMean, itMax, run.maxDisp)
	fmt.Fprintln(tw, "measure\tunit\titer 1\titer 10\titer 50\titer 100\tpeak at iter")
	for m, wm := range wallMeasures {
		fmt.Fprintf(tw, "%s\t%s\t%.3g\t%.3g\t%.3g\t%.3g\t%d\n", wm.Name, wm.Unit,
			mean[m][0], mean[m][9], mean[m][49], mean[m][99], peak(mean[m]))
	}
	fmt.Fprintln(tw, "paper: FB and residual rise for about 10 iterations, then fall; energy falls from the start, and faster")
	if err := tw.Flush(); err != nil {
		return err
	}

	png, err := wallFigure(mean, std, curves)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, "brickwall-fig9.png"), png)
}

// wallFigure draws Fig. 9: one row per measure, the mean ± standard
// deviation over the steps on the left, every step's curve on the right,
// log y.
func wallFigure(mean, std [][]float64, curves [][]errmeasure.Totals) ([]byte, error) {
	iters := make([]float64, wallSweeps)
	for i := range iters {
		iters[i] = float64(i + 1)
	}
	panels := make([][]*logPanel, len(wallMeasures))
	for m, wm := range wallMeasures {
		lo := make([]float64, wallSweeps)
		hi := make([]float64, wallSweeps)
		for i := range lo {
			lo[i], hi[i] = mean[m][i]-std[m][i], mean[m][i]+std[m][i]
		}
		left := &logPanel{
			Title:  fmt.Sprintf("%s: mean over %d steps", wm.Label, len(curves)),
			XLabel: "PGS iteration", YLabel: wm.Unit,
			Solid:  []series{{Label: "mean", X: iters, Y: mean[m]}},
			Dashed: []series{{Label: "mean ± std", X: iters, Y: hi}, {X: iters, Y: lo}},
		}
		right := &logPanel{
			Title:  fmt.Sprintf("%s: every step", wm.Label),
			XLabel: "PGS iteration", YLabel: wm.Unit,
		}
		for k, c := range curves {
			y := make([]float64, wallSweeps)
			for i, t := range c {
				y[i] = t.Of(wm.Of)
			}
			right.Thin = append(right.Thin, series{Label: fmt.Sprint(k + 1), X: iters, Y: y})
		}
		panels[m] = []*logPanel{left, right}
	}
	return panelsPNG(panels, 12*vg.Inch, 12*vg.Inch)
}
