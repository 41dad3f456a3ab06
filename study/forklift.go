package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
	"gonum.org/v1/gonum/stat"
)

const (
	// ForkliftSteps is Forklift's default length (steps of the scene's h).
	ForkliftSteps = 900
	// ForkliftPaperBudget is the paper's budget of block pivots per step.
	ForkliftPaperBudget = 15
	// ForkliftTrajectoryBudget is the second budget of the trajectory
	// runs (issue 6's trajectory comparison: the residual pick kept 0.98
	// of the circle, the energy pick 0.84).
	ForkliftTrajectoryBudget = 5
	// WallMaxBudget is the largest budget of the brick wall's budget table.
	WallMaxBudget = 15
	// SpikeFactor: a spike is a step after which some wheel's spin rate
	// changed by more than SpikeFactor times the largest one-step change of
	// any wheel in the reference run.
	SpikeFactor = 2.0
	// BiteFraction is the fraction of budget-hit steps from which a budget
	// is said to bind.
	BiteFraction = 0.2
	// ForkliftPolish is the number of projected Gauss–Seidel sweeps of the
	// polished rules (about one product with A each).
	ForkliftPolish = 5
)

// ForkliftPicks are the picks of Forklift's rules: the last iterate (the
// paper's "no correction"), then the least FB (Eq. 7), natural residual
// (Eq. 10), energy error (Eq. 23, diagonal effective mass) and energy
// error with the exact effective mass of Eq. (11).
var ForkliftPicks = []errmeasure.Measure{errmeasure.Last, errmeasure.FB, errmeasure.Residual, errmeasure.Energy, errmeasure.EnergyExact}

// ForkliftRule is a budgeted step's rule: a pick and a number of polish
// sweeps after it (stepper.Settings.Polish).
type ForkliftRule struct {
	Pick   errmeasure.Measure
	Polish int
}

// Name is the pick's name, with "+polishK" for K sweeps.
func (r ForkliftRule) Name() string {
	if r.Polish == 0 {
		return r.Pick.String()
	}
	return fmt.Sprintf("%s+polish%d", r.Pick, r.Polish)
}

// ForkliftRules returns the rules of Forklift: every ForkliftPicks entry
// without, then with ForkliftPolish sweeps.
func ForkliftRules() []ForkliftRule {
	var out []ForkliftRule
	for _, k := range []int{0, ForkliftPolish} {
		for _, m := range ForkliftPicks {
			out = append(out, ForkliftRule{m, k})
		}
	}
	return out
}

// ForkliftVariant is one run of Forklift.
type ForkliftVariant struct {
	Name   string // "reference", or the rule's Name
	Budget int    // 0 = the solver's default (no budget)
	Rule   ForkliftRule
}

// ForkliftRun is what one run records. Per-state slices have steps+1
// entries (index 0 is the start); per-step slices have steps entries
// (index k−1 for step k).
type ForkliftRun struct {
	Variant ForkliftVariant
	H       float64 // time step (s)
	// X, Y are the chassis' centre of mass (m), Heading its unwrapped
	// heading change since the start (rad), Speed its speed (m/s), Wheels
	// the wheels' spin rates relative to their mounts (rad/s:
	// scenes.ForkliftWheelSpeeds), per state.
	X, Y, Heading, Speed []float64
	Wheels               [][4]float64
	// Iterations, BudgetHit and Distance are per step: the solver's
	// iterations, whether the budget ended the solve, and the step-wise
	// distance ½(x − x*)ᵀA(x − x*) (J) of the x the step used to the
	// step's MLCP solved cold without a budget.
	Iterations []int
	BudgetHit  []bool
	Distance   []float64
	// SolverFailures counts steps whose solve ended with lcp.ErrSingular
	// (the step used the solver's best iterate), as Step's error or, for
	// a conflict below ProjectAbove, as stepper.Stats.Conflict; ExactFailures the x*
	// solves that did not converge.
	SolverFailures, ExactFailures int
	// ProjectionSkips counts steps whose position projection was skipped
	// (stepper.Stats.ProjectionSkipped), as `sim run` reports them: the
	// run goes on. MaxGain is the largest fraction of the system's energy
	// a step added (trajectory.EnergyScale, as `sim run` judges it) and
	// MaxGainStep that step (0 if none).
	ProjectionSkips int
	MaxGain         float64
	MaxGainStep     int
	// PolishSweeps counts the polish sweeps over the run.
	PolishSweeps int
	// StepTime is the total wall-clock time of World.Step: machine
	// dependent, for comparing runs of one process only.
	StepTime time.Duration

	problems []*storedMLCP // the reference's MLCPs
}

// ForkliftSummary reduces one run against the reference.
type ForkliftSummary struct {
	Variant     string
	Budget      int
	HitFraction float64 // fraction of steps that hit the budget
	// MeanDev and MaxDev are the mean and largest distance (m) of the
	// chassis' centre of mass from the reference's x–y path (polyline).
	MeanDev, MaxDev float64
	// CircleFraction is the run's path length over the reference's at
	// CircleStep.
	CircleFraction float64
	Spikes         int // steps with a wheel-speed spike (SpikeFactor)
	// MaxGain is the run's ForkliftRun.MaxGain, ProjectionSkips its
	// ForkliftRun.ProjectionSkips.
	MaxGain         float64
	ProjectionSkips int
	// MeanDist, MaxDist and MeanDistHit are the mean and largest step-wise
	// distance (J), and its mean over the steps that hit the budget.
	MeanDist, MaxDist, MeanDistHit float64
	Failed, ExactFailed            int
}

// BudgetTable is stored MLCPs solved cold by block pivoting under budgets
// 1 to MaxBudget, measured per rule (ForkliftRules order, index r) and
// budget b (index b−1).
type BudgetTable struct {
	Problems  int
	MaxBudget int
	// MeanDistance is the mean ½(x − x*)ᵀA(x − x*) (J) to x*, the problem
	// solved cold without a budget.
	MeanDistance [][]float64
	// Farther is the fraction of problems on which the rule's x is farther
	// from x* than the last iterate's (ties within 10⁻¹⁰·½x*ᵀAx* are not).
	Farther [][]float64
	// Unsolved is the fraction of problems not solved within the budget.
	Unsolved []float64
	// Finite counts, per rule over all budgets, the problems whose
	// certified bound (errmeasure.CertifiedBound) is finite; Ratios holds
	// bound / distance where it is finite and the distance > 0.
	Finite []int
	Ratios [][]float64
	// ExactFailures counts the x* solves that did not converge.
	ExactFailures int
}

// FiniteFraction returns the fraction of the rule's (problem, budget)
// pairs with a finite certified bound.
func (t *BudgetTable) FiniteFraction(r int) float64 {
	return float64(t.Finite[r]) / float64(t.MaxBudget*t.Problems)
}

// MedianRatio returns the median (nearest rank) of the rule's certified
// bound over distance; NaN if it has none.
func (t *BudgetTable) MedianRatio(r int) float64 { return median(t.Ratios[r]) }

// ForkliftResult is what Forklift measures.
type ForkliftResult struct {
	Reference *ForkliftRun
	// Groups are the budgeted runs: ForkliftRules at ForkliftPaperBudget,
	// then at ForkliftTrajectoryBudget.
	Groups [][]*ForkliftRun
	// Summaries are the reference's, then each group's runs in order.
	Summaries []ForkliftSummary
	// CircleStep is k*, the state at which the reference has turned 2π
	// (the last state if it never does).
	CircleStep int
	// RefJump is the reference's largest one-step change of a wheel's spin
	// rate (rad/s); SpikeThreshold = SpikeFactor·RefJump.
	RefJump, SpikeThreshold float64
	// Bites reports whether ForkliftPaperBudget binds (BiteFraction of
	// the steps) in some variant.
	Bites bool
	// WallSteps is the length of the wall run whose MLCPs Wall holds.
	WallSteps int
	// Wall is the budget table of the brick wall's MLCPs (budgets 1 to
	// WallMaxBudget), Own that of the reference forklift's own MLCPs
	// (budgets 1 to ForkliftPaperBudget): the two vehicles' problems
	// compared on identical problems across the rules.
	Wall, Own *BudgetTable
}

// Forklift is the forklift experiment of Enzenhöfer, Peiret, Teichmann and
// Kövecses, "A Unit-Consistent Error Measure for Multibody Systems With
// Unilateral Constraints" (2019), §5.3, Figs. 10–12: does picking the
// least-error iterate keep a vehicle on its path under an iteration budget
// where keeping the last iterate does not?
//
//  1. Reference: the registered forklift scene with block pivoting and no
//     budget, keeping the solver's own result.
//  2. The same run with a budget of ForkliftPaperBudget block pivots per
//     step (the paper's) and of ForkliftTrajectoryBudget, under every
//     ForkliftRules rule.
//  3. After every step of every run, the step's MLCP is solved again cold
//     without a budget, giving x*; the step-wise distance ½(x − x*)ᵀA(x −
//     x*) (J) is the kinetic energy of the velocity error M⁻¹Jᵀ(x − x*)
//     the step's x causes, plus the compliant rows' ½cΔx². It is well
//     defined where A is only semidefinite (A(x − x*) is unique).
//  4. Per run a ForkliftSummary: budget hits, deviation from the
//     reference path, the circle fraction at CircleStep, wheel-speed
//     spikes, step-wise distances.
//  5. Budget tables (BudgetTable) of the brick wall's stored MLCPs
//     (min(500, steps) steps of BrickWall's phase 1) and of the reference
//     forklift's own MLCPs: each solved cold by block pivoting; iterates do
//     not depend on the budget, which only ends the solve, so one solve
//     with the largest budget observed by one errmeasure.Picker per pick
//     gives every budget's pick.
//
// Nothing is tuned per variant: every run uses the scene's defaults, the
// same solver and the same warm starts. o.Steps defaults to ForkliftSteps;
// ctx is checked between steps and solves.
func Forklift(ctx context.Context, o Options) (*ForkliftResult, error) {
	steps, err := o.steps("forklift", ForkliftSteps)
	if err != nil {
		return nil, err
	}
	rules := ForkliftRules()
	wallSteps := min(500, steps)
	// Units: the runs' steps, the wall's steps, then one per stored MLCP
	// of both budget tables (at most one per step).
	pr := newMeter(o, (1+2*len(rules))*steps+2*wallSteps+steps)
	res := &ForkliftResult{WallSteps: wallSteps}
	ref, err := runForklift(ctx, ForkliftVariant{Name: "reference", Rule: ForkliftRule{Pick: errmeasure.Last}}, steps, true, pr)
	if err != nil {
		return nil, err
	}
	res.Reference = ref
	for _, b := range []int{ForkliftPaperBudget, ForkliftTrajectoryBudget} {
		var g []*ForkliftRun
		for _, rl := range rules {
			r, err := runForklift(ctx, ForkliftVariant{Name: rl.Name(), Budget: b, Rule: rl}, steps, false, pr)
			if err != nil {
				return nil, err
			}
			g = append(g, r)
		}
		res.Groups = append(res.Groups, g)
	}
	for _, r := range res.Groups[0] {
		hits := 0
		for _, h := range r.BudgetHit {
			if h {
				hits++
			}
		}
		res.Bites = res.Bites || float64(hits) >= BiteFraction*float64(len(r.BudgetHit))
	}
	res.CircleStep = circleStep(ref)
	res.RefJump = maxWheelJump(ref)
	res.SpikeThreshold = SpikeFactor * res.RefJump
	res.Summaries = []ForkliftSummary{summarize(ref, ref, res.CircleStep, res.SpikeThreshold)}
	for _, g := range res.Groups {
		for _, r := range g {
			res.Summaries = append(res.Summaries, summarize(r, ref, res.CircleStep, res.SpikeThreshold))
		}
	}

	wall, err := runWall(ctx, wallSteps, pr)
	if err != nil {
		return nil, err
	}
	if res.Wall, err = budgetTable(ctx, "brick wall", wall.problems, WallMaxBudget, pr); err != nil {
		return nil, err
	}
	pr.add(wallSteps - len(wall.problems))
	if res.Own, err = budgetTable(ctx, "forklift reference", ref.problems, ForkliftPaperBudget, pr); err != nil {
		return nil, err
	}
	pr.add(steps - len(ref.problems))
	ref.problems = nil // measured: the result need not hold them
	return res, nil
}

// runForklift runs the registered forklift scene for steps steps under v
// and measures each step's distance to the cold, unbudgeted solution; keep
// stores every step's MLCP.
func runForklift(ctx context.Context, v ForkliftVariant, steps int, keep bool, pr *meter) (*ForkliftRun, error) {
	s, err := scenes.Lookup("forklift")
	if err != nil {
		return nil, err
	}
	w, err := s.Build(nil)
	if err != nil {
		return nil, err
	}
	w.Settings.Budget, w.Settings.Pick, w.Settings.Polish = v.Budget, v.Rule.Pick, v.Rule.Polish
	r := &ForkliftRun{Variant: v, H: w.Settings.H}
	prevHead := scenes.ForkliftHeading(w)
	yaw := 0.0
	record := func() {
		c := w.Bodies[scenes.ForkliftChassis]
		hd := scenes.ForkliftHeading(w)
		d := hd - prevHead
		yaw += d - 2*math.Pi*math.Round(d/(2*math.Pi))
		prevHead = hd
		r.X = append(r.X, c.Pos[0])
		r.Y = append(r.Y, c.Pos[1])
		r.Heading = append(r.Heading, yaw)
		r.Speed = append(r.Speed, c.Vel.Len())
		r.Wheels = append(r.Wheels, scenes.ForkliftWheelSpeeds(w))
	}
	record()
	es := trajectory.NewEnergyScale(w)
	var (
		exact   lcp.BPP
		res     lcp.Result
		dx, adx []float64
	)
	for k := 1; k <= steps; k++ {
		if err := stopped(ctx, "forklift: run %s: stopped at step %d of %d", v.Name, k-1, steps); err != nil {
			return nil, err
		}
		t0 := time.Now()
		st, err := w.Step()
		r.StepTime += time.Since(t0)
		r.PolishSweeps += st.PolishSweeps
		if err != nil && !errors.Is(err, lcp.ErrSingular) {
			return nil, fmt.Errorf("forklift %s: %w", v.Name, err)
		}
		failed := err != nil || st.Conflict.Rows > 0
		if failed {
			r.SolverFailures++ // the step used the solver's best iterate
		}
		record()
		if st.ProjectionSkipped != stepper.ProjectionNotSkipped {
			r.ProjectionSkips++
		}
		es.Add(&st)
		if f := es.Fraction(st.EnergyAdded); !failed && f > r.MaxGain {
			r.MaxGain, r.MaxGainStep = f, k
		}
		r.Iterations = append(r.Iterations, st.Iterations)
		r.BudgetHit = append(r.BudgetHit, st.BudgetHit)
		d := 0.0
		if p := w.LastProblem(); p != nil {
			if keep {
				r.problems = append(r.problems, copyMLCP(p))
			}
			x, _ := w.LastSolution()
			if err := exact.Solve(&res, p, lcp.Settings{}); err != nil || res.Status != lcp.Converged {
				r.ExactFailures++
			}
			if len(res.X) == p.N() {
				d = energyDistance(p, x, res.X, &dx, &adx)
			}
		}
		r.Distance = append(r.Distance, d)
		pr.add(1)
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

// PathLength returns the length (m) of r's chassis path in the x–y plane
// from the start to state k.
func (r *ForkliftRun) PathLength(k int) float64 {
	l := 0.0
	for i := 1; i <= k && i < len(r.X); i++ {
		l += math.Hypot(r.X[i]-r.X[i-1], r.Y[i]-r.Y[i-1])
	}
	return l
}

// circleStep returns k*: the first state index at which the reference has
// turned 2π, or the last one.
func circleStep(ref *ForkliftRun) int {
	for k, v := range ref.Heading {
		if math.Abs(v) >= 2*math.Pi {
			return k
		}
	}
	return len(ref.Heading) - 1
}

// maxWheelJump returns the largest |Δω| (rad/s) of any wheel between two
// consecutive states of r.
func maxWheelJump(r *ForkliftRun) float64 {
	m := 0.0
	for k := 1; k < len(r.Wheels); k++ {
		for i := range r.Wheels[k] {
			m = math.Max(m, math.Abs(r.Wheels[k][i]-r.Wheels[k-1][i]))
		}
	}
	return m
}

// spikes counts the steps after which some wheel's spin rate jumped by
// more than threshold.
func spikes(r *ForkliftRun, threshold float64) int {
	n := 0
	for k := 1; k < len(r.Wheels); k++ {
		for i := range r.Wheels[k] {
			if math.Abs(r.Wheels[k][i]-r.Wheels[k-1][i]) > threshold {
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
func summarize(r, ref *ForkliftRun, kStar int, threshold float64) ForkliftSummary {
	s := ForkliftSummary{Variant: r.Variant.Name, Budget: r.Variant.Budget, Spikes: spikes(r, threshold),
		Failed: r.SolverFailures, ExactFailed: r.ExactFailures, MaxGain: r.MaxGain, ProjectionSkips: r.ProjectionSkips}
	hits := 0
	for k, hit := range r.BudgetHit {
		s.MeanDist += r.Distance[k]
		s.MaxDist = math.Max(s.MaxDist, r.Distance[k])
		if hit {
			hits++
			s.MeanDistHit += r.Distance[k]
		}
	}
	n := float64(len(r.BudgetHit))
	s.HitFraction = float64(hits) / n
	s.MeanDist /= n
	if hits > 0 {
		s.MeanDistHit /= float64(hits)
	}
	for k := range r.X {
		d := 0.0
		if r != ref {
			d = pathDistance(r.X[k], r.Y[k], ref.X, ref.Y)
		}
		s.MeanDev += d
		s.MaxDev = math.Max(s.MaxDev, d)
	}
	s.MeanDev /= float64(len(r.X))
	s.CircleFraction = 1
	if l := ref.PathLength(kStar); l > 0 {
		s.CircleFraction = r.PathLength(kStar) / l
	}
	return s
}

// budgetTable solves every stored problem cold without a budget (x*) and
// with budget maxBudget observed by budgetPicks, and measures every rule
// at every budget b: the pick among the first b iterates, then, for a
// polished rule, ForkliftPolish sweeps of lcp.Polish from it.
func budgetTable(ctx context.Context, what string, problems []*storedMLCP, maxBudget int, pr *meter) (*BudgetTable, error) {
	if len(problems) == 0 {
		return nil, fmt.Errorf("forklift: %s: no stored MLCP", what)
	}
	rules := ForkliftRules()
	bt := &BudgetTable{Problems: len(problems), MaxBudget: maxBudget,
		MeanDistance: make([][]float64, len(rules)), Farther: make([][]float64, len(rules)),
		Unsolved: make([]float64, maxBudget), Finite: make([]int, len(rules)), Ratios: make([][]float64, len(rules))}
	for k := range rules {
		bt.MeanDistance[k] = make([]float64, maxBudget)
		bt.Farther[k] = make([]float64, maxBudget)
	}
	var (
		sp      lcp.Sparse
		exact   lcp.BPP
		res     lcp.Result
		dx, adx []float64
		picks   budgetPicks
		x, w    []float64
	)
	dist := make([]float64, len(rules))
	for k, s := range problems {
		if err := stopped(ctx, "forklift: %s budget table: stopped at problem %d of %d", what, k+1, len(problems)); err != nil {
			return nil, err
		}
		p := s.problem(&sp)
		if e := exact.Solve(&res, p, lcp.Settings{}); e != nil || res.Status != lcp.Converged {
			bt.ExactFailures++
		}
		xs := slices.Clone(res.X)
		// Distances within 10⁻¹⁰ of ½x*ᵀAx* (the step's constraint energy
		// scale) are ties: a converged answer and its rounding.
		tie := 1e-10 * max(energyDistance(p, xs, make([]float64, len(xs)), &dx, &adx), 1e-300)
		picks.solve(&lcp.BPP{}, p, maxBudget)
		for b := 1; b <= maxBudget; b++ {
			if !picks.solvedWithin(b) {
				bt.Unsolved[b-1]++
			}
			for r, rl := range rules {
				x = append(x[:0], picks.pick(rl.Pick, b)...)
				w = p.Residual(w, x)
				if rl.Polish > 0 && !picks.solvedWithin(b) && errmeasure.InBox(p, x) { // errmeasure.Polish's rule: not a converged answer, only from inside the box
					if _, err := lcp.Polish(x, w, p, rl.Polish); err != nil {
						return nil, fmt.Errorf("forklift: %s: problem %d: %w", what, k+1, err)
					}
				}
				dist[r] = energyDistance(p, x, xs, &dx, &adx)
				bt.MeanDistance[r][b-1] += dist[r]
				if bound := errmeasure.CertifiedBound(p, x, w); !math.IsInf(bound, 1) {
					bt.Finite[r]++
					if dist[r] > 0 {
						bt.Ratios[r] = append(bt.Ratios[r], bound/dist[r])
					}
				}
			}
			// rules[0] is the last iterate; a tie (the same x, or
			// distances equal to rounding) is not farther.
			for r := range rules {
				if dist[r] > dist[0]*(1+1e-9)+tie {
					bt.Farther[r][b-1]++
				}
			}
		}
		pr.add(1)
	}
	n := float64(len(problems))
	for b := range bt.Unsolved {
		bt.Unsolved[b] /= n
		for r := range rules {
			bt.MeanDistance[r][b] /= n
			bt.Farther[r][b] /= n
		}
	}
	return bt, nil
}

// budgetPicks is one cold solve under a budget, observed by one
// errmeasure.Picker per ForkliftPicks measure, with each picker's choice
// copied after every iterate. A budget only ends a solve, so the iterates
// of a solve with budget b ≤ the traced budget are the first b of the
// trace, and each picker's choice after iterate b is what errmeasure.Solve
// with budget b would pick from them.
type budgetPicks struct {
	p       *lcp.Problem
	pickers []*errmeasure.Picker // ForkliftPicks order
	after   [][][]float64        // after[m][i]: picker m's x after iterate i+1
	final   [][]float64          // final[m]: picker m's x after the whole solve, the solver's result a candidate
	seen    int
	status  lcp.Status
	iters   int
}

// solve runs solver on p cold with budget, keeping every picker's choice
// after every iterate.
func (t *budgetPicks) solve(solver lcp.Solver, p *lcp.Problem, budget int) {
	if t.pickers == nil {
		for _, m := range ForkliftPicks {
			t.pickers = append(t.pickers, errmeasure.NewPicker(m))
		}
		t.after = make([][][]float64, len(ForkliftPicks))
		t.final = make([][]float64, len(ForkliftPicks))
	}
	t.p, t.seen = p, 0
	for m, pk := range t.pickers {
		pk.Reset(p, pk.Measure())
		t.after[m] = t.after[m][:0]
	}
	var res lcp.Result
	obs := lcp.ObserverFunc(func(it lcp.Iterate) {
		t.seen++
		for m, pk := range t.pickers {
			pk.Observe(it)
			t.after[m] = append(t.after[m], slices.Clone(t.choice(m, it.X)))
		}
	})
	_ = solver.Solve(&res, p, lcp.Settings{MaxIterations: budget, Observer: obs}) // a failure keeps the iterates so far
	t.status, t.iters = res.Status, res.Iterations
	if len(res.X) != p.N() {
		res.X = make([]float64, p.N()) // nothing solved: the solvers' cold start
	}
	w := p.Residual(nil, res.X)
	for m, pk := range t.pickers {
		if pk.Measure() == errmeasure.Last {
			t.final[m] = slices.Clone(res.X) // the solver's own result
			continue
		}
		// errmeasure.Solve's rule: the solver's result, with w = A x + b,
		// is a candidate too.
		pk.Observe(lcp.Iterate{Iter: res.Iterations, X: res.X, W: w, SatisfiesEq2: true})
		t.final[m] = slices.Clone(t.choice(m, res.X))
	}
}

// choice returns picker m's kept x, or fallback if it has no candidate
// (errmeasure.Solve then keeps the solver's x).
func (t *budgetPicks) choice(m int, fallback []float64) []float64 {
	if best, ok := t.pickers[m].Best(); ok {
		return best.X
	}
	return fallback
}

// solvedWithin reports whether the solve converged within b iterations.
func (t *budgetPicks) solvedWithin(b int) bool {
	return t.status == lcp.Converged && t.iters <= b
}

// pick returns the x that errmeasure.Solve with the same solver and
// budget b ≤ the traced budget returns under measure m: the choice after
// the whole solve if it ends within b iterations (converged or failed),
// otherwise the choice after iterate b.
func (t *budgetPicks) pick(m errmeasure.Measure, b int) []float64 {
	i := slices.Index(ForkliftPicks, m)
	ends := t.status != lcp.BudgetExhausted && t.iters <= b
	if t.status == lcp.Failed && t.seen < b {
		ends = true
	}
	if ends || t.seen == 0 {
		return t.final[i]
	}
	return t.after[i][min(b, t.seen)-1]
}

// median returns the median of v (nearest rank: the smallest value with
// at least half of v at or below it; v is not modified); NaN if v is
// empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return stat.Quantile(0.5, stat.Empirical, s, nil)
}
