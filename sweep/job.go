package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
)

// Job is one run: a scene with its overrides and a solver, compared with
// one measured trajectory. It is self-contained (the measured frames
// travel with it), so a worker on any machine can run it.
type Job struct {
	ID         string            `json:"id"`    // unique in the sweep; results are keyed by it
	Sweep      string            `json:"sweep"` // the spec's hash
	Scene      string            `json:"scene"`
	Set        map[string]string `json:"set"`
	Params     []float64         `json:"params"` // the swept values, in spec order
	Experiment string            `json:"experiment"`
	Solver     string            `json:"solver"`
	Steps      int               `json:"steps"`
	// Substeps divides each step into that many steps of h/Substeps
	// (0 or 1: the scene's h); frames and measured steps count whole
	// steps.
	Substeps int `json:"substeps,omitempty"`
	// Tolerance is the solver's tolerance, stepper.Settings.Tolerance
	// (0 ≤ Tolerance < 1; 0: the solver's default). Part of Key when set.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Coherent sets the world's stepper.Settings.Coherent, as a scene
	// file's "coherent" key does: true is stepper.CoherentOn (a steady
	// solve's proximal centre at the last step's impulses), false
	// stepper.CoherentOff (every solve at centre 0), nil the scene's own
	// setting (the coherent centre for the push experiment,
	// scenes.DefaultPushParams). Part of Key when set.
	Coherent *bool `json:"coherent,omitempty"`
	Body     int   `json:"body"`
	// AngleLength ρ (m/rad) weighs the angle in q = (x, y, ρθ).
	AngleLength float64 `json:"angle_length"`
	Measured    []Frame `json:"measured"`
	// SceneHash is the SHA-256 of the scene file the scene and Set
	// describe (scenes.Describe); a worker whose scene code differs
	// refuses the job. Build is the coordinator's gorigid build.
	SceneHash string `json:"scene_hash"`
	Build     string `json:"build"`
	// Trajectory asks for the simulated frames in the result.
	Trajectory bool `json:"trajectory,omitempty"`
}

// Frame is the compared body's planar pose at one step: x, y (m) and the
// angle θ about z (rad, in (−π, π]).
type Frame struct {
	Step int        `json:"step"`
	Time float64    `json:"time"`
	Q    [3]float64 `json:"q"`
}

// Result is what a job gave. Status is "ok" or "failed" (Error says why:
// the run's error, or a job delivered MaxAttempts times without a
// result).
type Result struct {
	ID         string    `json:"id"`
	Experiment string    `json:"experiment"`
	Solver     string    `json:"solver"`
	Params     []float64 `json:"params"`
	// E is Eq. (18)'s term of this experiment: (1/N) Σ_l ‖q_l − q̄_l‖²
	// over the N measured frames (m²), q = (x, y, ρθ).
	E float64 `json:"e"`
	// MaxErr and FinalErr are ‖q − q̄‖ (m) at the worst and the last
	// measured frame.
	MaxErr     float64 `json:"max_err"`
	FinalErr   float64 `json:"final_err"`
	Steps      int     `json:"steps"`
	BudgetHits int     `json:"budget_hits"` // steps whose solver ran out of iterations
	Status     string  `json:"status"`
	Error      string  `json:"error,omitempty"`
	// Attempts counts the starts of the job by a worker of its build (1
	// unless a worker died mid-job or the run failed and was retried);
	// Deliveries counts JetStream's deliveries (refusals and jobs a
	// killed worker had fetched but not started included).
	Attempts   int    `json:"attempts"`
	Deliveries int    `json:"deliveries,omitempty"`
	Worker     string `json:"worker,omitempty"`
	// Seconds is the run's wall-clock time on its worker (s): what the
	// job limits' Wall and the queue's ack wait are set against.
	Seconds    float64 `json:"seconds,omitempty"`
	Trajectory []Frame `json:"trajectory,omitempty"`
}

// Statuses of a Result.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// NewSolver returns the solver of a spec's name.
func NewSolver(name string) (lcp.Solver, error) {
	if !slices.Contains(solverNames, name) {
		return nil, fmt.Errorf("unknown solver %q (valid: %s)", name, strings.Join(solverNames, ", "))
	}
	return lcp.New(name)
}

// SceneHash returns the SHA-256 (hex) of the scene file that scene with
// the overrides set describes.
func SceneHash(scene string, set map[string]string) (string, error) {
	var b strings.Builder
	if err := scenes.Export(scene, set, &b); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:]), nil
}

// stepFailed is the error of a job whose step failed at substep s (from
// 0) of sub of its step step. Most of the stepper's errors name its own
// step (counting substeps), which is the job's when there are none: the
// job's prefix then only repeats it ("step 28: step 28: …") and is left
// out; an error that does not name it (a non-finite energy, a row that
// cannot be built) gets it.
func stepFailed(step, s, sub int, err error) error {
	if sub > 1 {
		return fmt.Errorf("step %d of the job, substep %d of %d: %w", step, s+1, sub, err)
	}
	if strings.HasPrefix(err.Error(), fmt.Sprintf("step %d: ", step)) {
		return err
	}
	return fmt.Errorf("step %d: %w", step, err)
}

// Run runs the job in this process under DefaultLimits and returns its
// result (Status ok), or an error: RunContext's, without a context.
func Run(j *Job) (Result, error) { return RunContext(context.Background(), j, Limits{}) }

// RunContext runs the job in this process and returns its result (Status
// ok), or an error: a *RefusedError for a job that cannot run or is over
// lim (Limits.Check; a step with more than lim.Rows rows), a step that
// fails, a non-finite pose, or ctx's end or lim.Wall passing (an error
// wrapping context.Canceled or context.DeadlineExceeded; lim.Wall counts
// from the call). The context is checked after the scene's check
// against lim and after its build, and reaches the step loop, which
// checks it between steps, each step's
// collision detection, rows and assembly (World.StepContext: every few
// hundred candidate pairs, joint rows or bodies' blocks of A; the step is
// then abandoned with the world unchanged), and each
// step's solve (stepper.Settings.Context), which checks it every
// iteration; the step then completes and the run returns. Within
// DefaultLimits that is within 1 s of CPU after ctx's end (Limits; on a
// loaded machine the wall clock stretches it). Runs are deterministic: the same job
// gives the same result bit for bit.
func RunContext(ctx context.Context, j *Job, lim Limits) (Result, error) {
	r := Result{ID: j.ID, Experiment: j.Experiment, Solver: j.Solver, Params: j.Params, Status: StatusOK}
	lim = lim.OrDefault()
	// The wall-clock limit covers the scene's check and build too.
	ctx, cancel := context.WithTimeoutCause(ctx, lim.Wall, fmt.Errorf("wall: ran %v (sweep.Limits.Wall): %w", lim.Wall, context.DeadlineExceeded))
	defer cancel()
	if err := lim.Check(j); err != nil {
		return r, err
	}
	// Describing the scene for the check and building it do not see the
	// context (at the bodies limit each takes a few hundred ms): it is
	// checked after each.
	if ctx.Err() != nil {
		return r, stopped(ctx, 0, j.Steps)
	}
	solver, err := NewSolver(j.Solver)
	if err != nil {
		return r, &RefusedError{Err: err}
	}
	sc, err := scenes.Lookup(j.Scene)
	if err != nil {
		return r, &RefusedError{Err: err}
	}
	w, err := sc.Build(j.Set)
	if err != nil {
		return r, &RefusedError{Err: err}
	}
	if ctx.Err() != nil {
		return r, stopped(ctx, 0, j.Steps)
	}
	w.Settings.Solver = solver
	w.Settings.Tolerance = j.Tolerance // within 0…1: Limits.Check
	if j.Coherent != nil {
		w.Settings.Coherent = stepper.CoherentOff
		if *j.Coherent {
			w.Settings.Coherent = stepper.CoherentOn
		}
	}
	sub := max(j.Substeps, 1) // within 0…maxSubsteps: Limits.Check
	w.Settings.H /= float64(sub)
	w.Settings.Context = ctx
	b := w.Bodies[j.Body]
	pose := func() Frame {
		return Frame{Step: w.Steps() / sub, Time: w.Time(), Q: [3]float64{b.Pos[0], b.Pos[1], 2 * math.Atan2(b.Rot.V[2], b.Rot.W)}}
	}
	var sum, maxErr, last float64
	n := 0
	compare := func(f Frame, m *Frame) {
		d := q3(f.Q, j.AngleLength)
		e := q3(m.Q, j.AngleLength)
		dx, dy, da := d[0]-e[0], d[1]-e[1], wrapAngle(f.Q[2]-m.Q[2])*j.AngleLength
		s := dx*dx + dy*dy + da*da
		sum += s
		n++
		last = math.Sqrt(s)
		maxErr = math.Max(maxErr, last)
	}
	k := 0 // next measured frame
	for k < len(j.Measured) && j.Measured[k].Step < 0 {
		k++
	}
	for step := 0; ; step++ {
		for s := 0; s < sub && step > 0; s++ {
			if ctx.Err() != nil {
				return r, stopped(ctx, step, j.Steps)
			}
			st, err := w.StepContext(ctx)
			if ctx.Err() != nil {
				return r, stopped(ctx, step, j.Steps)
			}
			if err != nil {
				return r, stepFailed(step, s, sub, err)
			}
			if st.Rows > lim.Rows {
				return r, refusef("rows: step %d has %d rows, above the limit %d (sweep.Limits.Rows)", step, st.Rows, lim.Rows)
			}
			if st.BudgetHit {
				r.BudgetHits++
			}
			r.Steps = step
		}
		if k < len(j.Measured) && j.Measured[k].Step == step || j.Trajectory {
			f := pose()
			if !num.FiniteVec(f.Q) {
				return r, fmt.Errorf("step %d: body %d's pose is not finite: %v", step, j.Body, f.Q)
			}
			if j.Trajectory {
				r.Trajectory = append(r.Trajectory, f)
			}
			for k < len(j.Measured) && j.Measured[k].Step == step {
				compare(f, &j.Measured[k])
				k++
			}
		}
		if step >= j.Steps {
			break
		}
	}
	if n == 0 {
		return r, fmt.Errorf("measured: no frame at steps 0…%d", j.Steps)
	}
	r.E = sum / float64(n)
	r.MaxErr, r.FinalErr = maxErr, last
	return r, nil
}

// stopped is the error of a run whose context ended before step of
// steps: the context's cause (the wall-clock limit or the caller's
// cancellation).
func stopped(ctx context.Context, step, steps int) error {
	return fmt.Errorf("stopped at step %d of %d: %w", step, steps, context.Cause(ctx))
}

func q3(q [3]float64, rho float64) [3]float64 { return [3]float64{q[0], q[1], rho * q[2]} }

// wrapAngle maps a to (−π, π].
func wrapAngle(a float64) float64 {
	a = math.Mod(a, 2*math.Pi)
	switch {
	case a > math.Pi:
		a -= 2 * math.Pi
	case a <= -math.Pi:
		a += 2 * math.Pi
	}
	return a
}

// Jobs returns the sweep's jobs: every sample × experiment × solver, in
// that nesting order, with ids "e1-bpp-" and 16 hex digits of the job's
// content key (Job.Key). Build is recorded in each job.
func (s *Spec) Jobs(build string) ([]Job, error) {
	return s.jobsFor(s.SamplesList(), s.allExperiments(), build)
}

func (s *Spec) allExperiments() []int {
	out := make([]int, len(s.Experiments))
	for i := range out {
		out[i] = i
	}
	return out
}

// jobsFor returns the jobs of the samples xs over the experiments exps
// and every solver, with content ids (Job.Key).
func (s *Spec) jobsFor(xs [][]float64, exps []int, build string) ([]Job, error) {
	return s.jobsForSolvers(xs, exps, s.Solvers, build)
}

func (s *Spec) jobsForSolvers(xs [][]float64, exps []int, solvers []string, build string) ([]Job, error) {
	names := s.paramNames()
	var jobs []Job
	hashes := map[string]string{}
	for _, x := range xs {
		for _, e := range exps {
			set := s.runSet(e, names, x)
			key := fmt.Sprint(sortedPairs(set))
			h, ok := hashes[key]
			if !ok {
				var err error
				if h, err = SceneHash(s.Scene, set); err != nil {
					return nil, fmt.Errorf("experiments[%d] with %v: %w", e, x, err)
				}
				hashes[key] = h
			}
			for _, sv := range solvers {
				j := Job{Sweep: s.hash,
					Scene: s.Scene, Set: set, Params: x, Experiment: s.Experiments[e].Name, Solver: sv,
					Steps: s.Steps, Substeps: s.Substeps, Tolerance: s.Tolerance, Coherent: s.Coherent, Body: s.Body, AngleLength: s.AngleLength, Measured: s.meas[e],
					SceneHash: h, Build: build,
				}
				j.ID = contentID(&j)
				jobs = append(jobs, j)
			}
		}
	}
	return jobs, nil
}

func sortedPairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, k+"="+m[k])
	}
	return out
}
