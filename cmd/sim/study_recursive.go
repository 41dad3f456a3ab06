package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/gorigid/gorigid/stepper/articulated"
)

// The studies of hybrid-recursive-complementarity.md:
//
//   - recursive-timing (Sec. 3.4, Figs. 4–6): chains of nb = 1, 2, 4, …, 128
//     links (mass 1 kg, length 1 m) released from rest horizontal at height
//     1 m, h = 1 ms, with no contact, one (P with y = 0) and two (P and Q);
//     wall-clock time per step of each method, serial and parallel DCA, the
//     median of repeated runs; log–log slopes; the size from which ABA beats
//     the O(n³) method (a second sweep over nb = 1…16 without contact).
//   - rk4-contact (Figs. 7–8): the 8-link pendulum pinned at P released
//     horizontal, energy drift of explicit Euler, semi-implicit Euler and
//     RK4; and the 3-link chain dropped on y = 0 without friction, δ_CM and
//     the worst penetration of Euler and the three RK4 variants of Sec. 4.1.

func init() {
	registerStudy(study{
		Name:         "recursive-timing",
		Doc:          "time per step of the O(n³), ABA and DCA hybrid LCP methods vs chain size (hybrid paper, Figs. 5–6)",
		DefaultSteps: 2000,
		Run:          studyRecursiveTiming,
	})
	registerStudy(study{
		Name:         "rk4-contact",
		Doc:          "energy drift Euler vs RK4 (8-link pendulum) and RK4 with frictionless contact (hybrid paper, Figs. 7–8)",
		DefaultSteps: 2000,
		Run:          studyRK4Contact,
	})
}

// timingMethod is one curve of the timing study.
type timingMethod struct {
	Name     string
	Method   articulated.Method
	Parallel bool
}

var timingMethods = []timingMethod{
	{"on3", articulated.Traditional, false},
	{"aba", articulated.ABA, false},
	{"dca", articulated.DCA, false},
	{"dca_parallel", articulated.DCA, true},
}

var timingContacts = []string{"none", "one", "two"}

// timingChain builds the chain of Fig. 4: floating, horizontal at height 1,
// with contacts at P (link 0's inboard end) and Q (the last link's tip)
// against y = 0, frictionless as in the paper's inelastic contacts.
func timingChain(nb, contacts int, m timingMethod) (*articulated.System, error) {
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
func timeRun(ctx context.Context, nb, contacts int, m timingMethod, steps int) (float64, []float64, error) {
	sys, err := timingChain(nb, contacts, m)
	if err != nil {
		return 0, nil, err
	}
	t0 := time.Now()
	for k := range steps {
		if _, err := sys.Step(); err != nil {
			return 0, nil, fmt.Errorf("recursive-timing nb %d %s: %w", nb, m.Name, err)
		}
		if k%256 == 255 && ctx.Err() != nil {
			return 0, nil, interruptedf("recursive-timing: interrupted at nb = %d (%s); nothing written", nb, m.Name)
		}
	}
	return time.Since(t0).Seconds(), append([]float64(nil), sys.Q...), nil
}

// timingRepeats is how many runs each median is taken over.
const timingRepeats = 3

// medianStepTime returns the median over timingRepeats runs of the time per
// step (s) and the last run's final q.
func medianStepTime(ctx context.Context, nb, contacts int, m timingMethod, steps int) (float64, []float64, error) {
	ts := make([]float64, timingRepeats)
	var q []float64
	for r := range ts {
		t, qf, err := timeRun(ctx, nb, contacts, m, steps)
		if err != nil {
			return 0, nil, err
		}
		ts[r], q = t/float64(steps), qf
	}
	slices.Sort(ts)
	return ts[len(ts)/2], q, nil
}

// logSlope is the least-squares slope of log t against log n.
func logSlope(n, t []float64) float64 {
	var sx, sy, sxx, sxy float64
	for i := range n {
		x, y := math.Log(n[i]), math.Log(t[i])
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	k := float64(len(n))
	return (k*sxy - sx*sy) / (k*sxx - sx*sx)
}

func studyRecursiveTiming(ctx context.Context, o studyOptions) error {
	sizes := []int{1, 2, 4, 8, 16, 32, 64, 128}
	// times[c][m][s] seconds per step.
	times := make([][][]float64, len(timingContacts))
	var rows [][]string
	var maxDiff float64 // largest final-state difference between methods
	for c := range timingContacts {
		times[c] = make([][]float64, len(timingMethods))
		for mi := range timingMethods {
			times[c][mi] = make([]float64, len(sizes))
		}
		for si, nb := range sizes {
			var ref []float64
			for mi, m := range timingMethods {
				t, q, err := medianStepTime(ctx, nb, c, m, o.Steps)
				if err != nil {
					return err
				}
				times[c][mi][si] = t
				if mi == 0 {
					ref = q
				} else {
					for i := range q {
						maxDiff = math.Max(maxDiff, math.Abs(q[i]-ref[i]))
					}
				}
				rows = append(rows, []string{timingContacts[c], m.Name, fmt.Sprint(nb), fmtFloat(t * 1e6)})
			}
		}
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "recursive-timing.csv"),
		[]string{"contacts", "method", "nb", "us_per_step"}, rows); err != nil {
		return err
	}
	// Crossover: nb = 1…16, no contact, on3 against aba.
	var crossRows [][]string
	crossover := -1
	for nb := 1; nb <= 16; nb++ {
		var t [2]float64
		for mi := range t {
			v, _, err := medianStepTime(ctx, nb, 0, timingMethods[mi], o.Steps)
			if err != nil {
				return err
			}
			t[mi] = v
		}
		crossRows = append(crossRows, []string{fmt.Sprint(nb), fmtFloat(t[0] * 1e6), fmtFloat(t[1] * 1e6)})
		if t[1] < t[0] {
			if crossover < 0 {
				crossover = nb
			}
		} else {
			crossover = -1 // must stay faster from there on
		}
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "recursive-crossover.csv"),
		[]string{"nb", "on3_us_per_step", "aba_us_per_step"}, crossRows); err != nil {
		return err
	}

	// Slopes over nb ≥ 8 (the asymptotic range) and the summary.
	var fitN []float64
	first := slices.Index(sizes, 8)
	for _, nb := range sizes[first:] {
		fitN = append(fitN, float64(nb))
	}
	var summary [][]string
	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "recursive-timing: %d steps of h = 1 ms per run, median of %d runs, GOMAXPROCS = %d\n",
		o.Steps, timingRepeats, runtime.GOMAXPROCS(0))
	fmt.Fprint(tw, "contacts\tmethod")
	for _, nb := range sizes {
		fmt.Fprintf(tw, "\tnb=%d", nb)
	}
	fmt.Fprintln(tw, "\tslope(nb≥8)\t")
	for c, cname := range timingContacts {
		for mi, m := range timingMethods {
			fmt.Fprintf(tw, "%s\t%s", cname, m.Name)
			for si := range sizes {
				fmt.Fprintf(tw, "\t%.3g µs", times[c][mi][si]*1e6)
			}
			sl := logSlope(fitN, times[c][mi][first:])
			fmt.Fprintf(tw, "\t%.2f\t\n", sl)
			summary = append(summary, []string{"slope_" + cname + "_" + m.Name, fmtFloat(sl), "1", "on3 ≈ 3; aba and dca ≈ 1 (Figs. 5–6)"})
			summary = append(summary, []string{"us_per_step_" + cname + "_" + m.Name + "_nb128",
				fmtFloat(times[c][mi][len(sizes)-1] * 1e6), "µs", "-"})
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(o.Stdout, "ABA faster than O(n³) from nb = %d on (no contact; paper: n > 7)\n", crossover)
	fmt.Fprintf(o.Stdout, "largest difference of the final q between methods: %.3g\n", maxDiff)
	summary = append(summary,
		[]string{"crossover_nb", fmt.Sprint(crossover), "links", "n > 7 (ref. 43 in Sec. 3.4)"},
		[]string{"max_final_q_difference", fmtFloat(maxDiff), "m or rad", "0 (identical LCPs)"},
		[]string{"steps_per_run", fmt.Sprint(o.Steps), "1", "2000"},
		[]string{"gomaxprocs", fmt.Sprint(runtime.GOMAXPROCS(0)), "1", "-"},
	)
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"quantity", "value", "unit", "paper"}, summary); err != nil {
		return err
	}

	// recursive-timing.png: one log–log panel per contact case.
	xs := make([]float64, len(sizes))
	for i, nb := range sizes {
		xs[i] = float64(nb)
	}
	var panels []*plot.Plot
	for c, cname := range timingContacts {
		p := plot.New()
		p.Title.Text = "contacts: " + cname
		p.X.Label.Text = "nb (links)"
		p.Y.Label.Text = "time per step (µs)"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
		p.Add(plotter.NewGrid())
		for mi, m := range timingMethods {
			xy := make(plotter.XYs, len(sizes))
			for si := range sizes {
				xy[si] = plotter.XY{X: xs[si], Y: times[c][mi][si] * 1e6}
			}
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			l.Color, pts.Color = palette[mi], palette[mi]
			p.Add(l, pts)
			p.Legend.Add(m.Name, l, pts)
		}
		p.Legend.Top, p.Legend.Left = true, true
		panels = append(panels, p)
	}
	png, err := rowPNG(panels, 15*vg.Inch, 5*vg.Inch)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, "recursive-timing.png"), png)
}

// rowPNG draws plots side by side.
func rowPNG(plots []*plot.Plot, w, h vg.Length) ([]byte, error) {
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Points(12), PadY: vg.Points(12),
		PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12)}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, dc)
	for i, p := range plots {
		p.Draw(canvases[0][i])
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ---------------------------------------------------------------------
// rk4-contact

// pendulumDrift runs the 8-link pendulum of Fig. 7 and returns |E − E₀| (J)
// after each step.
func pendulumDrift(ctx context.Context, in articulated.Integrator, steps int) ([]float64, error) {
	model := articulated.Model{Links: articulated.Chain(8, 1, 1), Gravity: articulated.Vec2{0, -9.81}}
	sys, err := articulated.New(model, articulated.Settings{H: 1e-3, Method: articulated.ABA, Integrator: in})
	if err != nil {
		return nil, err
	}
	k0, p0 := sys.Energy()
	out := make([]float64, steps)
	for s := range out {
		if _, err := sys.Step(); err != nil {
			return nil, err
		}
		k, p := sys.Energy()
		out[s] = math.Abs(k + p - k0 - p0)
		if s%256 == 255 && ctx.Err() != nil {
			return nil, interruptedf("rk4-contact: interrupted in the pendulum (%s); nothing written", in)
		}
	}
	return out, nil
}

// dropVariant is one integrator setting of Fig. 8.
type dropVariant struct {
	Name       string
	Integrator articulated.Integrator
	Clamp      bool
	Floor      float64
	Paper      string
}

var dropVariants = []dropVariant{
	{"euler", articulated.SemiImplicitEuler, false, 0, "Fig. 8(a): δ_CM drifts; penetration O(1e-5)"},
	{"rk4", articulated.RK4, false, 0, "Fig. 8(b): δ_CM 1e4 smaller; spurious bounce"},
	{"rk4_velocity_switch", articulated.RK4, true, 0, "Fig. 8(c): no bounce; penetration 1e2 larger than (a)"},
	{"rk4_clamp_1e-5", articulated.RK4, true, -1e-5, "Fig. 8(d): penetration back to O(1e-5)"},
}

// dropRun simulates the 3-link chain of Fig. 8 and returns per step δ_CM
// (m), the worst penetration (m) and the height of P (m).
func dropRun(ctx context.Context, v dropVariant, steps int) (dcm, pen, yP []float64, err error) {
	model := articulated.Model{Links: articulated.Chain(3, 1, 1), Floating: true, Gravity: articulated.Vec2{0, -9.81},
		Lines:    []articulated.Line{articulated.Ground()},
		Contacts: []articulated.Contact{{Link: 0, Line: 0}, {Link: 2, Point: articulated.Vec2{1, 0}, Line: 0}}}
	sys, err := articulated.New(model, articulated.Settings{H: 1e-3, Method: articulated.ABA, Integrator: v.Integrator,
		ClampGap: v.Clamp, GapFloor: v.Floor})
	if err != nil {
		return nil, nil, nil, err
	}
	if err := sys.SetRootPose(articulated.Vec2{0, 2.3}, -math.Pi/6); err != nil {
		return nil, nil, nil, err
	}
	x0 := sys.CenterOfMass()[0]
	dcm, pen, yP = make([]float64, steps), make([]float64, steps), make([]float64, steps)
	for s := range dcm {
		st, err := sys.Step()
		if err != nil {
			return nil, nil, nil, err
		}
		dcm[s] = math.Abs(sys.CenterOfMass()[0] - x0)
		pen[s] = st.MaxPenetration
		yP[s] = sys.Point(0, articulated.Vec2{})[1]
		if s%256 == 255 && ctx.Err() != nil {
			return nil, nil, nil, interruptedf("rk4-contact: interrupted in the drop (%s); nothing written", v.Name)
		}
	}
	return dcm, pen, yP, nil
}

func studyRK4Contact(ctx context.Context, o studyOptions) error {
	h := 1e-3
	integrators := []articulated.Integrator{articulated.ExplicitEuler, articulated.SemiImplicitEuler, articulated.RK4}
	drift := make([][]float64, len(integrators))
	for i, in := range integrators {
		d, err := pendulumDrift(ctx, in, o.Steps)
		if err != nil {
			return err
		}
		drift[i] = d
	}
	type dropOut struct{ dcm, pen, yP []float64 }
	drops := make([]dropOut, len(dropVariants))
	for i, v := range dropVariants {
		d, p, y, err := dropRun(ctx, v, o.Steps)
		if err != nil {
			return err
		}
		drops[i] = dropOut{d, p, y}
	}

	steps := make([]float64, o.Steps)
	header := []string{"step", "time"}
	for _, in := range integrators {
		header = append(header, "drift_"+in.String())
	}
	for _, v := range dropVariants {
		header = append(header, "dcm_"+v.Name, "penetration_"+v.Name, "yP_"+v.Name)
	}
	rows := make([][]string, o.Steps)
	for k := range rows {
		steps[k] = float64(k+1) * h
		r := []string{fmt.Sprint(k + 1), fmtFloat(steps[k])}
		for i := range integrators {
			r = append(r, fmtFloat(drift[i][k]))
		}
		for i := range dropVariants {
			r = append(r, fmtFloat(drops[i].dcm[k]), fmtFloat(drops[i].pen[k]), fmtFloat(drops[i].yP[k]))
		}
		rows[k] = r
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "rk4-contact.csv"), header, rows); err != nil {
		return err
	}

	peak := func(s []float64) float64 {
		m := 0.0
		for _, v := range s {
			m = math.Max(m, v)
		}
		return m
	}
	var summary [][]string
	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "rk4-contact: %d steps of h = %g s\n", o.Steps, h)
	fmt.Fprintln(tw, "8-link pendulum (Fig. 7)\tmax |E − E₀| (J)\t")
	for i, in := range integrators {
		v := peak(drift[i])
		fmt.Fprintf(tw, "%s\t%.3g\t\n", in, v)
		summary = append(summary, []string{"energy_drift_" + in.String(), fmtFloat(v), "J", "-"})
	}
	rk := peak(drift[2])
	rExp, rSemi := peak(drift[0])/rk, peak(drift[1])/rk
	fmt.Fprintf(tw, "ratio explicit-euler / rk4\t%.3g\t(paper ≈ 1e6)\n", rExp)
	fmt.Fprintf(tw, "ratio euler / rk4\t%.3g\t\n", rSemi)
	summary = append(summary,
		[]string{"drift_ratio_explicit_euler_over_rk4", fmtFloat(rExp), "1", "≈ 1e6 (Fig. 7)"},
		[]string{"drift_ratio_euler_over_rk4", fmtFloat(rSemi), "1", "-"})
	fmt.Fprintln(tw, "3-link drop, μ = 0 (Fig. 8)\tmax δ_CM (m)\tmax penetration (m)\tpaper")
	for i, v := range dropVariants {
		d, p := peak(drops[i].dcm), peak(drops[i].pen)
		fmt.Fprintf(tw, "%s\t%.3g\t%.3g\t%s\n", v.Name, d, p, v.Paper)
		summary = append(summary,
			[]string{"delta_cm_" + v.Name, fmtFloat(d), "m", v.Paper},
			[]string{"penetration_" + v.Name, fmtFloat(p), "m", v.Paper})
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"quantity", "value", "unit", "paper"}, summary); err != nil {
		return err
	}

	var driftSeries []series
	for i, in := range integrators {
		driftSeries = append(driftSeries, series{Label: in.String(), X: steps, Y: drift[i]})
	}
	var dcmSeries, penSeries, ySeries []series
	for i, v := range dropVariants {
		dcmSeries = append(dcmSeries, series{Label: v.Name, X: steps, Y: drops[i].dcm})
		penSeries = append(penSeries, series{Label: v.Name, X: steps, Y: drops[i].pen})
		ySeries = append(ySeries, series{Label: v.Name, X: steps, Y: drops[i].yP})
	}
	png, err := panelsPNG([][]*logPanel{
		{
			{Title: "8-link pendulum: |E − E₀| (Fig. 7)", XLabel: "t (s)", YLabel: "J", Solid: driftSeries},
			{Title: "3-link drop: δ_CM (Fig. 8)", XLabel: "t (s)", YLabel: "m", Solid: dcmSeries},
		},
		{
			{Title: "3-link drop: worst penetration", XLabel: "t (s)", YLabel: "m", Solid: penSeries},
			{Title: "3-link drop: height of P", XLabel: "t (s)", YLabel: "m", Solid: ySeries},
		},
	}, 14*vg.Inch, 10*vg.Inch)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, "rk4-contact.png"), png)
}
