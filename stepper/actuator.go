package stepper

import (
	"fmt"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/internal/num"
)

// Effort is a torque (hinge) or force (slider) actuator: a Controller that
// applies the generalized force Input (N·m or N) on its joint's coordinate
// for the coming step, as equal and opposite loads on the joint's two
// bodies (constraint.Axial.AxisWrench, Jᵀ Input at the step's start pose),
// MuJoCo's motor actuator with gear 1. Set Input from Go before Step (or
// from a controller that runs before this one in World.Controllers); add
// the Effort with AddController. Control adds the loads to Body.Force and
// Body.Torque after removing the ones it added on the previous step, so
// other controllers must add to those fields rather than assign them.
// Input is clamped to [−Limit, Limit] when Limit > 0.
type Effort struct {
	Joint constraint.Axial
	Input float64 // generalized force, N·m or N
	Limit float64 // |Input| bound, N·m or N; 0 = none

	applied [2]constraint.Wrench
	on      bool
}

// Control applies the actuator's load for the coming step.
func (e *Effort) Control(w *World) error {
	if e.Joint == nil {
		return fmt.Errorf("effort actuator: Joint: is nil")
	}
	if !num.Finite(e.Input) {
		return fmt.Errorf("effort actuator: Input: must be finite, got %v", e.Input)
	}
	if !(e.Limit >= 0) {
		return fmt.Errorf("effort actuator: Limit: must be ≥ 0 (0 = none), got %v", e.Limit)
	}
	f := e.Input
	if e.Limit > 0 {
		f = max(-e.Limit, min(e.Limit, f))
	}
	ctx := constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	wr, err := e.Joint.AxisWrench(&ctx, f)
	if err != nil {
		return fmt.Errorf("effort actuator: %w", err)
	}
	if e.on {
		e.add(w, e.applied, -1)
	}
	e.add(w, wr, 1)
	e.applied, e.on = wr, true
	return nil
}

// add adds sign × the wrenches to their bodies' applied loads.
func (e *Effort) add(w *World, wr [2]constraint.Wrench, sign float64) {
	for _, x := range wr {
		if x.Body == constraint.World || x.Body >= len(w.Bodies) {
			continue
		}
		b := w.Bodies[x.Body]
		b.Force = b.Force.Add(x.Force.Mul(sign))
		b.Torque = b.Torque.Add(x.Torque.Mul(sign))
	}
}
