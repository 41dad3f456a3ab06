package study

import (
	"context"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"gonum.org/v1/gonum/stat"
)

// StabilizationMode is one stabilization setting of a study.
type StabilizationMode struct {
	Name string // short name, a CSV column
	// Mode and Baumgarte (1/s, for the Baumgarte mode) set
	// stepper.Settings.Stabilization and Baumgarte.
	Mode      stepper.Stabilization
	Baumgarte float64
	// ProjectAbove sets stepper.Settings.ProjectAbove (0: the default).
	ProjectAbove float64
}

// ContactModes are the settings of ContactStabilization: no position
// feedback for penetrations (None), Baumgarte with β = 20/s (a tenth of
// 1/h at h = 5 ms, the range ODE's ERP = 0.1 gives), the default velocity
// step (Regularized: Φ/h, with positions projected only above the 1 mm
// default of Settings.ProjectAbove), the same without any projection
// (Eq. 1 alone, ProjectAbove = +Inf), and post-stabilization every step.
var ContactModes = []StabilizationMode{
	{Name: "none", Mode: stepper.None},
	{Name: "baumgarte_20", Mode: stepper.Baumgarte, Baumgarte: 20},
	{Name: "regularized_eq1", Mode: stepper.Regularized, ProjectAbove: math.Inf(1)},
	{Name: "default", Mode: stepper.Regularized},
	{Name: "post", Mode: stepper.Post},
}

// ContactRun is one scene under one mode.
type ContactRun struct {
	Mode string
	// Penetration is the deepest penetration (m, ≥ 0) after each step,
	// Stats.MaxViolation: every contact at the poses after the step.
	Penetration []float64
	// Added is the sum over steps of the positive Stats.EnergyAdded (J):
	// the energy the steps put in.
	Added float64
	// Projections is the number of position-projection solves.
	Projections int
}

// MaxPenetration returns the deepest penetration of the run (m).
func (r *ContactRun) MaxPenetration() float64 {
	m := 0.0
	for _, p := range r.Penetration {
		m = math.Max(m, p)
	}
	return m
}

// MeanPenetration returns the mean over steps of the deepest penetration (m).
func (r *ContactRun) MeanPenetration() float64 {
	if len(r.Penetration) == 0 {
		return 0
	}
	return stat.Mean(r.Penetration, nil)
}

// ContactResult holds ContactStabilization's runs.
type ContactResult struct {
	H    float64      // time step (s)
	Box  []ContactRun // the pushed box, one run per ContactModes entry
	Pile []ContactRun // the five-box pile
}

// ContactH is the time step of ContactStabilization (s): 200 Hz.
const ContactH = 0.005

// ContactSteps is ContactStabilization's default length (steps of
// ContactH).
const ContactSteps = 3000

// ContactStabilization runs the pushed box and the five-box pile for
// o.Steps steps (default ContactSteps) of ContactH under each of
// ContactModes and returns the deepest penetration after every step. It
// checks ctx between steps.
//
// The box (1 kg, 0.4 × 0.3 × 0.2 m, μ = 0.5 with the ground) is driven by
// a scripted force field, one phase of 250 steps after another, cycling:
// rest; a horizontal push at the centre of mass along a turning direction
// (sliding); a push at the top edge (tipping onto an edge, two contact
// points, and back: impacts); a lift of one corner (one contact point)
// and release (impact); a lift of the whole box by 0.15 m and release (a
// flat impact on four points); a torque about the vertical (spinning in
// place). The pile is five boxes (1 kg, 0.3 × 0.2 × 0.1 m) dropped from
// staggered heights and offsets onto the ground and onto each other, then
// pushed sideways at the top box for a quarter of the run.
func ContactStabilization(ctx context.Context, o Options) (*ContactResult, error) {
	steps, err := o.steps("contact stabilization", ContactSteps)
	if err != nil {
		return nil, err
	}
	pr := newMeter(o, 2*len(ContactModes)*steps)
	res := &ContactResult{H: ContactH}
	for _, m := range ContactModes {
		for _, sc := range []struct {
			name  string
			build func(stepper.Settings) (*stepper.World, error)
			dst   *[]ContactRun
		}{{"box", pushedBox, &res.Box}, {"pile", fiveBoxPile, &res.Pile}} {
			s := stepper.Settings{H: ContactH, Gravity: stepper.StandardGravity,
				Stabilization: m.Mode, Baumgarte: m.Baumgarte, ProjectAbove: m.ProjectAbove}
			w, err := sc.build(s)
			if err != nil {
				return nil, err
			}
			run := ContactRun{Mode: m.Name, Penetration: make([]float64, 0, min(steps, 1<<16))}
			for k := 0; k < steps; k++ {
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("contact stabilization: %s, %s: stopped at step %d: %w", sc.name, m.Name, k, err)
				}
				st, err := w.Step()
				if err != nil {
					return nil, fmt.Errorf("contact stabilization: %s, %s: %w", sc.name, m.Name, err)
				}
				run.Penetration = append(run.Penetration, st.MaxViolation)
				run.Added += math.Max(0, st.EnergyAdded)
				run.Projections += st.Projections
				pr.add(1)
			}
			*sc.dst = append(*sc.dst, run)
		}
	}
	return res, nil
}

// addBox adds a box body of full sides size and mass m at pos with friction
// mu and returns its index.
func addBox(w *stepper.World, name string, m float64, size, pos mgl64.Vec3, rot mgl64.Quat, mu float64) (int, error) {
	b, err := body.New(body.Params{Name: name, Mass: m, Inertia: body.BoxInertia(m, size[0], size[1], size[2]), Pos: pos, Rot: rot})
	if err != nil {
		return 0, err
	}
	id, err := w.AddBody(b)
	if err != nil {
		return 0, err
	}
	shape, err := contact.NewBoxSize(size)
	if err != nil {
		return 0, err
	}
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: stepper.Material{Friction: mu}})
	return id, err
}

func groundWorld(s stepper.Settings) (*stepper.World, error) {
	w, err := stepper.New(s)
	if err != nil {
		return nil, err
	}
	_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: stepper.Material{Friction: 0.5}})
	return w, err
}

// pushPhase is the length of each phase of the box's force script (steps).
const pushPhase = 250

func pushedBox(s stepper.Settings) (*stepper.World, error) {
	w, err := groundWorld(s)
	if err != nil {
		return nil, err
	}
	size := mgl64.Vec3{0.4, 0.3, 0.2}
	id, err := addBox(w, "box", 1, size, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
	if err != nil {
		return nil, err
	}
	const g, m = 9.81, 1.0
	err = w.AddController(stepper.ControllerFunc(func(w *stepper.World) error {
		b := w.Bodies[id]
		b.ClearForces()
		k := w.Steps()
		phase, cycle := (k/pushPhase)%6, k/(6*pushPhase)
		dir := float64(cycle)*1.3 + float64(k%pushPhase)/pushPhase*math.Pi // turning direction
		d := mgl64.Vec3{math.Cos(dir), math.Sin(dir), 0}
		in := k % pushPhase
		switch phase {
		case 1: // slide: 0.8 μ m g beyond static friction's 0.5 m g
			b.ApplyForce(d.Mul(0.8 * m * g))
		case 2: // tip onto an edge: push the top edge for the first half
			if in < pushPhase/2 {
				top := b.LocalToWorld(mgl64.Vec3{-0.2, 0, 0.1})
				b.ApplyForceAt(b.LocalToWorldVec(mgl64.Vec3{1, 0, 0}).Mul(1.6*m*g), top)
			}
		case 3: // lift a corner (one point stays down), then drop it
			if in < pushPhase/3 {
				c := b.LocalToWorld(mgl64.Vec3{0.2, 0.15, 0.1})
				b.ApplyForceAt(mgl64.Vec3{0, 0, 0.7 * m * g}, c)
			}
		case 4: // lift the whole box, then drop it flat
			if in < 40 {
				b.ApplyForce(mgl64.Vec3{0, 0, 1.8 * m * g})
			}
		case 5: // spin in place
			if in < pushPhase/2 {
				b.ApplyTorque(mgl64.Vec3{0, 0, 1.5})
			}
		}
		return nil
	}))
	return w, err
}

func fiveBoxPile(s stepper.Settings) (*stepper.World, error) {
	w, err := groundWorld(s)
	if err != nil {
		return nil, err
	}
	size := mgl64.Vec3{0.3, 0.2, 0.1}
	top := 0
	for i := 0; i < 5; i++ {
		f := float64(i)
		pos := mgl64.Vec3{0.07 * math.Sin(2.1*f), 0.05 * math.Cos(1.7*f), 0.1 + 0.25*f}
		rot := mgl64.QuatRotate(0.4*f, mgl64.Vec3{0, 0, 1}).Mul(mgl64.QuatRotate(0.05*math.Sin(f), mgl64.Vec3{1, 0, 0}))
		id, err := addBox(w, fmt.Sprintf("box%d", i+1), 1, size, pos, rot, 0.5)
		if err != nil {
			return nil, err
		}
		top = id
	}
	err = w.AddController(stepper.ControllerFunc(func(w *stepper.World) error {
		b := w.Bodies[top]
		b.ClearForces()
		if k := w.Steps(); k > 400 && k < 400+pushPhase {
			b.ApplyForce(mgl64.Vec3{3, 1, 0})
		}
		return nil
	}))
	return w, err
}
