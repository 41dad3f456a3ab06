package stepper

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
)

// Material is the surface of a geom.
//
// Pair rules: the friction coefficient of a pair is the geometric mean
// √(μ_a μ_b) (Box2D's rule: two equal materials give their own μ, and a
// frictionless surface makes the pair frictionless); the rolling-resistance
// coefficient of a pair is the larger of the two (the wheel carries it, the
// ground usually has none); the contact stiffness of a pair is that of the
// two surfaces as springs in series, k = k_a k_b/(k_a + k_b), where a rigid
// surface (k = 0) leaves the other's k (two rigid ones give a rigid
// contact), and the pair's damping time is the larger of the two.
type Material struct {
	// Friction is the Coulomb coefficient μ ≥ 0 (dimensionless). A pair
	// with μ = 0 gets no friction rows.
	Friction float64
	// Rolling is the rolling-resistance coefficient c_rr ≥ 0 (m): a contact
	// manifold of exactly two points (a wheel's line contact,
	// Enzenhöfer et al. 2019 §5.3) gets an angular-friction row about the
	// axis through the two points, with torque bound c_rr times the normal
	// force.
	Rolling float64
	// Stiffness k ≥ 0 (N/m) makes the contact's normal row compliant:
	// c = 1/(k h²) on the diagonal of A with the penetration term φ/h
	// (Eq. 1 of Enzenhöfer et al. 2019), an implicit spring, so a body
	// of weight F resting on one contact point sinks to the static
	// penetration F/k. 0 (the default) or +Inf is rigid. Friction and
	// rolling rows stay rigid (constraint.Row.Compliance).
	Stiffness float64
	// Damping is SPOOK's damping time d ≥ 0 (s) for a compliant contact
	// (constraint.Row.Compliance); 0 = the plain Eq. 1 form. It has no
	// effect on a rigid contact.
	Damping float64
	// Restitution e in [0, 1] is Newton's coefficient of restitution: a
	// point approaching at a normal speed v₋ of Settings.BounceSpeed or
	// more in the step in which it reaches the surface leaves at no less
	// than e·v₋ (the normal row asks J v⁺ ≥ u⁺ in place of J v⁺ ≥ −φ/h,
	// u⁺ = e·v₋ without a normal acceleration; under gravity the u⁺ that
	// keeps e² of the approach's energy, so a dropped ball rises to e² of
	// its height), from the time it reaches the surface within the step.
	// The pair takes the larger of the two. 0 (the default) means no
	// bounce: a dropped body stops on the surface.
	Restitution float64
}

// pairCompliance returns the stiffness and damping time of a contact
// between materials a and b (the pair rule on Material).
func pairCompliance(a, b Material) (k, d float64) {
	ka, kb := a.Stiffness, b.Stiffness
	if math.IsInf(ka, 1) {
		ka = 0
	}
	if math.IsInf(kb, 1) {
		kb = 0
	}
	switch {
	case ka == 0:
		k = kb
	case kb == 0:
		k = ka
	default:
		k = ka * kb / (ka + kb)
	}
	if k == 0 {
		return 0, 0
	}
	return k, math.Max(a.Damping, b.Damping)
}

// Geom attaches a collision shape to a body, or to the world.
type Geom struct {
	// Body is the index in World.Bodies, or constraint.World for fixed
	// geometry (the ground plane).
	Body  int
	Shape contact.Shape
	// Local is the shape's pose in the body frame (the world frame for
	// constraint.World). A zero quaternion means no rotation.
	Local    contact.Pose
	Material Material
	// Category and Mask are collision filter bits (Box2D's categoryBits
	// and maskBits): the categories the geom belongs to and those it
	// collides with. Geoms a and b collide only when
	// (a.Category & b.Mask) ≠ 0 and (b.Category & a.Mask) ≠ 0. The zero
	// values are the defaults: Category 0 means DefaultCategory (bit 0,
	// 0x1) and Mask 0 means every category (0xFFFFFFFF), so geoms that set
	// neither collide with everything, as before these fields existed. A
	// geom that should meet nothing but its own kind takes a bit no other
	// geom uses in both (Category = Mask = 1 << 31). See filter.go for the
	// other rules (joints, excluded pairs).
	Category, Mask uint32
	// Name is optional, for World.Geom and messages; it need not be unique.
	Name string
}

// DefaultContactMargin is the default Settings.ContactMargin (m): pairs
// closer than this produce contact rows before they touch (a gap φ > 0
// enters b as φ/h, so such a row only acts if the bodies would meet within
// the step). Smaller than the brick wall's 1 mm lateral gaps.
const DefaultContactMargin = 0.0005

// SlipSpeed is the tangential speed (m/s) above which a contact counts as
// sliding: its first friction direction is then aligned with the sliding
// velocity, so box friction acts as Coulomb friction against the motion
// (fillContactRows).
const SlipSpeed = 1e-3

// AddGeom validates g and adds it; it returns the geom's index. A geom
// whose kind has no collision routine with the kind of a geom it could
// meet (contact.Supported; geoms on one body, and two geoms of infinite
// mass, never meet) is an error naming both: a pair with no routine would
// pass through each other silently.
func (w *World) AddGeom(g Geom) (int, error) {
	i := len(w.Geoms)
	if g.Local.Rot == (mgl64.Quat{}) {
		g.Local.Rot = mgl64.QuatIdent()
	}
	if err := w.checkGeom(i, &g); err != nil {
		return 0, err
	}
	if err := w.checkPairs(i, g, contact.Supported); err != nil {
		return 0, err
	}
	w.Geoms = append(w.Geoms, g)
	return i, nil
}

// checkGeom returns an error naming geom i's first bad field (AddGeom):
// its Body, Shape (a static-only kind on a body that is not static),
// Local pose (a zero quaternion is the identity) or Material. Step checks
// every geom with it too (checkLinks), since the exported Geoms may have
// been edited after AddGeom: it allocates only for the error.
func (w *World) checkGeom(i int, g *Geom) error {
	if g.Body != constraint.World && (g.Body < 0 || g.Body >= len(w.Bodies)) {
		return fmt.Errorf("geom %d: Body: names body %d, the world has %d bodies", i, g.Body, len(w.Bodies))
	}
	if g.Body != constraint.World && w.Bodies[g.Body] == nil {
		return fmt.Errorf("geom %d: Body: names body %d, which is nil", i, g.Body)
	}
	if !g.Shape.Valid() {
		return fmt.Errorf("geom %d: %w", i, g.Shape.Validate())
	}
	if contact.StaticOnly(g.Shape.Kind) && g.Body != constraint.World && !w.Bodies[g.Body].Static {
		return fmt.Errorf("geom %d: Shape: a %v must belong to the world or a static body, body %d is not static", i, g.Shape.Kind, g.Body)
	}
	rot := g.Local.Rot
	if rot == (mgl64.Quat{}) {
		rot = mgl64.QuatIdent()
	}
	if !num.FiniteVec(g.Local.Pos) || !num.FiniteQuat(rot) || math.Abs(rot.Len()-1) > 1e-9 {
		return fieldError(fmt.Sprintf("geom %d", i), "Local", g.Local, "need a finite position and a unit quaternion, got %v %v", g.Local.Pos, g.Local.Rot)
	}
	m := &g.Material
	if !(m.Friction >= 0) || math.IsInf(m.Friction, 0) {
		return fieldError(fmt.Sprintf("geom %d", i), "Material.Friction", m.Friction, "must be finite and ≥ 0, got %v", m.Friction)
	}
	if !(m.Rolling >= 0) || math.IsInf(m.Rolling, 0) {
		return fieldError(fmt.Sprintf("geom %d", i), "Material.Rolling", m.Rolling, "must be finite and ≥ 0 m, got %v", m.Rolling)
	}
	if !(m.Stiffness >= 0) {
		return fieldError(fmt.Sprintf("geom %d", i), "Material.Stiffness", m.Stiffness, "must be ≥ 0 N/m (0 or +Inf = rigid), got %v", m.Stiffness)
	}
	if !(m.Damping >= 0) || math.IsInf(m.Damping, 0) {
		return fieldError(fmt.Sprintf("geom %d", i), "Material.Damping", m.Damping, "must be finite and ≥ 0 s, got %v", m.Damping)
	}
	if !(m.Restitution >= 0 && m.Restitution <= 1) {
		return fieldError(fmt.Sprintf("geom %d", i), "Material.Restitution", m.Restitution, "must be in [0, 1], got %v", m.Restitution)
	}
	return nil
}

// checkPairs returns an error naming the first existing geom that g
// (to be geom i) could meet but has no collision routine with under
// supported (contact.Supported; a test passes a smaller table). Geoms that
// never meet are skipped as the broad phase skips them: the same body, or
// both of infinite mass (fixed, static or kinematic).
func (w *World) checkPairs(i int, g Geom, supported func(a, b contact.Kind) bool) error {
	inf := func(body int) bool {
		return body == constraint.World || w.Bodies[body].Static || w.Bodies[body].Kinematic
	}
	for j := range w.Geoms {
		o := &w.Geoms[j]
		if o.Body != constraint.World && (o.Body < 0 || o.Body >= len(w.Bodies) || w.Bodies[o.Body] == nil) {
			continue // edited to name no body: Step names it (checkGeom)
		}
		if (o.Body == g.Body && g.Body != constraint.World) || (inf(o.Body) && inf(g.Body)) {
			continue
		}
		if !supported(g.Shape.Kind, o.Shape.Kind) {
			return fmt.Errorf("geom %d: Shape: no collision routine for a %v (body %d) against geom %d's %v (body %d); the two would pass through each other",
				i, g.Shape.Kind, g.Body, j, o.Shape.Kind, o.Body)
		}
	}
	return nil
}

// contactKey identifies a contact point across steps: the two geoms and
// the feature ids of the point (contact.Key).
type contactKey struct {
	ga, gb int
	key    contact.Key
}

// cached is what a contact point keeps for the next step.
type cached struct {
	xn    float64      // normal impulse x̂ₙ (N·s), ≥ 0
	t1    mgl64.Vec3   // first friction direction
	n     int          // rows it had: normal, two friction rows if μ > 0, a rolling row on a manifold's last point
	state [4]lcp.State // their final index sets, in row order
	x     [4]float64   // their impulses, in row order (the safeguard's anchor, previousImpulses)
}

// point is one contact of this step: its record (what World.Contacts
// reports, filled stage by stage: collect the geometry, the pair's
// coefficients and Rows, fillContactRows its Row,
// directions, x̂ₙ, bounds and Bounce, estimateNewContacts a new point's
// x̂ₙ and bounds) and what only the step needs.
type point struct {
	ContactInfo
	ck       contactKey
	manifold int     // points in its manifold (set on the manifold's first point, 0 on the others)
	e        float64 // pair restitution coefficient
	tc       float64 // a bounce's time of contact in the step (s, bounceStep; shiftBounces)
	held     bool    // not sliding: its frame is the last step's or a fixed one (fillContactRows), which turnHeldFriction may turn
}

// bodyOf returns the body index of geom g, or World when the geom is fixed
// or its body is static.
func (w *World) bodyOf(g int) int {
	b := w.Geoms[g].Body
	if b == constraint.World || w.Bodies[b].Static {
		return constraint.World
	}
	return b
}

// infiniteMass reports whether geom g is fixed, or on a static or
// kinematic body.
func (w *World) infiniteMass(g int) bool {
	b := w.bodyOf(g)
	return b == constraint.World || w.Bodies[b].Kinematic
}

// geomPose returns the world pose of geom g. A zero Local.Rot is the
// identity (Geom.Local), as checkGeom takes it: AddGeom stores the
// identity, but a geom edited or appended since may hold the zero
// quaternion, which would collapse the shape to a point.
func (w *World) geomPose(g int) contact.Pose {
	gm := &w.Geoms[g]
	local := gm.Local
	if local.Rot == (mgl64.Quat{}) {
		local.Rot = mgl64.QuatIdent()
	}
	if gm.Body == constraint.World {
		return local
	}
	b := w.Bodies[gm.Body]
	return contact.Pose{Pos: b.Pos, Rot: b.Rot}.Mul(local)
}

func (w *World) bounceSpeed() float64 {
	if w.Settings.BounceSpeed > 0 {
		return w.Settings.BounceSpeed
	}
	return DefaultBounceSpeed
}

func (w *World) margin() float64 {
	if w.Settings.ContactMargin > 0 {
		return w.Settings.ContactMargin
	}
	return DefaultContactMargin
}

// detectContacts is the stage after freeVelocities, whose Mass it takes:
// it runs the broad phase over the geoms' bounding boxes and the narrow
// phase on each candidate pair, filling and returning its contactStage,
// the points grouped by pair (one manifold per pair) in a deterministic
// order: pairs sorted by geom index, points in the narrow phase's order.
//
// Contacts are speculative (as in Box2D and Bullet's contact processing
// threshold): each geom's box is widened by how far it can move in the
// step, sweep = h (|v| + |ω| r) from the larger of its current and free
// velocities (r: the distance from the body's centre of mass to the far
// corner of the geom's box), the narrow phase looks that far ahead, and a
// point becomes a row when its gap can close within the step,
//
//	φ ≤ margin  or  φ + h·min(0, φ̇_free) ≤ margin,
//
// with φ̇_free the rate of the gap at the point under the free velocities.
// Its positive gap enters b as φ/h, so x ≥ 0 ⊥ w ≥ 0 lets the body travel
// exactly to the surface within the step and no farther: a fast body
// stops at the surface instead of inside it or beyond a thin wall.
func (w *World) detectContacts(m *Mass) *contactStage {
	cs := &w.ws.contacts
	if w.cancel.ctx != nil {
		return w.detectCancellable(m) // StepContext (cancel.go)
	}
	cs.points = w.collect(cs.points[:0], m)
	return cs
}

// collect appends to dst the contact points at the bodies' current poses:
// with the free velocities of freeVelocities (free), those of
// detectContacts, swept speculatively; with free nil, the points with
// gap ≤ margin (the poses after the step, for post-stabilization and
// MaxViolation).
func (w *World) collect(dst []point, free *Mass) []point {
	cs := &w.ws.contacts
	cs.rowChunks.narrow = false
	ng := len(w.Geoms)
	if ng < 2 {
		return dst
	}
	margin := w.margin()
	if cap(cs.poses) < ng {
		cs.poses = make([]contact.Pose, ng)
		cs.boxes = make([]contact.AABB, ng)
		cs.sweep = make([]float64, ng)
	}
	cs.poses, cs.boxes, cs.sweep = cs.poses[:ng], cs.boxes[:ng], cs.sweep[:ng]
	if len(cs.posed) != ng {
		cs.posed = resize(cs.posed, ng)
		clear(cs.posed) // a geom added or removed: nothing kept (geomBounds)
	}
	if !cs.restOff && w.noMovers() {
		// Every pair is skipped (noMovers): no boxes, no pairs, no points,
		// and no recording for the next step's narrow phase.
		cs.pairs = cs.pairs[:0]
		cs.reuse.ok = false
		cs.rested++
		return dst
	}
	if cs.bounds.run == nil {
		cs.bounds.run = w.geomBounds
	}
	cs.free = free
	w.forRange(&cs.bounds, ng)
	cs.free = nil
	if cs.skip == nil {
		// Same body, or both fixed: no contact. Nor between two bodies
		// of infinite mass (fixed or kinematic): such a row has a zero
		// diagonal in A and nothing could yield.
		// Then the collision filter (filter.go): bits, joints, excluded
		// pairs.
		cs.skip = func(i, j int) bool {
			return w.bodyOf(i) == w.bodyOf(j) || (w.infiniteMass(i) && w.infiniteMass(j)) || !w.mayCollide(i, j) || w.sleepSkip(i, j)
		}
	}
	w.updateJoined()
	w.broadPhase(cs)
	w.wakePairs(cs, free, margin) // sleeping islands touched wake, or their pairs go
	ru := &cs.reuse
	record := free == nil && ru.record
	if record {
		ru.startRecording(cs.pairs, len(w.Geoms), margin)
		ru.checkPrev(cs.poses, w.Geoms)
	} else if free != nil {
		ru.checkPoses(cs.poses, w.Geoms)
	}
	dst = w.narrowPhase(dst, cs.pairs, margin, free)
	if record {
		ru.finishRecording(cs.reuse.recorded)
	} else if free != nil {
		ru.ok = false // a recording serves the one step after it
	}
	return dst
}

// narrowStage is the narrow phase's state when collect runs it on the
// workPool: the pairs in chunks of narrowChunkPairs, each chunk's points in
// a buffer of its own, appended to the step's points in chunk order.
type narrowStage struct {
	chunks []narrowChunk
	pairs  [][2]int
	margin float64
	free   *Mass
	task   func(k int) // runs chunk k; made once
	copy   func(k int) // copies chunk k's points into dst; made once
	dst    []point
	// record: the copy tasks record their chunks (pairReuse.recordRange),
	// each reporting in rec; n0 is the place of the phase's first point
	// in dst, np the phase's pairs.
	record bool
	rec    []bool
	n0, np int
}

// narrowChunk is one task's output: the points of its pairs, in pair
// order, and its scratch for contact.Collide.
type narrowChunk struct {
	out  []point
	pts  []contact.Point
	at   int // the place of out's first point in the step's points
	rows int // the rows of out's points (their Rows summed)
}

// narrowChunkPairs is the candidate pairs of one narrow-phase task, and
// narrowParallelPairs the fewest pairs for which collect runs the narrow
// phase on the workPool. Measured (BenchmarkNarrowPhase,
// BenchmarkWorkPoolJob): a resting box–box pair takes 0.8–1 µs, a job on a
// second idle worker 0.5 µs to start and join; 128 pairs (about 100 µs)
// leave a margin for a worker that first has to be given a core.
const (
	narrowChunkPairs    = 32
	narrowParallelPairs = 128
)

// narrowPhase appends to dst the points of the candidate pairs, in pair
// order, each pair's manifold as narrowPairs finds it. With more than one
// worker and at least narrowParallelPairs pairs, the pairs run in chunks on
// the workPool; every pair's points depend on that pair alone and the
// chunks are appended in order, so dst is the same bits either way.
func (w *World) narrowPhase(dst []point, pairs [][2]int, margin float64, free *Mass) []point {
	cs := &w.ws.contacts
	if len(pairs) < narrowParallelPairs || w.ws.pool.workers(2) < 2 {
		n0 := len(dst)
		// Room for a four-point manifold per pair, as narrowChunks gives
		// each chunk: one allocation on a first step, not append's
		// growth point by point (each growth copies and zeroes). Only
		// into a buffer with no room yet: one that narrowChunks grew to
		// its points (GOMAXPROCS was larger, or testing.AllocsPerRun set
		// it to 1) holds this step's points, which are the same either
		// way, and growing it to 4 per pair allocated in a steady step
		// (StepContext's two point buffers, one each of its first two
		// steps after the switch: TestStepContextAllocatesNothing).
		if cap(dst) == 0 {
			dst = slices.Grow(dst, 4*len(pairs))
		}
		dst, cs.pts = w.narrowPairs(dst, cs.pts, pairs, 0, margin, free)
		if cs.reuse.writing && free == nil {
			cs.reuse.sizePoints(len(dst) - n0)
			cs.reuse.recorded = cs.reuse.recordRange(0, len(pairs), 0, dst[n0:], 0, len(w.Geoms), cs.poses, w.Geoms)
		}
		return dst
	}
	return w.narrowChunks(dst, pairs, margin, free)
}

// narrowChunks is narrowPhase on the workPool: the pairs in chunks of
// narrowChunkPairs, appended in chunk order.
func (w *World) narrowChunks(dst []point, pairs [][2]int, margin float64, free *Mass) []point {
	ns := &w.ws.contacts.narrow
	nc := (len(pairs) + narrowChunkPairs - 1) / narrowChunkPairs
	if len(ns.chunks) < nc {
		ns.chunks = append(ns.chunks, make([]narrowChunk, nc-len(ns.chunks))...)
	}
	if ns.task == nil {
		ns.task = func(k int) {
			c := &ns.chunks[k]
			lo := k * narrowChunkPairs
			hi := min(lo+narrowChunkPairs, len(ns.pairs))
			if cap(c.out) < 4*(hi-lo) {
				// Room for a four-point manifold per pair (a box face on
				// a box face) from the first step on, not grown point by point.
				c.out = make([]point, 0, 4*(hi-lo))
			}
			c.out, c.pts = w.narrowPairs(c.out[:0], c.pts, ns.pairs[lo:hi], lo, ns.margin, ns.free)
			c.rows = 0
			for i := range c.out {
				c.rows += c.out[i].Rows
			}
		}
	}
	ns.pairs, ns.margin, ns.free = pairs, margin, free
	w.ws.pool.do(nc, ns.task)
	ns.pairs, ns.free = nil, nil
	// The chunks' points into dst in chunk order, each chunk's copy a
	// task of its own at its running offset.
	n0 := len(dst)
	n := n0
	for k := range nc {
		ns.chunks[k].at = n
		n += len(ns.chunks[k].out)
	}
	dst = slices.Grow(dst, n-len(dst))[:n]
	if free != nil && n0 == 0 {
		w.ws.contacts.rowChunks.fromNarrow(ns.chunks[:nc], n)
	}
	// A recording collect (pairReuse) records each chunk's pairs in its
	// copy task.
	cs := &w.ws.contacts
	ns.record, ns.n0, ns.np = cs.reuse.writing && free == nil, n0, len(pairs)
	if ns.record {
		cs.reuse.sizePoints(n - n0)
	}
	if ns.copy == nil {
		ns.copy = func(k int) {
			c := &ns.chunks[k]
			copy(ns.dst[c.at:], c.out)
			if ns.record {
				lo := k * narrowChunkPairs
				hi := min(lo+narrowChunkPairs, ns.np)
				nc, ng := len(ns.rec), len(w.Geoms)
				ns.rec[k] = cs.reuse.recordRange(lo, hi, c.at-ns.n0, c.out, k*ng/nc, (k+1)*ng/nc, cs.poses, w.Geoms)
			}
		}
	}
	ns.dst = dst
	ns.rec = slices.Grow(ns.rec[:0], nc)[:nc]
	w.ws.pool.do(nc, ns.copy)
	ns.dst = nil
	if ns.record {
		cs.reuse.recorded = !slices.Contains(ns.rec, false)
	}
	return dst
}

// narrowPairs appends to dst the contact points of each pair of pairs in
// order (contact.Collide within the pair's look-ahead, then, with free
// velocities, only the points whose gap can close within the step), with
// the pair's material coefficients; pts is Collide's scratch, returned
// grown. It reads the world and writes only dst and pts, so chunks of
// pairs run in parallel.
func (w *World) narrowPairs(dst []point, pts []contact.Point, pairs [][2]int, at int, margin float64, free *Mass) ([]point, []contact.Point) {
	cs := &w.ws.contacts
	speculative := free != nil
	// A recording collect whose pairs ascend (startRecording) records.
	record := !speculative && cs.reuse.writing
	hits, rehits := int64(0), int64(0) // pairs that took recorded points (pairReuse.hits, rehits)
	for i, pr := range pairs {
		if i%narrowCheckPairs == 0 && w.narrowCancelled(i, len(pairs)) {
			return dst, pts // StepContext: the step is abandoned
		}
		ga, gb := pr[0], pr[1]
		look := margin + cs.sweep[ga] + cs.sweep[gb]
		reused := false
		switch {
		case record:
			var reach float64
			var prev bool
			if pts, reach, prev = cs.reuse.lookupPrev(pts[:0], ga, gb, look); prev {
				rehits++
			} else {
				pts, reach = contact.CollideReach(pts[:0], w.Geoms[ga].Shape, cs.poses[ga], w.Geoms[gb].Shape, cs.poses[gb], look)
			}
			cs.reuse.pairs[at+i] = reusePair{ga: int32(ga), gb: int32(gb), n: int32(len(pts)), reach: reach}
			reused = true // collided
		case speculative:
			if pts, reused = cs.reuse.lookup(pts[:0], ga, gb, look); reused {
				hits++
			}
		}
		if !reused {
			sa, sb := &w.Geoms[ga].Shape, &w.Geoms[gb].Shape
			if speculative && (sa.Kind == contact.Plane && sb.Kind == contact.Convex || sa.Kind == contact.Convex && sb.Kind == contact.Plane) {
				// A plane chooses a hull's vertices among those that
				// close (contact.CollideApproach), as closing below.
				ap := contact.Approach{A: w.freeMotion(free, w.bodyOf(ga)), B: w.freeMotion(free, w.bodyOf(gb)), H: w.Settings.H, Margin: margin}
				pts = contact.CollideApproach(pts[:0], *sa, cs.poses[ga], *sb, cs.poses[gb], look, ap)
			} else {
				pts = contact.Collide(pts[:0], *sa, cs.poses[ga], *sb, cs.poses[gb], look)
			}
		}
		if speculative {
			pts = w.closing(pts, w.bodyOf(ga), w.bodyOf(gb), margin, free)
		}
		if len(pts) == 0 {
			continue
		}
		ma, mb := w.Geoms[ga].Material, w.Geoms[gb].Material
		mu := math.Sqrt(ma.Friction * mb.Friction)
		k, d := pairCompliance(ma, mb)
		e := math.Max(ma.Restitution, mb.Restitution)
		first := len(dst)
		for _, p := range pts {
			dst = append(dst, point{
				ContactInfo: ContactInfo{A: w.bodyOf(ga), B: w.bodyOf(gb), GeomA: ga, GeomB: gb,
					Point: p.Pos, Normal: p.Normal, Gap: p.Gap, Mu: mu, Stiffness: k, Damping: d},
				ck: contactKey{ga, gb, p.Key}, e: e,
			})
		}
		dst[first].manifold = len(pts)
		if len(pts) == 2 {
			// The rolling row goes with the manifold's last point.
			dst[first+1].Roll = math.Max(ma.Rolling, mb.Rolling)
		}
		for k := first; k < len(dst); k++ {
			dst[k].Rows = dst[k].Layout().N
		}
	}
	if hits+rehits > 0 {
		cs.reuse.hits.Add(hits + rehits)
		cs.reuse.rehits.Add(rehits)
	}
	return dst, pts
}

// geomBounds sets the pose, sweep and bounding box of the geoms lo:hi
// (collect's, with the free velocities contactStage.free). A geom whose
// body stands at the bits its pose was last computed from takes the kept
// pose and Extent (posedGeom): the next step's detectContacts at the
// poses the projection's collect saw, every box of a body at rest.
func (w *World) geomBounds(lo, hi int) {
	cs := &w.ws.contacts
	margin := w.margin()
	for g := lo; g < hi; g++ {
		if w.sleptBounds(cs, g, margin) {
			continue
		}
		ext := w.posedExtent(cs, g)
		cs.sweep[g] = 0
		if cs.free != nil {
			cs.sweep[g] = w.geomSweep(g, ext, cs.free)
		}
		cs.boxes[g] = ext.Padded(margin + cs.sweep[g])
		w.keepSleptBounds(cs, g, margin)
	}
}

// posedGeom is a geom's world pose and contact.Extent with what they were
// computed from: its body, the body's pose, its local pose and shape.
type posedGeom struct {
	ok    bool
	body  int
	pos   mgl64.Vec3
	rot   mgl64.Quat
	local contact.Pose
	shape contact.Shape
	pose  contact.Pose
	ext   contact.Extent
}

// posedExtent sets cs.poses[g] to geom g's world pose (geomPose) and
// returns its contact.Extent, from cs.posed[g] when that was computed
// from the same body, body pose, local pose and shape, bit for bit (the
// same bits geomPose and Shape.Extent compute), else computed and kept
// (always with cs.posedOff, the tests' reference).
func (w *World) posedExtent(cs *contactStage, g int) contact.Extent {
	gm, c := &w.Geoms[g], &cs.posed[g]
	var pos mgl64.Vec3
	var rot mgl64.Quat
	if gm.Body != constraint.World {
		b := w.Bodies[gm.Body]
		pos, rot = b.Pos, b.Rot
	}
	if c.ok && !cs.posedOff && c.body == gm.Body && sameVec(&c.pos, &pos) && sameQuat(&c.rot, &rot) &&
		sameVec(&c.local.Pos, &gm.Local.Pos) && sameQuat(&c.local.Rot, &gm.Local.Rot) && c.shape == gm.Shape {
		cs.poses[g] = c.pose
		return c.ext
	}
	p := w.geomPose(g)
	cs.poses[g] = p
	// Field by field: a composite literal would build the whole entry
	// and copy it again.
	c.ok, c.body, c.pos, c.rot, c.local, c.pose = true, gm.Body, pos, rot, gm.Local, p
	c.shape = gm.Shape
	c.ext = gm.Shape.Extent(p)
	return c.ext
}

// sameVec and sameQuat report whether a and b have the same bits.
func sameVec(a, b *mgl64.Vec3) bool {
	return math.Float64bits(a[0]) == math.Float64bits(b[0]) && math.Float64bits(a[1]) == math.Float64bits(b[1]) &&
		math.Float64bits(a[2]) == math.Float64bits(b[2])
}

func sameQuat(a, b *mgl64.Quat) bool {
	return math.Float64bits(a.W) == math.Float64bits(b.W) && sameVec(&a.V, &b.V)
}

// geomSweep returns how far (m) any point of geom g, of Extent ext at its
// pose, can move in the step: h (|v| + |ω| r), with the larger of the
// body's current and free speeds and r the distance from its centre of
// mass to the far corner of the geom's unpadded box. 0 for fixed geoms
// and static bodies.
func (w *World) geomSweep(g int, ext contact.Extent, free *Mass) float64 {
	bi := w.bodyOf(g)
	if bi == constraint.World {
		return 0
	}
	b := w.Bodies[bi]
	lin, ang := b.Vel.Len(), b.AngVel.Len()
	if bi < len(free.Free) {
		vf := &free.Free[bi]
		lin = math.Max(lin, math.Sqrt(vf[0]*vf[0]+vf[1]*vf[1]+vf[2]*vf[2]))
		ang = math.Max(ang, math.Sqrt(vf[3]*vf[3]+vf[4]*vf[4]+vf[5]*vf[5]))
	}
	s := w.Settings.H * lin
	if ang > 0 {
		box := ext.Padded(0)
		if box.Unbounded() {
			return s
		}
		c := box.Min.Add(box.Max).Mul(0.5)
		r := c.Sub(b.Pos).Len() + box.Max.Sub(c).Len()
		s += w.Settings.H * ang * r
	}
	if !num.Finite(s) {
		return 0 // a non-finite state is reported by Step, not here
	}
	return s
}

// closing keeps the points of pts (between bodies a and b) whose gap is
// within margin now or can close within the step, φ + h·φ̇ ≤ margin, and
// returns them (in place). φ̇ is each body's own approach under its free
// velocity, the other's retreat not counted: min(0, n·v_b) − max(0,
// n·v_a) at the point, n from a to b. The free velocities leave out the
// constraint impulses, so two bodies falling together under them keep
// their gap, yet the lower one may be held (resting on the floor, on a
// hinge) and the upper one falls g h² onto it in the step: with their
// relative free velocity the upper box fell into the lower one and the
// projection lifted it out, adding energy (TestNewUserGapAboveHeldBody).
// A pair that truly falls together gets rows that stay inactive.
func (w *World) closing(pts []contact.Point, a, b int, margin float64, free *Mass) []contact.Point {
	h := w.Settings.H
	out := pts[:0]
	for _, p := range pts {
		if p.Gap > margin {
			if p.Gap+h*w.freeApproach(free, a, b, p.Pos, p.Normal) > margin {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// freeApproach is closing's gap rate bound at x along the normal n (from
// a to b): min(0, n·v_b) − max(0, n·v_a) under the free velocities
// free.Free (at the current ones before they are computed), each body's
// approach without the other's retreat; ≤ min(0, n·(v_b − v_a)).
func (w *World) freeApproach(free *Mass, a, b int, x, n mgl64.Vec3) float64 {
	var rate float64
	if len(free.Free) < len(w.Bodies) {
		if b != constraint.World {
			rate = math.Min(0, w.Bodies[b].PointVelocity(x).Dot(n))
		}
		if a != constraint.World {
			rate -= math.Max(0, w.Bodies[a].PointVelocity(x).Dot(n))
		}
		return rate
	}
	if b != constraint.World {
		rate = math.Min(0, freePointVel(&free.Free[b], x.Sub(w.Bodies[b].Pos)).Dot(n))
	}
	if a != constraint.World {
		rate -= math.Max(0, freePointVel(&free.Free[a], x.Sub(w.Bodies[a].Pos)).Dot(n))
	}
	return rate
}

// freeMotion is body b's velocity under the free velocities as
// freeApproach reads them, for contact.CollideApproach (zero for the world).
func (w *World) freeMotion(free *Mass, b int) contact.Motion {
	if b == constraint.World {
		return contact.Motion{}
	}
	bd := w.Bodies[b]
	if len(free.Free) < len(w.Bodies) {
		return contact.Motion{V: bd.Vel, W: bd.AngVel, Center: bd.Pos}
	}
	f := &free.Free[b]
	return contact.Motion{V: mgl64.Vec3{f[0], f[1], f[2]}, W: mgl64.Vec3{f[3], f[4], f[5]}, Center: bd.Pos}
}

// freePointVel is the velocity v + ω × r of a body's point at lever arm r
// under its free velocity f = [v ω] (Mass.Free): freeApproach's and
// relVels' one body. Written out, Vec3.Add of Vec3.Cross term for term
// (the same bits), so that it inlines.
func freePointVel(f *[6]float64, r mgl64.Vec3) mgl64.Vec3 {
	return mgl64.Vec3{
		f[0] + (f[4]*r[2] - f[5]*r[1]),
		f[1] + (f[5]*r[0] - f[3]*r[2]),
		f[2] + (f[3]*r[1] - f[4]*r[0]),
	}
}

// contactRowCount returns the number of rows the detected contacts need,
// their Rows (ContactInfo.Layout, set by narrowPairs) summed: the narrow
// phase's chunks' sum when they made the points (rowChunks.fromNarrow),
// without a pass over the points.
func (w *World) contactRowCount(cs *contactStage) int {
	if rc := &cs.rowChunks; rc.fromNarrowOf(len(cs.points)) {
		return rc.nrows
	}
	n := 0
	for i := range cs.points {
		n += cs.points[i].Rows
	}
	return n
}

// relVel returns the velocity of body b's material point at x relative
// to body a's, at the current velocities (World contributes nothing).
func (w *World) relVel(a, b int, x mgl64.Vec3) mgl64.Vec3 {
	var out mgl64.Vec3
	if b != constraint.World {
		out = w.Bodies[b].PointVelocity(x)
	}
	if a != constraint.World {
		out = out.Sub(w.Bodies[a].PointVelocity(x))
	}
	return out
}

// relVels returns relVel and the same relative velocity under the free
// velocities free.Free (Mass.Free, no constraint impulses: a resting
// contact's free slip, freeSlipAxis) of the point x together, each body's
// lever arm x − x_b taken once.
func (w *World) relVels(free *Mass, a, b int, x mgl64.Vec3) (v, vf mgl64.Vec3) {
	if len(free.Free) < len(w.Bodies) {
		v = w.relVel(a, b, x)
		return v, v // free velocities not computed yet
	}
	// Each body written out, not a closure called twice: the inliner
	// leaves a closure of this cost called from two places as two calls.
	if b != constraint.World {
		bd := w.Bodies[b]
		r := x.Sub(bd.Pos)
		v, vf = bd.Vel.Add(bd.AngVel.Cross(r)), freePointVel(&free.Free[b], r)
	}
	if a != constraint.World {
		bd := w.Bodies[a]
		r := x.Sub(bd.Pos)
		v, vf = v.Sub(bd.Vel.Add(bd.AngVel.Cross(r))), vf.Sub(freePointVel(&free.Free[a], r))
	}
	return v, vf
}

// freeSlipAxis returns the first friction direction of a contact that is
// not sliding, whose frame would be t1, n × t1: the direction of its free
// slip vf (the tangential part of the free relative velocity) when that
// exceeds SlipSpeed and lies more than offAxisCos off both axes of the
// frame, else t1. Box friction bounds each axis by μ x̂ₙ, so along an axis
// it is Coulomb's bound and at 45° to both √2 times it.
func freeSlipAxis(t1, n, vf mgl64.Vec3) mgl64.Vec3 {
	vf = vf.Sub(n.Mul(vf.Dot(n)))
	l := vf.Len()
	if !(l > SlipSpeed) {
		return t1
	}
	u := vf.Mul(1 / l)
	if onAxis(u, t1, n.Cross(t1)) {
		return t1
	}
	return u
}

// onAxis reports whether the unit vector u lies within offAxisCos of an
// axis ±t1 or ±t2 of a friction frame: there box friction is Coulomb's,
// and neither the free slip (freeSlipAxis) nor the turn (turnHeldFriction)
// moves the frame.
func onAxis(u, t1, t2 mgl64.Vec3) bool {
	return math.Max(math.Abs(u.Dot(t1)), math.Abs(u.Dot(t2))) >= offAxisCos
}

// offAxisCos is the cosine of 1 mrad: a slip closer than that to a frame
// axis meets at most 1/cos(1 mrad) − 1 = 5e-7 more box friction than
// Coulomb's, and keeps its frame.
const offAxisCos = 0.9999995

// fillContactRows writes the contact rows into rows (contactRowCount of
// them; the first is row nj of the step) and the warm-start states into
// start, and completes each point's record: its Row, x̂ₙ, friction
// directions, rolling axis and bound, and restitution target Bounce (the
// rows are its FillRows, at its Layout). Per point: the normal row
// (φ = gap, x ∈ [0, ∞); compliant with the pair's stiffness and damping
// time, see Material); with μ > 0 two friction rows along t₁, t₂ with
// box bounds ±μ x̂ₙ, no compliance and no position term; after the last
// point of a two-point manifold with a rolling coefficient c_rr, the
// rolling row about the axis u through the two points, J = [0, −u] on a,
// [0, u] on b, bounds ±c_rr (x̂ₙ₁ + x̂ₙ₂).
//
// x̂ₙ is the normal impulse of the same contact key in the previous step.
// A new contact has none. Here it gets the estimate x̂ₙ = max(0, −b_n)/a_nn,
// the impulse that stops the point's approach in this step with the
// point's own effective mass 1/a_nn (b_n = J M⁻¹ p + φ/h for a gap), which
// only seeds the start index sets: estimateNewContacts then replaces it by
// the normal impulse of a pre-solve (a brick resting on a brick that falls
// with it would otherwise start with no friction at all).
//
// Friction directions: for a two-point manifold (a wheel or a lying
// capsule) t₁ runs along the line of the two points, one basis for both
// (a wheel's lateral and rolling directions; per-point slip directions
// would make the two points' rows nearly parallel and A ill-conditioned);
// otherwise t₁ follows the relative sliding velocity when it exceeds
// SlipSpeed (so box friction opposes the motion as Coulomb friction does);
// otherwise it keeps the previous step's t₁ of the same key, a new point
// taking constraint.Perp(n), unless the point's free relative slip (the
// bodies' Mass.Free velocities, before any constraint impulse: the way it
// would start to slide) exceeds SlipSpeed off that frame's axes
// (freeSlipAxis): then t₁ follows the free slip, since a box at rest
// pushed at 45° to its frame would meet √2 μ x̂ₙ of friction and stick (as
// in ODE without dContactFDir1). t₂ = n × t₁. Such a point is held
// (point.held): after the solve, turnHeldFriction turns it to its
// friction where that leaves Coulomb's circle.
//
// With more than one worker and at least rowParallelPoints points, the
// points run in chunks of about rowChunkPoints on the workPool, each chunk
// whole manifolds from a known first row: a point's rows and record depend
// on its own manifold alone, so the rows are the same bits either way.
func (w *World) fillContactRows(m *Mass, cs *contactStage, nj int, rows []constraint.Row, start []lcp.State) {
	w.markSupported(cs)
	if len(cs.points) < rowParallelPoints || w.ws.pool.workers(2) < 2 {
		w.fillContactRange(m, cs, nj, rows, start, 0, len(cs.points), 0)
		return
	}
	w.fillContactChunks(m, cs, nj, rows, start)
}

// fillContactChunks is fillContactRows on the workPool.
func (w *World) fillContactChunks(m *Mass, cs *contactStage, nj int, rows []constraint.Row, start []lcp.State) {
	np := len(cs.points)
	rc := &cs.rowChunks
	if !rc.fromNarrowOf(np) {
		// Chunk boundaries at manifolds' first points, with each chunk's
		// first row (the running sum of the rows of the points before it).
		rc.first, rc.row = rc.first[:0], rc.row[:0]
		k := 0
		for i := range cs.points {
			pt := &cs.points[i]
			if i == 0 || (pt.manifold > 0 && i-int(rc.first[len(rc.first)-1]) >= rowChunkPoints) {
				rc.first, rc.row = append(rc.first, int32(i)), append(rc.row, int32(k))
			}
			k += pt.Rows
		}
		rc.first = append(rc.first, int32(np))
	}
	rc.narrow = false
	if rc.task == nil {
		rc.task = func(c int) {
			if w.chunkCancelled(stageRows) {
				return // StepContext: the step stops (Step)
			}
			w.fillContactRange(rc.m, &w.ws.contacts, rc.nj, rc.rows, rc.start, int(rc.first[c]), int(rc.first[c+1]), int(rc.row[c]))
		}
	}
	rc.m, rc.nj, rc.rows, rc.start = m, nj, rows, start
	w.ws.pool.do(len(rc.first)-1, rc.task)
	rc.m, rc.rows, rc.start = nil, nil, nil
}

// rowChunks is fillContactRows' state on the workPool: chunk c is the
// points first[c]:first[c+1], whose first row is row[c] of rows. narrow
// marks first and row as those of the chunks of the narrow phase that made
// the step's points (fromNarrow), and nrows their rows in all, which
// contactRowCount and fillContactChunks then take without a pass over
// the points; collect clears it.
type rowChunks struct {
	first, row []int32
	narrow     bool
	nrows      int
	m          *Mass
	nj         int
	rows       []constraint.Row
	start      []lcp.State
	task       func(c int) // fills chunk c; made once
}

// fromNarrow sets rc to the chunks of the narrow phase (narrowChunks) that
// made the np points of detectContacts: each chunk is whole manifolds (a
// pair's points stay together), its first row the rows of the chunks
// before it.
func (rc *rowChunks) fromNarrow(chunks []narrowChunk, np int) {
	rc.first, rc.row = rc.first[:0], rc.row[:0]
	k := 0
	for i := range chunks {
		rc.first, rc.row = append(rc.first, int32(chunks[i].at)), append(rc.row, int32(k))
		k += chunks[i].rows
	}
	rc.first = append(rc.first, int32(np))
	rc.narrow, rc.nrows = true, k
}

// fromNarrowOf reports whether rc holds the narrow phase's chunks
// (fromNarrow) of the step's np points.
func (rc *rowChunks) fromNarrowOf(np int) bool {
	return rc.narrow && int(rc.first[len(rc.first)-1]) == np
}

// rowChunkPoints is about the contact points of one fillContactRows task,
// and rowParallelPoints the fewest points for which fillContactRows runs on
// the workPool. Measured (BenchmarkContactRows, BenchmarkWorkPoolJob): a
// box contact point's rows take 0.35–0.4 µs, a job on a second idle worker
// 0.5 µs; 256 points (about 100 µs) leave the same margin as the narrow
// phase's.
const (
	rowChunkPoints    = 64
	rowParallelPoints = 256
)

// fillContactRange is fillContactRows for the points lo:hi, whose first
// row is rows[k] (lo is a manifold's first point). It reads the world and
// the contact cache and writes only those points, their rows and states.
func (w *World) fillContactRange(m *Mass, cs *contactStage, nj int, rows []constraint.Row, start []lcp.State, lo, hi, k int) {
	ws := &w.ws
	h := w.Settings.H
	var lineDir mgl64.Vec3
	checked := k
	for i := lo; i < hi; i++ {
		pt := &cs.points[i]
		if pt.manifold > 0 && k-checked >= cancelCheckRows {
			if w.chunkCancelled(stageRows) {
				return // StepContext: the step stops (Step)
			}
			checked = k
		}
		pt.Row = nj + k
		n := pt.Normal
		c, seen := ws.memory.cache.getAt(i, pt.ck)
		pt.Fresh = !seen
		reuse := seen && c.n == pt.Rows // same rows as last step: keep their index sets
		if pt.manifold > 0 {
			lineDir = mgl64.Vec3{}
			if pt.manifold == 2 {
				d := cs.points[i+1].Point.Sub(pt.Point)
				d = d.Sub(n.Mul(d.Dot(n)))
				if l := d.Len(); l > 1e-9 {
					lineDir = d.Mul(1 / l)
				}
			}
		}
		pt.Bounce, pt.tc = 0, 0
		if pt.e > 0 {
			// v₋: the normal velocity before the step, < 0 approaching;
			// u_f the free one, by which the step moves it. It bounces in
			// the step in which it reaches the surface, approaching at
			// BounceSpeed or faster in it (bounceStep).
			v, vf := w.relVels(m, pt.A, pt.B, pt.Point)
			vf = w.supportedFree(m, pt.A, pt.B, pt.Point, vf)
			if vn, uf := v.Dot(n), vf.Dot(n); vn < 0 && uf < 0 && -math.Min(vn, uf) >= w.bounceSpeed() && pt.Gap+h*uf <= w.margin() {
				pt.Bounce, pt.tc = bounceStep(pt.e, pt.Gap, vn, uf, h)
			}
		}
		r := &rows[k]
		pt.NormalRow(r, w.Bodies)
		if seen {
			pt.XN = c.xn
		} else {
			aii, jv := m.rowDiag(r)
			bn := jv
			if pt.Gap > 0 {
				bn += pt.Gap / h
			}
			pt.XN = 0
			if aii > 0 && bn < 0 {
				pt.XN = -bn / aii
			}
		}
		start[k] = lcp.AtLower
		if pt.XN > 0 {
			start[k] = lcp.Free
		}
		l := pt.Layout()
		if l.Friction > 0 {
			vt, vf := w.relVels(m, pt.A, pt.B, pt.Point)
			vt = vt.Sub(n.Mul(vt.Dot(n)))
			var t1 mgl64.Vec3
			pt.held = false
			switch {
			case lineDir != (mgl64.Vec3{}):
				// One basis for both points of a line contact: per-point
				// slip directions would give nearly parallel rows.
				t1 = lineDir
			case vt.Len() > SlipSpeed:
				t1 = vt.Mul(1 / vt.Len())
			default:
				if seen {
					t1 = c.t1.Sub(n.Mul(c.t1.Dot(n)))
				}
				if tl := t1.Len(); tl > 1e-6 {
					t1 = t1.Mul(1 / tl)
				} else {
					t1, _ = constraint.Perp(n)
				}
				t1 = freeSlipAxis(t1, n, vf)
				pt.held = true
			}
			pt.T1, pt.T2 = t1, n.Cross(t1)
			start[k+l.Friction], start[k+l.Friction+1] = lcp.Free, lcp.Free
		}
		if l.Rolling > 0 {
			u := lineDir
			if u == (mgl64.Vec3{}) {
				u, _ = constraint.Perp(n)
			}
			pt.RollAxis = u
			pt.RollBound = pt.Roll * (cs.points[i-1].XN + pt.XN)
			start[k+l.Rolling] = lcp.Free
		}
		pt.fillTangentRows(rows[k:], w.Bodies)
		if reuse {
			copy(start[k:k+l.N], c.state[:l.N])
		}
		k += l.N
	}
}

// storeImpulses keeps each contact's normal impulse, friction direction
// and final index-set states for the next step, keyed by contact key: the
// points' records are set on the workPool in chunks of storeChunk points
// (storeRange), each its own, and keyed in point order (contactCache).
func (w *World) storeImpulses(cs *contactStage, rs *rowStage, sol *solveStage) {
	cc := &w.ws.memory.cache
	cc.begin(len(cs.points))
	sj := &cc.store
	if sj.job.run == nil {
		sj.job.run, sj.job.chunk, sj.job.least = w.storeRange, storeChunk, storeParallel
	}
	sj.points, sj.x, sj.states = cs.points, nil, nil
	if x := sol.res.X; len(x) == len(rs.rows) {
		sj.x = x
	}
	if st := sol.res.States; len(st) == len(rs.rows) {
		sj.states = st
	}
	w.forRange(&sj.job, len(cs.points))
	sj.points, sj.x, sj.states = nil, nil, nil
	cc.end(cs.points)
}

// estimateNewContacts gives new contacts their x̂ₙ from a pre-solve: the
// step's MLCP with the friction and rolling rows of the new contacts held
// at zero (bounds [0, 0]; old contacts keep theirs), solved exactly by
// block pivoting (no budget: it is the estimate of a bound, not the step's
// solution). Each new contact's x̂ₙ becomes its normal impulse there, its
// friction rows get ±μ x̂ₙ and a rolling row ±c_rr (x̂ₙ₁ + x̂ₙ₂); the
// pre-solve's index sets warm-start the step's solve, with the new
// contacts' friction and rolling rows free (they were pinned at zero in the
// pre-solve; free is static friction, the state fillContactRows gives
// them), except for contacts whose pre-solve impulse is at that solve's
// rounding level, which start unloaded (freshLoadFloor). Steps without
// new frictional contacts skip it; when at least a quarter of their points are new frictionless ones (a frictionless pile
// built at rest) the sweeps below still choose their normal rows' start
// in the step's own problem. Steps whose new points are fewer than a
// quarter of all, with Settings.Budget 0, estimate them by
// estimateLocally instead, against the old contacts' last impulses. This
// is the documented estimate for a new contact: a resting contact has its
// static friction from its first step.
//
// Cold start. The new contacts' normal rows start the pre-solve in the
// index sets of estimateSweeps projected Gauss–Seidel sweeps on the
// pre-solve problem (free where the sweeps give a positive impulse), not
// in those of the effective-mass estimate of fillContactRows: a brick
// resting on a brick that falls with it has b_n = 0 there and starts at
// its bound, so on a wall built at rest every brick–brick contact starts
// wrong. Block pivoting from that start, on the redundant (semidefinite)
// rows of stacked boxes, stalls and falls back to single pivots: 2 690
// iterations for the 30-brick wall's step 1 and the whole 100 + 10 n
// budget at 100 bricks, against 5 and 6 from the sweeps' index sets (4
// and 4 with the new points of the patches they load started free:
// spreadPatchLoad). The sweeps run in body space (seedNewNormals), each
// O(rows) where a sweep of A's rows cost O(nnz A) (20 of those were a
// fifth of a steady wall step); they run only when at least a quarter of
// the step's contact points are new (a scene built at rest, a pile
// landing): with few new contacts among
// old ones, whose index sets from the last step carry the load, the
// effective-mass start needs 2–3 pre-solve iterations on the wall (mean
// over 300 steps: 2.7 at 30 bricks, 3.4 at 100, at most 14).
//
// What it buys. On a scene built at rest the pre-solve costs more than the
// main solve after it, but less than a main solve without it: with the
// friction bounds of fillContactRows' effective-mass estimate (zero for a
// brick on a brick that falls with it) and the sweeps' start, step 1's
// main solve took 9 block-pivoting iterations on the 210-brick pyramid
// (about 0.55 s, against 0.16 s for the pre-solve's 8 and the main
// solve's 3 in the same run), 5 on the 30-brick wall and 6 on the
// 100-brick one (against 1 after the pre-solve), and it solves another
// MLCP: the friction bounds are the pre-solve's to give.
//
// Why pinned, not free. With the new friction rows free instead
// (unbounded: static friction everywhere) the pre-solve would end on the
// main solve's face, whose factor the main solve could then reuse; but A
// is semidefinite, and the solution regularized mode reaches from 0
// carries part of the load through friction, beyond μ times the patch's
// own normal impulse on 41 of 145 new contact patches of the 55-brick
// pyramid, 4 of 47 of the 30-brick wall and 506 of 1 426 of the
// 496-brick pyramid. The main solve then moves off that answer (3, 2 and
// 5 iterations instead of 1) and ends with contacts at their friction
// bounds that the next steps exchange again (step 2: 5, 3 and 4
// iterations, each with a refactorization, instead of 1 with none).
// Pinned, the pre-solve's answer leaves no tangential velocity at the new
// contacts (|w_t| within 1.2·10⁻⁸ of max|b| on these scenes), so it is itself
// static friction, a solution of the step's MLCP with the new friction
// rows free at 0 (TestPreSolvePinsNewFriction). Its cost on a scene built
// at rest is its own faces: a face change recomputes the rows on the
// paths from the changed rows to the root of the body-space factor's
// elimination tree, and every contact row's path runs through the body
// rows, which hold all but 3·10⁻⁵ of the factorization's flops. Step 1 of
// the 496-brick pyramid factored three faces at the flops of a full
// factorization each: the pre-solve's first, its second (the lower
// corners of the end-to-end contacts between neighbours in a course
// leave it: in the first face, with every new normal free, each such
// patch carries a couple, upper corners pushing and lower ones pulling),
// and the main solve's, which the new friction rows enter.
// startUprightPatches now starts those patches as the second face has
// them, which it then reaches at 69 % of those flops (Gauss–Seidel sweeps
// from the patches' spread load did not predict it: 20 to 200 sweeps gave
// 6 to 10 pre-solve iterations instead of 4; nor did starting those
// patches wholly unloaded: 15).
//
// The pre-solve runs on the step's own BPP (Settings.Solver when it is
// one, the default one when it is nil: stepContext): the main solve then
// starts from the pre-solve's factor, and since the two problems share A
// and differ only in the new contacts' rows, it recomputes only the rows
// of the factor those reach (see lcp.BPP). A first face that is singular
// by its structure (a brick's four coplanar normal rows:
// lcp.Problem.RedundantRigid) starts it in BPP's regularized mode
// (lcp.Settings.Semidefinite) instead of a factorization that fails, and
// the step's main solve likewise (pickSolve).
//
// The pre-solve's x is also the main solve's lcp.Settings.Reference
// (presolveStage.ref), regularized mode's first proximal centre: the two
// problems differ only in the new friction rows' bounds, so on a scene
// whose A is semidefinite (boxes resting on four points) the main solve
// pivots straight to the solution near the pre-solve's, where from x̄ = 0
// it pivoted first to the regularized solution near 0 and then, after a
// proximal move, to the answer. Step 1 of the 210-brick pyramid: 1
// iteration (3 with every new contact started loaded, see freshLoadFloor)
// instead of 7; of the 30- and 100-brick walls 1 instead of 6 and 5
// (BenchmarkPyramidStep1, BenchmarkWallStep1). The answer solves
// the same MLCP to the same tolerance; where its solutions form a set it
// is another point of it, with the same body velocities to that
// tolerance (TestStep1MainSolveFromPreSolve).
//
// With Settings.Coherent, steps without new contacts whose solve may run
// to its end (Settings.Budget 0; lastStepReference) take the last step's
// impulses as the reference instead (previousImpulses: a persistent
// contact point's rows by its key, the joint rows when they are the
// same). This is the proximal point method's choice of centre
// (Rockafellar, "Monotone operators and the proximal point algorithm",
// 1976): each proximal step moves to the solution of the regularized
// problem nearest its centre, so on a semidefinite A (boxes resting on
// four points, redundant contacts) the answer is the solution of the
// step's MLCP near the last step's impulses, the temporally coherent one,
// and a resting scene, whose impulses barely change, needs no proximal
// move: a steady step of the 30-brick wall takes 1 block-pivoting
// iteration instead of 2, of the 210-brick pyramid 1.8 instead of 2.4, of
// the 496-brick one 2 instead of 8.8 (BenchmarkWallSteady,
// BenchmarkPyramidSteady, BenchmarkPyramidSteadyLarge with Coherent on).
// The answer is still an exact solution of the same MLCP to the solver's
// tolerance; only which point of the solution set is returned changes,
// with the same body velocities to that tolerance
// (TestSteadyReferenceIsLastImpulses). Steps with new contacts keep 0:
// from a landing box's last-step centre the random pile's worst island
// took 40 iterations instead of 31.
func (w *World) estimateNewContacts(as *assemblyStage, cs *contactStage, rs *rowStage) *presolveStage {
	ws := &w.ws
	pre := &ws.presolve
	pre.preIts, pre.seedSweeps = 0, 0
	pre.ref, pre.cold = nil, false
	fresh := false
	for i := range cs.points {
		if pt := &cs.points[i]; pt.Fresh && pt.Rows > 1 {
			fresh = true
			break
		}
	}
	if !fresh {
		// New frictionless contacts need no estimate, but a scene built at
		// rest starts them at their bounds all the same: seed their
		// normal rows' start in the step's own problem.
		if n := w.freshPoints(); n > 0 && 4*n >= len(cs.points) {
			pre.eprob = as.eq.Problem()
			w.seedNewNormals(false)
		}
		pre.ref = w.lastStepReference()
		return pre
	}
	if n := w.freshPoints(); 4*n < len(cs.points) && w.Settings.Budget == 0 {
		// Few new contacts among old ones, and a solve that may run to
		// its end: estimate them against the old ones' last impulses
		// instead of solving the whole pile again.
		w.estimateLocally(as, cs, rs)
		return pre
	}
	pre.elo = append(pre.elo[:0], as.eq.Lo...)
	pre.ehi = append(pre.ehi[:0], as.eq.Hi...)
	for i := range cs.points {
		pt := &cs.points[i]
		if !pt.Fresh {
			continue
		}
		for r := pt.Row + 1; r < pt.Row+pt.Rows; r++ {
			pre.elo[r], pre.ehi[r] = 0, 0
		}
	}
	solver, ok := ws.step.solver.(*lcp.BPP)
	if !ok {
		if pre.estSolver == nil {
			pre.estSolver = &lcp.BPP{}
		}
		solver = pre.estSolver
	}
	// The step's problem with the new friction rows pinned: the same A,
	// and so the same body-space form (Problem.KKT) for BPP to factor.
	pre.eprob = as.eq.Problem()
	pre.eprob.Lo, pre.eprob.Hi = pre.elo, pre.ehi
	if 4*w.freshPoints() >= len(cs.points) {
		w.seedNewNormals(false)
	}
	if pre.freeFriction {
		for i := range cs.points {
			if pt := &cs.points[i]; pt.Fresh {
				for r := pt.Row + 1; r < pt.Row+pt.Rows; r++ {
					pre.elo[r], pre.ehi[r] = math.Inf(-1), math.Inf(1)
				}
			}
		}
	}
	pre.cold = true
	err := solver.Solve(&pre.eres, &pre.eprob, pre.settings(rs.start, preSolveTrial))
	pre.preIts = pre.eres.Iterations
	if pre.eres.Status == lcp.BudgetExhausted {
		// The old rows' index sets were a bad start (see preSolveTrial):
		// start again from the sweeps' index sets of every row.
		w.seedNewNormals(true)
		err = solver.Solve(&pre.eres, &pre.eprob, pre.settings(rs.start, 0))
		pre.preIts += pre.eres.Iterations
	}
	if len(pre.eres.X) != len(rs.rows) {
		_ = err // invalid problem: keep the effective-mass estimates
		return pre
	}
	for i := range cs.points {
		pt := &cs.points[i]
		if pt.Fresh {
			pt.XN = math.Max(0, pre.eres.X[pt.Row])
		}
	}
	freshBounds(as, cs, rs)
	pre.ref = pre.eres.X
	if len(pre.eres.States) == len(rs.rows) {
		copy(rs.start, pre.eres.States)
		floor := freshLoadFloor * num.MaxAbs(as.eq.B)
		a := as.eq.Matrix()
		for i := range cs.points {
			pt := &cs.points[i]
			if !pt.Fresh {
				continue
			}
			if pt.XN*a.At(pt.Row, pt.Row) <= floor {
				rs.start[pt.Row] = lcp.AtLower // no load to the pre-solve's tolerance
			}
			for r := pt.Row + 1; r < pt.Row+pt.Rows; r++ {
				rs.start[r] = lcp.Free
				if as.eq.Hi[r]*a.At(r, r) <= floor {
					// A bound at the pre-solve's rounding level: start at
					// the side the pre-solve's slip w_r pushes it to.
					rs.start[r] = lcp.AtLower
					if pre.eres.W[r] < 0 {
						rs.start[r] = lcp.AtUpper
					}
				}
			}
		}
	}
	return pre
}

// settings returns the pre-solve's lcp.Settings from the start index
// sets start with the iteration budget budget (0: BPP's own): where the
// first face is singular by its structure (Problem.RedundantRigid: a
// brick's four coplanar contact points) the solve starts in BPP's
// regularized mode (Settings.Semidefinite) and asks for the tolerance
// preSolveTolerance, otherwise for BPP's default.
func (pre *presolveStage) settings(start []lcp.State, budget int) lcp.Settings {
	set := lcp.Settings{Start: start, MaxIterations: budget, Semidefinite: pre.eprob.RedundantRigid(start)}
	if set.Semidefinite && !pre.strictTol {
		set.Tolerance = preSolveTolerance
	}
	return set
}

// preSolveTolerance is the pre-solve's lcp.Settings.Tolerance when it
// starts in BPP's regularized mode: 10⁻⁶ of the velocity scale max|b|,
// the tolerance to which that mode solves a semidefinite problem anyway
// (its true residual, regTol in lcp.BPP), now also the pivoting's: a row
// at a bound whose velocity lies beyond it by less than that, or a free
// row whose impulse lies outside its bounds by less than that in
// velocity units, is feasible, not exchanged.
//
// With BPP's default 10⁻¹⁰ the exchange frees such rows, and on a
// pyramid built at rest they are the contact corners the tension corners'
// drop leaves at w ≈ 0 to within the regularization's level (−8·10⁻¹⁰ to
// −7·10⁻⁸ m/s against 1.6·10⁻⁷ on the 210-brick pyramid): freeing them
// put their siblings in tension, which the next exchange dropped, two
// partial refactorizations of the body-space factor for a solution that
// is as good as the one they left. At this tolerance the pre-solve of
// the 210-brick pyramid's step 1 takes 4 block-pivoting iterations
// instead of 5, its third face one modified into the factor (16 rows)
// instead of two partial refactorizations (862 and 684 rows of 8 340),
// the 496-brick one's 4 instead of 6 and the 55-brick one's 4 instead of
// 7 (BenchmarkPyramidStep1, BenchmarkPyramidStep1Large,
// TestPreSolveToleranceSameStep); the walls of 30 and 100 bricks have no
// such rows and take 4 iterations either way (BenchmarkWallStep1). Since
// startUprightPatches: 3 instead of 4 at 55 and 210 bricks, 3 instead of
// 7 at 496.
//
// Its answer solves the pre-solve's MLCP to this tolerance, as before,
// but where a contact patch's corners are degenerate (x = 0 and w = 0 to
// the tolerance) it may be another point of the solution set than the
// one regularized mode's proximal path from 0 reaches: the impulses
// differ in the null space of A (how a patch's load is shared by its
// corners), the velocities they give do not. The main solve then solves
// the MLCP whose friction bounds μ x̂ₙ follow from it, to its own
// tolerance (TestPreSolveToleranceSameStep: the same body velocities
// within 10⁻⁶ of max|b|, the main solve's iterations unchanged).
const preSolveTolerance = 1e-6

// lastStepReference returns the last step's impulses on this step's rows
// (previousImpulses) as the main solve's lcp.Settings.Reference when
// Settings.Coherent is on (Coherence.On) and the solve may run to its end (Settings.Budget
// 0); nil otherwise: a budgeted solve returns an iterate, not a solution,
// and its iterates follow the proximal centre (the forklift at a budget of
// 5 block pivots drove 12.6 m of its path from the last step's impulses,
// 28.09 m from 0: TestRunForkliftBudgets).
func (w *World) lastStepReference() []float64 {
	if !w.Settings.Coherent.On() || w.Settings.Budget != 0 {
		return nil
	}
	// A copy: previousImpulses' buffer is the safeguard's anchor too, and
	// LastReference returns this after the step.
	w.coherentRef = append(w.coherentRef[:0], w.previousImpulses()...)
	return w.coherentRef
}

// estimateLocally gives the new contacts their x̂ₙ when they are few
// among old ones (fewer than a quarter of the step's points): projected
// Gauss–Seidel sweeps over the new contacts' normal rows alone, x_i ←
// max(0, x_i − (A x + b)_i / a_ii), with every other row held at its
// impulse of the last step (previousImpulses: an old contact's by its key,
// the joints' by position) and the new friction rows at zero, starting
// from fillContactRows' effective-mass estimate. It sweeps until no
// impulse moves by more than 10⁻⁶ of the largest, or estimateSweeps
// sweeps ran (counted in Stats.SeedSweeps). The new contacts' friction
// bounds follow (freshBounds) and their normal rows start free where the
// estimate is positive.
//
// This is the pre-solve's problem with the old rows fixed at the warm
// start instead of solved again: each new contact meets the loads its
// neighbours carried a step ago, which is what the old rows' index sets
// and impulses say they will carry again. A full pre-solve (a BPP solve
// of the whole pile with the new friction rows pinned) costs as much as
// the step's solve and, from the same warm start, often more: in the
// 100-box random pile a landing box with 2 new points among 400 took 160
// pre-solve iterations (the trial budget spent, then the restart).
func (w *World) estimateLocally(as *assemblyStage, cs *contactStage, rs *rowStage) {
	pre := &w.ws.presolve
	x := w.previousImpulses()
	a, b := as.eq.Matrix(), as.eq.B
	for i := range cs.points {
		if pt := &cs.points[i]; pt.Fresh {
			x[pt.Row] = pt.XN
		}
	}
	for sweep := 0; sweep < estimateSweeps; sweep++ {
		moved, size := 0.0, 0.0
		for i := range cs.points {
			pt := &cs.points[i]
			if !pt.Fresh {
				continue
			}
			r := pt.Row
			aii := a.At(r, r)
			if !(aii > 0) {
				continue
			}
			v := math.Max(0, x[r]-(a.RowDot(r, x)+b[r])/aii)
			moved = math.Max(moved, math.Abs(v-x[r]))
			size = math.Max(size, v)
			x[r] = v
		}
		pre.seedSweeps++
		if moved <= 1e-6*size {
			break
		}
	}
	for i := range cs.points {
		pt := &cs.points[i]
		if !pt.Fresh {
			continue
		}
		pt.XN = x[pt.Row]
		rs.start[pt.Row] = lcp.AtLower
		if pt.XN > 0 {
			rs.start[pt.Row] = lcp.Free
		}
	}
	freshBounds(as, cs, rs)
}

// freshBounds sets the new contacts' friction bounds ±μ x̂ₙ and the
// rolling bounds ±c_rr (x̂ₙ₁ + x̂ₙ₂) of manifolds with a new point, in
// the step's problem and rows, from the x̂ₙ the pre-solve gave them.
func freshBounds(as *assemblyStage, cs *contactStage, rs *rowStage) {
	for i := range cs.points {
		pt := &cs.points[i]
		l := pt.Layout()
		if pt.Fresh && l.Friction > 0 {
			b := pt.Mu * pt.XN
			for _, k := range [2]int{pt.Row + l.Friction, pt.Row + l.Friction + 1} {
				as.eq.Lo[k], as.eq.Hi[k] = -b, b
				rs.rows[k].Lo, rs.rows[k].Hi = -b, b
			}
		}
		if l.Rolling > 0 && (pt.Fresh || cs.points[i-1].Fresh) {
			b := pt.Roll * (cs.points[i-1].XN + pt.XN)
			r := pt.Row + l.Rolling
			as.eq.Lo[r], as.eq.Hi[r] = -b, b
			rs.rows[r].Lo, rs.rows[r].Hi = -b, b
			pt.RollBound = b
		}
	}
}

// estimateSweeps is the number of projected Gauss–Seidel sweeps whose
// index sets start the new contacts' normal rows in the pre-solve (see
// estimateNewContacts). Their force needs about one sweep per layer of
// a stack to reach the bottom, but only its sign matters: 20 sweeps give
// the pre-solve of a 200-brick (80-layer) wall 8 block-pivoting
// iterations, 5 sweeps 126.
const estimateSweeps = 20

// freshPoints returns the number of new contact points of the step.
func (w *World) freshPoints() int {
	n := 0
	for i := range w.ws.contacts.points {
		if w.ws.contacts.points[i].Fresh {
			n++
		}
	}
	return n
}

// preSolveTrial is the iteration budget of a pre-solve whose old rows
// start from the last step's index sets. That start needs 2–3 iterations
// on a resting wall (at most 14 measured over 300 steps of 30 and 100
// bricks; 5–11 on step 1 of walls and pyramids up to 496 bricks), but on
// a 200-brick wall whose contact detection flickers a few dozen keys per
// step it occasionally sent block pivoting into its single-pivot crawl:
// 2 008 and 26 652 iterations (14 s and 193 s of CPU) at two of 300
// steps. A pre-solve that runs out of this budget is restarted with every
// row's index set from the Gauss–Seidel sweeps (seedNewNormals(true)),
// which end such a crawl.
const preSolveTrial = 50

// seedNewNormals sets the start state of each new contact's normal row
// (with all, of every row) from estimateSweeps projected Gauss–Seidel
// sweeps on the pre-solve problem ws.presolve.eprob, from x = 0: free where the
// impulse is strictly inside its bounds, at the bound it reached
// otherwise. Without all, old rows keep last step's index sets, and a new
// point of a manifold that the sweeps load starts free (spreadPatchLoad),
// except the lower points of a new upright patch (startUprightPatches).
// The sweeps run in body space (lcp.PGS.BodySpace): the same projected
// Gauss–Seidel iteration on the same MLCP, its iterates equal to A's
// sweeps to rounding, at O(rows) a sweep instead of O(nnz A) (a brick
// couples its tens of contact rows pairwise in A): on the 210-brick
// pyramid's step 1 the 20 sweeps gave the same start index sets as A's.
func (w *World) seedNewNormals(all bool) {
	pre := &w.ws.presolve
	ws := &w.ws
	pre.seedPGS.BodySpace = true
	err := pre.seedPGS.Solve(&pre.seedRes, &pre.eprob, lcp.Settings{MaxIterations: estimateSweeps})
	pre.seedSweeps += pre.seedRes.Iterations
	if err != nil || len(pre.seedRes.States) != len(ws.build.rows) {
		return // a row PGS cannot relax: keep the effective-mass estimates
	}
	if all {
		copy(ws.build.start, pre.seedRes.States)
		return
	}
	for i := range ws.contacts.points {
		pt := &ws.contacts.points[i]
		if pt.Fresh {
			ws.build.start[pt.Row] = pre.seedRes.States[pt.Row]
		}
	}
	if !pre.noSpread {
		spreadPatchLoad(ws.build.start, ws.contacts.points, pre.seedRes.States)
	}
	if !pre.noUpright {
		startUprightPatches(ws.build.start, ws.contacts.points, w.Settings.Gravity)
	}
}

// startUprightPatches starts the normal rows of each new contact patch
// on an upright face (its normal perpendicular to gravity g, to within
// uprightCos) with its points below the patch's centre, along g,
// unloaded (AtLower) and the others free: the end faces of neighbouring
// bricks in a course, touching but not pressed. In the pre-solve's
// problem (new friction pinned) such a patch carries no weight; from the
// sweeps' start, which leaves it a load at their transient level
// (10⁻⁴ of a support's) and so every corner free (spreadPatchLoad), the
// first face has it carry a couple instead, its upper corners pushing and
// its lower ones pulling, and the second face drops the lower ones: on
// the pyramids built at rest, every such patch ends with its upper
// corners free (at a load of the regularization's level) and its lower
// ones unloaded, 930 of 930 at 496 bricks. From this start the pre-solve
// ends on the same face with one block-pivoting iteration fewer: 3
// instead of 4 on the 55-, 210- and 496-brick pyramids, whose second face
// (a partial refactorization at all but 3·10⁻⁵ of a full one's flops)
// becomes 4 and 16 row modifications at 55 and 210 bricks and a partial
// refactorization at 69 % of the flops at 496 (36 support corners under
// the apex leave it); 4 instead of 5 on a 30-brick wall whose neighbours
// touch (TestUprightPatchesStart). Cachegrind, a process that builds the
// pyramid and takes its step 1 (BenchmarkPyramidStep1Large and
// BenchmarkPyramidStep1 at one iteration): 813 M instructions instead of
// 911 M at 496 bricks, 283 M instead of 328 M at 210. The answer solves the same
// MLCP to the same tolerance (the bodies' velocities after the step
// agree to 2·10⁻¹⁴ m/s). A patch whose lower corners carry load after
// all (a box leaning on a wall, a thrust) frees them in the pre-solve's
// first exchange. Patches with an old point, patches without points below
// their centre (two points level with each other) and every patch
// without gravity keep their start. Walls with gaps between neighbours
// have no such patch, and the random piles of 100 and 1 000 boxes take
// the same iterations (BenchmarkRandomPile100Mean and 1000Mean: 1.383
// and 1.938 a step, at most 27 and 34).
func startUprightPatches(start []lcp.State, pts []point, g mgl64.Vec3) {
	gl := g.Len()
	if !(gl > 0) {
		return
	}
	down := g.Mul(1 / gl)
	for i := 0; i < len(pts); {
		m := max(pts[i].manifold, 1)
		patch := pts[i:min(i+m, len(pts))]
		i += m
		if m < 3 || math.Abs(patch[0].Normal.Dot(down)) > uprightCos {
			continue
		}
		fresh, centre, lo, hi := true, 0.0, math.Inf(1), math.Inf(-1)
		for j := range patch {
			d := patch[j].Point.Dot(down)
			fresh = fresh && patch[j].Fresh
			centre += d / float64(len(patch))
			lo, hi = math.Min(lo, d), math.Max(hi, d)
		}
		if !fresh || !(hi-lo > 0) {
			continue
		}
		for j := range patch {
			start[patch[j].Row] = lcp.Free
			if patch[j].Point.Dot(down) > centre {
				start[patch[j].Row] = lcp.AtLower // below the centre
			}
		}
	}
}

// uprightCos is the largest |n·ĝ| of an upright contact face for
// startUprightPatches: 0.01, a face within 0.6° of vertical. Stacks built
// at rest have their faces upright to rounding; a face tilted further
// carries a share of the weight through its normal, which the sweeps'
// start is there to find.
const uprightCos = 0.01

// spreadPatchLoad starts free the normal row of each new point of a
// manifold one of whose points the seed sweeps (seed, their index sets)
// leave loaded, i.e. free. A manifold's points lie on one contact patch
// (a box face on a face: four coplanar corners), whose normal rows are
// redundant: the patch's load may be spread over them in many ways. The
// pre-solve on such a semidefinite A runs in regularized mode (lcp.BPP)
// from the proximal centre 0, whose solutions spread the load over every
// point of a loaded patch unless the patch's centre of pressure forces a
// corner off, while Gauss–Seidel from x = 0 gives a patch's first relaxed
// point all the load the patch needs and leaves its siblings, which then
// see w = 0, at zero: their bound there is the sweep order's, not the
// problem's. The pre-solve's index sets are a start only (at BPP's
// default tolerance it ends at the same solution from any start, at
// preSolveTolerance at a solution to that tolerance); from this one, at
// the default tolerance, it took 5 block-pivoting
// iterations instead of 6 on the 210-brick pyramid's step 1, 6 instead of
// 8 on the 496-brick one's, 4 instead of 5 and 6 on the 30- and
// 100-brick walls' (BenchmarkPyramidStep1, BenchmarkWallStep1).
func spreadPatchLoad(start []lcp.State, pts []point, seed []lcp.State) {
	for i := 0; i < len(pts); {
		m := max(pts[i].manifold, 1)
		loaded := false
		for j := i; j < i+m && j < len(pts); j++ {
			loaded = loaded || seed[pts[j].Row] == lcp.Free
		}
		for j := i; loaded && j < i+m && j < len(pts); j++ {
			if pts[j].Fresh {
				start[pts[j].Row] = lcp.Free
			}
		}
		i += m
	}
}

// freshLoadFloor: a new contact whose pre-solve normal impulse x̂ₙ
// is, in velocity units (x̂ₙ·a_nn), at most this fraction of the velocity
// scale max|b| starts the main solve unloaded: its normal row at its lower
// bound, not free. A new contact's friction or rolling row whose bound b_r
// (μ x̂ₙ, c_rr (x̂ₙ₁ + x̂ₙ₂)) is likewise at most the floor (b_r·a_rr)
// starts at the bound the pre-solve's slip w_r pushes it to (AtUpper for
// w_r < 0, AtLower otherwise); the others start free.
// The floor is lcp.BPP's tolerance on a semidefinite problem (regularized
// mode, 10⁻⁶ of max|b|): an x̂ₙ below it is the regularized pre-solve's
// rounding of a contact that touches but carries no load (on a pyramid
// built at rest, x̂ₙ ≈ 2·10⁻⁹ N·s at contacts whose neighbours carry the
// brick), and a free start lets the first face put a tangential impulse of
// that order outside the bound ±μ x̂ₙ (2·10⁻⁹ against 4·10⁻¹¹) and the
// normal impulse below 0 (−9·10⁻⁹), which block pivoting then moves out:
// 406 infeasible rows in the main solve's first face of the 210-brick
// pyramid's step 1 and 128 in the 496-brick one's, which took 3 iterations
// each; from the unloaded start both take 1, as do the 55-brick pyramid's
// (walls of 30 and 100 bricks have no such contact: 1 before and after).
// Either start is a start only: the main solve ends at a solution of the
// same MLCP to the same tolerance (TestStep1MainSolveFromPreSolve).
const freshLoadFloor = 1e-6

// raiseFrictionBounds raises, after a solve whose answer is sol.res, the
// friction bounds of each contact manifold (a pair's points) one of whose
// points has a friction row at its bound ±μ x̂ₙ while the solve's normal
// impulse x_n exceeds x̂ₙ by more than boundRaise of it, as the manifold's
// Σ x_n does its Σ x̂ₙ (a load that only moves between a face's corners,
// a slide's, leaves the bounds to the estimate): every point of the
// manifold gets x̂ₙ = x_n and the bounds ±μ x_n, in the step's problem and
// rows (pt.XN, as.eq.Lo/Hi, rs.rows). It reports whether it raised any. The bounds μ x̂ₙ come from the last step's normal impulse or
// the pre-solve's estimate (fillContactRows, estimateNewContacts); a
// sudden load (a push at the top of a tall box, which presses its front
// edge into the floor) needs more friction in the step than that allows,
// within Coulomb's μ x_n of the step's own normal impulse, and the contact
// slipped where Coulomb's law holds it. The whole manifold follows its
// solve, the points whose load fell as well, so that its bounds add up to
// μ times its normal impulse, as Coulomb's law bounds the pair's friction.
// Rolling bounds keep their estimate.
func (w *World) raiseFrictionBounds(as *assemblyStage, cs *contactStage, rs *rowStage, sol *solveStage) bool {
	x := sol.res.X
	if len(x) != len(rs.rows) {
		return false
	}
	raised := false
	for i := 0; i < len(cs.points); {
		n := max(1, cs.points[i].manifold)
		pts := cs.points[i:min(i+n, len(cs.points))]
		i += len(pts)
		hit, est, got := false, 0.0, 0.0
		for j := range pts {
			pt := &pts[j]
			l := pt.Layout()
			if l.Friction < 0 {
				continue
			}
			est, got = est+pt.XN, got+math.Max(0, x[pt.Row])
			r := pt.Row + l.Friction
			hit = hit || x[pt.Row] > pt.XN*(1+boundRaise) && (atBound(x[r], as.eq.Hi[r]) || atBound(x[r+1], as.eq.Hi[r+1]))
		}
		if !hit || !(got > est*(1+boundRaise)) {
			continue
		}
		for j := range pts {
			pt := &pts[j]
			l := pt.Layout()
			if l.Friction < 0 {
				continue
			}
			pt.XN = math.Max(0, x[pt.Row])
			b := pt.Mu * pt.XN
			for _, k := range [2]int{pt.Row + l.Friction, pt.Row + l.Friction + 1} {
				as.eq.Lo[k], as.eq.Hi[k] = -b, b
				rs.rows[k].Lo, rs.rows[k].Hi = -b, b
				sol.changed[k] = true
			}
		}
		raised = true
	}
	return raised
}

// atBound reports whether the friction impulse x of a row with bounds
// ±hi sits at one of them, to 1e-9 of the bound (the solver's tolerance).
func atBound(x, hi float64) bool { return math.Abs(x) >= hi*(1-1e-9) }

// boundRaise is the fraction by which a step's normal impulse must exceed
// the x̂ₙ of its friction bounds for raiseFrictionBounds to raise them, and
// maxResolves the solves again a step may take. At 1 % the bound a
// contact can slip at is within 1 % of Coulomb's μ x_n, below the spread
// of measured friction coefficients, and a steady contact (a box sliding
// or resting, whose normal impulse repeats to rounding) never triggers
// it; each solve again can raise the normal impulses further (more
// friction at a pivot presses it harder), so a budget ends the fixed
// point.
const (
	boundRaise  = 0.01
	maxResolves = 4
)

// turnHeldFriction turns, after a solve whose answer is sol.res, the
// friction frames of a contact manifold's (a pair's) points that are not
// sliding (point.held) when the friction impulses of all its points with
// friction rows and a last step (the sliding ones too) add up to an f at
// or outside Coulomb's circle |f| ≥ μ Σ x_n, x_n the solve's normal
// impulses, more than offAxisCos off both axes of a held point's frame:
// the held points' frames turn to have an axis along a target direction
// (frameTurn; f at the manifold's first turn in the step; the nearest
// such frame, nearestAxis: at most 45° from the old t₁) and their
// friction rows in rs.rows are filled again along it, if the load its
// points carry both in the solve and in the bounds, μ Σ min(x_n, x̂ₙ), is
// at least turnLoad of its bounds' μ Σ x̂ₙ, and |f| is more than μ Σ x̂ₙ:
// an f within that radius is one Coulomb's circle on the bounds' loads
// allows, and a frame along f would bound it the same; its excess over
// μ Σ x_n is the load moved between the points since the last step, which
// no turn removes (on the 100-box random pile a box whose far corners
// carried more than their x̂ₙ turned 3–13° back and forth in each of 4
// solves again at 1 % over μ Σ x̂ₙ, 8 iterations each). It reports
// whether it turned any; the step's problem is then to be assembled and
// solved again. Box friction holds such a pair with up to √2 μ Σ x̂ₙ, more
// than Coulomb's law allows, where a push reaches it only through other
// contacts (a row of boxes pushed from behind at 45° to their frames) and
// its free slip (freeSlipAxis) is zero; along f its points' bounds add up
// to Coulomb's and it slides in the same step if the push exceeds them.
// The manifold turns as one: its points share its load in any way its
// normal rows allow (four corners of a face), and points turned one by
// one left the friction to the others, still in their old frames. Its
// sliding points count in f and in its circle as its held ones do: the
// pair's friction is what Coulomb's law bounds, and a sliding point's box
// friction across its slip (its t₂ row) balances the held ones' (on the
// 100-box random pile at step 47 a box slid at 1.2 mm/s on two corners,
// one sliding and one held, whose friction across the slip pushed the
// corners apart: the held one's alone, 0.153 N·s, was outside its circle,
// 0.118, the pair's, 0.2445, inside its own, 0.2452; turning the held one
// swung its friction by 35° and 45° in solves again of 9 and 1
// iterations). A pair inside the circle (a resting wall's, pyramid's or
// tower's, whose friction is a small part of μ Σ x_n) is never turned:
// there box friction and Coulomb's hold alike, and its rows keep their
// bits. Only manifolds on a support (a static or kinematic body: the
// floor) turn: between two dynamic bodies that move as one (two boxes
// pushed face to face) the friction is an internal force of the pair,
// which the solve may share in any way the rows allow, outside the circle
// or not, and turning it to each solve's share turned those frames again
// at every solve. A push that reaches such a contact across it shows in
// its free slip (freeSlipAxis).
//
// The turns of a step search for the frame whose solve leaves f along an
// axis. Turning to f each time is the fixed-point iteration θ ← θ + g(θ)
// on the frame's angle θ, g the residual (the angle from the frame's
// nearest axis to f); it settles only where f turns with the frame by
// less than the frame turns, |1 + g′| < 1. Where f turns against it, it
// swings: on the 100-box random pile, a box that slid while it turned
// about a held corner had its friction turn 41° back for a 44.5° turn of
// the frame (g′ ≈ −1.9), and its frame swung by about 41° in each of 4
// solves again (16 + 2 + 3 + 8 + 3 iterations). So the manifold's frame
// turns to f only until residuals of both signs bracket the frame along
// f, and then by regula falsi in the bracket (frameTurn.next): a pushed
// row of boxes at 30° to their frames turns by 32.9°, −3.2° and 0.24°,
// and slides at Coulomb's speed to 7e-8 m/s (turning to f, by 32.9°,
// −3.5°, 0.70° and 0.14°, it stopped 1 mrad off, 2.5e-5 m/s short).
//
// The solve again starts where this one ended. A turned row keeps its
// index set in sol.res.States (the next solve's warm start), or starts at
// the bound that the point's friction, projected on the row's new axis,
// reaches; that projection, clamped to the row's bounds, is its entry of
// sol.againRef, the next solve's proximal centre with Settings.Coherent on
// and no Budget, whose other rows are this solve's x. The turned manifold's rows are those of a
// semidefinite block (a box on four points), where a face one or two
// index sets off the solution has no exact solution and block pivoting
// wanders: from free turned rows, t₁ along +f (a turn by up to 180°,
// which swaps the rows' bounds) and the last step's impulses as proximal
// centre, an island solved again took 5.5 iterations on average on the
// 100-box random pile (438 in 79) and 7.1 on the 1 000-box one (3 672 in
// 517); from these starts 2.3 (187 in 82) and 2.9 (1 615 in 548)
// (BenchmarkRandomPile100Mean, BenchmarkRandomPile1000Mean).
func (w *World) turnHeldFriction(cs *contactStage, rs *rowStage, sol *solveStage) bool {
	x := sol.res.X
	if len(x) != len(rs.rows) {
		return false
	}
	turned := false
	for i := 0; i < len(cs.points); {
		pts := cs.points[i:min(i+max(1, cs.points[i].manifold), len(cs.points))]
		i += len(pts)
		if !w.onSupport(pts[0].A) && !w.onSupport(pts[0].B) {
			continue // between two dynamic bodies: see below
		}
		var f mgl64.Vec3
		bound, est, shared := 0.0, 0.0, 0.0
		held := false
		for j := range pts {
			pt := &pts[j]
			l := pt.Layout()
			if pt.Fresh || l.Friction < 0 {
				continue
			}
			held = held || pt.held
			r := pt.Row + l.Friction
			f = f.Add(pt.T1.Mul(x[r])).Add(pt.T2.Mul(x[r+1]))
			xn := math.Max(0, x[pt.Row])
			bound += pt.Mu * xn
			est += pt.Mu * pt.XN
			shared += pt.Mu * math.Min(xn, pt.XN)
		}
		l := f.Len()
		if !held || !(l >= bound) || !(l > est) || shared < turnLoad*est { // l > est ≥ 0: l > 0
			continue
		}
		u := f.Mul(1 / l)
		// The held points' common frame (t₁ of one of them, if every
		// other's axes are along its own), and whether f lies along
		// every one's axes already.
		var n, frame mgl64.Vec3
		along := true
		for j := range pts {
			if pt := &pts[j]; pt.held && !pt.Fresh {
				if n == (mgl64.Vec3{}) {
					n, frame = pt.Normal, pt.T1
				} else if frame != (mgl64.Vec3{}) && !onAxis(pt.T1, frame, n.Cross(frame)) {
					frame = mgl64.Vec3{}
				}
				along = along && onAxis(u, pt.T1, pt.T2)
			}
		}
		if along {
			continue
		}
		a := u // the direction an axis of the turned frames takes
		if len(sol.turns) == len(cs.points) {
			a = sol.turns[i-len(pts)].target(u, n, frame)
		}
		for j := range pts {
			pt := &pts[j]
			if !pt.held || pt.Fresh {
				continue
			}
			t1 := a.Sub(pt.Normal.Mul(a.Dot(pt.Normal)))
			if tl := t1.Len(); tl > 1e-6 && !onAxis(t1.Mul(1/tl), pt.T1, pt.T2) {
				r := pt.Row + 1
				fp := pt.T1.Mul(x[r]).Add(pt.T2.Mul(x[r+1])) // the point's friction
				axis := nearestAxis(t1.Mul(1/tl), pt.Normal, pt.T1)
				pt.T1 = axis
				pt.T2 = pt.Normal.Cross(pt.T1)
				pt.FrictionRows(rs.rows[r:r+2], w.Bodies)
				for k, t := range [2]mgl64.Vec3{pt.T1, pt.T2} {
					v, lo, hi := fp.Dot(t), rs.rows[r+k].Lo, rs.rows[r+k].Hi
					switch {
					case v <= lo:
						sol.res.States[r+k] = lcp.AtLower
					case v >= hi:
						sol.res.States[r+k] = lcp.AtUpper
					}
					if len(sol.againRef) == len(x) {
						sol.againRef[r+k] = v // clamped to [lo, hi] by the step
					}
				}
				sol.changed[r], sol.changed[r+1] = true, true
				turned = true
			}
		}
	}
	return turned
}

// turnLoad is the least share of its rows' bound estimate μ Σ x̂ₙ that a
// manifold's load shared by the solve and the bounds, μ Σ min(xₙ, x̂ₙ),
// must be for turnHeldFriction to turn it. Turning makes box friction's
// limit along f, μ Σ x̂ₙ, Coulomb's μ Σ xₙ only where the two agree point
// by point; a manifold lifting off (xₙ → 0 under the last step's x̂ₙ)
// stays outside its circle in every frame, and its turns did not settle:
// on the 100-box random pile a corner at |f| ≈ 90 μ Σ xₙ turned in each of
// 4 solves again by 45° back and forth (53 iterations in a step). So did a
// box rocking from one edge to the other, whose sums agreed (μ Σ xₙ 0.60,
// μ Σ x̂ₙ 0.59) while the points with bounds carried no load and those
// with load had no bounds: its frame turned by 18–45° in each of 4 solves
// again (40 iterations in the step). Its friction is then as stale as x̂ₙ,
// turned or not.
const turnLoad = 0.5

// frameTurn is turnHeldFriction's record of a manifold's turns in a
// step: ref, its friction's direction at its first turn (zero before);
// theta, the angle about the normal from ref to an axis of its held
// points' frame; and the latest residual (the signed angle from that axis
// to the friction's direction, within ±45°) above zero, ga at angle a,
// and below it, gb at b (hasA, hasB once seen); last is the sign of the
// latest.
type frameTurn struct {
	ref                 mgl64.Vec3
	theta, a, ga, b, gb float64
	hasA, hasB          bool
	last                float64
}

// target records the manifold's friction direction u (a unit tangent of
// the normal n) and returns the direction an axis of its held points'
// frames is to take. frame is the t₁ of those frames if they are one
// frame, else zero: at the first turn their residual then counts as the
// first of the bracket, else the turn only sets the frame along u.
func (ft *frameTurn) target(u, n, frame mgl64.Vec3) mgl64.Vec3 {
	if ft.ref == (mgl64.Vec3{}) {
		ft.ref = u
		if frame != (mgl64.Vec3{}) {
			g := angleAbout(frame, nearestAxis(u, n, frame), n)
			ft.theta = -g
			ft.next(g) // theta 0: along u
		}
		return u
	}
	g := angleAbout(ft.ref, u, n) - ft.theta
	g -= math.Pi / 2 * math.Round(g/(math.Pi/2)) // the nearest axis
	ft.next(g)
	return rotateAbout(ft.ref, n, ft.theta)
}

// next records the residual g of the frame at angle theta and moves theta:
// by g (to the friction) until residuals of both signs bracket the frame
// along it; then to the root of the line through the bracket's ends
// (regula falsi), halving the residual of an end kept twice in a row (the
// Illinois rule), so that the bracket closes.
func (ft *frameTurn) next(g float64) {
	if g > 0 {
		if ft.last > 0 && ft.hasB {
			ft.gb /= 2
		}
		ft.a, ft.ga, ft.hasA = ft.theta, g, true
	} else {
		if ft.last < 0 && ft.hasA {
			ft.ga /= 2
		}
		ft.b, ft.gb, ft.hasB = ft.theta, g, true
	}
	ft.last = g
	if ft.hasA && ft.hasB {
		ft.theta = (ft.a*ft.gb - ft.b*ft.ga) / (ft.gb - ft.ga)
	} else {
		ft.theta += g
	}
}

// angleAbout returns the signed angle about the unit normal n from the
// tangent a to the tangent b, in (−π, π].
func angleAbout(a, b, n mgl64.Vec3) float64 {
	return math.Atan2(a.Cross(b).Dot(n), a.Dot(b))
}

// rotateAbout returns the tangent t (t·n = 0) rotated by the angle a
// about the unit normal n.
func rotateAbout(t, n mgl64.Vec3, a float64) mgl64.Vec3 {
	s, c := math.Sincos(a)
	return t.Mul(c).Add(n.Cross(t).Mul(s))
}

// nearestAxis returns the first friction direction t₁ of the frame about
// the normal n, one of whose axes is the unit tangent u, that is nearest to
// the frame t1 (the largest t₁·t1 among u, −u, n × u and u × n, each with
// t₂ = n × t₁): the four are one frame up to the rows' order and signs, and
// box friction bounds each the same (the square ±μ x̂ₙ about the axes ±u,
// ±n × u), while the nearest turns the rows by at most 45°.
func nearestAxis(u, n, t1 mgl64.Vec3) mgl64.Vec3 {
	best := u
	for _, c := range [3]mgl64.Vec3{u.Mul(-1), n.Cross(u), u.Cross(n)} {
		if c.Dot(t1) > best.Dot(t1) {
			best = c
		}
	}
	return best
}

// onSupport reports whether body b (or constraint.World) is a support
// that the step does not move: the world, a static or a kinematic body.
func (w *World) onSupport(b int) bool {
	return b == constraint.World || w.Bodies[b].Kinematic
}
