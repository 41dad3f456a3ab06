package stepper

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
)

// Impacts selects how a step resolves the impacts of bouncing contacts
// (Settings.Impacts).
type Impacts int

const (
	// SimultaneousImpacts applies Newton's law to each bouncing normal
	// row inside the step's MLCP, J v⁺ ≥ u⁺ (bounceStep; e |v₋| without a
	// normal acceleration) on every row at once. It treats touching
	// bodies as one: a ball striking a row of four touching balls (e = 1)
	// sends the four off together at 0.4 v₀ and comes back at 0.6 v₀,
	// where a real row passes the impact on.
	SimultaneousImpacts Impacts = iota
	// PropagatedImpacts resolves the impacts before the step's solve, one
	// contact pair at a time (World.Step's propagateImpacts): a ball
	// striking a row of touching balls stops, and the last ball leaves
	// with its speed (Newton's cradle).
	PropagatedImpacts
)

var impactNames = [...]string{"simultaneous", "propagated"}

func (m Impacts) String() string {
	return enumString(impactNames[:], m, "Impacts")
}

// ParseImpacts is the inverse of String.
func ParseImpacts(s string) (Impacts, error) {
	return parseEnum[Impacts](impactNames[:], s, "impacts", "mode")
}

// maxImpactSweeps bounds the sweeps of propagateImpacts over the contact
// pairs. A chain of n touching bodies struck at one end needs one sweep in
// the pairs' order and n in the reverse order; each sweep only moves
// impulses between bodies, so the bound only stops a pathological case
// (and Stats.ImpactSweeps shows it).
const maxImpactSweeps = 100

// propagateImpacts resolves the step's impacts pair by pair when
// Settings.Impacts is PropagatedImpacts and a contact bounces this step
// (approach above BounceSpeed, restitution > 0): a sequence of pairwise
// impacts in the manner of the impulse-propagation view of simultaneous
// impact (D. M. Kaufman and others; see B. Smith, D. M. Kaufman, E.
// Vouga, R. Tamstorf and E. Grinspun, "Reflections on Simultaneous
// Impact", 2012, §2, for the impacts this reproduces and the ones it
// cannot: its result depends on the order of the pairs when one body is
// struck on two sides at once).
//
// Approach is judged at the bodies' velocities v₋ at the step's start
// (before gravity and the applied forces, so that resting contacts do not
// approach), as the default mode does, and the law is put on the free
// velocities v_f (M⁻¹p, after gravity), as the default mode's MLCP does.
// Each contact pair (a manifold: the points of two geoms) with
// restitution whose points approach, J v₋ < 0, and reach each other
// within the step (φ + h J v_f ≤ margin), gets the impulses x ≥ 0 of its
// own small MLCP,
//
//	(J M⁻¹ Jᵀ) x + J v_f − u⁺ ≥ 0 ⊥ x ≥ 0,
//
// u⁺ the restitution target of bounceStep for a point that approaches
// (J v₋ < 0; e |J v₋| without a normal acceleration), else 0: Newton's
// law on its points together (so a box landing flat on four
// corners stays flat), and both v₋ and v_f move by M⁻¹ Jᵀ x. The impulse
// acts at the pair's time of contact, its own (bounceStep's t_c) or the
// latest of its bodies' earlier impacts in the step, whichever is later:
// the bodies' positions move by −t_c M⁻¹ Jᵀ x after integrate
// (shiftBounces). Sweeps over the pairs, in the step's pair order,
// repeat until no pair approaches (at most
// maxImpactSweeps). Each pairwise impact with e ≤ 1 conserves momentum
// and loses (e < 1) or keeps (e = 1) the kinetic energy, so the sequence
// does too. The bodies then start the step with v, and the step's MLCP
// has no restitution targets left: the bounces happened.
//
// Cost: per sweep, for each pair of k points, the k products J v and a
// k × k solve; only steps with a bounce run it.
func (w *World) propagateImpacts(m *Mass, cs *contactStage, rs *rowStage) error {
	im := &w.ws.impacts
	im.impactSweeps, im.shifted = 0, false
	if w.Settings.Impacts != PropagatedImpacts {
		return nil
	}
	bouncing := false
	for i := range cs.points {
		bouncing = bouncing || cs.points[i].Bounce > 0
	}
	if !bouncing {
		return nil
	}
	nb := len(w.Bodies)
	if cap(im.iv) < nb {
		im.iv = make([][6]float64, nb)
	}
	im.iv = im.iv[:nb]
	clear(im.iv) // the impacts' change of velocity Δv, per body
	im.iq, im.tb = grow(im.iq, nb), grow(im.tb, nb)
	clear(im.iq)
	clear(im.tb)
	h, margin := w.Settings.H, w.margin()
	scale := 0.0 // the largest bounce speed, for the tolerance
	for i := range cs.points {
		scale = math.Max(scale, cs.points[i].Bounce)
	}
	tol := 1e-9 * scale
	for sweep := 1; sweep <= maxImpactSweeps; sweep++ {
		im.impactSweeps = sweep
		moved := false
		for first := 0; first < len(cs.points); {
			k := cs.points[first].manifold
			if k <= 0 {
				k = 1
			}
			hit, err := w.impactPair(cs.points[first:first+k], h, margin, tol)
			if err != nil {
				return err
			}
			moved = moved || hit
			first += k
		}
		if !moved {
			break
		}
	}
	for i, b := range w.Bodies {
		if b.Static || b.Kinematic {
			continue
		}
		d, f := &im.iv[i], &m.Free[i]
		b.Vel = b.Vel.Add(mgl64.Vec3{d[0], d[1], d[2]})
		b.AngVel = b.AngVel.Add(mgl64.Vec3{d[3], d[4], d[5]})
		for c := range d {
			f[c] += d[c]
		}
	}
	for i := range cs.points {
		pt := &cs.points[i]
		pt.Bounce, rs.rows[pt.Row].Bounce = 0, 0
	}
	return nil
}

// impactPair applies one pair's impact (propagateImpacts) to ws.impacts.iv and
// reports whether it did.
func (w *World) impactPair(pts []point, h, margin, tol float64) (bool, error) {
	im := &w.ws.impacts
	ws := &w.ws
	var idx [16]int // rows of the pair's points that take part
	m := 0
	approach := false
	for i := range pts {
		pt := &pts[i]
		if pt.e <= 0 || m == len(idx) {
			continue
		}
		r := &ws.build.rows[pt.Row]
		u := w.impactVelocity(r, false)
		if pt.Gap+h*math.Min(w.impactVelocity(r, true), 0) > margin {
			continue // does not reach the surface in this step
		}
		idx[m] = pt.Row
		im.ie[m], im.ig[m] = pt.e, pt.Gap
		m++
		approach = approach || u < -tol
	}
	if !approach {
		return false, nil
	}
	im.ia.Reset(m, m)
	im.ib, im.ilo, im.ihi = grow(im.ib, m), grow(im.ilo, m), grow(im.ihi, m)
	tc := 0.0 // the pair's time of contact: its own, or its bodies' last impact's
	for i := 0; i < m; i++ {
		ri := &ws.build.rows[idx[i]]
		uf, u := w.impactVelocity(ri, true), w.impactVelocity(ri, false)
		target, t := 0.0, 0.0
		if u < 0 {
			target, t = bounceStep(im.ie[i], im.ig[i], u, uf, h)
		}
		tc = math.Max(tc, t)
		for s := 0; s < ri.N; s++ {
			tc = math.Max(tc, im.tb[ri.Body[s]])
		}
		im.ib[i] = uf - target
		im.ilo[i], im.ihi[i] = 0, math.Inf(1)
		for j := 0; j < m; j++ {
			im.ia.Set(i, j, w.rowCoupling(ri, &ws.build.rows[idx[j]]))
		}
	}
	p := lcp.Problem{A: &im.ia, B: im.ib, Lo: im.ilo, Hi: im.ihi}
	if err := im.isolver.Solve(&im.ires, &p, lcp.Settings{}); err != nil && len(im.ires.X) != m {
		return false, fmt.Errorf("impact of geoms %d and %d: %w", pts[0].ck.ga, pts[0].ck.gb, err)
	}
	hit := false
	for i := 0; i < m; i++ {
		x := im.ires.X[i]
		if !(x > 0) {
			continue
		}
		hit = true
		r := &ws.build.rows[idx[i]]
		for s := 0; s < r.N; s++ {
			bi := r.Body[s]
			b := w.Bodies[bi]
			if b.Static || b.Kinematic {
				continue
			}
			var jm [6]float64
			ws.mass.invMassTimes(&jm, bi, &r.J[s])
			for c := range jm {
				im.iv[bi][c] += jm[c] * x
				im.iq[bi][c] -= tc * jm[c] * x
			}
			im.tb[bi] = math.Max(im.tb[bi], tc)
			im.shifted = im.shifted || tc > 0
		}
	}
	return hit, nil
}

// impactVelocity returns J v of row r during the impacts: v the bodies'
// start velocities, or with free their free velocities, plus the impacts'
// change ws.impacts.iv so far.
func (w *World) impactVelocity(r *constraint.Row, free bool) float64 {
	im := &w.ws.impacts
	u := 0.0
	for s := 0; s < r.N; s++ {
		bi := r.Body[s]
		d := &im.iv[bi]
		v := &w.ws.mass.Free[bi]
		if !free {
			b := w.Bodies[bi]
			v = &[6]float64{b.Vel[0], b.Vel[1], b.Vel[2], b.AngVel[0], b.AngVel[1], b.AngVel[2]}
		}
		for c := 0; c < 6; c++ {
			u += r.J[s][c] * (v[c] + d[c])
		}
	}
	return u
}

// rowCoupling returns a_ij = J_i M⁻¹ J_jᵀ over the dynamic bodies the rows
// share.
func (w *World) rowCoupling(ri, rj *constraint.Row) float64 {
	a := 0.0
	for s := 0; s < ri.N; s++ {
		bi := ri.Body[s]
		if b := w.Bodies[bi]; b.Static || b.Kinematic {
			continue
		}
		var jm [6]float64
		w.ws.mass.invMassTimes(&jm, bi, &ri.J[s])
		for t := 0; t < rj.N; t++ {
			if rj.Body[t] != bi {
				continue
			}
			for c := 0; c < 6; c++ {
				a += jm[c] * rj.J[t][c]
			}
		}
	}
	return a
}

// bounceStep returns the restitution target u⁺ (m/s, the normal row's
// Bounce) and the time of contact t_c (s, from the step's start) of a
// contact point with restitution e and gap g (m) whose normal velocity is
// u₀ < 0 at the step's start and u_f without contact forces at its end
// (Mass.Free), in the step of length h in which it reaches the surface.
//
// The point falls the gap, then rises at u⁺ for the rest of the step: it
// closes the gap g⁺ = max(g, 0) at the speed w = max(−u₀, −u_f), in t_c =
// min(g⁺/w, h), and the impulse that turns it acts then, not at the step's
// start: World.shiftBounces moves the bodies back by t_c times the
// velocity change the impulse gave them (positions only), so a single
// body ends the step at the gap z⁺ = u⁺ (h − t_c) + c, c = g⁺ + t_c u_f ≥ 0
// (0 when w = −u_f), instead of g + h u⁺ (a bounce from the height of the
// step's start, up to w h above the surface).
//
// u⁺ is Newton's law in the energy the step's integrator keeps. Under the
// constant normal acceleration a = (u_f − u₀)/h of the free motion the
// semi-implicit Euler step (u ← u + a h, z ← z + h u) conserves
//
//	Ẽ(z, u) = u²/2 − a z + a h u/2
//
// exactly (its flight's apex is Ẽ/(−a) to within |a| h²/8), and u⁺ is the
// positive root of Ẽ(z⁺, u⁺) = e² Ẽ(g⁺, u₀): the energy of the approach,
// counted as the integrator counts it, times e². A ball dropped onto the
// floor then rises to e² times its height bounce after bounce, and with
// e = 1 to its height, wherever in the step it meets the floor. Without a
// normal acceleration (a = 0: two bodies in free flight, or a push that
// acts on both alike) u⁺ = e |u₀|, Newton's law on the approach velocity.
// When the free motion does not approach (u_f ≥ 0: the step moves the
// point by h u_f, away) or the approach has no energy to leave with, there
// is no bounce (0, 0).
func bounceStep(e, g, u0, uf, h float64) (target, tc float64) {
	w := math.Max(-u0, -uf)
	if !(uf < 0) || !(h > 0) {
		return 0, 0
	}
	gp := math.Max(g, 0)
	tc = math.Min(gp/w, h)
	c := math.Max(gp+tc*uf, 0)
	a := (uf - u0) / h
	if a == 0 {
		return e * w, tc // the root below, without the square root's rounding
	}
	e0 := u0*u0/2 - a*gp + a*h*u0/2
	p := a * (tc - h/2)
	r := p*p + 2*(e*e*e0+a*c)
	if !(r >= 0) {
		return 0, 0
	}
	u := -p + math.Sqrt(r)
	if !(u > 0) {
		return 0, 0
	}
	return u, tc
}

// markSupported sets ws.impacts.supported, per body, when the step has a
// contact with restitution between two dynamic bodies: a body is supported
// when one of its contacts carried a normal impulse in the last step
// (the contact cache's x̂ₙ > 0; a box resting on the floor). Otherwise
// supported is left empty and supportedFree changes nothing.
func (w *World) markSupported(cs *contactStage) {
	im := &w.ws.impacts
	im.supported = im.supported[:0]
	pair := false
	for i := range cs.points {
		pt := &cs.points[i]
		pair = pair || (pt.e > 0 && pt.A != constraint.World && pt.B != constraint.World)
	}
	if !pair {
		return
	}
	im.supported = grow(im.supported, len(w.Bodies))
	clear(im.supported)
	cache := &w.ws.memory.cache
	for i := range cs.points {
		pt := &cs.points[i]
		if c, seen := cache.getAt(i, pt.ck); !seen || !(c.xn > 0) {
			continue
		}
		for _, b := range [2]int{pt.A, pt.B} {
			if b != constraint.World && !w.Bodies[b].Kinematic {
				im.supported[b] = true
			}
		}
	}
}

// supportedFree returns the free relative velocity vf (relVels) of the
// point x of a contact between bodies a and b, with a supported body's
// free velocity (markSupported) replaced by its velocity at the step's
// start when the other body is not supported: the support holds it
// against gravity and the applied forces, so a box dropped on a box
// resting on the floor meets a body that does not fall, and bounceStep
// puts Newton's law on the falling box's energy as it does on the
// floor's (a = −g), not on the start velocity (a = 0, both falling).
// Two supported or two unsupported bodies, and contacts with the world,
// keep vf.
func (w *World) supportedFree(m *Mass, a, b int, x, vf mgl64.Vec3) mgl64.Vec3 {
	sup := w.ws.impacts.supported
	if len(sup) == 0 || a == constraint.World || b == constraint.World || sup[a] == sup[b] || len(m.Free) < len(w.Bodies) {
		return vf
	}
	s, bi := 1.0, b
	if sup[a] {
		s, bi = -1, a
	}
	bd := w.Bodies[bi]
	r := x.Sub(bd.Pos)
	d := bd.Vel.Add(bd.AngVel.Cross(r)).Sub(freePointVel(&m.Free[bi], r))
	return vf.Add(d.Mul(s))
}

// shiftBounces moves the bodies of the step's bounces back by what the
// bouncing impulses would have moved them between the step's start and
// their time of contact (bounceStep's t_c): integrate moved each body by h
// v⁺ as if every impulse acted at the step's start, and an impulse P at
// t_c moves it t_c M⁻¹P less, so each is displaced by
//
//	Δq = −Σ t_c M⁻¹ Jᵀ x
//
// over the normal rows of the bouncing points (body.Body.Displace; x the
// rows' impulses of the step's solve). Under PropagatedImpacts the sum runs
// over the pairwise impacts of propagateImpacts instead, each at the
// latest contact time of its two bodies so far (the struck row's impact
// passes on at the time the first ball arrives). Equal and opposite
// impulses move two dynamic bodies' centre of mass by nothing; velocities
// are not touched. Static, kinematic and sleeping bodies do not move.
//
// Under SimultaneousImpacts a body is shifted only when the bouncing rows
// are all that push it in the step: a body on which any other row acts
// with a nonzero impulse (a non-bouncing contact's normal, friction or
// rolling row, or a joint row) is held, and is not shifted. The other
// rows act at the step's start, and they cancel or carry on the bounce's
// impulse there: a box resting on the floor struck from above stays on
// the floor (the floor's row cancels the blow), a row of touching balls
// struck at one end moves as one body (the struck ball with the others),
// and a jointed body stays with its partners. Bodies touched only by
// bouncing points (a ball or a box landing on the floor, two bodies
// colliding in flight) are shifted.
func (w *World) shiftBounces(cs *contactStage, rs *rowStage, sol *solveStage) {
	im := &w.ws.impacts
	if w.Settings.Impacts == PropagatedImpacts {
		if !im.shifted {
			return
		}
		w.displaceBounced()
		return
	}
	x := sol.res.X
	if len(x) != len(rs.rows) {
		return
	}
	bounced := false
	for i := range cs.points {
		pt := &cs.points[i]
		bounced = bounced || (pt.Bounce > 0 && pt.tc > 0 && x[pt.Row] != 0)
	}
	if !bounced {
		return
	}
	im.bounceRow = grow(im.bounceRow, len(rs.rows))
	clear(im.bounceRow)
	for i := range cs.points {
		if pt := &cs.points[i]; pt.Bounce > 0 {
			for r := pt.Row; r < pt.Row+pt.Rows; r++ {
				im.bounceRow[r] = true
			}
		}
	}
	im.held = grow(im.held, len(w.Bodies))
	clear(im.held)
	for ri := range rs.rows {
		if im.bounceRow[ri] || x[ri] == 0 {
			continue
		}
		r := &rs.rows[ri]
		for s := 0; s < r.N; s++ {
			if bi := r.Body[s]; bi >= 0 {
				im.held[bi] = true
			}
		}
	}
	im.iq = grow(im.iq, len(w.Bodies))
	clear(im.iq)
	for i := range cs.points {
		pt := &cs.points[i]
		xn := x[pt.Row]
		if pt.Bounce <= 0 || !(pt.tc > 0) || xn == 0 {
			continue
		}
		r := &rs.rows[pt.Row]
		for s := 0; s < r.N; s++ {
			bi := r.Body[s]
			if bi < 0 || im.held[bi] {
				continue
			}
			var jm [6]float64
			w.ws.mass.invMassTimes(&jm, bi, &r.J[s])
			for c := range jm {
				im.iq[bi][c] -= pt.tc * xn * jm[c]
			}
		}
	}
	w.displaceBounced()
}

// displaceBounced moves each dynamic, awake body by its summed shift
// ws.impacts.iq (shiftBounces), once: the rotations of a box's four
// corners' impulses, applied one after the other, would not cancel.
func (w *World) displaceBounced() {
	for i, b := range w.Bodies {
		if d := &w.ws.impacts.iq[i]; *d != ([6]float64{}) && !b.Static && !b.Kinematic && !w.sleep.asleepAt(i) {
			b.Displace(mgl64.Vec3{d[0], d[1], d[2]}, mgl64.Vec3{d[3], d[4], d[5]})
		}
	}
}
