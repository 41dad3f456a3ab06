package sweep

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Region is a calibration's confidence region: the evaluated points
// (grid samples and search points) whose E is within the noise of the
// best E, E ≤ E_best + RegionSigmas·NoiseSD, and each parameter's
// interval over them.
//
// NoiseSD is the standard deviation of E that the measurement noise
// alone gives, estimated from the best fit's residuals: with
// dⱼₗ = ‖qⱼˡ − q̄ⱼˡ‖² the squared error of frame l of experiment j at the
// best point, Var(E) = (1/M²) Σⱼ s²(dⱼ)/Nⱼ, s² the sample variance of
// experiment j's dⱼₗ (frames treated as independent). At the truth the
// residuals are the noise, so a point whose E is above the best by less
// than 2 NoiseSD cannot be told from the best by this data.
//
// The intervals are those of the points evaluated — the grid, the
// search, probes along each parameter's axis from the best point
// (regionProbes), and Refine.Region evaluations sampling the region
// around the points found in it and line searches from its faces to its
// boundary (sampleRegion) — so they are an inner estimate of the region,
// as wide as its sampling reached. Identified
// is false for a parameter whose interval spans at least half of its
// range: the data do not determine it.
type Region struct {
	NoiseSD   float64 // m²
	Threshold float64 // E_best + RegionSigmas·NoiseSD (m²)
	// Points is the number of evaluated points within the region.
	Points     int
	Lo, Hi     []float64
	Identified []bool
}

// RegionSigmas is the width of the confidence region in standard
// deviations of E's noise (Region): one-sided, a normal error exceeds
// it with probability 2.3 %.
const RegionSigmas = 2

// Contains reports whether every coordinate of x lies in the region's
// intervals.
func (g *Region) Contains(x []float64) bool {
	for i := range x {
		if x[i] < g.Lo[i] || x[i] > g.Hi[i] {
			return false
		}
	}
	return len(x) == len(g.Lo)
}

// regionProbes is the number of points per parameter and direction by
// which Calibrate probes the region from the best point after the search
// (steps of 1, 2, 4, 8 and 16 % of the parameter's range).
const regionProbes = 5

// Search defaults (Refine's zero values).
const (
	defaultStarts      = 3
	defaultEvaluations = 400
	defaultSeed        = 1
)

// point is one evaluated parameter point and its E.
type point struct {
	x []float64
	e float64
}

// evaluator evaluates E for one solver during the search; the search's
// starts run concurrently and share its cache.
type evaluator struct {
	s      *Spec
	r      Runner
	exps   []int
	solver string
	build  string
	lo, hi []float64
	free   []int // the parameters with a range (hi > lo), the search's coordinates

	mu    sync.Mutex
	cache map[string]point
}

// best returns the evaluated point of least E (ties: the smaller key).
func (ev *evaluator) best() []float64 {
	p, _ := ev.bestPoint()
	return p.x
}

func (ev *evaluator) bestE() float64 {
	p, ok := ev.bestPoint()
	if !ok {
		return math.Inf(1)
	}
	return p.e
}

func (ev *evaluator) bestPoint() (point, bool) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	var best point
	var bk string
	ok := false
	for k, p := range ev.cache {
		if !ok || p.e < best.e || (p.e == best.e && k < bk) {
			best, bk, ok = p, k, true
		}
	}
	return best, ok
}

func pointKey(x []float64) string {
	p := make([]string, len(x))
	for i, v := range x {
		p[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(p, "_")
}

// toX maps unit coordinates of the free parameters to a parameter point
// (the fixed ones at their single value), rounded to 12 significant
// digits so the point prints as it is.
func (ev *evaluator) toX(u []float64) []float64 {
	x := slices.Clone(ev.lo)
	for k, i := range ev.free {
		x[i] = roundSig(ev.lo[i]+u[k]*(ev.hi[i]-ev.lo[i]), 12)
	}
	return x
}

func (ev *evaluator) toU(x []float64) []float64 {
	u := make([]float64, len(ev.free))
	for k, i := range ev.free {
		u[k] = (x[i] - ev.lo[i]) / (ev.hi[i] - ev.lo[i])
	}
	return u
}

// eval returns E at the points us (unit coordinates), running the points
// not evaluated before as one batch of jobs.
func (ev *evaluator) eval(ctx context.Context, us [][]float64) ([]float64, error) {
	xs := make([][]float64, len(us))
	keys := make([]string, len(us))
	var miss [][]float64
	pending := map[string]bool{}
	ev.mu.Lock()
	for j, u := range us {
		xs[j] = ev.toX(u)
		keys[j] = pointKey(xs[j])
		if _, ok := ev.cache[keys[j]]; !ok && !pending[keys[j]] {
			pending[keys[j]] = true
			miss = append(miss, xs[j])
		}
	}
	ev.mu.Unlock()
	if len(miss) > 0 {
		jobs, err := ev.s.jobsForSolvers(miss, ev.exps, []string{ev.solver}, ev.build)
		if err != nil {
			return nil, err
		}
		res, err := ev.r.Run(ctx, jobs)
		if err != nil {
			return nil, err
		}
		ne := len(ev.exps)
		ev.mu.Lock()
		for m, x := range miss {
			ev.cache[pointKey(x)] = point{x, meanE(res[m*ne : (m+1)*ne])}
		}
		ev.mu.Unlock()
	}
	fs := make([]float64, len(us))
	ev.mu.Lock()
	for j := range us {
		fs[j] = ev.cache[keys[j]].e
	}
	ev.mu.Unlock()
	return fs, nil
}

// meanE is Eq. (18) over one point's experiments; +Inf if a run failed.
func meanE(res []Result) float64 {
	e := 0.0
	for _, r := range res {
		if r.Status != StatusOK {
			return math.Inf(1)
		}
		e += r.E
	}
	return e / float64(len(res))
}

// spacing returns each free parameter's sample spacing in unit
// coordinates: 1/(n − 1) for a grid of n values, 1/samples for a Latin
// hypercube.
func (ev *evaluator) spacing() []float64 {
	sp := make([]float64, len(ev.free))
	for k, i := range ev.free {
		if ev.s.Sampling == "lhs" {
			sp[k] = 1 / float64(ev.s.Samples)
		} else {
			sp[k] = 1 / float64(max(len(ev.s.values(i))-1, 1))
		}
	}
	return sp
}

// search fills c's best point, evaluations and region for one solver,
// from the grid's E values es of samples.
func (s *Spec) search(ctx context.Context, r Runner, build string, exps []int, samples [][]float64, es []float64,
	c *Calibration, log func(string, ...any)) error {
	lo, hi := s.ranges()
	ev := &evaluator{s: s, r: r, exps: exps, solver: c.Solver, build: build, lo: lo, hi: hi, cache: map[string]point{}}
	for i := range lo {
		if hi[i] > lo[i] {
			ev.free = append(ev.free, i)
		}
	}
	order := make([]int, len(samples))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(es[a], es[b]) })
	c.GridBest, c.GridE = samples[order[0]], es[order[0]]
	c.Best, c.E = c.GridBest, c.GridE
	log("%s: grid best E = %.4g at %v", c.Solver, c.GridE, c.GridBest)

	starts, evals, seed := s.Refine.Starts, s.Refine.Evaluations, s.Refine.Seed
	if starts == 0 {
		starts = defaultStarts
	}
	if evals == 0 {
		evals = defaultEvaluations
	}
	if seed == 0 {
		seed = defaultSeed
	}
	sp := ev.spacing()
	var x0s [][]float64
	for _, si := range order {
		if len(x0s) == starts || math.IsInf(es[si], 1) || len(ev.free) == 0 {
			break
		}
		x0s = append(x0s, ev.toU(samples[si]))
	}
	// The initial step: a quarter of the grid's largest spacing, so a
	// start explores its cell and the neighbouring ones.
	sigma0 := slices.Max(append(sp, 0)) / 4
	errs := make([]error, len(x0s))
	var wg sync.WaitGroup
	for st, u0 := range x0s {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cm := &cmaes{d: len(ev.free), seed: seed + uint64(st), sigma0: sigma0, budget: evals, eval: ev.eval}
			errs[st] = cm.minimize(ctx, u0)
			if errs[st] == nil {
				log("%s: start %d from %v: E = %.4g at %v (%d runs)", c.Solver, st, ev.toX(u0), cm.bestF, ev.toX(cm.best), cm.runs)
			}
		}()
	}
	wg.Wait()
	if err := firstErr(errs); err != nil {
		return err
	}
	if len(x0s) > 0 {
		// Probe the region along each axis from the best point: steps of
		// 1, 2, 4, 8 and 16 % of the range each way, one batch.
		bu := ev.toU(c.Best)
		if c.E > ev.bestE() {
			bu = ev.toU(ev.best())
		}
		var probes [][]float64
		for k := range ev.free {
			for _, sign := range []float64{-1, 1} {
				for m := 0; m < regionProbes; m++ {
					u := slices.Clone(bu)
					u[k] += sign * 0.01 * float64(int(1)<<m)
					if u[k] >= 0 && u[k] <= 1 {
						probes = append(probes, u)
					}
				}
			}
		}
		if _, err := ev.eval(ctx, probes); err != nil {
			return err
		}
	}
	grid := make([]point, len(samples))
	for si, x := range samples {
		grid[si] = point{x, es[si]}
	}
	if len(x0s) > 0 && !math.IsInf(ev.bestE(), 1) {
		// Sample the region around the points within the noise of the
		// best, with the noise's sd estimated at the search's best.
		sd, err := s.noiseSD(ev.best(), exps, c.Solver, build)
		if err != nil {
			return err
		}
		budget := s.Refine.Region
		if budget == 0 {
			budget = defaultRegionEvaluations
		}
		n0 := ev.size()
		if err := ev.sampleRegion(ctx, grid, sd, budget, seed+uint64(len(x0s))); err != nil {
			return err
		}
		log("%s: region sampling: %d new evaluations", c.Solver, ev.size()-n0)
	}
	pts := ev.points(grid)
	for _, p := range pts[len(grid):] {
		if p.e < c.E {
			c.Best, c.E = p.x, p.e
		}
	}
	c.Evaluations = len(pts) - len(grid)
	log("%s: search best E = %.4g at %v after %d evaluations from %d starts", c.Solver, c.E, c.Best, c.Evaluations, len(x0s))
	if math.IsInf(c.E, 1) {
		return nil
	}
	sd, err := s.noiseSD(c.Best, exps, c.Solver, build)
	if err != nil {
		return err
	}
	c.Region = region(pts, c.E, sd, lo, hi)
	return nil
}

// size returns the number of points evaluated.
func (ev *evaluator) size() int {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return len(ev.cache)
}

// region returns the confidence region of the points around the best E
// with the noise's standard deviation sd.
func region(pts []point, best, sd float64, lo, hi []float64) Region {
	g := Region{NoiseSD: sd, Threshold: best + RegionSigmas*sd}
	n := len(lo)
	g.Lo, g.Hi, g.Identified = make([]float64, n), make([]float64, n), make([]bool, n)
	for i := range g.Lo {
		g.Lo[i], g.Hi[i] = math.Inf(1), math.Inf(-1)
	}
	for _, p := range pts {
		if !(p.e <= g.Threshold) {
			continue
		}
		g.Points++
		for i, v := range p.x {
			g.Lo[i] = math.Min(g.Lo[i], v)
			g.Hi[i] = math.Max(g.Hi[i], v)
		}
	}
	for i := range g.Identified {
		g.Identified[i] = g.Hi[i]-g.Lo[i] < 0.5*(hi[i]-lo[i]) || hi[i] == lo[i]
	}
	return g
}

// noiseSD estimates the standard deviation of E due to the measurement
// noise from the residuals at x (Region).
func (s *Spec) noiseSD(x []float64, exps []int, solver, build string) (float64, error) {
	jobs, err := s.jobsForSolvers([][]float64{x}, exps, []string{solver}, build)
	if err != nil {
		return 0, err
	}
	v := 0.0
	for i := range jobs {
		jobs[i].Trajectory = true
		r, err := Run(&jobs[i])
		if err != nil {
			return 0, err
		}
		d := squaredErrors(r.Trajectory, jobs[i].Measured, jobs[i].AngleLength)
		if len(d) < 2 {
			continue
		}
		mean := 0.0
		for _, e := range d {
			mean += e
		}
		mean /= float64(len(d))
		ss := 0.0
		for _, e := range d {
			ss += (e - mean) * (e - mean)
		}
		v += ss / float64(len(d)-1) / float64(len(d))
	}
	return math.Sqrt(v) / float64(len(jobs)), nil
}

// squaredErrors returns ‖q − q̄‖² at each measured frame that the
// simulated frames (one per step from step 0) reach.
func squaredErrors(sim, meas []Frame, rho float64) []float64 {
	var out []float64
	for _, m := range meas {
		if m.Step < 0 || m.Step >= len(sim) {
			continue
		}
		f := sim[m.Step]
		dx, dy, da := f.Q[0]-m.Q[0], f.Q[1]-m.Q[1], wrapAngle(f.Q[2]-m.Q[2])*rho
		out = append(out, dx*dx+dy*dy+da*da)
	}
	return out
}
