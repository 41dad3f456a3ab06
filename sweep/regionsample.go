package sweep

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
)

// defaultRegionEvaluations is Refine.Region's default: the evaluations
// of E Calibrate spends on the confidence region after the search.
const defaultRegionEvaluations = 240

// regionBisections is the number of bisection steps of one line search
// after its bracket (regionExpand points): the boundary is then located
// to 1/16 of the bracket, the bracket being at most a factor 2 wide
// unless it reaches the parameters' bounds.
const regionBisections = 4

// regionExpand is the number of points by which a line search brackets
// the boundary: 0.5, 1, 2 and 4 times its guess of the distance.
const regionExpand = 4

// regionBatch is the number of points of one batch of the region's
// sampling (each runs every calibration experiment, so a batch is
// regionBatch × experiments jobs, enough to keep a queue's workers busy).
const regionBatch = 24

// regionMinMargin is the smallest margin (a fraction of a parameter's
// range) by which the region's sampling box extends the box of the
// points found within the region.
const regionMinMargin = 0.02

// sampleRegion spends at most budget evaluations of E on the confidence
// region {u : E(u) ≤ E_best + RegionSigmas·sd} (unit coordinates; sd
// the standard deviation of E's difference from E_best, measurement noise
// and roughness combined: Region): first
// sampleBox's random sampling with all but the last 2d line searches'
// worth (at most half the budget), which explores the box around the
// points found within the region, then a line search to the region's
// boundary outward from each face: for parameter k and direction ±, from
// the point within the region of greatest (least) coordinate k along
// ±e_k. The sampling alone leaves each face where its luckiest sample
// fell, short of the boundary by up to the distance between samples; the
// line searches push each face to the boundary
// along its parameter, bracketing it from the face's point by 0.5, 1, 2
// and 4 times a guess (a quarter of the box's width along k, at least
// regionMinMargin/2) in one batch, taking the farthest bracket point
// within the region (so a hole narrower than the bracket, as contact
// events make in E, is stepped over) and bisecting regionBisections
// times toward the nearest point beyond it that is not. The line
// searches are deterministic given the sampled points, which are
// deterministic given seed.
func (ev *evaluator) sampleRegion(ctx context.Context, grid []point, sd float64, budget int, seed uint64) error {
	d := len(ev.free)
	if d == 0 || budget <= 0 || !(sd >= 0) || math.IsInf(sd, 0) {
		return nil
	}
	lineBudget := min(budget/2, 2*d*(regionExpand+regionBisections))
	if err := ev.sampleBox(ctx, grid, sd, budget-lineBudget, seed); err != nil {
		return err
	}
	return ev.pushFaces(ctx, grid, sd, lineBudget)
}

// pushFaces runs sampleRegion's line searches from the faces within
// budget evaluations (with fewer bisections if the budget is short).
func (ev *evaluator) pushFaces(ctx context.Context, grid []point, sd float64, budget int) error {
	d := len(ev.free)
	nb := min(regionBisections, budget/(2*d)-regionExpand)
	in := ev.inRegion(grid, sd)
	if nb < 1 || len(in) == 0 {
		return nil
	}
	pts := ev.points(grid)
	thr := math.Inf(1)
	for _, p := range pts {
		thr = math.Min(thr, p.e)
	}
	thr += RegionSigmas * sd
	ls := make([]*lineSearch, 0, 2*d)
	gs := make([]float64, 0, 2*d)
	for k := range d {
		lo, hi := in[0], in[0]
		for _, u := range in[1:] {
			if u[k] < lo[k] {
				lo = u
			}
			if u[k] > hi[k] {
				hi = u
			}
		}
		g := math.Max(0.25*(hi[k]-lo[k]), regionMinMargin/2)
		for _, s := range []float64{-1, 1} {
			w := make([]float64, d)
			w[k] = s
			o := lo
			if s > 0 {
				o = hi
			}
			ls = append(ls, newLineSearch(o, w))
			gs = append(gs, g)
		}
	}
	_, err := ev.lineSearches(ctx, ls, gs, thr, nb)
	return err
}

// sampleBox spends budget evaluations of E sampling the confidence
// region around the points evaluated so far, so that its intervals are
// those of the region and not of where the search happened to step.
//
// The region is the set of points with E ≤ E_best + RegionSigmas·sd, E_best
// the least E evaluated so far (grid and cache). Each batch of
// regionBatch points is drawn, in unit coordinates, in the box of the
// points within the region enlarged on each side by half its width in
// that parameter (at least regionMinMargin of the range), clamped to the
// parameters' ranges:
//
//   - a third of the batch as a Latin hypercube over that box (one
//     point in each of the batch's strata per parameter, strata paired at
//     random), which fills it evenly;
//   - a third pushes each face outward: for parameter k and direction ±,
//     from the region's point of least (greatest) coordinate k, a normal
//     step with the covariance of the region's points (plus
//     (regionMinMargin/4)² on the diagonal), its sign chosen so that it
//     goes outward along k, so that it follows the region's shape;
//   - the rest follow lines from the best point through the region's
//     points, farthest first (distance in margins), to 1.2–2.5 times as
//     far, so that a region stretched along a slanted valley (parameters
//     that trade off against each other) is followed along it.
//
// The box is recomputed after every batch, so it grows while new points
// within the region fall near its faces and stays put once the faces
// give no more. The random stream is a PCG seeded by seed, the points
// in the region are taken in a fixed order, and E is deterministic, so
// the same spec gives the same points; a point evaluated before is not
// run again (the evaluator's cache, and the job keys of any recorded
// results).
func (ev *evaluator) sampleBox(ctx context.Context, grid []point, sd float64, budget int, seed uint64) error {
	d := len(ev.free)
	if d == 0 || budget <= 0 || !(sd >= 0) || math.IsInf(sd, 0) {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x853c49e6748fea9b))
	for used := 0; used < budget; {
		in := ev.inRegion(grid, sd)
		if len(in) == 0 {
			return nil
		}
		blo, bhi, m := make([]float64, d), make([]float64, d), make([]float64, d)
		for k := range d {
			blo[k], bhi[k] = math.Inf(1), math.Inf(-1)
			for _, u := range in {
				blo[k], bhi[k] = math.Min(blo[k], u[k]), math.Max(bhi[k], u[k])
			}
			m[k] = math.Max(0.5*(bhi[k]-blo[k]), regionMinMargin)
		}
		n := min(regionBatch, budget-used)
		nl := (n + 2) / 3
		nf := (n + 1) / 3
		batch := make([][]float64, 0, n)
		// The Latin hypercube over the enlarged box.
		lhs := make([][]float64, nl)
		for i := range lhs {
			lhs[i] = make([]float64, d)
		}
		for k := range d {
			lo, hi := math.Max(blo[k]-m[k], 0), math.Min(bhi[k]+m[k], 1)
			perm := rng.Perm(nl)
			for i := range lhs {
				lhs[i][k] = lo + (float64(perm[i])+rng.Float64())/float64(nl)*(hi-lo)
			}
		}
		batch = append(batch, lhs...)
		// Pushes from each face, cycling through the faces: a step drawn
		// with the covariance of the region's points, turned outward.
		l := regionSpread(in, regionMinMargin/4)
		for f := 0; len(batch) < nl+nf; f++ {
			k, dir := (f/2)%d, float64(2*(f%2)-1)
			ext := in[0]
			for _, u := range in[1:] {
				if dir*(u[k]-ext[k]) > 0 {
					ext = u
				}
			}
			z := make([]float64, d)
			for j := range z {
				z[j] = rng.NormFloat64()
			}
			v := make([]float64, d)
			for i := range d {
				for j := 0; j <= i; j++ {
					v[i] += l[i*d+j] * z[j]
				}
			}
			if dir*v[k] < 0 {
				for j := range v {
					v[j] = -v[j]
				}
			}
			u := slices.Clone(ext)
			for j := range d {
				u[j] = math.Min(math.Max(u[j]+v[j], 0), 1)
			}
			batch = append(batch, u)
		}
		// Lines from the best point through the points of the region,
		// farthest first, extended beyond them.
		b := ev.toU(ev.best())
		far := slices.Clone(in)
		dist := func(u []float64) float64 {
			s := 0.0
			for k := range u {
				s += (u[k] - b[k]) * (u[k] - b[k]) / (m[k] * m[k])
			}
			return s
		}
		slices.SortStableFunc(far, func(p, q []float64) int { return cmpFloat(dist(q), dist(p)) })
		for i := 0; len(batch) < n && dist(far[i%len(far)]) > 0; i++ {
			p, t := far[i%len(far)], 1.2+1.3*rng.Float64()
			u := make([]float64, d)
			for k := range d {
				u[k] = math.Min(math.Max(b[k]+t*(p[k]-b[k]), 0), 1)
			}
			batch = append(batch, u)
		}
		if _, err := ev.eval(ctx, batch); err != nil {
			return err
		}
		used += n
	}
	return nil
}

// lineSearch is one line search of sampleRegion: the points
// clampUnit(o + t·w), 0 ≤ t ≤ tmax (where the ray leaves the unit box).
// tin is the farthest t found within the region (o is within it) and
// tout the nearest t beyond tin found outside it (tmax, not evaluated,
// until one is).
type lineSearch struct {
	o, w            []float64
	tmax, tin, tout float64
}

func newLineSearch(o, w []float64) *lineSearch {
	l := &lineSearch{o: o, w: w, tmax: math.Inf(1)}
	for k := range w {
		switch {
		case w[k] > 0:
			l.tmax = math.Min(l.tmax, (1-o[k])/w[k])
		case w[k] < 0:
			l.tmax = math.Min(l.tmax, -o[k]/w[k])
		}
	}
	if math.IsInf(l.tmax, 1) {
		l.tmax = 0
	}
	l.tmax = math.Max(l.tmax, 0)
	l.tout = l.tmax
	return l
}

func (l *lineSearch) at(t float64) []float64 {
	u := make([]float64, len(l.o))
	for k := range u {
		u[k] = l.o[k] + t*l.w[k]
	}
	return clampUnit(u)
}

// lineSearches runs ls together with guesses gs against the threshold
// thr: one batch of the bracketing points, then nb batches of one
// bisection point per line search. It returns the number of points
// requested.
func (ev *evaluator) lineSearches(ctx context.Context, ls []*lineSearch, gs []float64, thr float64, nb int) (int, error) {
	var batch [][]float64
	var ts [][]float64
	for i, l := range ls {
		var t []float64
		for m := range regionExpand {
			x := math.Min(gs[i]*math.Ldexp(1, m-1), l.tmax)
			if x > 0 && (len(t) == 0 || x > t[len(t)-1]) {
				t = append(t, x)
			}
		}
		ts = append(ts, t)
		for _, x := range t {
			batch = append(batch, l.at(x))
		}
	}
	used := len(batch)
	es, err := ev.eval(ctx, batch)
	if err != nil {
		return used, err
	}
	m := 0
	for i, l := range ls {
		e := es[m : m+len(ts[i])]
		m += len(ts[i])
		for j, x := range ts[i] {
			if e[j] <= thr {
				l.tin = x
			}
		}
		for j, x := range ts[i] {
			if x > l.tin && !(e[j] <= thr) {
				l.tout = x
				break
			}
		}
	}
	for range nb {
		batch = batch[:0]
		var open []*lineSearch
		for _, l := range ls {
			if l.tout > l.tin {
				open = append(open, l)
				batch = append(batch, l.at(0.5*(l.tin+l.tout)))
			}
		}
		if len(open) == 0 {
			break
		}
		used += len(batch)
		es, err := ev.eval(ctx, batch)
		if err != nil {
			return used, err
		}
		for i, l := range open {
			if x := 0.5 * (l.tin + l.tout); es[i] <= thr {
				l.tin = x
			} else {
				l.tout = x
			}
		}
	}
	return used, nil
}

func clampUnit(u []float64) []float64 {
	for k := range u {
		u[k] = math.Min(math.Max(u[k], 0), 1)
	}
	return u
}

// inRegion returns, in unit coordinates and a fixed order (grid samples
// in order, then cached points by key), the points evaluated so far whose
// E is within RegionSigmas·sd of the least E among them.
func (ev *evaluator) inRegion(grid []point, sd float64) [][]float64 {
	pts := ev.points(grid)
	best := math.Inf(1)
	for _, p := range pts {
		best = math.Min(best, p.e)
	}
	var in [][]float64
	for _, p := range pts {
		if p.e <= best+RegionSigmas*sd {
			in = append(in, ev.toU(p.x))
		}
	}
	return in
}

// points returns the grid's points followed by the cached points in
// key order.
func (ev *evaluator) points(grid []point) []point {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	keys := make([]string, 0, len(ev.cache))
	for k := range ev.cache {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	pts := slices.Clone(grid)
	for _, k := range keys {
		pts = append(pts, ev.cache[k])
	}
	return pts
}

// regionSpread returns the lower Cholesky factor (row-major, d × d) of
// the covariance of the points us plus eps² on the diagonal.
func regionSpread(us [][]float64, eps float64) []float64 {
	d := len(us[0])
	mean := make([]float64, d)
	for _, u := range us {
		for k := range d {
			mean[k] += u[k] / float64(len(us))
		}
	}
	c := make([]float64, d*d)
	for _, u := range us {
		for i := range d {
			for j := range d {
				c[i*d+j] += (u[i] - mean[i]) * (u[j] - mean[j]) / float64(len(us))
			}
		}
	}
	for i := range d {
		c[i*d+i] += eps * eps
	}
	// Cholesky: c is symmetric positive definite (eps > 0).
	l := make([]float64, d*d)
	for i := range d {
		for j := 0; j <= i; j++ {
			s := c[i*d+j]
			for k := range j {
				s -= l[i*d+k] * l[j*d+k]
			}
			if i == j {
				l[i*d+i] = math.Sqrt(math.Max(s, eps*eps))
			} else {
				l[i*d+j] = s / l[j*d+j]
			}
		}
	}
	return l
}
