package stepper

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
)

// GeometricStiffnessTol is the ratio s (dimensionless) above which a body
// held at joint anchors under load takes their geometric stiffness into
// the velocity step (geometricStiffness). For a body whose anchors carried
// the forces f_a at the arms r_a from its centre of mass in the last step,
//
//	K̃ = h² Σ_a |f_a| |r_a| (I₃ − r̂_a r̂_aᵀ)   (kg·m²)
//
// is h² times the stiffness with which the loads turn the body back when
// it turns about its centre of mass (a link of a taut rope: the tension T
// at both ends of a link of length l gives T·l), and s is the largest
// eigenvalue of I⁻¹ K̃, I the body's world inertia, to which an anchor
// held by the world or a static or kinematic body adds its parallel-axis
// term m(|r|² I₃ − r rᵀ) (such a body turns about that anchor, not about
// its centre of mass: a pendulum's bob on its arm L has s ≈ g h²/L,
// 0.0027 at L = 1 m and h = 1/60 s), and one held by a heavier body the
// part (m_p − m)/(m_p + m) of it (pinning). A velocity-level step takes the
// loads' directions at the step's start: for the turn θ of one body,
// ω⁺ = ω − h (K/I) θ, θ⁺ = θ + h ω⁺ (symplectic Euler), stable only while
// h² K/I < 4. Link k (from the top) of a still rope of n capsule links
// (0.05 kg, r 0.02 m, 0.1 m apart) has s = (n − k + ½) m g l h²/I ≈
// 6.9 (n − k + ½) g h²/l: at its second link 3.5 for 20 links at
// h = 1/60 s, which hung still; 5.3 for 30 links and 4.6 for 100 links
// at h = 1/120 s, whose top links zig-zagged and gained 1.2 J and 334 J
// from a 0.0063 J kick (TestRopeGeometricStiffness). The tolerance is
// half the one-body bound, a margin for links coupled to links; the
// papers' scenes stay below it and keep their bits.
const GeometricStiffnessTol = 2.0

// geomStiffStage is geometricStiffness' scratch: per body, K̃ and the
// parallel-axis inertia of its pinned anchors (pinning).
type geomStiffStage struct {
	k, fixed []mgl64.Mat3
	on       []bool
	bodies   int // bodies stiffened in the step
}

// geometricStiffness gives each body whose ratio s exceeds
// GeometricStiffnessTol (see there) the geometric stiffness K̃ of its
// joint anchors as added inertia, after M. Andrews, M. Teichmann and
// P. G. Kry, "Geometric stiffness for real-time constrained multibody
// dynamics" (2017), who add the constraint forces' geometric stiffness,
// made positive definite, to the mass matrix of the velocity step; the
// loads are the last step's joint impulses x = h f (memory.jointX). The
// body's inverse inertia and free angular velocity in the step
// (Mass.InvInertia, Mass.Free) become those of
//
//	I_e ω⁺ = I ω_f + h τ,   I_e = I + (1 − s₀/s) K̃,
//
// s₀ = GeometricStiffnessTol, ω_f the free angular velocity, τ the
// constraint torque. For the one-body mode above (I_e = I (1 + s − s₀))
// the step is stable for every s ≥ s₀ (h² K < 2 (I + I_e)) and damped
// (its eigenvalues' modulus √(I/I_e) < 1); the added inertia only takes
// energy out, and it is continuous at the tolerance. Andrews et al. add
// K̃ whole; the shift by s₀ keeps the bodies below the tolerance bit for
// bit. Measured, the added inertia also takes out what a whipping chain's
// step gained: TestChain20Swings' largest rise 0.156 → 0.0022 J,
// TestHeavyBodyOnLightLink's 0.648 → 0.004 J. (Carrying ω̂ in the added
// inertia instead, I_e ω⁺ = I ω_f + (I_e − I) ω̂ + h τ, which slows only
// the change of ω, gave the slowing links' ω̂ back as energy: 0.648 →
// 0.88 J, and TestNewUserChainEnergySource 0.039 → 0.35 J.)
//
// The anchors are the three rows of a point a ball, hinge or fixed joint
// holds (anchorTriple), K̃ taken on the turns the joint's orientation
// rows leave free (lockedProjector: a hinge's axis, none of a fixed
// joint's, so a propeller's blades fixed to its hub are left as they
// are); other rows are left out. Gyroscopic bodies (Mass.Gyroscopic)
// keep their response.
func (w *World) geometricStiffness(m *Mass, rs *rowStage) {
	ident := mgl64.Ident3()
	ws := &w.ws
	g := &ws.stiff
	g.bodies = 0
	nj := rs.nj
	if nj == 0 || len(ws.memory.jointX) != nj {
		return
	}
	nb := len(w.Bodies)
	g.k, g.fixed, g.on = grow(g.k, nb), grow(g.fixed, nb), grow(g.on, nb)
	clear(g.on)
	h := w.Settings.H
	x := ws.memory.jointX
	k := 0
	found := false
	for _, d := range rs.jdims {
		joint := rs.rows[k : k+d]
		k += d
		lock, free := lockedProjector(joint)
		if !free {
			continue // a fixed joint: the bodies turn as one
		}
		for i := 0; i+3 <= d; i++ {
			tri := joint[i : i+3]
			if !anchorTriple(tri) {
				continue
			}
			xi := x[k-d+i : k-d+i+3]
			f := mgl64.Vec3{xi[0], xi[1], xi[2]}.Len()
			i += 2
			if !(f > 0) || math.IsInf(f, 0) {
				continue
			}
			r := &tri[0]
			for s := 0; s < r.N; s++ {
				bi := r.Body[s]
				b := w.Bodies[bi]
				if b.Static || b.Kinematic || m.gyro(bi) {
					continue
				}
				arm := anchorArm(tri, s)
				l := arm.Len()
				if l == 0 {
					continue
				}
				if !g.on[bi] {
					g.on[bi], g.k[bi], g.fixed[bi] = true, mgl64.Mat3{}, mgl64.Mat3{}
				}
				found = true
				// h² |f| |r| (I − r̂ r̂ᵀ) = h |x| (|r|² I − r rᵀ)/|r|, on
				// the turns the joint leaves free
				perp := mgl64.Ident3().Mul(l * l).Sub(arm.OuterProd3(arm))
				kp := perp
				if lock != ident {
					kp = lock.Mul3(perp).Mul3(lock)
				}
				g.k[bi] = g.k[bi].Add(kp.Mul(h * f / l))
				if mu := w.pinning(b, r, s); mu > 0 {
					g.fixed[bi] = g.fixed[bi].Add(perp.Mul(mu))
				}
			}
		}
	}
	if !found {
		return
	}
	for bi, on := range g.on {
		if !on {
			continue
		}
		inv := m.InvInertia[bi]
		iw := w.Bodies[bi].InertiaWorld()
		gate := inv
		if g.fixed[bi] != (mgl64.Mat3{}) {
			gate = iw.Add(g.fixed[bi]).Inv()
		}
		s := maxEigen3(gate.Mul3(g.k[bi]))
		if !(s > GeometricStiffnessTol) || math.IsInf(s, 0) {
			continue
		}
		add := g.k[bi].Mul(1 - GeometricStiffnessTol/s)
		ie := iw.Add(add)
		if !(ie.Det() > 0) {
			continue // I + a positive semidefinite K̃ is not singular unless I is
		}
		ieInv := ie.Inv()
		fr := &m.Free[bi]
		p := iw.Mul3x1(mgl64.Vec3{fr[3], fr[4], fr[5]})
		wf := ieInv.Mul3x1(p)
		fr[3], fr[4], fr[5] = wf[0], wf[1], wf[2]
		m.InvInertia[bi] = ieInv
		g.bodies++
	}
}

// pinning returns the mass (kg) with which the partner of body block s of
// anchor row r holds the anchor in place when body b turns about its
// centre of mass: b's whole mass for the world, a static or a kinematic
// body, m (m_p − m)/(m_p + m) for a partner of mass m_p heavier than b
// (a 10 g link holding a 10 kg bob turns about the bob), none for a
// lighter or equal one (in a zig-zag of equal links each neighbour turns
// the other way and its anchor follows).
func (w *World) pinning(b *body.Body, r *constraint.Row, s int) float64 {
	m := b.Mass
	if r.N == 1 {
		return m
	}
	p := w.Bodies[r.Body[1-s]]
	if p.Static || p.Kinematic {
		return m
	}
	mp := p.Mass
	if !(mp > m) || math.IsInf(mp, 0) {
		return 0
	}
	return m * (mp - m) / (mp + m)
}

// lockedProjector returns the projector I₃ − Σ ĝ ĝᵀ off the directions ĝ
// of a joint's bilateral orientation rows (rows with angular blocks
// only: a hinge's two, a fixed joint's three), made orthonormal in turn,
// and whether any direction is left free.
func lockedProjector(rows []constraint.Row) (mgl64.Mat3, bool) {
	p := mgl64.Ident3()
	var basis [3]mgl64.Vec3
	nl := 0
	for i := range rows {
		r := &rows[i]
		if r.Kind != constraint.Bilateral || r.N == 0 || translational(r) {
			continue
		}
		j := &r.J[0]
		g := mgl64.Vec3{j[3], j[4], j[5]}
		for _, e := range basis[:nl] {
			g = g.Sub(e.Mul(g.Dot(e)))
		}
		if l := g.Len(); l > 1e-9 && nl < 3 {
			basis[nl] = g.Mul(1 / l)
			p = p.Sub(basis[nl].OuterProd3(basis[nl]))
			nl++
		}
	}
	return p, nl < 3
}

// anchorTriple reports whether rows are the three rows holding one point
// of a ball, hinge or fixed joint (constraint's ballRows): bilateral, the
// same bodies, each body's linear block σe_x, σe_y, σe_z in turn and its
// angular block σ r × e_i for one arm r.
func anchorTriple(rows []constraint.Row) bool {
	a := &rows[0]
	for i := range rows {
		r := &rows[i]
		if r.Kind != constraint.Bilateral || r.N != a.N || r.N > 2 {
			return false
		}
		for s := 0; s < r.N; s++ {
			if r.Body[s] != a.Body[s] {
				return false
			}
			j := &r.J[s]
			sg := a.J[s][0]
			if sg != 1 && sg != -1 {
				return false
			}
			for c := 0; c < 3; c++ {
				want := 0.0
				if c == i {
					want = sg
				}
				if j[c] != want {
					return false
				}
			}
			if j[3+i] != 0 {
				return false
			}
		}
	}
	for s := 0; s < a.N; s++ {
		// r × e_x = (0, r_z, −r_y), r × e_y = (−r_z, 0, r_x), r × e_z = (r_y, −r_x, 0)
		jx, jy, jz := &rows[0].J[s], &rows[1].J[s], &rows[2].J[s]
		if jx[4] != -jy[3] || jy[5] != -jz[4] || jz[3] != -jx[5] {
			return false
		}
	}
	return true
}

// anchorArm returns the arm r of body block s of an anchorTriple.
func anchorArm(rows []constraint.Row, s int) mgl64.Vec3 {
	sg := rows[0].J[s][0]
	return mgl64.Vec3{rows[1].J[s][5], rows[2].J[s][3], rows[0].J[s][4]}.Mul(sg)
}

// maxEigen3 returns the largest eigenvalue of a, a 3×3 matrix similar to
// a symmetric positive semidefinite one (I⁻¹K̃: real eigenvalues ≥ 0),
// from its characteristic polynomial by the trigonometric method.
func maxEigen3(a mgl64.Mat3) float64 {
	p1 := a.Trace()
	p2 := a.At(0, 0)*a.At(1, 1) - a.At(0, 1)*a.At(1, 0) +
		a.At(0, 0)*a.At(2, 2) - a.At(0, 2)*a.At(2, 0) +
		a.At(1, 1)*a.At(2, 2) - a.At(1, 2)*a.At(2, 1)
	p3 := a.Det()
	// λ³ − p1 λ² + p2 λ − p3 = 0; λ = t + p1/3: t³ + p t + q = 0.
	p := p2 - p1*p1/3
	q := -2*p1*p1*p1/27 + p1*p2/3 - p3
	if p >= 0 { // a triple root (rounding)
		return p1 / 3
	}
	c := 3 * q / (2 * p) * math.Sqrt(-3/p)
	c = math.Max(-1, math.Min(1, c))
	return 2*math.Sqrt(-p/3)*math.Cos(math.Acos(c)/3) + p1/3
}
