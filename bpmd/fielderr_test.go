package bpmd

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/gorigid/gorigid/internal/num"
)

// TestFrameFieldErrors: every bad value Validate and Rebuild refuse comes
// back as a *num.FieldError whose Field is the dataset path with its row
// (the text the error starts with) and whose Value is the bad value, so a
// Go caller reads both with errors.As instead of parsing the message.
func TestFrameFieldErrors(t *testing.T) {
	stack := record(t, boxStack(t), 2)[1].f
	arm := record(t, dampedArm(t), 2)[1].f
	if len(stack.Contacts.Gap) < 2 || arm.JointRowCount() == 0 {
		t.Fatalf("fixtures: %d contacts in the stack, %d joint rows in the arm; want ≥ 2 and > 0", len(stack.Contacts.Gap), arm.JointRowCount())
	}
	nan := math.NaN()
	cases := []struct {
		field  string
		from   *Frame
		break_ func(f *Frame)
		value  any
	}{
		{"step", stack, func(f *Frame) { f.H = -0.01 }, -0.01},
		{"bodies/masses[0]", stack, func(f *Frame) { f.Bodies.Masses = slices.Clone(f.Bodies.Masses); f.Bodies.Masses[0] = -2 }, -2.0},
		{"bodies/ids[1]", stack, func(f *Frame) { f.Bodies.IDs = slices.Clone(f.Bodies.IDs); f.Bodies.IDs[1] = 5 }, int64(5)},
		{"bodies/velocities[1][4]", stack, func(f *Frame) {
			f.Bodies.Velocities = slices.Clone(f.Bodies.Velocities)
			f.Bodies.Velocities[1][4] = math.Inf(1)
		}, math.Inf(1)},
		{"contacts/bounce[1]", stack, func(f *Frame) { f.Contacts.Bounce = slices.Clone(f.Contacts.Bounce); f.Contacts.Bounce[1] = -3 }, -3.0},
		{"contacts/damping[0]", stack, func(f *Frame) { f.Contacts.Damping = slices.Clone(f.Contacts.Damping); f.Contacts.Damping[0] = -1 }, -1.0},
		{"contacts/xn[1]", stack, func(f *Frame) { f.Contacts.XN = slices.Clone(f.Contacts.XN); f.Contacts.XN[1] = math.Inf(1) }, math.Inf(1)},
		{"contacts/pairs[0][1]", stack, func(f *Frame) { f.Contacts.Pairs = slices.Clone(f.Contacts.Pairs); f.Contacts.Pairs[0][1] = 99 }, int64(99)},
		{"solution/states[0]", stack, func(f *Frame) { f.Solution.States = slices.Clone(f.Solution.States); f.Solution.States[0] = 7 }, int8(7)},
		{"baumgarte", stack, func(f *Frame) { f.Stabilization, f.Baumgarte = "baumgarte", -4 }, -4.0},
		{"joints/drift[0]", arm, func(f *Frame) { f.Joints.Drift = slices.Clone(f.Joints.Drift); f.Joints.Drift[0] = math.Inf(-1) }, math.Inf(-1)},
		{"joints/stiffness[0]", arm, func(f *Frame) { f.Joints.Stiffness = slices.Clone(f.Joints.Stiffness); f.Joints.Stiffness[0] = -5 }, -5.0},
		{"joints/kinds[0]", arm, func(f *Frame) { f.Joints.Kinds = slices.Clone(f.Joints.Kinds); f.Joints.Kinds[0] = 42 }, int64(42)},
		{"joints/viscous[0]", arm, func(f *Frame) { f.Joints.Viscous = slices.Clone(f.Joints.Viscous); f.Joints.Viscous[0] = nan }, nan},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			f := *c.from
			c.break_(&f)
			_, _, err := Rebuild(&f, Box, Options{})
			var fe *num.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v (%T), want a *num.FieldError", err, err)
			}
			if fe.Field != c.field {
				t.Errorf("Field = %q, want %q (err %v)", fe.Field, c.field, err)
			}
			if x, ok := c.value.(float64); ok && math.IsNaN(x) {
				if v, ok := fe.Value.(float64); !ok || !math.IsNaN(v) {
					t.Errorf("Value = %v (%T), want NaN", fe.Value, fe.Value)
				}
			} else if fe.Value != c.value {
				t.Errorf("Value = %v (%T), want %v (%T)", fe.Value, fe.Value, c.value, c.value)
			}
			if got := err.Error(); len(got) < len(c.field) || got[:len(c.field)] != c.field {
				t.Errorf("message %q does not start with the field %q", got, c.field)
			}
		})
	}
	_, err := ParseFormulation("cone")
	var fe *num.FieldError
	if !errors.As(err, &fe) || fe.Field != "formulation" || fe.Value != "cone" {
		t.Errorf("ParseFormulation(cone): %v", err)
	}
}
