package stepper

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
)

// heldAxes returns an orthonormal basis e[:n] of the directions about
// which body bi's rigid bilateral angular rows of the last assembly hold
// its turning: the span of the rows' angular Jacobian blocks on bi, for
// rows with no translational part on bi (a hinge's two axis rows, a
// fixed joint's or a slider's three, a universal joint's one). Springs
// (compliant rows), limits, motors and contacts hold nothing here: they
// let the body turn. The blocks are orthonormalized in row order
// (Gram–Schmidt; a block within 1e-9 of its length of the span of the
// earlier ones adds nothing); n is 0 for a body without such rows.
//
// With fixed set (the step's bodies), only rows whose other bodies are all
// static or kinematic count: those hold directions fixed in the world (a
// hinge to the world), about which any turn of bi alone opens the joint,
// while a row to another dynamic body holds a relative turn.
func (a *Assembly) heldAxes(bi int, rows []constraint.Row, fixed []*body.Body) (e [3]mgl64.Vec3, n int) {
	if bi >= len(a.byBody) {
		return e, 0
	}
rows:
	for _, p := range a.byBody[bi] {
		r := &rows[p.row]
		j := &r.J[p.slot]
		if r.Kind != constraint.Bilateral || compliant(r) || j[0] != 0 || j[1] != 0 || j[2] != 0 {
			continue
		}
		if fixed != nil {
			for k := 0; k < r.N; k++ {
				if o := fixed[r.Body[k]]; k != p.slot && !o.Static && !o.Kinematic {
					continue rows
				}
			}
		}
		v := mgl64.Vec3{j[3], j[4], j[5]}
		l0 := v.Len()
		for k := 0; k < n; k++ {
			v = v.Sub(e[k].Mul(v.Dot(e[k])))
		}
		if l := v.Len(); l > 1e-9*l0 {
			e[n] = v.Mul(1 / l)
			if n++; n == 3 {
				break
			}
		}
	}
	return e, n
}

// heldGyroscopic returns the change of a body's momentum target L⁺ along
// the directions its joints hold (heldAxes, the orthonormal e[:n]) when the
// gyroscopic impulse of its free step is taken at the velocity the joints
// let it have there instead of its free velocity:
//
//	Σₖ eₖ eₖ·h (ω'_m × I_w ω'_m − ω_m × I_w ω_m),   ω_m = (ω₀ + ω_f)/2,
//	ω'_m = ω_m + ½ Σₖ eₖ eₖ·(ω⁺ − ω_f),
//
// with iw the world inertia at the step's start, w0 the angular velocity
// at the start, wf the free one and wp the one after the solve (rad/s).
//
// Why. The momentum balance L⁺ = L₀ + h τ + (Jᵀx)_ω that integrate aligns
// the body with contains, through Jᵀx = I_w (ω⁺ − ω_f), the midpoint
// rule's gyroscopic impulse of the free velocity ω_f. Along a held
// direction ω_f is a turn the body never makes: a torque across a hinge
// moves ω_f there, and the joint's reaction takes it out of ω⁺. Its
// gyroscopic impulse is that of a motion that does not happen, and
// aligning the body with it turned the body about the held directions,
// which opens the joint by O(h²) per step; in Regularized mode the
// feedback of that error is a velocity φ/h about the held axis, which the
// next alignment turned away again, and the body's velocity about the held
// axis grew without bound (a body on a world hinge about its principal x
// axis under a torque (0.5, 0, 0.7) N·m at h = 1 ms reached 0.28 rad/s
// about z in 200 steps). Along a held direction the velocity after the
// solve is the joint's, not an estimate, so the target takes the midpoint
// of the actual motion there. Along the free directions the target stays
// L₀ + h τ + (Jᵀx)_ω, the exact balance of the impulses the body received:
// there the alignment corrects ω⁺'s linearized response to the joints'
// impulses (with the actual midpoint in every direction a top on a pivot
// precessed 1.9 % slow instead of 0.025 %).
func heldGyroscopic(h float64, iw mgl64.Mat3, w0, wf, wp mgl64.Vec3, e *[3]mgl64.Vec3, n int) mgl64.Vec3 {
	wm := w0.Add(wf).Mul(0.5)
	d := wp.Sub(wf)
	wh := wm
	for k := 0; k < n; k++ {
		wh = wh.Add(e[k].Mul(0.5 * e[k].Dot(d)))
	}
	dg := wh.Cross(iw.Mul3x1(wh)).Sub(wm.Cross(iw.Mul3x1(wm)))
	var out mgl64.Vec3
	for k := 0; k < n; k++ {
		out = out.Add(e[k].Mul(h * e[k].Dot(dg)))
	}
	return out
}

// freeTurn returns the rotation vector r (rad) less its components along
// the orthonormal e[:n] (heldAxes with fixed bodies): the part of a body's
// momentum alignment that turns it about axes its joints to the world
// leave free. The rest would open those joints by its size in the step.
func freeTurn(r mgl64.Vec3, e *[3]mgl64.Vec3, n int) mgl64.Vec3 {
	for k := 0; k < n; k++ {
		r = r.Sub(e[k].Mul(r.Dot(e[k])))
	}
	return r
}
