package lab

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gorigid/gorigid/bpmd"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/lcp"
	"gonum.org/v1/gonum/stat"
)

// `sim bench DB.h5 [--solvers LIST] [--budget K] [--tol T] [--form F] [--out DIR]`
//
// For every frame of the database it rebuilds the problem (--form: box,
// the MLCP gorigid solves, by default; lcp or mixed for the polyhedral
// cone of Lu et al. 2014 Eq. 11) and runs each solver cold
// (no warm start) under the budget, recording after every iteration the
// FB total, the natural residual and the energy error of the iterate
// (Enzenhöfer et al. 2019 Eqs. 7, 10, 23), the wall time and the status.
//
// Success: the solver's returned x has energy error δe ≤ tol · E₀, with
// E₀ = Σᵢ bᵢ²/(2aᵢᵢ) the energy of the frame's free constraint velocities
// (J): a dimensionless, unit-consistent test that applies to every solver.
//
// Outputs in DIR:
//
//	runs.csv      frame,solver,rows,status,iterations,time_ms,fb,residual,energy,energy_rel,success
//	curves.csv    frame,solver,iter,fb,residual,energy,energy_rel (iterates that satisfy Eq. 2)
//	summary.csv   per solver: success rate at tol, median/p90 iterations and time, final errors
//	curves.png    median over frames of the relative energy error after each iteration
//	profile-iterations.png, profile-time.png   Dolan–Moré performance profiles
//
// Everything is deterministic except the wall times: runs.csv time_ms,
// summary.csv median_time_ms and p90_time_ms, and profile-time.png.

// BenchDefaultSolvers is the default --solvers of bench.
const BenchDefaultSolvers = "bpp,pgs,lemke,newton-fb,newton-cck,newton-min,prox"

// benchRun is one solver's trace on one frame.
type benchRun struct {
	errmeasure.Trace
	frame, solver int
	rows          int
	e0            float64 // E₀ of the frame (errmeasure.FreeEnergy), J
	energyRel     float64 // Final.Energy / e0
	success       bool    // energyRel ≤ tol
}

func simBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bench")
	solversFlag := fs.String("solvers", BenchDefaultSolvers, "comma-separated solver names")
	budget := fs.Int("budget", 100, "iteration budget per solve; 0 = each solver's default")
	tol := fs.Float64("tol", 1e-6, "success: energy error ≤ tol × E₀ (dimensionless)")
	formName := fs.String("form", "box", "box, lcp or mixed")
	out := fs.String("out", "bench", "output directory")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("bench: want one database file, got %d arguments", len(pos))
	}
	if *budget < 0 {
		return cli.Usagef("--budget: must be ≥ 0, got %d", *budget)
	}
	if !(*tol > 0) || math.IsInf(*tol, 0) {
		return cli.Usagef("--tol: must be finite and > 0, got %v", *tol)
	}
	form, err := bpmd.ParseFormulation(*formName)
	if err != nil {
		return cli.Usagef("--form: %v", err)
	}
	var names []string
	for _, n := range strings.Split(*solversFlag, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if _, err := lcp.New(n); err != nil {
			return cli.Usagef("--solvers: %v", err)
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return cli.Usagef("--solvers: empty list")
	}
	frames, err := bpmd.ReadFile(pos[0])
	if err != nil {
		return cli.UsageError{Err: err}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return cli.Usagef("--out: %v", err)
	}
	var runs []benchRun
	done := 0 // frames benchmarked by every solver
	progress := func(int, int) {}
	if cli.IsTerminal(stderr) {
		progress = newProgressBar(stderr) // frames done, with an ETA
	}
	for fi, f := range frames {
		if ctx.Err() != nil {
			break
		}
		if f.RowCount() == 0 {
			done++
			progress(done, len(frames))
			continue
		}
		p, _, err := bpmd.Rebuild(f, form, bpmd.Options{})
		if err != nil {
			return cli.Usagef("%s: frame %d: %v", pos[0], f.Index, err)
		}
		e0 := errmeasure.FreeEnergy(p)
		frameRuns := len(runs)
		for si, name := range names {
			solver, _ := lcp.New(name)
			runs = append(runs, benchOne(ctx, p, solver, *budget, e0, *tol, fi, si))
		}
		if ctx.Err() != nil {
			runs = runs[:frameRuns] // a solve of this frame was canceled: drop the frame
			break
		}
		done++
		progress(done, len(frames))
	}
	if done < len(frames) && cli.IsTerminal(stderr) {
		fmt.Fprintln(stderr) // end the bar's line before the interruption's message
	}
	if ctx.Err() != nil {
		// SIGINT or SIGTERM: write what the completed frames measured.
		if err := writeBench(*out, stdout, frames, names, runs, *tol, *budget, form); err != nil {
			return cli.Interruptedf("interrupted after %d of %d frames; writing their results failed: %v", done, len(frames), err)
		}
		return cli.Interruptedf("interrupted after %d of %d frames; the results of those frames are written", done, len(frames))
	}
	return writeBench(*out, stdout, frames, names, runs, *tol, *budget, form)
}

func benchOne(ctx context.Context, p *lcp.Problem, solver lcp.Solver, budget int, e0, tol float64, fi, si int) benchRun {
	r := benchRun{Trace: errmeasure.TraceSolve(ctx, p, solver, budget), frame: fi, solver: si, rows: p.N(), e0: e0}
	r.energyRel = r.Final.Energy / e0
	r.success = r.energyRel <= tol
	return r
}

// percentile returns the nearest-rank q-quantile (0 < q ≤ 1) of v, the
// smallest value with at least a fraction q of v at or below it
// (stat.Empirical); NaN for no values.
func percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return stat.Quantile(q, stat.Empirical, s, nil)
}

func writeBench(dir string, stdout io.Writer, frames []*bpmd.Frame, names []string, runs []benchRun, tol float64, budget int, form bpmd.Formulation) error {
	var runRows, curveRows [][]string
	for _, r := range runs {
		f := frames[r.frame]
		runRows = append(runRows, []string{fmt.Sprint(f.Index), names[r.solver], fmt.Sprint(r.rows), r.Status,
			fmt.Sprint(r.Iterations), fmtFloat(float64(r.Time.Microseconds()) / 1000),
			fmtFloat(r.Final.FB), fmtFloat(r.Final.Residual), fmtFloat(r.Final.Energy), fmtFloat(r.energyRel), fmt.Sprint(r.success)})
		e0 := r.e0
		for k, t := range r.Curve {
			curveRows = append(curveRows, []string{fmt.Sprint(f.Index), names[r.solver], fmt.Sprint(r.CurveIter[k]),
				fmtFloat(t.FB), fmtFloat(t.Residual), fmtFloat(t.Energy), fmtFloat(t.Energy / e0)})
		}
	}
	if err := writeCSVFile(filepath.Join(dir, "runs.csv"),
		[]string{"frame", "solver", "rows", "status", "iterations", "time_ms", "fb", "residual", "energy", "energy_rel", "success"}, runRows); err != nil {
		return err
	}
	if err := writeCSVFile(filepath.Join(dir, "curves.csv"),
		[]string{"frame", "solver", "iter", "fb", "residual", "energy", "energy_rel"}, curveRows); err != nil {
		return err
	}
	// Per solver summary.
	var sumRows [][]string
	fmt.Fprintf(stdout, "bench: %d frames, form %s, budget %d, success: energy error ≤ %g × E₀\n", countFrames(runs), form, budget, tol)
	fmt.Fprintf(stdout, "%-11s %8s %9s %9s %11s %11s %11s %11s\n", "solver", "success", "med_iter", "p90_iter", "med_ms", "p90_ms", "med_fb", "med_e_rel")
	for si, name := range names {
		var it, tm, fb, res, er []float64
		n, ok := 0, 0
		for _, r := range runs {
			if r.solver != si {
				continue
			}
			n++
			if r.success {
				ok++
			}
			it = append(it, float64(r.Iterations))
			tm = append(tm, float64(r.Time.Microseconds())/1000)
			fb = append(fb, r.Final.FB)
			res = append(res, r.Final.Residual)
			er = append(er, r.energyRel)
		}
		rate := 0.0
		if n > 0 {
			rate = float64(ok) / float64(n)
		}
		row := []string{name, fmt.Sprint(n), fmtFloat(tol), fmt.Sprint(ok), fmtFloat(rate),
			fmtFloat(percentile(it, 0.5)), fmtFloat(percentile(it, 0.9)),
			fmtFloat(percentile(tm, 0.5)), fmtFloat(percentile(tm, 0.9)),
			fmtFloat(percentile(fb, 0.5)), fmtFloat(percentile(res, 0.5)), fmtFloat(percentile(er, 0.5)), fmtFloat(percentile(er, 1))}
		sumRows = append(sumRows, row)
		fmt.Fprintf(stdout, "%-11s %7.1f%% %9g %9g %11.3g %11.3g %11.3g %11.3g\n", name, 100*rate,
			percentile(it, 0.5), percentile(it, 0.9), percentile(tm, 0.5), percentile(tm, 0.9), percentile(fb, 0.5), percentile(er, 0.5))
	}
	if err := writeCSVFile(filepath.Join(dir, "summary.csv"),
		[]string{"solver", "frames", "tol", "successes", "success_rate", "median_iterations", "p90_iterations",
			"median_time_ms", "p90_time_ms", "median_final_fb", "median_final_residual", "median_final_energy_rel", "max_final_energy_rel"}, sumRows); err != nil {
		return err
	}
	if err := writeCurvesPNG(filepath.Join(dir, "curves.png"), names, runs, budget); err != nil {
		return err
	}
	iters := func(r benchRun) float64 { return float64(max(r.Iterations, 1)) }
	secs := func(r benchRun) float64 { return math.Max(r.Time.Seconds(), 1e-9) }
	if err := writeProfilePNG(filepath.Join(dir, "profile-iterations.png"), "Performance profile: iterations (a pivot, sweep or Newton step)", names, runs, iters); err != nil {
		return err
	}
	return writeProfilePNG(filepath.Join(dir, "profile-time.png"), "Performance profile: wall time", names, runs, secs)
}

func countFrames(runs []benchRun) int {
	n, last := 0, -1
	for _, r := range runs {
		if r.frame != last {
			n++
			last = r.frame
		}
	}
	return n
}

// writeCurvesPNG plots, per solver, the median over frames of the
// relative energy error δe/E₀ after iteration k (a frame that stopped
// before k keeps its last value).
func writeCurvesPNG(path string, names []string, runs []benchRun, budget int) error {
	lp := &linePlot{Title: "Energy error after each iteration (median over frames)", XLabel: "iteration",
		YLabel: "δe / E₀", LogY: true, LogFloor: 1e-16}
	for si, name := range names {
		kmax := 0
		for _, r := range runs {
			if r.solver == si && len(r.Curve) > 0 {
				kmax = max(kmax, r.CurveIter[len(r.CurveIter)-1])
			}
		}
		if budget > 0 {
			kmax = min(kmax, budget)
		}
		var s series
		s.Label = name
		for k := 1; k <= kmax; k++ {
			var v []float64
			for _, r := range runs {
				if r.solver != si || len(r.Curve) == 0 {
					continue
				}
				e0 := r.e0
				j := sort.SearchInts(r.CurveIter, k+1) - 1 // last iterate with iter ≤ k
				if j < 0 {
					continue
				}
				v = append(v, r.Curve[j].Energy/e0)
			}
			if len(v) > 0 {
				s.X = append(s.X, float64(k))
				s.Y = append(s.Y, percentile(v, 0.5))
			}
		}
		if len(s.X) > 0 {
			lp.Series = append(lp.Series, s)
		}
	}
	b, err := lp.png()
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}

// writeProfilePNG draws the Dolan–Moré performance profile: for each
// solver s, ρ_s(τ) = the fraction of frames with r_{p,s} = t_{p,s} /
// min_s t_{p,s} ≤ τ, where t is cost(run) for a successful run and +∞ for
// a failed one (at the stated tolerance).
func writeProfilePNG(path, title string, names []string, runs []benchRun, cost func(benchRun) float64) error {
	byFrame := map[int][]benchRun{}
	var order []int
	for _, r := range runs {
		if _, ok := byFrame[r.frame]; !ok {
			order = append(order, r.frame)
		}
		byFrame[r.frame] = append(byFrame[r.frame], r)
	}
	ratios := make([][]float64, len(names))
	tmax := 1.0
	for _, fi := range order {
		best := math.Inf(1)
		for _, r := range byFrame[fi] {
			if r.success {
				best = math.Min(best, cost(r))
			}
		}
		for _, r := range byFrame[fi] {
			q := math.Inf(1)
			if r.success {
				q = cost(r) / best
				tmax = math.Max(tmax, q)
			}
			ratios[r.solver] = append(ratios[r.solver], q)
		}
	}
	tmax *= 1.1
	lp := &linePlot{Title: title, XLabel: "τ (log₂ of the ratio to the best solver)", YLabel: "fraction of frames ρ(τ)"}
	for si, name := range names {
		q := append([]float64(nil), ratios[si]...)
		sort.Float64s(q)
		s := series{Label: name}
		n := float64(len(q))
		s.X, s.Y = append(s.X, 0), append(s.Y, 0)
		for k, v := range q {
			if math.IsInf(v, 1) {
				break
			}
			x := math.Log2(v)
			s.X = append(s.X, x, x)
			s.Y = append(s.Y, float64(k)/n, float64(k+1)/n)
		}
		last := s.Y[len(s.Y)-1]
		s.X, s.Y = append(s.X, math.Log2(tmax)), append(s.Y, last)
		lp.Series = append(lp.Series, s)
	}
	b, err := lp.png()
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}
