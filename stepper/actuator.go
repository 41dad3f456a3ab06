package stepper

import (
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/internal/num"
)

// Effort is a torque (hinge) or force (slider) actuator, MuJoCo's motor
// actuator: a Controller that applies the generalized force Input (N·m or
// N), clamped to [−Limit, Limit] when Limit > 0, on its joint's coordinate
// for the coming step (constraint.Axial.SetEffort: a row with fixed
// impulse Jᵀ Input h, equal and opposite on the joint's two bodies). Set
// Input from Go before Step, or from a controller that runs before this
// one in World.Controllers. It leaves Body.Force and Body.Torque alone, so
// it composes with any loads.
type Effort struct {
	Joint constraint.Axial
	Input float64 // generalized force, N·m or N
	Limit float64 // |Input| bound, N·m or N; 0 = none
}

// Control sets the joint's effort for the coming step.
func (e *Effort) Control(*World) error {
	if e.Joint == nil {
		return fieldError("effort actuator", "Joint", nil, "is nil")
	}
	if !num.Finite(e.Input) {
		return fieldError("effort actuator", "Input", e.Input, "must be finite, got %v", e.Input)
	}
	if !(e.Limit >= 0) || !num.Finite(e.Limit) {
		return fieldError("effort actuator", "Limit", e.Limit, "must be finite and ≥ 0 (0 = none), got %v", e.Limit)
	}
	f := e.Input
	if e.Limit > 0 {
		f = max(-e.Limit, min(e.Limit, f))
	}
	return e.Joint.SetEffort(f)
}
