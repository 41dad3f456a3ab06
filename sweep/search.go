package sweep

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Region is a calibration's confidence region: the evaluated points
// (grid samples and search points) whose E is within the noise of the
// best E, E ≤ E_best + RegionSigmas·√(NoiseSD² + 2 RoughSD²), and each
// parameter's interval over them.
//
// NoiseSD is the standard deviation of E that the measurement noise
// alone gives, estimated from the best fit's residuals: with
// dⱼₗ = ‖qⱼˡ − q̄ⱼˡ‖² the squared error of frame l of experiment j at the
// best point, Var(E) = (1/M²) Σⱼ s²(dⱼ)/Nⱼ, s² the sample variance of
// experiment j's dⱼₗ (frames treated as independent). At the truth the
// residuals are the noise, so a point whose E is above the best by less
// than 2 NoiseSD cannot be told from the best by this data.
//
// RoughSD is the standard deviation of E's roughness: contact events
// that a small change of a parameter moves by a step make E jump between
// nearby points, by 17–80 times NoiseSD on the push scene at h/16
// (docs/calibration.md), and which of those jumps lie where depends on
// the solver's last bits. The best E is then the bottom of one narrow
// dip among many, and a threshold of the measurement noise alone keeps
// that dip only: the region would say where the search happened to end,
// not what the data determine. So E is treated as a smooth misfit plus a
// noise of standard deviation RoughSD, estimated from the evaluated
// points themselves (roughnessSD: the nugget of E's variogram, Matheron,
// "Principles of geostatistics", 1963; Cressie, "Statistics for Spatial
// Data", 1993, §2.3), and a point is within the region when its E is
// above the best by less than RegionSigmas standard deviations of that
// difference: both E carry their own roughness, so its variance is
// NoiseSD² + 2 RoughSD². On a smooth E, RoughSD is about 0 and the region is that of
// the measurement noise.
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
	RoughSD   float64 // m²
	Threshold float64 // E_best + RegionSigmas·√(NoiseSD² + 2 RoughSD²) (m²)
	// Points is the number of evaluated points within the region.
	Points     int
	Lo, Hi     []float64
	Identified []bool
}

// SD is the standard deviation of a point's E above the best E that the
// region allows for, √(NoiseSD² + 2 RoughSD²): the measurement noise's
// and both points' roughness (Region's doc). Threshold is E_best +
// RegionSigmas·SD.
func (g Region) SD() float64 { return math.Hypot(g.NoiseSD, math.Sqrt2*g.RoughSD) }

// RegionSigmas is the width of the confidence region in standard
// deviations of E's noise, measurement and roughness combined (Region):
// one-sided, a normal error exceeds
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
	if err := ev.minimize(ctx, x0s, sigma0, evals, s.Refine.Local, seed, func(f string, args ...any) { log(c.Solver+": "+f, args...) }); err != nil {
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
		// best: the measurement noise's sd estimated at the search's
		// best, combined with E's roughness over the points so far.
		sd, err := s.noiseSD(ev.best(), exps, c.Solver, build)
		if err != nil {
			return err
		}
		budget := s.Refine.Region
		if budget == 0 {
			budget = defaultRegionEvaluations
		}
		n0 := ev.size()
		if budget >= 2*roughProbes {
			if err := ev.probeRoughness(ctx, ev.toU(ev.best()), seed+uint64(len(x0s))+1); err != nil {
				return err
			}
			budget -= roughProbes
		}
		evaluated := ev.points(grid)
		rsd := roughnessSD(evaluated, lo, hi)
		log("%s: noise sd of E %.3g, roughness sd %.3g (from the %d points evaluated)", c.Solver, sd, rsd, len(evaluated))
		if err := ev.sampleRegion(ctx, grid, Region{NoiseSD: sd, RoughSD: rsd}.SD(), budget, seed+uint64(len(x0s))); err != nil {
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
	c.Region = region(pts, c.E, sd, roughnessSD(pts, lo, hi), lo, hi)
	return nil
}

// roughProbes is the number of points by which Calibrate measures E's
// roughness around the search's best point before it samples the
// region (probeRoughness), from Refine.Region's budget.
const roughProbes = 8

// probeRoughness evaluates roughProbes points drawn uniformly within
// 0.45·roughPairDist of the best point u (unit coordinates) in every
// coordinate, clamped to the unit cube, so that they and u make
// roughProbes·(roughProbes + 1)/2 close pairs for roughnessSD where the
// region is decided: a search's points are seldom that close in every
// coordinate at once (on the push scene's quick calibration, under 10
// pairs after 719 points), and without close pairs the roughness would be
// taken as 0. The stream is a PCG seeded by seed.
func (ev *evaluator) probeRoughness(ctx context.Context, u []float64, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
	us := make([][]float64, roughProbes)
	for i := range us {
		us[i] = make([]float64, len(u))
		for k := range u {
			us[i][k] = u[k] + 0.45*roughPairDist*(2*rng.Float64()-1)
		}
		clampUnit(us[i])
	}
	_, err := ev.eval(ctx, us)
	return err
}

// Roughness estimate (Region.RoughSD): pairs of evaluated points at
// most roughPairDist apart (largest difference of unit coordinates, 1 %
// of each range) whose E are both at most roughLevel times the least E.
// E is a sum of squared residuals, so at a fit it is about the noise's
// own E; roughLevel 2 keeps the basin's points, whose misfit beyond the
// noise is at most the noise's (further out E's jumps scale with E, and
// would overstate the roughness where the region is decided). At least
// roughMinPairs pairs are needed; with fewer the estimate is 0.
const (
	roughPairDist = 0.01
	roughLevel    = 2
	roughMinPairs = 10
)

// chi2Median1 is the median of the χ² distribution with one degree of
// freedom.
const chi2Median1 = 0.454936

// roughnessSD returns the standard deviation of E's roughness (Region):
// for two points close enough that the smooth part of E barely differs,
// E_a − E_b is the difference of two independent roughness values, of
// variance 2σ_R², so (E_a − E_b)²/2 is σ_R² times a χ²₁ variable. The
// estimate is the median of (E_a − E_b)²/2 over the close pairs (roughness
// constants above) divided by χ²₁'s median: a median, so that the few
// pairs that straddle a large jump of E do not dominate it. lo and hi
// are the parameters' ranges. Deterministic given the points.
func roughnessSD(pts []point, lo, hi []float64) float64 {
	best := math.Inf(1)
	for _, p := range pts {
		best = math.Min(best, p.e)
	}
	if math.IsInf(best, 0) {
		return 0
	}
	var low []point
	for _, p := range pts {
		if p.e <= roughLevel*best {
			low = append(low, p)
		}
	}
	if len(low) < 2 {
		return 0
	}
	var half []float64
	for a := range low {
		for b := a + 1; b < len(low); b++ {
			near := true
			for k := range lo {
				if hi[k] > lo[k] && math.Abs(low[a].x[k]-low[b].x[k]) > roughPairDist*(hi[k]-lo[k]) {
					near = false
					break
				}
			}
			if near {
				d := low[a].e - low[b].e
				half = append(half, d*d/2)
			}
		}
	}
	if len(half) < roughMinPairs {
		return 0
	}
	slices.Sort(half)
	m := half[len(half)/2]
	if len(half)%2 == 0 {
		m = 0.5 * (half[len(half)/2-1] + m)
	}
	return math.Sqrt(m / chi2Median1)
}

// minimize spends evals evaluations of E per start of x0s (unit
// coordinates), in two phases, and leaves them in ev's cache.
//
// The global phase runs CMA-ES (Hansen, "The CMA Evolution Strategy: A
// Tutorial", 2016) from each start, concurrently, with initial step
// sigma0 and 100 − local % of its budget, its random stream seeded by
// seed + start (with local 0, the whole search). The local phase pools
// the rest of every start's budget
// on localRestarts CMA-ES run(s) from the best distinct points found so
// far, with the step sigma0/localStepDivisor, seeded by seed + starts + 1;
// a run that stalls restarts from its best with the population doubled
// (Auger and Hansen, "A restart CMA evolution strategy with increasing
// population size", 2005). Why: on a rough E (contact events make the
// push scene's basins 0.02–0.03 of a parameter's range wide, along a
// valley slanted between μ_p and μ_s: docs/calibration.md) each start's
// short run stops at the nearest small basin, and which one is chosen by
// the solver's last bits; a single long run from the best of them is
// meant to keep the step near the basins' width for enough generations
// to learn the valley's direction in its covariance and step over the
// basins along it. The budget is the same as the starts' alone (starts × evals); the
// cache, and the job keys of recorded results, run a point once; the
// result is deterministic (the same spec, the same points and bits).
// TestSearchRoughValley measures the difference on a known rough E: the
// global phase alone with the whole budget ends at E = 2.18, the two
// phases (local 50) at 1.006 (minimum 1, next local minimum 1.14). On the
// push scene it did not help at TestCalibrationOffGrid's budget
// (docs/calibration.md), which is why local is 0 by default.
func (ev *evaluator) minimize(ctx context.Context, x0s [][]float64, sigma0 float64, evals, local int, seed uint64, log func(string, ...any)) error {
	if len(x0s) == 0 {
		return nil
	}
	// Global phase: each start gets the first part of its budget.
	global := max(evals-evals*local/100, 1)
	if err := ev.runStarts(ctx, x0s, sigma0, global, seed, func(st int, cm *cmaes) {
		log("start %d from %v: E = %.4g at %v (%d runs)", st, ev.toX(x0s[st]), cm.bestF, ev.toX(cm.best), cm.runs)
	}); err != nil {
		return err
	}
	// Local phase: the rest of the starts' budget, pooled, on restarts
	// with a smaller step from the best distinct points found.
	if pool := len(x0s) * (evals - global); pool > 0 {
		sigmaL := sigma0 / localStepDivisor
		x1s := ev.distinctBest(localRestarts, 2*sigmaL)
		if len(x1s) == 0 {
			x1s = x0s[:1] // every point failed: spend the pool from the best sample
		}
		budgets := make([]int, len(x1s))
		for i := range budgets {
			budgets[i] = pool / len(x1s)
		}
		budgets[0] += pool % len(x1s)
		if err := ev.runStarts(ctx, x1s, sigmaL, 0, seed+uint64(len(x0s))+1, func(st int, cm *cmaes) {
			log("local restart %d from %v: E = %.4g at %v (%d runs)", st, ev.toX(x1s[st]), cm.bestF, ev.toX(cm.best), cm.runs)
		}, budgets...); err != nil {
			return err
		}
	}
	return nil
}

// localRestarts is the number of concurrent local restarts.
const localRestarts = 1

// localStepDivisor divides the global phase's initial step to give the
// local restarts' (Spec.search).
const localStepDivisor = 4

// runStarts runs CMA-ES from each of x0s concurrently with initial step
// sigma, the random stream of run i seeded by seed + i, and a budget of
// budget evaluations each (budgets[i] instead when given); done reports
// each finished run.
func (ev *evaluator) runStarts(ctx context.Context, x0s [][]float64, sigma float64, budget int, seed uint64,
	done func(int, *cmaes), budgets ...int) error {
	errs := make([]error, len(x0s))
	var wg sync.WaitGroup
	for st, u0 := range x0s {
		b := budget
		if st < len(budgets) {
			b = budgets[st]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cm := &cmaes{d: len(ev.free), seed: seed + uint64(st), sigma0: sigma, budget: b, eval: ev.eval}
			if errs[st] = cm.minimize(ctx, u0); errs[st] == nil {
				done(st, cm)
			}
		}()
	}
	wg.Wait()
	return firstErr(errs)
}

// distinctBest returns, in unit coordinates, up to n evaluated points of
// least E (ties: the smaller key), each at least sep (largest coordinate
// difference) from those before it.
func (ev *evaluator) distinctBest(n int, sep float64) [][]float64 {
	pts := ev.points(nil)
	slices.SortStableFunc(pts, func(a, b point) int { return cmpFloat(a.e, b.e) })
	var out [][]float64
	for _, p := range pts {
		if len(out) == n || math.IsInf(p.e, 1) {
			break
		}
		u := ev.toU(p.x)
		far := true
		for _, q := range out {
			d := 0.0
			for k := range u {
				d = math.Max(d, math.Abs(u[k]-q[k]))
			}
			far = far && d >= sep
		}
		if far {
			out = append(out, u)
		}
	}
	return out
}

// size returns the number of points evaluated.
func (ev *evaluator) size() int {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return len(ev.cache)
}

// region returns the confidence region of the points around the best E
// with the measurement noise's standard deviation sd and the roughness's
// rsd.
func region(pts []point, best, sd, rsd float64, lo, hi []float64) Region {
	g := Region{NoiseSD: sd, RoughSD: rsd}
	g.Threshold = best + RegionSigmas*g.SD()
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
