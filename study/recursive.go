package study

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/gorigid/gorigid/stepper/articulated"
	"gonum.org/v1/gonum/stat"
)

// RecursiveSteps is the default length of RecursiveTiming's runs and
// RK4Contact's simulations (steps of 1 ms).
const RecursiveSteps = 2000

// TimingMethod is one curve of RecursiveTiming.
type TimingMethod struct {
	Name     string
	Method   articulated.Method
	Parallel bool
}

// TimingMethods are RecursiveTiming's methods: the O(n³) traditional
// method, the articulated-body algorithm, and the divide-and-conquer
// algorithm serial and parallel.
var TimingMethods = []TimingMethod{
	{"on3", articulated.Traditional, false},
	{"aba", articulated.ABA, false},
	{"dca", articulated.DCA, false},
	{"dca_parallel", articulated.DCA, true},
}

// TimingContacts name RecursiveTiming's contact cases: none, one (P) and
// two (P and Q) against y = 0.
var TimingContacts = []string{"none", "one", "two"}

// TimingSizes are RecursiveTiming's chain sizes (links).
var TimingSizes = []int{1, 2, 4, 8, 16, 32, 64, 128}

// TimingRepeats is how many runs each median time is taken over.
const TimingRepeats = 3

// RecursiveTimingResult is what RecursiveTiming measures. Times are
// wall-clock seconds per step: machine dependent.
type RecursiveTimingResult struct {
	Steps      int // per run
	GOMAXPROCS int
	// Times[c][m][s] is the median time per step of contact case c
	// (TimingContacts), method m (TimingMethods), size s (TimingSizes).
	Times [][][]float64
	// Slopes[c][m] is the least-squares slope of log t against log nb
	// over nb ≥ 8 (the asymptotic range).
	Slopes [][]float64
	// CrossoverSizes are nb = 1…16; CrossoverTimes[i] the times per step
	// of on3 and aba without contact at CrossoverSizes[i].
	CrossoverSizes []int
	CrossoverTimes [][2]float64
	// Crossover is the size from which ABA stays faster than the O(n³)
	// method (−1 if it is not faster at nb = 16).
	Crossover int
	// MaxFinalDifference is the largest difference of the final
	// generalized coordinates between methods (m or rad): they solve the
	// same LCPs, so it is rounding.
	MaxFinalDifference float64
}

// RecursiveTiming is the timing study of K. D. Bhalerao, C. Crean and K.
// Anderson, "Hybrid Complementarity Formulations for Robotics
// Applications" (ZAMM, 2011), §3.4, Figs. 4–6: chains of nb = 1, 2, 4, …,
// 128 links (1 kg, 1 m) released from rest horizontal at height 1 m, h = 1
// ms, with no contact, one (P on y = 0) and two (P and Q); the wall-clock
// time per step of each TimingMethods method, the median of TimingRepeats
// runs of o.Steps steps (default RecursiveSteps); log–log slopes (the
// paper: ≈ 3 for the O(n³) method, ≈ 1 for ABA and DCA); and the size from
// which ABA beats the O(n³) method (a second sweep over nb = 1…16 without
// contact; the paper: n > 7).
func RecursiveTiming(ctx context.Context, o Options) (*RecursiveTimingResult, error) {
	steps, err := o.steps("recursive-timing", RecursiveSteps)
	if err != nil {
		return nil, err
	}
	res := &RecursiveTimingResult{Steps: steps, GOMAXPROCS: runtime.GOMAXPROCS(0), Crossover: -1}
	const crossMax = 16
	units := 0
	for _, nb := range TimingSizes {
		units += nb * len(TimingContacts) * len(TimingMethods)
	}
	for nb := 1; nb <= crossMax; nb++ {
		units += 2 * nb
	}
	pr := newMeter(o, units*TimingRepeats*steps) // link-steps: a step's cost grows with nb
	res.Times = make([][][]float64, len(TimingContacts))
	for c := range TimingContacts {
		res.Times[c] = make([][]float64, len(TimingMethods))
		for mi := range TimingMethods {
			res.Times[c][mi] = make([]float64, len(TimingSizes))
		}
		for si, nb := range TimingSizes {
			var ref []float64
			for mi, m := range TimingMethods {
				t, q, err := medianStepTime(ctx, nb, c, m, steps, pr)
				if err != nil {
					return nil, err
				}
				res.Times[c][mi][si] = t
				if mi == 0 {
					ref = q
					continue
				}
				for i := range q {
					res.MaxFinalDifference = math.Max(res.MaxFinalDifference, math.Abs(q[i]-ref[i]))
				}
			}
		}
	}
	for nb := 1; nb <= crossMax; nb++ {
		var t [2]float64
		for mi := range t {
			v, _, err := medianStepTime(ctx, nb, 0, TimingMethods[mi], steps, pr)
			if err != nil {
				return nil, err
			}
			t[mi] = v
		}
		res.CrossoverSizes = append(res.CrossoverSizes, nb)
		res.CrossoverTimes = append(res.CrossoverTimes, t)
		if t[1] < t[0] {
			if res.Crossover < 0 {
				res.Crossover = nb
			}
		} else {
			res.Crossover = -1 // must stay faster from there on
		}
	}
	first := slices.Index(TimingSizes, 8)
	var logN []float64
	for _, nb := range TimingSizes[first:] {
		logN = append(logN, math.Log(float64(nb)))
	}
	res.Slopes = make([][]float64, len(TimingContacts))
	for c := range TimingContacts {
		res.Slopes[c] = make([]float64, len(TimingMethods))
		for mi := range TimingMethods {
			logT := make([]float64, len(logN))
			for i, t := range res.Times[c][mi][first:] {
				logT[i] = math.Log(t)
			}
			_, res.Slopes[c][mi] = stat.LinearRegression(logN, logT, nil, false)
		}
	}
	return res, nil
}

// timingChain builds the chain of Fig. 4: floating, horizontal at height 1,
// with contacts at P (link 0's inboard end) and Q (the last link's tip)
// against y = 0, frictionless as in the paper's inelastic contacts.
func timingChain(nb, contacts int, m TimingMethod) (*articulated.System, error) {
	model := articulated.Model{Links: articulated.Chain(nb, 1, 1), Floating: true,
		Gravity: articulated.Vec2{0, -9.81}, Lines: []articulated.Line{articulated.Ground()}}
	if contacts >= 1 {
		model.Contacts = append(model.Contacts, articulated.Contact{Link: 0, Line: 0})
	}
	if contacts >= 2 {
		model.Contacts = append(model.Contacts, articulated.Contact{Link: nb - 1, Point: articulated.Vec2{1, 0}, Line: 0})
	}
	sys, err := articulated.New(model, articulated.Settings{H: 1e-3, Method: m.Method, Parallel: m.Parallel})
	if err != nil {
		return nil, err
	}
	sys.Q[1] = 1
	return sys, nil
}

// timeRun returns the wall-clock seconds of steps steps from the initial
// state, and the final state for the cross-method check.
func timeRun(ctx context.Context, nb, contacts int, m TimingMethod, steps int, pr *meter) (float64, []float64, error) {
	sys, err := timingChain(nb, contacts, m)
	if err != nil {
		return 0, nil, err
	}
	t0 := time.Now()
	for k := range steps {
		if _, err := sys.Step(); err != nil {
			return 0, nil, fmt.Errorf("recursive-timing nb %d %s: %w", nb, m.Name, err)
		}
		if k%256 == 255 {
			if err := stopped(ctx, "recursive-timing: nb = %d, %s: stopped at step %d", nb, m.Name, k+1); err != nil {
				return 0, nil, err
			}
			pr.add(256 * nb)
		}
	}
	pr.add(steps % 256 * nb)
	return time.Since(t0).Seconds(), append([]float64(nil), sys.Q...), nil
}

// medianStepTime returns the median over TimingRepeats runs of the time per
// step (s) and the last run's final q.
func medianStepTime(ctx context.Context, nb, contacts int, m TimingMethod, steps int, pr *meter) (float64, []float64, error) {
	ts := make([]float64, TimingRepeats)
	var q []float64
	for r := range ts {
		t, qf, err := timeRun(ctx, nb, contacts, m, steps, pr)
		if err != nil {
			return 0, nil, err
		}
		ts[r], q = t/float64(steps), qf
	}
	return median(ts), q, nil
}

// DropVariant is one integrator setting of RK4Contact's drop (Fig. 8).
type DropVariant struct {
	Name       string
	Integrator articulated.Integrator
	Clamp      bool    // articulated.Settings.ClampGap
	Floor      float64 // articulated.Settings.GapFloor (m)
	Paper      string  // what the paper shows
}

// DropVariants are Fig. 8's four settings.
var DropVariants = []DropVariant{
	{"euler", articulated.SemiImplicitEuler, false, 0, "Fig. 8(a): δ_CM drifts; penetration O(1e-5)"},
	{"rk4", articulated.RK4, false, 0, "Fig. 8(b): δ_CM 1e4 smaller; spurious bounce"},
	{"rk4_velocity_switch", articulated.RK4, true, 0, "Fig. 8(c): no bounce; penetration 1e2 larger than (a)"},
	{"rk4_clamp_1e-5", articulated.RK4, true, -1e-5, "Fig. 8(d): penetration back to O(1e-5)"},
}

// DriftIntegrators are the integrators of RK4Contact's pendulum (Fig. 7).
var DriftIntegrators = []articulated.Integrator{articulated.ExplicitEuler, articulated.SemiImplicitEuler, articulated.RK4}

// Drop is one variant's 3-link drop, per step.
type Drop struct {
	Variant DropVariant
	// DeltaCM is δ_CM, the horizontal drift of the centre of mass (m),
	// Penetration the worst penetration (m), YP the height of P (m).
	DeltaCM, Penetration, YP []float64
}

// RK4ContactResult is what RK4Contact measures.
type RK4ContactResult struct {
	H float64 // time step (s)
	// Drift[i] is |E − E₀| (J) of the pendulum after each step under
	// DriftIntegrators[i].
	Drift [][]float64
	// Drops are the 3-link drops, one per DropVariants.
	Drops []Drop
}

// MaxOf returns the largest value of s (0 for none).
func MaxOf(s []float64) float64 {
	m := 0.0
	for _, v := range s {
		m = math.Max(m, v)
	}
	return m
}

// RK4Contact is the integrator study of Bhalerao, Crean and Anderson,
// "Hybrid Complementarity Formulations for Robotics Applications" (2011),
// §4, Figs. 7–8: the 8-link pendulum pinned at P released horizontal, its
// energy drift under explicit Euler, semi-implicit Euler and RK4 (Fig. 7:
// RK4's drift about 10⁶ times smaller); and the 3-link chain dropped on
// y = 0 without friction, δ_CM and the worst penetration of Euler and the
// three RK4 variants of §4.1 (Fig. 8). Each runs o.Steps steps of 1 ms
// (default RecursiveSteps).
func RK4Contact(ctx context.Context, o Options) (*RK4ContactResult, error) {
	steps, err := o.steps("rk4-contact", RecursiveSteps)
	if err != nil {
		return nil, err
	}
	pr := newMeter(o, steps*(len(DriftIntegrators)+len(DropVariants)))
	res := &RK4ContactResult{H: 1e-3}
	for _, in := range DriftIntegrators {
		d, err := pendulumDrift(ctx, in, steps, pr)
		if err != nil {
			return nil, err
		}
		res.Drift = append(res.Drift, d)
	}
	for _, v := range DropVariants {
		d, err := dropRun(ctx, v, steps, pr)
		if err != nil {
			return nil, err
		}
		res.Drops = append(res.Drops, d)
	}
	return res, nil
}

// pendulumDrift runs the 8-link pendulum of Fig. 7 and returns |E − E₀| (J)
// after each step.
func pendulumDrift(ctx context.Context, in articulated.Integrator, steps int, pr *meter) ([]float64, error) {
	model := articulated.Model{Links: articulated.Chain(8, 1, 1), Gravity: articulated.Vec2{0, -9.81}}
	sys, err := articulated.New(model, articulated.Settings{H: 1e-3, Method: articulated.ABA, Integrator: in})
	if err != nil {
		return nil, err
	}
	k0, p0 := sys.Energy()
	out := make([]float64, 0, min(steps, 1<<16))
	for s := 0; s < steps; s++ {
		if _, err := sys.Step(); err != nil {
			return nil, err
		}
		k, p := sys.Energy()
		out = append(out, math.Abs(k+p-k0-p0))
		pr.add(1)
		if s%256 == 255 {
			if err := stopped(ctx, "rk4-contact: pendulum (%s): stopped at step %d", in, s+1); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// dropRun simulates the 3-link chain of Fig. 8.
func dropRun(ctx context.Context, v DropVariant, steps int, pr *meter) (Drop, error) {
	d := Drop{Variant: v}
	model := articulated.Model{Links: articulated.Chain(3, 1, 1), Floating: true, Gravity: articulated.Vec2{0, -9.81},
		Lines:    []articulated.Line{articulated.Ground()},
		Contacts: []articulated.Contact{{Link: 0, Line: 0}, {Link: 2, Point: articulated.Vec2{1, 0}, Line: 0}}}
	sys, err := articulated.New(model, articulated.Settings{H: 1e-3, Method: articulated.ABA, Integrator: v.Integrator,
		ClampGap: v.Clamp, GapFloor: v.Floor})
	if err != nil {
		return d, err
	}
	if err := sys.SetRootPose(articulated.Vec2{0, 2.3}, -math.Pi/6); err != nil {
		return d, err
	}
	x0 := sys.CenterOfMass()[0]
	for s := 0; s < steps; s++ {
		st, err := sys.Step()
		if err != nil {
			return d, err
		}
		d.DeltaCM = append(d.DeltaCM, math.Abs(sys.CenterOfMass()[0]-x0))
		d.Penetration = append(d.Penetration, st.MaxPenetration)
		d.YP = append(d.YP, sys.Point(0, articulated.Vec2{})[1])
		pr.add(1)
		if s%256 == 255 {
			if err := stopped(ctx, "rk4-contact: drop (%s): stopped at step %d", v.Name, s+1); err != nil {
				return d, err
			}
		}
	}
	return d, nil
}
