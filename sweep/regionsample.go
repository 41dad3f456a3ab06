package sweep

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
)

// defaultRegionEvaluations is Refine.Region's default: the evaluations
// of E Calibrate spends sampling the confidence region after the search.
const defaultRegionEvaluations = 240

// regionBatch is the number of points of one batch of the region's
// sampling (each runs every calibration experiment, so a batch is
// regionBatch × experiments jobs, enough to keep a queue's workers busy).
const regionBatch = 24

// regionMinMargin is the smallest margin (a fraction of a parameter's
// range) by which the region's sampling box extends the box of the
// points found within the region.
const regionMinMargin = 0.02

// sampleRegion spends budget evaluations of E sampling the confidence
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
func (ev *evaluator) sampleRegion(ctx context.Context, grid []point, sd float64, budget int, seed uint64) error {
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
