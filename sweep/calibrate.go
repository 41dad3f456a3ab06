package sweep

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/optimize"
)

// Runner runs jobs and returns their results in the jobs' order: a
// Coordinator (the queue) or Local.
type Runner interface {
	Run(ctx context.Context, jobs []Job) ([]Result, error)
}

// Local runs jobs in this process without a queue, on GOMAXPROCS
// goroutines (each job alone, so the results are RunLocal's).
type Local struct{}

// Run implements Runner.
func (Local) Run(ctx context.Context, jobs []Job) ([]Result, error) {
	out := make([]Result, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				copy(out[i:i+1], RunLocal(jobs[i:i+1]))
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Calibration is one solver's result of Calibrate: the Table 3 row of
// the BPMD paper and the prediction of the held-out experiment.
type Calibration struct {
	Solver string
	// GridBest and GridE: the best grid sample and its E (Eq. 18, m²).
	GridBest []float64
	GridE    float64
	// Best and E: after the local refinement (never worse than the grid).
	Best []float64
	E    float64
	// Evaluations of E in the refinement (each runs every calibration
	// experiment once).
	Evaluations int
	// Prediction is the held-out experiment run with Best (its E and
	// trajectory); zero without a holdout.
	Prediction Result
}

// Calibrate runs the paper's procedure (Lu, Williams, Trinkle and
// Lacoursière 2014, §4): E of Eq. (18),
//
//	E = (1/M) Σⱼ (1/Nⱼ) Σₗ ‖qⱼˡ − q̄ⱼˡ‖²,
//
// over the M experiments other than the holdout, on every sample of the
// spec (the grid: the paper's procedure), per solver; then a local
// refinement by Nelder–Mead (gonum/optimize) from the Refine.Starts best
// samples (default 3), at most Refine.Evaluations evaluations each
// (default 60), in coordinates scaled to each parameter's range and
// clamped to it (a point outside the range is evaluated at its
// projection); then the held-out experiment is predicted with each
// solver's best parameters. A sample whose run failed counts as E = +Inf.
// Every run is a Job through r; ids are "g<sample>-<exp>-<solver>" for
// the grid, "r-<solver>-<x>" for refinement points and "p-<solver>" for
// the prediction, so a resumed calibration reuses every recorded result.
func Calibrate(ctx context.Context, s *Spec, r Runner, build string, log func(format string, args ...any)) ([]Calibration, error) {
	if log == nil {
		log = func(string, ...any) {}
	}
	var exps []int
	hold := -1
	for i, e := range s.Experiments {
		if e.Name == s.Holdout {
			hold = i
			continue
		}
		exps = append(exps, i)
	}
	samples := s.SamplesList()
	jobs, err := s.jobsFor(samples, "g", exps, build)
	if err != nil {
		return nil, err
	}
	log("grid: %d samples × %d experiments × %d solvers = %d jobs", len(samples), len(exps), len(s.Solvers), len(jobs))
	res, err := r.Run(ctx, jobs)
	if err != nil {
		return nil, err
	}
	ns := len(s.Solvers)
	// res is ordered sample → experiment → solver.
	gridE := func(si, k int) float64 {
		sum := 0.0
		for e := range exps {
			rr := &res[(si*len(exps)+e)*ns+k]
			if rr.Status != StatusOK {
				return math.Inf(1)
			}
			sum += rr.E
		}
		return sum / float64(len(exps))
	}
	lo, hi := s.ranges()
	starts, evals := s.Refine.Starts, s.Refine.Evaluations
	if starts == 0 {
		starts = 3
	}
	if evals == 0 {
		evals = 60
	}
	out := make([]Calibration, ns)
	var wg sync.WaitGroup
	errs := make([]error, ns)
	for k, solver := range s.Solvers {
		es := make([]float64, len(samples))
		order := make([]int, len(samples))
		for si := range samples {
			es[si] = gridE(si, k)
			order[si] = si
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(es[a], es[b]) })
		c := &out[k]
		c.Solver = solver
		c.GridBest, c.GridE = samples[order[0]], es[order[0]]
		c.Best, c.E = c.GridBest, c.GridE
		log("%s: grid best E = %.4g at %v", solver, c.GridE, c.GridBest)
		ev := &evaluator{s: s, r: r, exps: exps, solver: solver, build: build, lo: lo, hi: hi, cache: map[string]float64{}}
		for st := 0; st < min(starts, len(order)); st++ {
			if math.IsInf(es[order[st]], 1) {
				break
			}
			wg.Add(1)
			go func(x0 []float64) {
				defer wg.Done()
				if err := ev.nelderMead(ctx, x0, evals); err != nil {
					ev.mu.Lock()
					if ev.err == nil {
						ev.err = err
					}
					ev.mu.Unlock()
				}
			}(samples[order[st]])
		}
		wg.Wait()
		if ev.err != nil {
			errs[k] = ev.err
			continue
		}
		if ev.bestE < c.E {
			c.Best, c.E = ev.best, ev.bestE
		}
		c.Evaluations = ev.n
		log("%s: refined E = %.4g at %v after %d evaluations", solver, c.E, c.Best, c.Evaluations)
	}
	if err := firstErr(errs); err != nil {
		return nil, err
	}
	if hold < 0 {
		return out, nil
	}
	var pj []Job
	for k := range out {
		j, err := s.jobsForSolvers([][]float64{out[k].Best}, "p", []int{hold}, []string{out[k].Solver}, build)
		if err != nil {
			return nil, err
		}
		j[0].ID = "p-" + out[k].Solver + "-" + pointKey(out[k].Best)
		j[0].Trajectory = true
		pj = append(pj, j[0])
	}
	pres, err := r.Run(ctx, pj)
	if err != nil {
		return nil, err
	}
	for k := range out {
		p := pres[k]
		if p.Status == StatusOK && len(p.Trajectory) == 0 {
			// A resumed calibration's recorded prediction has no
			// trajectory (the results file keeps summaries): run it here.
			p = RunLocal(pj[k : k+1])[0]
		}
		out[k].Prediction = p
	}
	return out, nil
}

func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ranges returns each parameter's range: min and max, or the smallest
// and largest of its values.
func (s *Spec) ranges() (lo, hi []float64) {
	for i := range s.Params {
		v := s.values(i)
		lo = append(lo, slices.Min(v))
		hi = append(hi, slices.Max(v))
	}
	return lo, hi
}

// evaluator evaluates E for one solver during the refinement; its
// Nelder–Mead chains run concurrently and share its cache.
type evaluator struct {
	s      *Spec
	r      Runner
	exps   []int
	solver string
	build  string
	lo, hi []float64

	mu    sync.Mutex
	cache map[string]float64
	n     int
	best  []float64
	bestE float64
	err   error
}

func pointKey(x []float64) string {
	p := make([]string, len(x))
	for i, v := range x {
		p[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(p, "_")
}

// eval returns E at x (already in range).
func (ev *evaluator) eval(ctx context.Context, x []float64) (float64, error) {
	key := pointKey(x)
	ev.mu.Lock()
	if e, ok := ev.cache[key]; ok {
		ev.mu.Unlock()
		return e, nil
	}
	ev.mu.Unlock()
	jobs, err := ev.s.jobsForSolvers([][]float64{x}, "r", ev.exps, []string{ev.solver}, ev.build)
	if err != nil {
		return 0, err
	}
	for i := range jobs {
		jobs[i].ID = "r-" + ev.solver + "-" + key + "-" + jobs[i].Experiment
	}
	res, err := ev.r.Run(ctx, jobs)
	if err != nil {
		return 0, err
	}
	e := 0.0
	for _, r := range res {
		if r.Status != StatusOK {
			e = math.Inf(1)
			break
		}
		e += r.E
	}
	if !math.IsInf(e, 1) {
		e /= float64(len(res))
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.cache[key] = e
	ev.n++
	if ev.best == nil || e < ev.bestE || (e == ev.bestE && key < pointKey(ev.best)) {
		ev.best, ev.bestE = slices.Clone(x), e
	}
	return e, nil
}

// nelderMead refines from x0 in the unit cube of the parameter ranges.
func (ev *evaluator) nelderMead(ctx context.Context, x0 []float64, evals int) error {
	d := len(x0)
	u0 := make([]float64, d)
	size := 1.0
	for i := range x0 {
		w := ev.hi[i] - ev.lo[i]
		if w > 0 {
			u0[i] = (x0[i] - ev.lo[i]) / w
			if n := len(ev.s.values(i)); n > 1 && ev.s.Sampling == "grid" {
				size = math.Min(size, 1/float64(n-1))
			}
		}
	}
	if ev.s.Sampling == "lhs" {
		size = 1 / math.Max(2, float64(ev.s.Samples))
	}
	var runErr error
	toX := func(u []float64) []float64 {
		x := make([]float64, d)
		for i := range u {
			v := math.Min(1, math.Max(0, u[i]))
			x[i] = roundSig(ev.lo[i]+v*(ev.hi[i]-ev.lo[i]), 12)
		}
		return x
	}
	p := optimize.Problem{Func: func(u []float64) float64 {
		if runErr != nil {
			return math.Inf(1)
		}
		e, err := ev.eval(ctx, toX(u))
		if err != nil {
			runErr = err
			return math.Inf(1)
		}
		return e
	}}
	// Restarts: a simplex shrinks onto a kink of E (contacts switching
	// on and off make E piecewise smooth) and stalls; restart from the
	// best point with a fresh simplex half as large, while evaluations
	// remain and the restart improved E.
	used, prev := 0, math.Inf(1)
	for used < evals && size > 1e-6 {
		set := &optimize.Settings{FuncEvaluations: evals - used,
			Converger: &optimize.FunctionConverge{Absolute: 0, Relative: 1e-6, Iterations: 3 * d}}
		res, err := optimize.Minimize(p, u0, set, &optimize.NelderMead{SimplexSize: size})
		if runErr != nil {
			return runErr
		}
		if err != nil && !strings.Contains(err.Error(), "limit") {
			return fmt.Errorf("nelder-mead (%s): %w", ev.solver, err)
		}
		if res == nil {
			break
		}
		used += res.Stats.FuncEvaluations
		if !(res.F < prev) {
			break
		}
		prev = res.F
		copy(u0, res.X)
		for i := range u0 {
			u0[i] = math.Min(1, math.Max(0, u0[i]))
		}
		size /= 2
	}
	return nil
}
