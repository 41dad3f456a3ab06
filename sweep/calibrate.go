package sweep

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
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
// the BPMD paper, the confidence region and the prediction of the
// held-out experiment.
type Calibration struct {
	Solver string
	// GridBest and GridE: the best grid sample and its E (Eq. 18, m²).
	GridBest []float64
	GridE    float64
	// Best and E: the best point of the grid and the search.
	Best []float64
	E    float64
	// Evaluations of E by the search, the region probes and the region's
	// sampling and line searches: distinct points, each running every
	// calibration experiment once (grid samples not counted).
	Evaluations int
	// Region is the set of evaluated points whose E is within the noise
	// of E, the measurement noise's and E's roughness (Region's doc).
	Region Region
	// Prediction is the held-out experiment run with Best (its E and
	// trajectory); zero without a holdout.
	Prediction Result
}

// Calibrate runs the paper's procedure (Lu, Williams, Trinkle and
// Lacoursière 2014, §4) with a search that finds parameters off the
// grid: E of Eq. (18),
//
//	E = (1/M) Σⱼ (1/Nⱼ) Σₗ ‖qⱼˡ − q̄ⱼˡ‖²,
//
// over the M experiments other than the holdout, on every sample of the
// spec (the grid: the paper's procedure), per solver; then CMA-ES with
// restarts (Refine: Hansen 2016; Auger and Hansen 2005, restarts from the
// best point with the population doubled) from each of the Refine.Starts
// best grid samples, with a budget of Refine.Evaluations points each (of
// which Refine.Local % may be pooled on a local run from the best point:
// Spec.search), in coordinates scaled to each parameter's range and
// clamped to it. A generation's points go to r as
// one batch of jobs, and the starts run concurrently. E is only piecewise
// continuous in friction coefficients (contact events switch between
// nearby values: docs/calibration.md), which is why the search is a
// population method and not a local descent. Then the confidence region
// (Region: the points whose E is within RegionSigmas standard deviations
// of the best, the measurement noise's and E's roughness between nearby
// points combined, so that it does not shrink to the one dip of a rough
// E the search ended in), sampled and its faces pushed to its boundary
// with Refine.Region further evaluations, and the prediction of the held-out
// experiment with each solver's best parameters. A sample whose run failed counts as E = +Inf.
//
// Every run is a Job through r, identified by its content (JobKey), so a
// calibration after a sweep of the same spec, or a resumed calibration,
// reuses every recorded result. The result is deterministic: the same
// spec and build give the same points and the same bits.
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
	jobs, err := s.jobsFor(samples, exps, build)
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
	out := make([]Calibration, ns)
	errs := make([]error, ns)
	var wg sync.WaitGroup
	for k, solver := range s.Solvers {
		es := make([]float64, len(samples))
		for si := range samples {
			es[si] = gridE(si, k)
		}
		c := &out[k]
		c.Solver = solver
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = s.search(ctx, r, build, exps, samples, es, c, log)
		}()
	}
	wg.Wait()
	if err := firstErr(errs); err != nil {
		return nil, err
	}
	if hold < 0 {
		return out, nil
	}
	var pj []Job
	for k := range out {
		j, err := s.jobsForSolvers([][]float64{out[k].Best}, []int{hold}, []string{out[k].Solver}, build)
		if err != nil {
			return nil, err
		}
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
			// A recorded prediction has no trajectory (the results file
			// keeps summaries): run it here.
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
