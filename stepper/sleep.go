package stepper

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/internal/num"
)

// Sleep is Settings.Sleep: whether and when resting islands go to sleep,
// as in Box2D (b2_linearSleepTolerance, b2_timeToSleep), Bullet
// (deactivation time) and ODE (dWorldSetAutoDisableFlag).
//
// Falling asleep. After each step the dynamic bodies are grouped into
// islands through the step's rows, joints and contacts (static and
// kinematic bodies split nothing: two boxes on one floor are two
// islands). An island whose every body has moved slower than LinearSpeed
// and turned slower than AngularSpeed, without an applied force or
// torque, for ⌈Time/h⌉ consecutive steps goes to sleep: its velocities are
// set to zero (Stats.EnergyAdded counts the kinetic energy removed) and
// its bodies stop being simulated. An island with a joint motor row, or
// with a row to a kinematic body that moves, never sleeps.
//
// A sleeping body gets no free velocity (gravity does not accumulate) and
// is not integrated or projected, so its pose keeps its bits; its pairs
// with other sleeping bodies, static bodies, fixed geoms and kinematic
// bodies at rest are not narrow-phased, and its joints' rows are not
// built (the joint rows' warm start by position is lost for a step when
// the number of awake joint rows changes). Its contacts' warm starts are
// kept for its waking. World.Asleep says which bodies sleep,
// Stats.Sleeping and World.Sleeping count them.
//
// Waking. Step wakes a whole sleeping island (every body that fell asleep
// with it) when a contact point of one of its bodies with an awake
// dynamic body or a moving kinematic one can close within the step (the
// speculative contacts of detectContacts, so before they touch); when,
// after the controllers, one of its bodies has an applied force or
// torque, a pose or velocity other than those it fell asleep with, or has
// been made static or kinematic; when one of its joints has a motor row
// (constraint's SetMotor) or joins an awake body; and when
// Settings.Gravity changed. A body added to the world starts awake; a
// body index that holds another body than at the last step (bodies
// removed or replaced) wakes every body. Anything else (a body's mass or
// inertia, a geom or material changed, a joint's target) needs
// World.Wake or World.WakeAll.
//
// Cost. A sleeping island costs no rows, no narrow phase and no solve;
// what remains per sleeping body is a comparison for each of its kept
// values (its world inverse inertia and its geoms' poses and bounding
// boxes, kept while its pose, inertia and geoms stay the same bits), the
// energy sums, and a place in the broad phase, which sweeps only when
// more than an eighth of the geoms move (a mover's box is otherwise
// tested against every box; none move when every body sleeps). Its free
// velocity is computed only when it wakes within the step. A settled
// pile of 125 boxes steps 250 to 300 times faster asleep than awake
// (BenchmarkSleepingPile: 61–65 µs against 15.7–18.2 ms per step, -cpu 1,
// on a loaded machine).
type Sleep struct {
	// On turns sleeping on; false, the zero value, never sleeps a body.
	// Turned off, it wakes every sleeping body at the next step.
	// DefaultSettings turns it on; the papers' scenes leave it off.
	On bool
	// LinearSpeed (m/s); 0 means DefaultSleepLinearSpeed (0.05 m/s).
	// A body sleeps only while |v| < LinearSpeed.
	LinearSpeed float64
	// AngularSpeed (rad/s); 0 means DefaultSleepAngularSpeed (2°/s).
	// A body sleeps only while |ω| < AngularSpeed.
	AngularSpeed float64
	// Time (s); 0 means DefaultSleepTime (0.5 s). An island sleeps after
	// ⌈Time/h⌉ steps with every body below both speeds, a growing |v|
	// still below LinearSpeed after ⌈Time/h⌉ more steps at the step's change.
	Time float64
}

// Defaults of Sleep, Box2D's b2_linearSleepTolerance (v3), b2_angularSleepTolerance
// and b2_timeToSleep: a box resting on the floor under the regularized
// contact rows of Eq. (1) moves at rounding-level speeds (below 10⁻⁹ m/s),
// a pendulum passes its turning point below 0.05 m/s for a few
// milliseconds only.
const (
	DefaultSleepLinearSpeed  = 0.05              // m/s
	DefaultSleepAngularSpeed = 2 * math.Pi / 180 // rad/s
	DefaultSleepTime         = 0.5               // s
)

// thresholds returns the linear and angular speeds and the time of s,
// defaults in place of zeros.
func (s *Sleep) thresholds() (lin, ang, t float64) {
	lin, ang, t = s.LinearSpeed, s.AngularSpeed, s.Time
	if lin == 0 {
		lin = DefaultSleepLinearSpeed
	}
	if ang == 0 {
		ang = DefaultSleepAngularSpeed
	}
	if t == 0 {
		t = DefaultSleepTime
	}
	return lin, ang, t
}

// validate reports the first bad field of s as Settings.Validate's error.
func (s *Sleep) validate() error {
	for _, f := range [...]struct {
		name, unit string
		v          float64
	}{{"Sleep.LinearSpeed", "m/s", s.LinearSpeed}, {"Sleep.AngularSpeed", "rad/s", s.AngularSpeed}, {"Sleep.Time", "s", s.Time}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return settingsError(f.name, f.v, "must be finite and ≥ 0 %s (0 = default), got %v", f.unit, f.v)
		}
	}
	return nil
}

// sleepState is the world's sleeping bookkeeping, by body index. A
// sleeping island is a ring of its bodies (next), named by the smallest
// body index it had when it fell asleep (island); its contacts' cache
// entries (warm starts) are kept in kept until it wakes.
type sleepState struct {
	bodies []*body.Body // the body each index held when its state was recorded
	still  []int32      // consecutive steps below the thresholds (awake bodies)
	asleep []bool
	island []int32 // a sleeping body's island name
	next   []int32 // a sleeping body's successor in its island's ring
	pos    []mgl64.Vec3
	rot    []mgl64.Quat // a sleeping body's pose when it fell asleep
	// vel is each body's velocity at the end of the step before
	// (updateSleep): the step's change of it is its acceleration.
	vel    []mgl64.Vec3
	freeOK bool // this step's free velocities exist (between freeVelocities and buildRows)
	// geoms[g] is geom g's pose and bounding box as the last collect
	// computed them while its body slept (sleptBounds).
	geoms []sleptGeom
	// inv[i] is body i's world inverse inertia as updateAwake computed it
	// while the body slept (sleptInvInertia).
	inv      []sleptInertia
	woken    []bool // bodies woken in the current pass of wakePairs
	sleeping int    // number of sleeping bodies
	kept     []keptContact
	driven   []bool // per island of the step: a motor row or a moving kinematic body
	jrows    []constraint.Row
	jctx     constraint.Context
	gravity  mgl64.Vec3 // Settings.Gravity at the last step

	// dynamic and driving count, as wakeChanged found them at the start
	// of the step, the dynamic bodies and the kinematic bodies that move
	// (wakesOthers); Step changes neither flag nor a kinematic velocity,
	// so they hold until the step ends (noMovers).
	dynamic, driving int
}

// keptContact is a sleeping island's contact-cache entry.
type keptContact struct {
	island int32
	key    contactKey
	c      cached
}

// Asleep reports whether body i sleeps (false for an index out of range).
func (w *World) Asleep(i int) bool { return w.sleep.asleepAt(i) }

// Sleeping returns the number of sleeping bodies.
func (w *World) Sleeping() int { return w.sleep.sleeping }

// Wake wakes body i's sleeping island, every body that fell asleep with
// it; nothing for an awake body or an index out of range. Step wakes
// islands itself (Sleep says when); Wake is for a change Step does not
// look at, such as a body's new mass.
func (w *World) Wake(i int) { w.wakeIsland(i, nil) }

// WakeAll wakes every sleeping body.
func (w *World) WakeAll() {
	for i := range w.sleep.asleep {
		w.wakeIsland(i, nil)
	}
}

func (sl *sleepState) asleepAt(i int) bool { return i >= 0 && i < len(sl.asleep) && sl.asleep[i] }

// wakeIsland wakes the sleeping island of body i and puts its contacts'
// kept cache entries back. With m (during a step, after freeVelocities) it
// also gives the island's bodies their free velocities of the step back.
func (w *World) wakeIsland(i int, m *Mass) {
	sl := &w.sleep
	if !sl.asleepAt(i) {
		return
	}
	name := sl.island[i]
	j := int32(i)
	for {
		sl.asleep[j], sl.still[j] = false, 0
		sl.sleeping--
		if m != nil && sl.freeOK {
			// The free velocity freeVelocities skipped (updateAwake):
			// the same per-body computation, so the same bits.
			m.updateRange(int(j), int(j)+1, w.Settings.H, w.Settings.Gravity)
		}
		if int(j) < len(sl.woken) {
			sl.woken[j] = true
		}
		if j = sl.next[j]; int(j) == i {
			break
		}
	}
	k := 0
	for _, kc := range sl.kept {
		if kc.island == name {
			w.ws.memory.cache.put(kc.key, kc.c)
			continue
		}
		sl.kept[k] = kc
		k++
	}
	sl.kept = sl.kept[:k]
}

// sync sizes the per-body state to w.Bodies. A body index that now holds
// another body (bodies removed or replaced) resets the state: every body
// wakes.
func (sl *sleepState) sync(w *World) {
	nb := len(w.Bodies)
	for i := 0; i < min(nb, len(sl.bodies)); i++ {
		if sl.bodies[i] != w.Bodies[i] && sl.sleeping > 0 {
			w.WakeAll()
			break
		}
	}
	if len(sl.bodies) > nb && sl.sleeping > 0 {
		w.WakeAll()
	}
	sl.bodies = append(sl.bodies[:0], w.Bodies...)
	sl.still = resize(sl.still, nb)
	sl.asleep = resize(sl.asleep, nb)
	sl.island = resize(sl.island, nb)
	sl.next = resize(sl.next, nb)
	sl.pos = resize(sl.pos, nb)
	sl.rot = resize(sl.rot, nb)
	sl.vel = resize(sl.vel, nb)
	sl.geoms = resize(sl.geoms, len(w.Geoms))
	sl.inv = resize(sl.inv, nb)
	sl.woken = resize(sl.woken, nb)
}

// resize returns s with length n, keeping its first elements and zeroing
// new ones; it allocates only when n exceeds the capacity.
func resize[T any](s []T, n int) []T {
	if n <= len(s) {
		return s[:n]
	}
	var zero T
	for len(s) < n {
		s = append(s, zero)
	}
	return s
}

// wakeChanged runs at the start of Step, after the controllers: it sizes
// the state to the bodies and wakes the island of every sleeping body that
// someone changed since it fell asleep: a new pose or a velocity (compared
// bit for bit with the state it fell asleep in), an applied force or
// torque, the body made static or kinematic, a joint to an awake dynamic
// body or to a moving kinematic one, or a joint that has a motor row now.
// With Settings.Sleep off, or Settings.Gravity changed, it wakes every
// body.
func (w *World) wakeChanged() {
	sl := &w.sleep
	sl.sync(w)
	sl.freeOK = false
	sl.dynamic, sl.driving = 0, 0
	if sl.sleeping == 0 {
		return
	}
	if !w.Settings.Sleep.On || w.Settings.Gravity != sl.gravity {
		w.WakeAll()
		return
	}
	for i, b := range w.Bodies {
		switch {
		case b.Static:
		case b.Kinematic:
			if b.Vel != (mgl64.Vec3{}) || b.AngVel != (mgl64.Vec3{}) {
				sl.driving++
			}
		default:
			sl.dynamic++
		}
		if !sl.asleep[i] {
			continue
		}
		if b.Static || b.Kinematic || b.Pos != sl.pos[i] || b.Rot != sl.rot[i] || b.Vel != (mgl64.Vec3{}) ||
			b.AngVel != (mgl64.Vec3{}) || b.Force != (mgl64.Vec3{}) || b.Torque != (mgl64.Vec3{}) {
			w.wakeIsland(i, nil)
		}
	}
	for j, c := range w.Joints {
		asleep, wakes := false, false
		for _, b := range c.Bodies() {
			if b < 0 || b >= len(w.Bodies) {
				continue
			}
			asleep = asleep || sl.asleep[b]
			wakes = wakes || w.wakesOthers(b)
		}
		if asleep && (wakes || w.jointHasMotor(j)) {
			for _, b := range c.Bodies() {
				if b >= 0 && b < len(w.Bodies) {
					w.wakeIsland(b, nil)
				}
			}
		}
	}
}

// wakesOthers reports whether body b (an index, or constraint.World)
// wakes a sleeping body it touches: an awake dynamic body, or a kinematic
// body that moves.
func (w *World) wakesOthers(b int) bool {
	if b < 0 || b >= len(w.Bodies) {
		return false
	}
	bd := w.Bodies[b]
	switch {
	case bd.Static:
		return false
	case bd.Kinematic:
		return bd.Vel != (mgl64.Vec3{}) || bd.AngVel != (mgl64.Vec3{})
	}
	return !w.sleep.asleepAt(b)
}

// noMovers reports, within a step (after wakeChanged), whether some body
// sleeps and no body wakes others (wakesOthers): every dynamic body
// sleeps and no kinematic body moves. Then the broad phase skips every
// pair (sleepSkip drops a pair with a sleeping body, the skip rule one of
// two infinite masses), so collect has no candidate pair and no point to
// find. It costs no walk over the bodies or geoms: a sleeping body is
// dynamic (wakeChanged wakes one made static or kinematic), so every
// dynamic body sleeps when the sleeping count is wakeChanged's count of
// dynamic bodies, and wakePairs' wakes only lower the sleeping count.
func (w *World) noMovers() bool {
	sl := &w.sleep
	return sl.sleeping > 0 && sl.sleeping == sl.dynamic && sl.driving == 0
}

// jointHasMotor reports whether joint j fills a Motor row at the current
// poses (into scratch rows: a sleeping joint's rows are not part of the
// step).
func (w *World) jointHasMotor(j int) bool {
	sl := &w.sleep
	c := w.Joints[j]
	d := c.Dim()
	if cap(sl.jrows) < d {
		sl.jrows = make([]constraint.Row, d)
	}
	sl.jrows = sl.jrows[:d]
	sl.jctx = constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	if err := c.Fill(sl.jrows, &sl.jctx); err != nil {
		return true // let the step's own fill report it
	}
	for i := range sl.jrows {
		if sl.jrows[i].Kind == constraint.Motor {
			return true
		}
	}
	return false
}

// jointAsleep reports whether joint j belongs to a sleeping island (a
// sleeping body, the others static or kinematic at rest): its rows are not
// built. wakeChanged has woken every joint with an awake side.
func (w *World) jointAsleep(j int) bool {
	if w.sleep.sleeping == 0 {
		return false
	}
	asleep := false
	for _, b := range w.Joints[j].Bodies() {
		if w.sleep.asleepAt(b) {
			asleep = true
		} else if w.wakesOthers(b) {
			return false
		}
	}
	return asleep
}

// jointRowCount returns the rows of the awake joints (jointAsleep).
func (w *World) jointRowCount() int {
	n := 0
	for j, c := range w.Joints {
		if !w.jointAsleep(j) {
			n += c.Dim()
		}
	}
	return n
}

// updateAwake is freeVelocities' chunk of bodies lo:hi: Mass.updateRange
// on the awake ones. A sleeping body gets a zero free velocity (gravity
// does not accumulate) and its world inverse inertia; its free velocity
// is computed only when a contact wakes it within the step (wakeIsland),
// by the same per-body updateRange, so a woken body's bits are those it
// would have had.
func (w *World) updateAwake(m *Mass, lo, hi int) {
	h, g := w.Settings.H, w.Settings.Gravity
	sl := &w.sleep
	if sl.sleeping == 0 {
		m.updateRange(lo, hi, h, g)
		return
	}
	for i := lo; i < hi; {
		if !sl.asleepAt(i) {
			j := i + 1
			for j < hi && !sl.asleepAt(j) {
				j++
			}
			m.updateRange(i, j, h, g)
			i = j
			continue
		}
		m.Free[i], m.Gyroscopic[i], m.Response[i], m.Rho[i] = [6]float64{}, false, mgl64.Mat3{}, 0
		m.InvInertia[i] = w.sleptInvInertia(i)
		i++
	}
}

// sleptInertia is a sleeping body's world inverse inertia with what it is
// a function of, the body's orientation and body-frame inertia.
type sleptInertia struct {
	ok      bool
	rot     mgl64.Quat
	inertia mgl64.Mat3
	inv     mgl64.Mat3
}

// sleptInvInertia returns sleeping body i's world inverse inertia,
// Body.InvInertiaWorld: the kept value while its orientation and inertia
// are the same bits as when it was computed, else computed and kept.
func (w *World) sleptInvInertia(i int) mgl64.Mat3 {
	b := w.Bodies[i]
	if i >= len(w.sleep.inv) {
		return b.InvInertiaWorld()
	}
	c := &w.sleep.inv[i]
	if !c.ok || c.rot != b.Rot || c.inertia != b.Inertia || b.Static || b.Kinematic {
		*c = sleptInertia{ok: true, rot: b.Rot, inertia: b.Inertia, inv: b.InvInertiaWorld()}
	}
	return c.inv
}

// sleepFree is freeVelocities' hook: from here to buildRows a body that
// wakes gets its free velocity (wakeIsland).
func (w *World) sleepFree() { w.sleep.freeOK = w.sleep.sleeping > 0 }

// sleptGeom is a geom's pose and bounding box (collect's, with no sweep)
// computed while its body slept, with what they are a function of: the
// body, its pose, the geom's shape and local pose, and the margin.
type sleptGeom struct {
	ok     bool
	body   int
	shape  contact.Shape
	local  contact.Pose
	pos    mgl64.Vec3
	rot    mgl64.Quat
	margin float64
	pose   contact.Pose
	box    contact.AABB
}

// sleptBounds is geomBounds' shortcut for a geom of a sleeping body: when
// the geom's kept entry (keepSleptBounds) was computed from the same body,
// body pose, shape, local pose and margin, bit for bit, it sets the geom's
// pose, sweep (0: a sleeping body has no velocity and no free velocity)
// and box from it and returns true; they are the bits geomBounds would
// compute. A settled pile's sleeping boxes so cost a comparison each
// instead of a pose product and a rotated box.
func (w *World) sleptBounds(cs *contactStage, g int, margin float64) bool {
	sl := &w.sleep
	if sl.sleeping == 0 || g >= len(sl.geoms) {
		return false
	}
	gm := &w.Geoms[g]
	if !sl.asleepAt(gm.Body) {
		return false
	}
	c, b := &sl.geoms[g], w.Bodies[gm.Body]
	if !c.ok || c.body != gm.Body || c.margin != margin || c.pos != b.Pos || c.rot != b.Rot || c.local != gm.Local || c.shape != gm.Shape {
		return false
	}
	cs.poses[g], cs.sweep[g], cs.boxes[g] = c.pose, 0, c.box
	return true
}

// keepSleptBounds keeps geom g's pose and box, just computed by
// geomBounds, for sleptBounds when its body sleeps and its sweep is 0.
func (w *World) keepSleptBounds(cs *contactStage, g int, margin float64) {
	sl := &w.sleep
	if sl.sleeping == 0 || g >= len(sl.geoms) || cs.sweep[g] != 0 {
		return
	}
	gm := &w.Geoms[g]
	if !sl.asleepAt(gm.Body) {
		return
	}
	b := w.Bodies[gm.Body]
	sl.geoms[g] = sleptGeom{ok: true, body: gm.Body, shape: gm.Shape, local: gm.Local, pos: b.Pos, rot: b.Rot,
		margin: margin, pose: cs.poses[g], box: cs.boxes[g]}
}

// sleepSkip is the broad phase's sleeping rule: a pair whose bodies
// cannot move each other is not a candidate, two sleeping bodies, or a
// sleeping one and a static body, a fixed geom or a kinematic body at
// rest.
func (w *World) sleepSkip(ga, gb int) bool {
	if w.sleep.sleeping == 0 {
		return false
	}
	a, b := w.bodyOf(ga), w.bodyOf(gb)
	sa, sb := w.sleep.asleepAt(a), w.sleep.asleepAt(b)
	return (sa || sb) && !(sa && w.wakesOthers(b)) && !(sb && w.wakesOthers(a))
}

// wakePairs is collect's hook after the broad phase. In detectContacts
// (free non-nil) a pair of a sleeping body and one that wakes others
// (wakesOthers) whose narrow phase finds a contact point that can close
// within the step wakes the sleeping body's island; the woken bodies get
// their free velocities and bounding boxes back and the broad phase runs
// again, until no island wakes. Then, and in the position projection
// (free nil: sleeping bodies never move within a step), pairs with a
// sleeping body are dropped.
func (w *World) wakePairs(cs *contactStage, free *Mass, margin float64) {
	sl := &w.sleep
	if sl.sleeping == 0 {
		return
	}
	for woke := free != nil; woke; {
		woke = false
		clear(sl.woken)
		for _, pr := range cs.pairs {
			ga, gb := pr[0], pr[1]
			a, b := w.bodyOf(ga), w.bodyOf(gb)
			var sleeper int
			switch {
			case sl.asleepAt(a) && w.wakesOthers(b):
				sleeper = a
			case sl.asleepAt(b) && w.wakesOthers(a):
				sleeper = b
			default:
				continue
			}
			look := margin + cs.sweep[ga] + cs.sweep[gb]
			cs.pts = contact.Collide(cs.pts[:0], w.Geoms[ga].Shape, cs.poses[ga], w.Geoms[gb].Shape, cs.poses[gb], look)
			if len(w.closing(cs.pts, a, b, margin, free)) == 0 {
				continue
			}
			w.wakeIsland(sleeper, free)
			woke = true
		}
		if !woke {
			break
		}
		for g := range w.Geoms {
			if bi := w.bodyOf(g); bi >= 0 && sl.woken[bi] {
				ext := w.Geoms[g].Shape.Extent(cs.poses[g])
				cs.sweep[g] = w.geomSweep(g, ext, free)
				cs.boxes[g] = ext.Padded(margin + cs.sweep[g])
			}
		}
		cs.pairs = cs.sap.Pairs(cs.pairs[:0], cs.boxes, cs.skip)
	}
	k := 0
	for _, pr := range cs.pairs {
		if !sl.asleepAt(w.bodyOf(pr[0])) && !sl.asleepAt(w.bodyOf(pr[1])) {
			cs.pairs[k] = pr
			k++
		}
	}
	cs.pairs = cs.pairs[:k]
}

// updateSleep runs after the step's integration and projection: it counts
// each awake dynamic body's consecutive steps below the thresholds (its
// speeds and, while it grows, the speed its centre would reach in Time at
// the step's acceleration: a box sliding from rest down an incline just steeper than
// its friction angle, at 0.087 m/s², stays below 0.05 m/s for 0.57 s and
// slept at 0.5 s, stuck on the slope for good; gravity and contacts turn
// a body from rest only by moving its centre too, and a spin that grows
// at rest is not a motion the step should keep), forms
// the step's islands from its rows (islandSet) and puts to sleep each
// island that is not driven (a motor row, a row to a moving kinematic
// body) and whose every body has been below them for ⌈Time/h⌉ steps:
// velocities zeroed, the pose kept for wakeChanged, the island's contact
// cache entries kept for its waking. It returns the number of sleeping
// bodies.
func (w *World) updateSleep() int {
	sl := &w.sleep
	s := &w.Settings.Sleep
	sl.gravity = w.Settings.Gravity
	if !s.On {
		return sl.sleeping
	}
	lin, ang, t := s.thresholds()
	need := int32(math.Min(math.Max(math.Ceil(t/w.Settings.H-1e-9), 1), math.MaxInt32)) // ⌈Time/h⌉ steps, at least 1
	ahead := float64(need)                                                              // the step's velocity change, continued for Time
	var zero mgl64.Vec3
	awake := 0 // dynamic bodies awake
	for i, b := range w.Bodies {
		if !b.Static && !b.Kinematic && !sl.asleep[i] {
			awake++
		}
		switch {
		case b.Static || b.Kinematic || sl.asleep[i]:
			sl.still[i] = 0
		case b.Vel.Len() < lin && b.AngVel.Len() < ang && b.Force == zero && b.Torque == zero &&
			!speedingUp(b.Vel, sl.vel[i], ahead, lin) &&
			num.FiniteVec(b.Pos) && num.FiniteQuat(b.Rot): // a sleeping body's state is finite (checkFinite)
			if sl.still[i] < math.MaxInt32 {
				sl.still[i]++
			}
		default:
			sl.still[i] = 0
		}
		sl.vel[i] = b.Vel
	}
	if awake == 0 {
		return sl.sleeping // no island to put to sleep: no partition
	}
	rows := w.ws.build.rows
	// The solve's partition of these rows when it split the step by
	// island (splitIslands), else built here into the same set.
	is := w.partition(rows)
	sl.driven = resize(sl.driven[:0], is.n())
	for i := range rows {
		k := is.rowIsland[i]
		if k < 0 || sl.driven[k] {
			continue
		}
		r := &rows[i]
		if r.Kind == constraint.Motor {
			sl.driven[k] = true
			continue
		}
		for j := 0; j < r.N; j++ {
			if bd := w.Bodies[r.Body[j]]; bd.Kinematic && w.wakesOthers(r.Body[j]) {
				sl.driven[k] = true
			}
		}
	}
	for k := 0; k < is.n(); k++ {
		bodies := is.islandBodies(k)
		ready := true
		for _, i := range bodies {
			ready = ready && !sl.asleep[i] && sl.still[i] >= need
			if sl.driven[k] {
				sl.still[i] = 0
			}
		}
		if ready && !sl.driven[k] {
			w.sleepIsland(bodies)
		}
	}
	return sl.sleeping
}

// speedingUp reports whether a velocity v that was prev a step before
// grows in size and would reach lim within ahead steps more at the step's
// change: a body accelerating from rest, not one a contact stopped.
func speedingUp(v, prev mgl64.Vec3, ahead, lim float64) bool {
	return v.Len() > prev.Len() && v.Add(v.Sub(prev).Mul(ahead)).Len() >= lim
}

// sleepIsland puts the bodies of one island to sleep.
func (w *World) sleepIsland(bodies []int32) {
	sl := &w.sleep
	name := bodies[0]
	for n, i := range bodies {
		b := w.Bodies[i]
		b.Vel, b.AngVel = mgl64.Vec3{}, mgl64.Vec3{}
		sl.asleep[i], sl.still[i] = true, 0
		sl.island[i], sl.next[i] = name, bodies[(n+1)%len(bodies)]
		sl.pos[i], sl.rot[i] = b.Pos, b.Rot
	}
	sl.sleeping += len(bodies)
	ws := &w.ws
	for i := range ws.contacts.points {
		pt := &ws.contacts.points[i]
		if !(sl.asleepAt(pt.A) && sl.island[pt.A] == name) && !(sl.asleepAt(pt.B) && sl.island[pt.B] == name) {
			continue
		}
		if c, ok := ws.memory.cache.get(pt.ck); ok {
			sl.kept = append(sl.kept, keptContact{island: name, key: pt.ck, c: c})
		}
	}
}
