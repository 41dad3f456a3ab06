package main

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The forklift study of energy-error-measure.md §5.3 (Figs. 10–12): does
// picking the least-error iterate keep a vehicle on its path under an
// iteration budget where keeping the last iterate does not?
//
//  1. Reference: the registered forklift scene with block pivoting and no
//     budget (the solver's default, 100 + 10 n iterations), keeping the
//     solver's own result (Pick = Last; a converged solve's last iterate is
//     its solution).
//  2. The same run with a budget of 15 block pivots per step (the paper's
//     limit) and of 5 (issue 6's trajectory comparison) under ten rules:
//     keep the last iterate ("last", the paper's "no correction"), or pick
//     the least Fischer–Burmeister error ("fb", Eq. 7), natural residual
//     ("residual", Eq. 10), energy error ("energy", Eq. 23, diagonal
//     effective mass) or energy error with the exact effective mass of
//     Eq. 11 ("energy-exact", through the pseudoinverse where A is
//     singular, errmeasure.ExactPickMass); each also followed by five
//     projected Gauss–Seidel sweeps ("+polish5", errmeasure.Polish: only
//     from an unconverged pick inside its box). The time per step and the
//     sweeps per step are printed (not written: the files stay
//     deterministic).
//  3. After every step of every run, the step's MLCP (World.LastProblem)
//     is solved again by a fresh block pivoting solver, cold and without a
//     budget, giving x*; the step-wise distance of the x the step used is
//     ½ (x − x*)ᵀ A (x − x*) (J): the kinetic energy of the velocity error
//     M⁻¹Jᵀ(x − x*) it causes, plus the compliant rows' ½ c Δx². It is
//     well defined where A is only semidefinite (x* is then not unique, but
//     A(x − x*) is). This tests the paper's claim step by step, free of the
//     trajectory's sensitivity.
//  4. Per run: the fraction of steps that hit the budget; the mean and max
//     distance (m) of the chassis' centre of mass from the reference path
//     (the nearest point of the reference's x–y polyline over the whole
//     run); the circle fraction ψ(k*)/ψ_ref(k*), ψ the chassis' unwrapped
//     heading change since the start and k* the step at which the
//     reference has turned 2π (the last step if it never does); the
//     number of wheel-speed spikes; and the mean and max step-wise
//     distance, and its mean over the steps that hit the budget.
//     A spike is a step after which some wheel's spin rate (relative to its
//     mount, scenes.ForkliftWheelSpeeds) changed by more than twice the
//     largest change of any wheel in one step of the reference run
//     (spikeFactor): a jump the reference never comes close to.
//  5. The brick wall's stored MLCPs (the brickwall study's phase 1, min(500,
//     --steps) steps), each solved cold by block pivoting with budgets 1 to
//     15, per rule: the mean step-wise distance to x* (the same problem
//     solved cold without a budget), the fraction of problems on which the
//     rule's x is farther from x* than the last iterate (ties within
//     10⁻¹⁰·½x*ᵀAx* are not), and over all budgets how often the
//     certified bound (errmeasure.CertifiedBound) is finite and its median
//     ratio to the distance. Iterates do not depend on the budget, which
//     only ends the solve, so one solve with budget 15 that records every
//     iterate gives all budgets (wallTrace.pick; a test checks it against
//     errmeasure.Solve).
//     The same table, budgets 1 to 15, is made from the reference
//     forklift's own MLCPs (forklift-budgets.csv): the forklift's
//     problems, solved cold, compared on identical problems.
//
// Nothing is tuned per variant: every run uses the scene's defaults, the
// same solver and the same warm starts (the stepper's own, by contact key).

const (
	forkliftPaperBudget = 15
	wallMaxBudget       = 15
	spikeFactor         = 2.0
	biteFraction        = 0.2
	fig11Zoom           = 0.5 // m, half-width of Fig. 11's zoomed panel
)

func init() {
	registerStudy(study{
		Name:         "forklift",
		Doc:          "forklift on a circle under budgets of 15 and 5 pivots: last iterate vs least FB/residual/energy/exact-mass energy error, each with and without 5 polish sweeps (energy-error paper §5.3, Figs. 11–12), and the wall's and forklift's MLCPs under budgets 1–15",
		DefaultSteps: 900,
		Run:          studyForklift,
	})
}

// fkVariant is one run of the study.
type fkVariant struct {
	Name   string // "reference", or the rule's name (fkRule.name)
	Budget int    // 0 = the solver's default (no budget)
	Pick   errmeasure.Measure
	Polish int // projected Gauss–Seidel sweeps after the budget (stepper.Settings.Polish)
}

// fkRule is a budgeted step's rule: a pick and a number of polish sweeps.
type fkRule struct {
	m      errmeasure.Measure
	polish int
}

// name is the pick's name, with "+polishK" for K sweeps.
func (r fkRule) name() string {
	if r.polish == 0 {
		return r.m.String()
	}
	return fmt.Sprintf("%s+polish%d", r.m, r.polish)
}

// fkPolish is the number of sweeps of the polished rules (issue 17: five
// sweeps, each about one product with A).
const fkPolish = 5

// fkRules are the picks without and then with the polish.
func fkRules() []fkRule {
	var out []fkRule
	for _, k := range []int{0, fkPolish} {
		for _, m := range fkPicks {
			out = append(out, fkRule{m, k})
		}
	}
	return out
}

// fkRun is what one run records. Per-state slices have steps+1 entries
// (index 0 is the start); per-step slices have steps entries (index k−1
// for step k).
type fkRun struct {
	v              fkVariant
	x, y, yaw, spd []float64    // chassis centre of mass (m), unwrapped heading change (rad), speed (m/s)
	wheels         [][4]float64 // wheel spin rates (rad/s)
	iters          []int
	hit            []bool
	dist           []float64     // step-wise distance ½ΔxᵀAΔx (J)
	problems       []*storedMLCP // the reference's MLCPs (kept only when asked)
	failed         int           // steps whose solve ended with an error (ErrSingular)
	exactFailed    int           // x* solves that did not converge
	h              float64
	stepTime       time.Duration // total wall-clock time of World.Step (printed, never written to files)
	sweeps         int           // polish sweeps over the run
}

// runForklift runs the registered forklift scene for steps steps under v
// and measures each step's distance to the cold, unbudgeted solution.
func runForklift(ctx context.Context, v fkVariant, steps int, keep bool) (*fkRun, error) {
	s, err := scenes.Lookup("forklift")
	if err != nil {
		return nil, err
	}
	w, err := s.Build(nil)
	if err != nil {
		return nil, err
	}
	w.Settings.Budget, w.Settings.Pick, w.Settings.Polish = v.Budget, v.Pick, v.Polish
	r := &fkRun{v: v, h: w.Settings.H}
	prevHead := scenes.ForkliftHeading(w)
	yaw := 0.0
	record := func() {
		c := w.Bodies[scenes.ForkliftChassis]
		hd := scenes.ForkliftHeading(w)
		d := hd - prevHead
		yaw += d - 2*math.Pi*math.Round(d/(2*math.Pi))
		prevHead = hd
		r.x = append(r.x, c.Pos[0])
		r.y = append(r.y, c.Pos[1])
		r.yaw = append(r.yaw, yaw)
		r.spd = append(r.spd, c.Vel.Len())
		r.wheels = append(r.wheels, scenes.ForkliftWheelSpeeds(w))
	}
	record()
	var (
		exact lcp.BPP
		res   lcp.Result
		dx    []float64
		adx   []float64
	)
	for k := 1; k <= steps; k++ {
		t0 := time.Now()
		st, err := w.Step()
		r.stepTime += time.Since(t0)
		r.sweeps += st.PolishSweeps
		if err != nil {
			if !errors.Is(err, lcp.ErrSingular) {
				return nil, fmt.Errorf("forklift %s: %w", v.Name, err)
			}
			r.failed++ // the step used the solver's best iterate
		}
		record()
		r.iters = append(r.iters, st.Iterations)
		r.hit = append(r.hit, st.BudgetHit)
		d := 0.0
		if p := w.LastProblem(); p != nil {
			if keep {
				r.problems = append(r.problems, copyMLCP(p))
			}
			x, _ := w.LastSolution()
			if err := exact.Solve(&res, p, lcp.Settings{}); err != nil || res.Status != lcp.Converged {
				r.exactFailed++
			}
			if len(res.X) == p.N() {
				d = energyDistance(p, x, res.X, &dx, &adx)
			}
		}
		r.dist = append(r.dist, d)
		if ctx.Err() != nil && k < steps {
			return nil, interruptedf("forklift: interrupted in run %s at step %d of %d; nothing written", v.Name, k, steps)
		}
	}
	return r, nil
}

// energyDistance returns ½ (x − xs)ᵀ A (x − xs) (J), using *dx and *adx
// as scratch.
func energyDistance(p *lcp.Problem, x, xs []float64, dx, adx *[]float64) float64 {
	n := p.N()
	if cap(*dx) < n {
		*dx, *adx = make([]float64, n), make([]float64, n)
	}
	d, a := (*dx)[:n], (*adx)[:n]
	for i := range d {
		d[i] = x[i] - xs[i]
	}
	p.A.MulVecTo(a, d)
	s := 0.0
	for i := range d {
		s += d[i] * a[i]
	}
	return math.Max(0, 0.5*s) // A is positive semidefinite: a negative value is rounding
}

// fkSummary is one summary.csv row.
type fkSummary struct {
	Variant                        string
	Budget                         int
	HitFraction                    float64
	MeanDev, MaxDev                float64 // m
	CircleFraction                 float64
	Spikes                         int
	MeanDist, MaxDist, MeanDistHit float64 // J
	Failed, ExactFailed            int
}

// pathLength returns the length (m) of r's chassis path in the x–y plane
// from the start to state k.
func pathLength(r *fkRun, k int) float64 {
	l := 0.0
	for i := 1; i <= k && i < len(r.x); i++ {
		l += math.Hypot(r.x[i]-r.x[i-1], r.y[i]-r.y[i-1])
	}
	return l
}

// circleStep returns k*: the first state index at which the reference has
// turned 2π, or the last one.
func circleStep(ref *fkRun) int {
	for k, v := range ref.yaw {
		if math.Abs(v) >= 2*math.Pi {
			return k
		}
	}
	return len(ref.yaw) - 1
}

// maxWheelJump returns the largest |Δω| (rad/s) of any wheel between two
// consecutive states of r.
func maxWheelJump(r *fkRun) float64 {
	m := 0.0
	for k := 1; k < len(r.wheels); k++ {
		for i := range r.wheels[k] {
			m = math.Max(m, math.Abs(r.wheels[k][i]-r.wheels[k-1][i]))
		}
	}
	return m
}

// spikes counts the steps after which some wheel's spin rate jumped by
// more than threshold.
func spikes(r *fkRun, threshold float64) int {
	n := 0
	for k := 1; k < len(r.wheels); k++ {
		for i := range r.wheels[k] {
			if math.Abs(r.wheels[k][i]-r.wheels[k-1][i]) > threshold {
				n++
				break
			}
		}
	}
	return n
}

// pathDistance returns the distance (m) of (x, y) from the polyline
// (px, py).
func pathDistance(x, y float64, px, py []float64) float64 {
	best := math.Inf(1)
	for i := 0; i+1 < len(px); i++ {
		ax, ay := px[i], py[i]
		bx, by := px[i+1]-ax, py[i+1]-ay
		t := 0.0
		if l2 := bx*bx + by*by; l2 > 0 {
			t = math.Max(0, math.Min(1, ((x-ax)*bx+(y-ay)*by)/l2))
		}
		best = math.Min(best, math.Hypot(x-ax-t*bx, y-ay-t*by))
	}
	if len(px) == 1 {
		best = math.Hypot(x-px[0], y-py[0])
	}
	return best
}

// summarize reduces run r against the reference.
func summarize(r, ref *fkRun, kStar int, threshold float64) fkSummary {
	s := fkSummary{Variant: r.v.Name, Budget: r.v.Budget, Spikes: spikes(r, threshold),
		Failed: r.failed, ExactFailed: r.exactFailed}
	hits := 0
	for k, hit := range r.hit {
		s.MeanDist += r.dist[k]
		s.MaxDist = math.Max(s.MaxDist, r.dist[k])
		if hit {
			hits++
			s.MeanDistHit += r.dist[k]
		}
	}
	n := float64(len(r.hit))
	s.HitFraction = float64(hits) / n
	s.MeanDist /= n
	if hits > 0 {
		s.MeanDistHit /= float64(hits)
	}
	for k := range r.x {
		d := 0.0
		if r != ref {
			d = pathDistance(r.x[k], r.y[k], ref.x, ref.y)
		}
		s.MeanDev += d
		s.MaxDev = math.Max(s.MaxDev, d)
	}
	s.MeanDev /= float64(len(r.x))
	s.CircleFraction = 1
	if l := pathLength(ref, kStar); l > 0 {
		s.CircleFraction = pathLength(r, kStar) / l
	}
	return s
}

var fkPicks = []errmeasure.Measure{errmeasure.Last, errmeasure.FB, errmeasure.Residual, errmeasure.Energy, errmeasure.EnergyExact}

// fkTrajectoryBudget is the second budget of the trajectory runs, the one
// of issue 6's trajectory comparison (5 pivots: the residual pick kept 0.98
// of the circle, the energy pick 0.84).
const fkTrajectoryBudget = 5

func studyForklift(ctx context.Context, o studyOptions) error {
	ref, err := runForklift(ctx, fkVariant{Name: "reference", Pick: errmeasure.Last}, o.Steps, true)
	if err != nil {
		return err
	}
	runBudget := func(b int) ([]*fkRun, error) {
		var out []*fkRun
		for _, rl := range fkRules() {
			r, err := runForklift(ctx, fkVariant{Name: rl.name(), Budget: b, Pick: rl.m, Polish: rl.polish}, o.Steps, false)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	groups := [][]*fkRun{}
	first, err := runBudget(forkliftPaperBudget)
	if err != nil {
		return err
	}
	groups = append(groups, first)
	bites := false
	for _, r := range first {
		hits := 0
		for _, h := range r.hit {
			if h {
				hits++
			}
		}
		bites = bites || float64(hits) >= biteFraction*float64(len(r.hit))
	}
	second, err := runBudget(fkTrajectoryBudget)
	if err != nil {
		return err
	}
	groups = append(groups, second)

	kStar := circleStep(ref)
	refJump := maxWheelJump(ref)
	threshold := spikeFactor * refJump
	rows := []fkSummary{summarize(ref, ref, kStar, threshold)}
	for _, g := range groups {
		for _, r := range g {
			rows = append(rows, summarize(r, ref, kStar, threshold))
		}
	}
	if err := writeForkliftFiles(o, ref, groups, rows, threshold); err != nil {
		return err
	}

	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "forklift (energy-error paper §5.3): %d steps of h = %.4g s; the reference turns 2π at step %d (t = %.4g s)\n",
		o.Steps, ref.h, kStar, float64(kStar)*ref.h)
	fmt.Fprintf(tw, "spike: a step after which a wheel's spin rate changed by more than %g × the reference's largest one-step change (%.4g rad/s), i.e. > %.4g rad/s\n",
		spikeFactor, refJump, threshold)
	fmt.Fprintln(tw, "variant\tbudget\thit\tdev mean (m)\tdev max (m)\tcircle\tspikes\tstep dist mean (J)\tmax (J)\tmean on hit steps (J)\tsolver failures\tsweeps/step\ttime/step (µs)")
	runs := []*fkRun{ref}
	for _, g := range groups {
		runs = append(runs, g...)
	}
	for i, s := range rows {
		r := runs[i]
		n := max(1, len(r.iters))
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.4g\t%.4g\t%.4f\t%d\t%.4g\t%.4g\t%.4g\t%d\t%.2f\t%.0f\n", s.Variant, s.Budget, s.HitFraction,
			s.MeanDev, s.MaxDev, s.CircleFraction, s.Spikes, s.MeanDist, s.MaxDist, s.MeanDistHit, s.Failed,
			float64(r.sweeps)/float64(n), float64(r.stepTime.Microseconds())/float64(n))
	}
	if bites {
		fmt.Fprintf(tw, "the budget of %d binds on ≥ %.0f %% of the steps in some variant\n", forkliftPaperBudget, 100*biteFraction)
	} else {
		fmt.Fprintf(tw, "the budget of %d binds on < %.0f %% of the steps in every variant\n", forkliftPaperBudget, 100*biteFraction)
	}
	fmt.Fprintln(tw, "time/step is wall-clock on this machine, for comparison between rows only")
	if err := tw.Flush(); err != nil {
		return err
	}

	// Item 5: the wall's stored problems under budgets 1..10.
	wallSteps := min(500, o.Steps)
	wall, err := runWall(ctx, wallSteps)
	if err != nil {
		return err
	}
	if err := budgetStudy(ctx, o, "brick wall", "wall-budgets", wall.problems, wallMaxBudget); err != nil {
		return err
	}
	// The same comparison on the reference forklift's own MLCPs.
	return budgetStudy(ctx, o, "forklift reference", "forklift-budgets", ref.problems, forkliftPaperBudget)
}

// budgetStudy writes NAME.csv and NAME.png: the stored problems solved
// cold with budgets 1..maxBudget under every rule (fkRules), the mean
// distance to x* and the fraction of problems on which the rule's x is
// farther from x* than the last iterate; it prints both tables and, per
// rule, how often the certified bound is finite and its median tightness.
func budgetStudy(ctx context.Context, o studyOptions, what, name string, problems []*storedMLCP, maxBudget int) error {
	if len(problems) == 0 {
		return fmt.Errorf("forklift: %s: no stored MLCP", what)
	}
	bt, err := budgetTable(ctx, problems, maxBudget)
	if err != nil {
		return err
	}
	rules := fkRules()
	header := []string{"budget", "unsolved_fraction"}
	for _, r := range rules {
		header = append(header, r.name()+"_mean_distance_j")
	}
	for _, r := range rules {
		header = append(header, r.name()+"_farther_than_last")
	}
	csvRows := make([][]string, maxBudget)
	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s: %d stored MLCPs solved cold by block pivoting; mean ½(x − x*)ᵀA(x − x*) (J) per budget (%d x* solves did not converge)\n",
		what, len(problems), bt.exactFailed)
	names := make([]string, len(rules))
	for k, r := range rules {
		names[k] = r.name()
	}
	fmt.Fprintln(tw, "budget\tunsolved\t"+strings.Join(names, "\t"))
	for b := 1; b <= maxBudget; b++ {
		r := []string{fmt.Sprint(b), fmtFloat(bt.unsolved[b-1])}
		fmt.Fprintf(tw, "%d\t%.3f", b, bt.unsolved[b-1])
		for k := range rules {
			r = append(r, fmtFloat(bt.mean[k][b-1]))
			fmt.Fprintf(tw, "\t%.3g", bt.mean[k][b-1])
		}
		for k := range rules {
			r = append(r, fmtFloat(bt.farther[k][b-1]))
		}
		fmt.Fprintln(tw)
		csvRows[b-1] = r
	}
	fmt.Fprintf(tw, "%s: fraction of the problems on which the rule's x is farther from x* than the last iterate's\n", what)
	fmt.Fprintln(tw, "budget\t\t"+strings.Join(names, "\t"))
	for b := 1; b <= maxBudget; b++ {
		fmt.Fprintf(tw, "%d\t", b)
		for k := range rules {
			fmt.Fprintf(tw, "\t%.3f", bt.farther[k][b-1])
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "%s: certified bound Σ(wᵢxᵢ − min wᵢz) over all budgets: finite fraction, median bound / distance (distance > 0)\n", what)
	for k, r := range rules {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3g\n", r.name(), float64(bt.finite[k])/float64(maxBudget*len(problems)), median(bt.ratios[k]))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeCSVFile(filepath.Join(o.Dir, name+".csv"), header, csvRows); err != nil {
		return err
	}
	budgets := make([]float64, maxBudget)
	for i := range budgets {
		budgets[i] = float64(i + 1)
	}
	lp := linePlot{
		Title:  fmt.Sprintf("%s, %d MLCPs solved cold: mean distance to x* of the kept iterate", what, len(problems)),
		XLabel: "budget (block pivots)", YLabel: "mean ½(x − x*)ᵀA(x − x*) (J)",
		LogY: true, LogFloor: 1e-12,
	}
	for k, r := range rules {
		lp.Series = append(lp.Series, series{Label: r.name(), X: budgets, Y: bt.mean[k]})
	}
	png, err := lp.png()
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, name+".png"), png)
}

// writeForkliftFiles writes summary.csv, forklift-steps.csv and the
// figures (Fig. 11 and 12 per budget).
func writeForkliftFiles(o studyOptions, ref *fkRun, groups [][]*fkRun, rows []fkSummary, threshold float64) error {
	var sum [][]string
	for _, s := range rows {
		sum = append(sum, []string{s.Variant, fmt.Sprint(s.Budget), fmtFloat(s.HitFraction), fmtFloat(s.MeanDev),
			fmtFloat(s.MaxDev), fmtFloat(s.CircleFraction), fmt.Sprint(s.Spikes),
			fmtFloat(s.MeanDist), fmtFloat(s.MaxDist), fmtFloat(s.MeanDistHit),
			fmtFloat(threshold), fmt.Sprint(s.Failed), fmt.Sprint(s.ExactFailed)})
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"variant", "budget", "budget_hit_fraction",
		"mean_deviation_m", "max_deviation_m", "circle_fraction", "spikes",
		"mean_stepwise_distance_j", "max_stepwise_distance_j", "mean_stepwise_distance_hit_j",
		"spike_threshold_rad_s", "solver_failures", "exact_failures"}, sum); err != nil {
		return err
	}
	all := []*fkRun{ref}
	for _, g := range groups {
		all = append(all, g...)
	}
	var steps [][]string
	for _, r := range all {
		for k := range r.x {
			row := []string{r.v.Name, fmt.Sprint(r.v.Budget), fmt.Sprint(k), fmtFloat(float64(k) * r.h),
				fmtFloat(r.x[k]), fmtFloat(r.y[k]), fmtFloat(r.yaw[k]), fmtFloat(r.spd[k])}
			for _, wv := range r.wheels[k] {
				row = append(row, fmtFloat(wv))
			}
			if k == 0 {
				row = append(row, "0", "0", "0")
			} else {
				hit := "0"
				if r.hit[k-1] {
					hit = "1"
				}
				row = append(row, fmt.Sprint(r.iters[k-1]), hit, fmtFloat(r.dist[k-1]))
			}
			steps = append(steps, row)
		}
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "forklift-steps.csv"), []string{"variant", "budget", "step", "time",
		"x", "y", "heading", "speed", "w_fl", "w_fr", "w_rl", "w_rr", "iterations", "budget_hit", "stepwise_distance_j"}, steps); err != nil {
		return err
	}
	for i, g := range groups {
		suffix := ""
		if i > 0 {
			suffix = fmt.Sprintf("-budget%d", g[0].v.Budget)
		}
		runs := append([]*fkRun{ref}, g...)
		png, err := forkliftFig11(runs, circleStep(ref))
		if err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(o.Dir, "forklift-fig11"+suffix+".png"), png); err != nil {
			return err
		}
		if png, err = forkliftFig12(runs); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(o.Dir, "forklift-fig12"+suffix+".png"), png); err != nil {
			return err
		}
	}
	return nil
}

// budgetTab is what budgetTable measures, per rule (fkRules order) and
// budget.
type budgetTab struct {
	mean        [][]float64 // mean ½(x − x*)ᵀA(x − x*) (J)
	farther     [][]float64 // fraction of problems with a distance above the last iterate's
	unsolved    []float64   // fraction of problems not solved within the budget
	finite      []int       // per rule, over all budgets: problems with a finite certified bound
	ratios      [][]float64 // per rule: bound / distance where finite and the distance > 0
	exactFailed int         // x* solves that did not converge
}

// budgetTable solves every stored problem cold without a budget (x*) and
// with budget maxBudget recording every iterate, and measures every rule at
// every budget b: the pick among the first b iterates (wallTrace.pick),
// then, for a polished rule, fkPolish sweeps of lcp.Polish from it.
func budgetTable(ctx context.Context, problems []*storedMLCP, maxBudget int) (*budgetTab, error) {
	rules := fkRules()
	bt := &budgetTab{mean: make([][]float64, len(rules)), farther: make([][]float64, len(rules)),
		unsolved: make([]float64, maxBudget), finite: make([]int, len(rules)), ratios: make([][]float64, len(rules))}
	for k := range rules {
		bt.mean[k] = make([]float64, maxBudget)
		bt.farther[k] = make([]float64, maxBudget)
	}
	var (
		sp       lcp.Sparse
		exact    lcp.BPP
		res      lcp.Result
		dx, adx  []float64
		trace    wallTrace
		budgeted lcp.BPP
		x, w     []float64
	)
	dist := make([]float64, len(rules))
	for k, s := range problems {
		p := s.problem(&sp)
		if e := exact.Solve(&res, p, lcp.Settings{}); e != nil || res.Status != lcp.Converged {
			bt.exactFailed++
		}
		xs := slices.Clone(res.X)
		// Distances within 10⁻¹⁰ of ½x*ᵀAx* (the step's constraint energy
		// scale) are ties: a converged answer and its rounding.
		tie := 1e-10 * max(energyDistance(p, xs, make([]float64, len(xs)), &dx, &adx), 1e-300)
		trace.solve(&budgeted, p, maxBudget)
		for b := 1; b <= maxBudget; b++ {
			if !trace.solvedWithin(b) {
				bt.unsolved[b-1]++
			}
			for r, rl := range rules {
				x = append(x[:0], trace.pick(rl.m, b)...)
				w = p.Residual(w, x)
				if rl.polish > 0 && !trace.solvedWithin(b) && errmeasure.InBox(p, x) { // errmeasure.Polish's rule: not a converged answer, only from inside the box
					if _, err := lcp.Polish(x, w, p, rl.polish); err != nil {
						return nil, fmt.Errorf("forklift: problem %d: %w", k+1, err)
					}
				}
				dist[r] = energyDistance(p, x, xs, &dx, &adx)
				bt.mean[r][b-1] += dist[r]
				if bound := errmeasure.CertifiedBound(p, x, w); !math.IsInf(bound, 1) {
					bt.finite[r]++
					if dist[r] > 0 {
						bt.ratios[r] = append(bt.ratios[r], bound/dist[r])
					}
				}
			}
			// rules[0] is the last iterate; a tie (the same x, or
			// distances equal to rounding) is not farther.
			for r := range rules {
				if dist[r] > dist[0]*(1+1e-9)+tie {
					bt.farther[r][b-1]++
				}
			}
		}
		if ctx.Err() != nil && k+1 < len(problems) {
			return nil, interruptedf("forklift: interrupted in a budget table at problem %d of %d; its files not written", k+1, len(problems))
		}
	}
	n := float64(len(problems))
	for b := range bt.unsolved {
		bt.unsolved[b] /= n
		for r := range rules {
			bt.mean[r][b] /= n
			bt.farther[r][b] /= n
		}
	}
	return bt, nil
}

// wallTrace is one cold solve under a budget with every iterate kept.
type wallTrace struct {
	p      *lcp.Problem
	exact  []float64 // the EnergyExact picker's inverse masses (errmeasure.ExactPickMass), once per problem
	hasExa bool      // exact is computed for p
	xs, ws [][]float64
	eq2    []bool
	totals []errmeasure.Totals
	final  []float64 // the solver's returned x
	status lcp.Status
	iters  int
}

// solve runs solver on p cold with budget, keeping every iterate and its
// totals (diagonal effective mass, as the stepper's Picker).
func (t *wallTrace) solve(solver lcp.Solver, p *lcp.Problem, budget int) {
	t.p, t.xs, t.ws, t.eq2, t.totals = p, t.xs[:0], t.ws[:0], t.eq2[:0], t.totals[:0]
	t.hasExa = false
	var res lcp.Result
	obs := lcp.ObserverFunc(func(it lcp.Iterate) {
		t.xs = append(t.xs, slices.Clone(it.X))
		t.ws = append(t.ws, slices.Clone(it.W))
		t.eq2 = append(t.eq2, it.SatisfiesEq2)
		t.totals = append(t.totals, errmeasure.Compute(p, it.X, it.W, nil))
	})
	_ = solver.Solve(&res, p, lcp.Settings{MaxIterations: budget, Observer: obs}) // a failure keeps the iterates so far
	t.final, t.status, t.iters = slices.Clone(res.X), res.Status, res.Iterations
}

// solvedWithin reports whether the solve converged within b iterations.
func (t *wallTrace) solvedWithin(b int) bool {
	return t.status == lcp.Converged && t.iters <= b
}

// pick returns the x that errmeasure.Solve with the same solver and a
// budget b ≤ the traced budget would return under measure m. The budget
// only ends a solve, so its iterates are the first ones of the trace:
// a solve that would end within b iterations (converged or failed) gives
// the traced result; otherwise it ends after iterate b. Under an error
// measure the iterates seen are replayed through an errmeasure.Picker (its
// rule: least error, never a bound violation over none, ties to the later);
// under Last the solver's result (the last iterate, or its best one after
// a failure).
func (t *wallTrace) pick(m errmeasure.Measure, b int) []float64 {
	seen := min(b, len(t.xs))
	ends := t.status != lcp.BudgetExhausted && t.iters <= b // converged or failed within b
	if t.status == lcp.Failed && len(t.xs) < b {
		ends = true
	}
	if m == errmeasure.Last || seen == 0 {
		if ends {
			return t.final
		}
		return t.xs[seen-1]
	}
	pk := errmeasure.NewPicker(m)
	if m == errmeasure.EnergyExact {
		// The energy-exact picker's masses, computed once per problem
		// (Picker.Reset would invert A at every budget): the same rule as
		// Reset's, so the picks are the same.
		if !t.hasExa {
			t.hasExa = true
			t.exact, _ = errmeasure.ExactPickMass(t.exact, t.p)
		}
		m = errmeasure.Energy
		pk = errmeasure.NewPicker(m)
		pk.Reset(t.p, m)
		pk.SetInverseMass(t.exact)
	} else {
		pk.Reset(t.p, m)
	}
	for i := 0; i < seen; i++ {
		pk.Observe(lcp.Iterate{Iter: i + 1, X: t.xs[i], W: t.ws[i], SatisfiesEq2: t.eq2[i]})
	}
	best, ok := pk.Best()
	if !ok { // no candidate: errmeasure.Solve falls back to the solver's x
		if ends {
			return t.final
		}
		return t.xs[seen-1]
	}
	return best.X
}

// fkStyle returns the colour and width of run i (0 = reference).
func fkStyle(i int) (color.Color, vg.Length) {
	if i == 0 {
		return color.Gray{Y: 150}, vg.Points(4)
	}
	return palette[i%len(palette)], vg.Points(1.2)
}

// forkliftFig11 draws the x–y trajectories of the runs (the first is the
// reference): the whole run on the left, on the right a window around the
// reference's position at kStar (its circle's end), ±fig11Zoom, with
// every run's position at kStar marked (runs further away fall outside).
func forkliftFig11(runs []*fkRun, kStar int) ([]byte, error) {
	full, zoom := plot.New(), plot.New()
	b := runs[1].v.Budget
	full.Title.Text = fmt.Sprintf("Forklift trajectories, budget %d (§5.3, Fig. 11)", b)
	zoom.Title.Text = fmt.Sprintf("Zoom at step %d (the reference's circle closes)", kStar)
	cx, cy := runs[0].x[kStar], runs[0].y[kStar]
	const half = fig11Zoom
	for _, p := range []*plot.Plot{full, zoom} {
		p.X.Label.Text, p.Y.Label.Text = "x (m)", "y (m)"
		p.Add(plotter.NewGrid())
	}
	for i, r := range runs {
		xy := make(plotter.XYs, len(r.x))
		for k := range r.x {
			xy[k] = plotter.XY{X: r.x[k], Y: r.y[k]}
		}
		c, wd := fkStyle(i)
		label := r.v.Name
		if i > 0 {
			label = fmt.Sprintf("%s (budget %d)", r.v.Name, r.v.Budget)
		}
		for _, p := range []*plot.Plot{full, zoom} {
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = c, wd
			if r.v.Polish > 0 {
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)} // polished rules dashed
			}
			p.Add(l)
			if p == full {
				p.Legend.Add(label, l)
			}
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: r.x[kStar], Y: r.y[kStar]}})
		if err != nil {
			return nil, err
		}
		sc.Color = c
		sc.Shape = draw.GlyphDrawer(draw.CircleGlyph{})
		if r.v.Polish > 0 {
			sc.Shape = draw.BoxGlyph{} // polished rules: squares
		}
		sc.Radius = vg.Points(3)
		zoom.Add(sc)
		zoom.Legend.Add(label, sc)
	}
	zoom.X.Min, zoom.X.Max, zoom.Y.Min, zoom.Y.Max = cx-half, cx+half, cy-half, cy+half
	full.Legend.Top, full.Legend.Left = true, true
	zoom.Legend.Top, zoom.Legend.Left = true, true
	return gridPNG([][]*plot.Plot{{full, zoom}}, 14*vg.Inch, 7*vg.Inch)
}

// forkliftFig12 draws each wheel's spin rate over time for all runs.
func forkliftFig12(runs []*fkRun) ([]byte, error) {
	names := [4]string{"front left (driven)", "front right (driven)", "rear left (steered)", "rear right (steered)"}
	grid := [][]*plot.Plot{{nil, nil}, {nil, nil}}
	for wi := 0; wi < 4; wi++ {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("Wheel %s, budget %d (§5.3, Fig. 12)", names[wi], runs[1].v.Budget)
		p.X.Label.Text, p.Y.Label.Text = "time (s)", "spin rate (rad/s)"
		p.Add(plotter.NewGrid())
		for i, r := range runs {
			xy := make(plotter.XYs, len(r.wheels))
			for k := range r.wheels {
				xy[k] = plotter.XY{X: float64(k) * r.h, Y: r.wheels[k][wi]}
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			c, wd := fkStyle(i)
			l.Color, l.Width = c, wd
			p.Add(l)
			p.Legend.Add(r.v.Name, l)
		}
		p.Legend.Top, p.Legend.Left = false, false
		grid[wi/2][wi%2] = p
	}
	return gridPNG(grid, 14*vg.Inch, 10*vg.Inch)
}
