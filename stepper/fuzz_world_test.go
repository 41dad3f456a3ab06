package stepper_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/bpmd"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/mesh"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
)

// FuzzWorld drives the Go API a user drives: the fuzz bytes are decoded
// (fuzzOps) into a sequence of operations on one World (bodies of every
// shape, joints of every kind with limits, motors, springs and servos,
// controllers, every Settings field at valid, boundary and invalid values,
// edits between steps, Step and StepContext with cancellation, the queries
// and the exporters). It asserts what package stepper promises of any
// input:
//   - no panic;
//   - every error names what it is about: a num.FieldError with its Field
//     in the message, or a message that starts with the thing it names
//     (fuzzErrNames), and never a fmt verb error ("%!");
//   - after a Step without error every body's state is finite (Step's
//     check, ErrNonFinite, is the only way a non-finite state may come
//     out) and the Stats agree with the world (Step, Time, Sleeping);
//   - the same bytes give the same bits (bodies' states, the statistics
//     CSV row of every step, every error's text) on GOMAXPROCS 1 and on
//     GOMAXPROCS 2 with the pool's helpers always on and its tasks numbered
//     in reverse (PoolTraceForTest), which is what "same bits for any
//     GOMAXPROCS" (workPool) asks of the stages' merges.
//
// Bodies and geoms are also edited between steps (mass, inertia, pose,
// velocities, flags; a geom's shape, pose, material and body), bodies and
// joints removed, and a failed Step must tell the truth about itself
// (checkFailed), a cancelled StepContext leave the world as it was.
//
// Its seed corpus (fuzzSeeds, and the regressions in
// testdata/fuzz/FuzzWorld) covers every shape, joint kind, setting and edit
// and runs as a normal test in about a second.
func FuzzWorld(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 600 {
			data = data[:600]
		}
		procs := runtime.GOMAXPROCS(1)
		defer runtime.GOMAXPROCS(procs)
		a := fuzzRun(t, data, false)
		runtime.GOMAXPROCS(2)
		b := fuzzRun(t, data, true)
		if !bytes.Equal(a.sum, b.sum) {
			t.Fatalf("GOMAXPROCS 1 and 2 (reversed tasks) differ:\n%s\n---\n%s", diffLog(a.log, b.log), "")
		}
	})
}

// fuzzOutcome is one run's record: the hash of everything it saw and the
// lines it hashed, for a message when two runs differ.
type fuzzOutcome struct {
	sum []byte
	log []string
	w   *stepper.World
}

func diffLog(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

// fuzzReader decodes the fuzz bytes; past their end it reads zeros, so
// every input is a complete program.
type fuzzReader struct {
	b []byte
	i int
}

func (r *fuzzReader) done() bool { return r.i >= len(r.b) }

func (r *fuzzReader) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

// n returns a number in [0, k).
func (r *fuzzReader) n(k int) int { return int(r.byte()) % k }

// fuzzExtremes are the values a careless or hostile caller passes.
var fuzzExtremes = [32]float64{
	0, math.Copysign(0, -1), -1, 1e-300, -1e-300, 5e-324, 1e-12, 1e12, 1e300, -1e300,
	math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, 1e-6,
	1e6, -1e6, 0.5, 2, 1e-3, 1e3, math.SmallestNonzeroFloat64, 3e8, -3e8, 1e154,
	1e-154, 0.999999, 1.000001, 100, -100, 1,
}

// f returns a value in [lo, hi] for bytes below 224 and one of
// fuzzExtremes above.
func (r *fuzzReader) f(lo, hi float64) float64 { return fuzzValue(r.byte(), lo, hi) }

// fuzzValue is fuzzReader.f's map of one byte.
func fuzzValue(c byte, lo, hi float64) float64 {
	if c >= 224 {
		return fuzzExtremes[c-224]
	}
	return lo + (hi-lo)*float64(c)/223
}

func (r *fuzzReader) vec(lo, hi float64) mgl64.Vec3 {
	return mgl64.Vec3{r.f(lo, hi), r.f(lo, hi), r.f(lo, hi)}
}

// quat returns a unit quaternion mostly, a degenerate one sometimes.
func (r *fuzzReader) quat() mgl64.Quat {
	switch r.n(8) {
	case 0:
		return mgl64.Quat{}
	case 1:
		return mgl64.Quat{W: r.f(-2, 2), V: r.vec(-2, 2)} // not normalized
	case 2, 3:
		return mgl64.QuatIdent()
	}
	return mgl64.QuatRotate(r.f(-math.Pi, math.Pi), mgl64.Vec3{r.f(-1, 1), r.f(-1, 1), 1}.Normalize())
}

// fuzzErrNames are the beginnings of the project's error messages that
// name what they are about (an index, a setting, a call).
var fuzzErrNames = regexp.MustCompile(`^(step \d+|controller \d+|body \d+|constraint \d+|geom \d+|joint \d+|row \d+|ExcludePair|ExcludeBodies|SetJointCollision|settings|effort actuator|ray|fuzz|body "|joint "|geom "|[A-Za-z]+ \d+|[A-Za-z ]+: )`)

// checkErr fails t when err does not say what it is about.
func checkErr(t *testing.T, where string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if strings.Contains(msg, "%!") {
		t.Fatalf("%s: error with a format mistake: %q", where, msg)
	}
	var fe *num.FieldError
	if errors.As(err, &fe) {
		if fe.Field == "" && fe.What == "" {
			t.Fatalf("%s: FieldError naming no field: %q", where, msg)
		}
		if fe.Field != "" && !strings.Contains(msg, fe.Field) {
			t.Fatalf("%s: FieldError's message %q leaves out its field %q", where, msg, fe.Field)
		}
		return
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, stepper.ErrNonFinite) || errors.Is(err, stepper.ErrConflict) {
		return
	}
	// A package's bare error ("lcp: singular system") names no subject.
	if !fuzzErrNames.MatchString(msg) || strings.HasPrefix(msg, "lcp:") || strings.HasPrefix(msg, "stepper:") ||
		strings.HasPrefix(msg, "errmeasure:") || strings.HasPrefix(msg, "contact:") {
		t.Fatalf("%s: error names nothing: %q (%T)", where, msg, err)
	}
}

// fuzzWorld is one run's state: the world, the decoder and the record.
type fuzzWorld struct {
	t        *testing.T
	r        *fuzzReader
	w        *stepper.World
	reversed bool
	log      []string
	steps    int
	cancel   context.CancelFunc
	stopAt   int
	seen     int
	lastOK   bool // the last Step or StepContext returned no error
}

func (fw *fuzzWorld) record(format string, args ...any) {
	fw.log = append(fw.log, fmt.Sprintf(format, args...))
}

func (fw *fuzzWorld) errLine(what string, err error) {
	checkErr(fw.t, what, err)
	if err != nil {
		fw.record("%s: %v", what, err)
	} else {
		fw.record("%s: ok", what)
	}
}

// state records every body's state bits.
func (fw *fuzzWorld) state() { fw.record("state %s", fw.snapshot()) }

// snapshot is every body's state bits.
func (fw *fuzzWorld) snapshot() string {
	var b strings.Builder
	for i, bd := range fw.w.Bodies {
		if bd == nil {
			fmt.Fprintf(&b, "%d nil;", i)
			continue
		}
		fmt.Fprintf(&b, "%d %x %x %x %x %x %x;", i, bits3(bd.Pos), bits3(bd.Rot.V), math.Float64bits(bd.Rot.W),
			bits3(bd.Vel), bits3(bd.AngVel), math.Float64bits(bd.Mass))
	}
	return b.String()
}

func bits3(v mgl64.Vec3) [3]uint64 {
	return [3]uint64{math.Float64bits(v[0]), math.Float64bits(v[1]), math.Float64bits(v[2])}
}

// Observe cancels the step's context after stopAt iterates
// (StepContext cancelled mid-solve).
func (fw *fuzzWorld) Observe(lcp.Iterate) {
	fw.seen++
	if fw.cancel != nil && fw.seen == fw.stopAt {
		fw.cancel()
	}
}

const (
	fuzzMaxBodies = 10
	fuzzMaxJoints = 10
	fuzzMaxSteps  = 40
	fuzzMaxOps    = 60
)

// fuzzRun decodes data into operations on a new World and runs them.
func fuzzRun(t *testing.T, data []byte, reversed bool) fuzzOutcome {
	r := &fuzzReader{b: data}
	s := stepper.DefaultSettings()
	if r.n(2) == 1 {
		s.Sleep = stepper.Sleep{}
	}
	s.H = []float64{1.0 / 60, 1e-3, 1.0 / 240, 0.05}[r.n(4)]
	w, err := stepper.New(s)
	if err != nil {
		t.Fatalf("New(DefaultSettings with h %v): %v", s.H, err)
	}
	if reversed {
		stepper.PoolAlwaysSharesForTest(w)
		stepper.PoolTraceForTest(w, func(n int, task func(k int)) func(k int) {
			return func(k int) { task(n - 1 - k) }
		})
	}
	fw := &fuzzWorld{t: t, r: r, w: w, reversed: reversed}
	for op := 0; op < fuzzMaxOps && !r.done(); op++ {
		fw.op(r.n(14))
	}
	// Every program ends with steps, so that what it built is stepped.
	fw.step(3)
	fw.queries()
	sum := sha256.New()
	for _, l := range fw.log {
		sum.Write([]byte(l))
		sum.Write([]byte{'\n'})
	}
	return fuzzOutcome{sum: sum.Sum(nil), log: fw.log, w: w}
}

func (fw *fuzzWorld) op(k int) {
	switch k {
	case 0, 1:
		fw.addBody()
	case 2:
		fw.addJoint()
	case 3:
		fw.jointOption()
	case 4:
		fw.setting()
	case 5, 6:
		fw.step(1 + fw.r.n(4))
	case 7:
		fw.edit()
	case 8:
		fw.remove()
	case 9:
		fw.controller()
	case 10:
		fw.queries()
	case 11:
		fw.export()
	case 12:
		fw.filter()
	case 13:
		fw.stepCancel()
	}
}

// shape returns a shape of any kind, sometimes with bad sizes, and
// whether it can only be static.
func (fw *fuzzWorld) shape() (contact.Shape, bool, error) {
	r := fw.r
	switch r.n(8) {
	case 0:
		s, err := contact.NewBoxSize(r.vec(0.01, 1))
		return s, false, err
	case 1:
		s, err := contact.NewSphere(r.f(0.01, 0.5))
		return s, false, err
	case 2:
		s, err := contact.NewCapsuleLength(r.f(0.01, 0.3), r.f(0, 1))
		return s, false, err
	case 3:
		s, err := contact.NewCylinderLength(r.f(0.01, 0.5), r.f(0.01, 1))
		return s, false, err
	case 4:
		n := 4 + r.n(6)
		pts := make([]mgl64.Vec3, n)
		for i := range pts {
			pts[i] = r.vec(-0.3, 0.3)
		}
		s, err := contact.NewConvex(pts, 0)
		return s, false, err
	case 5:
		m := &mesh.Mesh{Vertices: []mgl64.Vec3{{-2, -2, 0}, {2, -2, r.f(-0.5, 0.5)}, {2, 2, 0}, {-2, 2, r.f(-0.5, 0.5)}},
			Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}}}
		if r.n(8) == 0 {
			m.Triangles = append(m.Triangles, [3]int{0, r.n(6), 2})
		}
		s, err := contact.NewTriMesh(m)
		return s, true, err
	case 6:
		h := make([]float64, 9)
		for i := range h {
			h[i] = r.f(-0.2, 0.2)
		}
		s, err := contact.NewHeightfield(3, 3, r.f(0.1, 2), r.f(0.1, 2), h)
		return s, true, err
	}
	return contact.NewPlane(), true, nil
}

func (fw *fuzzWorld) addBody() {
	if len(fw.w.Bodies) >= fuzzMaxBodies {
		return
	}
	r := fw.r
	shape, staticOnly, err := fw.shape()
	fw.errLine("shape", err)
	if err != nil {
		return
	}
	p := body.Params{Name: fmt.Sprintf("b%d", len(fw.w.Bodies)), Rot: mgl64.QuatIdent()}
	kind := r.n(6)
	switch {
	case staticOnly || kind == 0:
		p.Static = true
	case kind == 1:
		p.Kinematic = true
	}
	p.Mass = r.f(0.01, 20)
	side := r.f(0.01, 1)
	p.Inertia = body.BoxInertia(p.Mass, side, r.f(0.01, 1), r.f(0.01, 1))
	if r.n(8) == 0 {
		p.Inertia = mgl64.Mat3{r.f(-1, 1), r.f(-1, 1), 0, 0, r.f(-1, 1), 0, 0, 0, r.f(-1, 1)}
	}
	p.Pos = r.vec(-2, 2)
	p.Rot = r.quat()
	if r.n(2) == 0 {
		p.Vel = r.vec(-5, 5)
		p.AngVel = r.vec(-10, 10)
	}
	if r.n(4) == 0 {
		p.Force = r.vec(-50, 50)
		p.Torque = r.vec(-5, 5)
	}
	b, err := body.New(p)
	fw.errLine("body.New", err)
	if err != nil {
		if r.n(4) != 0 {
			return
		}
		// A user may also build the struct by hand, bad values and all.
		b = &body.Body{Name: p.Name, Mass: p.Mass, Inertia: p.Inertia, Pos: p.Pos, Rot: p.Rot,
			Vel: p.Vel, AngVel: p.AngVel, Static: p.Static, Kinematic: p.Kinematic}
	}
	i, err := fw.w.AddBody(b)
	fw.errLine("AddBody", err)
	if err != nil {
		return
	}
	g := stepper.Geom{Body: i, Shape: shape, Local: contact.Pose{Rot: mgl64.QuatIdent()}, Name: p.Name}
	if r.n(4) == 0 {
		g.Local = contact.Pose{Pos: r.vec(-0.2, 0.2), Rot: r.quat()}
	}
	if r.n(3) == 0 {
		g.Material = stepper.Material{Friction: r.f(0, 1.5), Rolling: r.f(0, 0.01), Stiffness: r.f(0, 1e6),
			Damping: r.f(0, 0.1), Restitution: r.f(0, 1)}
	} else {
		g.Material.Friction = 0.5
	}
	if r.n(6) == 0 {
		g.Category, g.Mask = 1<<r.n(3), 1<<r.n(3)
	}
	_, err = fw.w.AddGeom(g)
	fw.errLine("AddGeom", err)
}

// bodyIndex returns an index into the bodies, constraint.World, or (rarely)
// one out of range.
func (fw *fuzzWorld) bodyIndex() int {
	n := len(fw.w.Bodies)
	c := fw.r.n(n + 2)
	switch {
	case c < n:
		return c
	case c == n:
		return constraint.World
	}
	return n + fw.r.n(3)
}

func (fw *fuzzWorld) addJoint() {
	w, r := fw.w, fw.r
	if len(w.Joints) >= fuzzMaxJoints || len(w.Bodies) == 0 {
		return
	}
	bs := w.Bodies
	a, b := fw.bodyIndex(), fw.bodyIndex()
	pivot := r.vec(-2, 2)
	if a >= 0 && a < len(bs) && r.n(2) == 0 && bs[a] != nil {
		pivot = bs[a].Pos
	}
	axis := r.vec(-1, 1)
	var c constraint.Constraint
	var err error
	kind := r.n(11)
	switch kind {
	case 0:
		c, err = constraint.NewBall(bs, a, b, pivot)
	case 1:
		c, err = constraint.NewHinge(bs, a, b, pivot, axis)
	case 2:
		c, err = constraint.NewPrismatic(bs, a, b, pivot, axis)
	case 3:
		c, err = constraint.NewFixed(bs, a, b, pivot)
	case 4:
		c, err = constraint.NewDistance(bs, a, b, pivot, r.vec(-2, 2), r.f(0, 3))
	case 5:
		c, err = constraint.NewRope(bs, a, b, pivot, r.vec(-2, 2), r.f(0, 3))
	case 6:
		c, err = constraint.NewUniversal(bs, a, b, pivot, axis, r.vec(-1, 1))
	case 7:
		c, err = constraint.NewGear(bs, a, b, axis, r.vec(-1, 1), r.f(-3, 3), fw.bodyIndex())
	case 8:
		c, err = constraint.NewDifferential(bs, fw.bodyIndex(), a, b, axis, r.vec(-1, 1), r.vec(-1, 1), fw.bodyIndex())
	case 9:
		c, err = constraint.NewConverter(bs, a, b, axis, r.vec(-1, 1), r.f(0, 100), fw.bodyIndex())
	case 10:
		var coords []constraint.Coordinate
		var coef []float64
		for _, j := range w.Joints {
			if q, ok := j.(constraint.Coordinate); ok && len(coords) < 3 {
				coords = append(coords, q)
				coef = append(coef, r.f(-2, 2))
			}
		}
		c, err = constraint.NewTendon(coords, coef, r.f(-1, 0), r.f(0, 1))
	}
	fw.errLine(fmt.Sprintf("new joint %d", kind), err)
	if err != nil {
		return
	}
	err = w.AddConstraint(c)
	fw.errLine("AddConstraint", err)
}

// jointOption applies one of the joints' setters with fuzzed values.
func (fw *fuzzWorld) jointOption() {
	w, r := fw.w, fw.r
	if len(w.Joints) == 0 {
		return
	}
	j := w.Joints[r.n(len(w.Joints))]
	var err error
	type axial interface {
		SetLimits(lo, hi float64) error
		SetMotor(speed, maxForce float64) error
		SetSpringDamper(k, c, rest float64) error
		SetServo(target, kp, kd, maxForce float64) error
		SetServoTarget(target float64) error
		SetFriction(f float64) error
		SetArmature(a float64) error
		SetEffort(f float64) error
		ClearLimits()
		ClearMotor()
	}
	op := r.n(12)
	// Six value bytes, read whatever the option, so that a program's
	// later operations stay where they are when a mutation changes it.
	var c [6]byte
	for i := range c {
		c[i] = r.byte()
	}
	v := func(i int, lo, hi float64) float64 { return fuzzValue(c[i], lo, hi) }
	vec := mgl64.Vec3{v(0, -1, 1), v(1, -1, 1), v(2, -1, 1)}
	switch x := j.(type) {
	case axial:
		switch op {
		case 0, 1:
			err = x.SetLimits(v(0, -2, 0.5), v(1, -0.5, 2))
		case 2, 3:
			err = x.SetMotor(v(0, -10, 10), v(1, 0, 100))
		case 4:
			err = x.SetSpringDamper(v(0, 0, 1000), v(1, 0, 10), v(2, -1, 1))
		case 5:
			err = x.SetServo(v(0, -1, 1), v(1, 0, 1000), v(2, 0, 100), v(3, 0, 100))
		case 6:
			err = x.SetServoTarget(v(0, -1, 1))
		case 7:
			err = x.SetFriction(v(0, 0, 10))
		case 8:
			err = x.SetArmature(v(0, 0, 1))
		case 9:
			err = x.SetEffort(v(0, -50, 50))
		case 10:
			x.ClearLimits()
		default:
			x.ClearMotor()
		}
	case *constraint.Ball:
		if op < 6 {
			err = x.SetTwistLimits(w.Bodies, vec, v(3, -2, 0), v(4, 0, 2))
		} else {
			err = x.SetSwingLimit(w.Bodies, vec, v(3, 0, 3))
		}
	}
	if err == nil && op == 11 {
		if s, ok := j.(interface{ SetSoft(k, d float64) error }); ok {
			err = s.SetSoft(v(4, 0, 1e5), v(5, 0, 1))
		}
	}
	fw.errLine(fmt.Sprintf("joint option %d on %T", op, j), err)
}

// setting sets one Settings field to a fuzzed value.
func (fw *fuzzWorld) setting() {
	s, r := &fw.w.Settings, fw.r
	k := r.n(22)
	switch k {
	case 0:
		s.H = r.f(1e-4, 0.1)
	case 1:
		s.Gravity = r.vec(-20, 20)
	case 2:
		s.Budget = int(r.f(-5, 500))
	case 3:
		s.Tolerance = r.f(0, 1)
	case 4:
		s.Pick = errmeasure.Measure(r.n(7))
	case 5:
		s.Polish = int(r.f(-2, 20))
	case 6:
		s.ProjectAbove = r.f(0, 0.1)
	case 7:
		s.MaxCorrectingSpeed = r.f(0, 10)
	case 8:
		s.Stabilization = stepper.Stabilization(r.n(5))
	case 9:
		s.Baumgarte = r.f(0, 100)
	case 10:
		s.ContactMargin = r.f(0, 0.05)
	case 11:
		s.BounceSpeed = r.f(0, 5)
	case 12:
		s.Impacts = stepper.Impacts(r.n(3))
	case 13:
		s.Sleep.On = r.n(2) == 0
	case 14:
		s.Sleep.LinearSpeed = r.f(0, 1)
	case 15:
		s.Sleep.AngularSpeed = r.f(0, 1)
	case 16:
		s.Sleep.Time = r.f(0, 2)
	case 17:
		s.SingleProblem = r.n(2) == 0
	case 18:
		s.Coherent = stepper.Coherence(r.n(4))
	case 19:
		if r.n(2) == 0 {
			s.Solver = &lcp.PGS{}
		} else {
			s.Solver = nil
		}
	case 20:
		if r.n(2) == 0 {
			s.PostSolver = &lcp.PGS{}
		} else {
			s.PostSolver = nil
		}
	case 21:
		s.Observer = nil
	}
	err := s.Validate()
	fw.errLine(fmt.Sprintf("setting %d", k), err)
	if err != nil && r.n(2) == 0 {
		*s = stepper.DefaultSettings() // the user corrects it, or steps on into the error
		s.H = 1.0 / 60
	}
}

// step takes n steps and checks each outcome.
func (fw *fuzzWorld) step(n int) {
	for range n {
		if fw.steps >= fuzzMaxSteps {
			return
		}
		fw.steps++
		before, steps := fw.snapshot(), fw.w.Steps()
		st, err := fw.w.Step()
		fw.checkStep(st, err)
		fw.checkFailed(err, before, steps, st)
	}
}

// checkFailed checks what a failed step says of itself: one that did not
// count (World.Steps unchanged) moved no body, and one that counted
// reports its own number in its Stats (Step: a step whose solver broke
// down is applied and returns its error with its Stats).
func (fw *fuzzWorld) checkFailed(err error, before string, steps int, st stepper.Stats) {
	if err == nil {
		return
	}
	w := fw.w
	switch w.Steps() {
	case steps:
		if after := fw.snapshot(); after != before {
			fw.t.Fatalf("Step failed (%v) without counting a step, but moved bodies:\n%s\n%s", err, before, after)
		}
	case steps + 1:
		if st.Step != w.Steps() {
			fw.t.Fatalf("Step failed (%v) after counting step %d, but its Stats say step %d", err, w.Steps(), st.Step)
		}
	default:
		fw.t.Fatalf("Step failed (%v) and the step count went from %d to %d", err, steps, w.Steps())
	}
}

// checkStep checks a step's result: an error names its subject; without
// one every body is finite and the Stats agree with the world.
func (fw *fuzzWorld) checkStep(st stepper.Stats, err error) {
	t, w := fw.t, fw.w
	fw.errLine("Step", err)
	fw.lastOK = err == nil
	if err == nil {
		for i, b := range w.Bodies {
			if !num.FiniteVec(b.Pos) || !num.FiniteQuat(b.Rot) || !num.FiniteVec(b.Vel) || !num.FiniteVec(b.AngVel) {
				t.Fatalf("step %d: no error, but body %d is not finite: %+v", w.Steps(), i, *b)
			}
		}
		if st.Step != w.Steps() || st.Time != w.Time() {
			t.Fatalf("Stats.Step %d Time %v, world at %d %v", st.Step, st.Time, w.Steps(), w.Time())
		}
		if st.Sleeping != w.Sleeping() {
			t.Fatalf("step %d: Stats.Sleeping %d, World.Sleeping %d", st.Step, st.Sleeping, w.Sleeping())
		}
		if math.IsNaN(st.MaxViolation) || math.IsNaN(st.Kinetic) || math.IsNaN(st.Potential) {
			t.Fatalf("step %d: NaN in Stats without error: %+v", st.Step, st)
		}
		fw.record("stats %s", trajectory.AppendStatsRow(nil, &st))
	}
	fw.state()
}

// stepCancel runs StepContext on a context that is cancelled before the
// step, by a controller, or by an observer after some iterates.
func (fw *fuzzWorld) stepCancel() {
	if fw.steps >= fuzzMaxSteps {
		return
	}
	fw.steps++
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := fw.w
	saved := w.Settings.Observer
	mode := fw.r.n(3)
	switch mode {
	case 0:
		cancel()
	case 1:
		w.Controllers = append(w.Controllers, stepper.ControllerFunc(func(*stepper.World) error { cancel(); return nil }))
	case 2:
		fw.cancel, fw.stopAt, fw.seen = cancel, 1+fw.r.n(4), 0
		w.Settings.Observer = fw
	}
	before := fw.snapshot()
	steps, time := w.Steps(), w.Time()
	st, err := w.StepContext(ctx)
	if errors.Is(err, context.Canceled) {
		// StepContext's promise: cancelled before its solve, the world is
		// as it was at the step's start.
		if after := fw.snapshot(); after != before || w.Steps() != steps || w.Time() != time {
			fw.t.Fatalf("cancelled StepContext (mode %d: %v) changed the world: steps %d → %d\n%s\n%s",
				mode, err, steps, w.Steps(), before, after)
		}
	}
	if mode == 1 {
		w.Controllers = w.Controllers[:len(w.Controllers)-1]
	}
	w.Settings.Observer, fw.cancel = saved, nil
	fw.checkStep(st, err)
}

// edit changes one body between steps the ways the exported fields allow.
func (fw *fuzzWorld) edit() {
	w, r := fw.w, fw.r
	if len(w.Bodies) == 0 {
		return
	}
	i := r.n(len(w.Bodies))
	b := w.Bodies[i]
	k := r.n(15)
	if k >= 10 && k < 14 && len(w.Geoms) > 0 {
		fw.editGeom(k, r.n(len(w.Geoms)))
		return
	}
	if k == 14 || b == nil {
		w.Bodies[i] = nil // the exported slice takes a nil, which Step names
		fw.record("edit nil body %d", i)
		return
	}
	switch k {
	case 0:
		b.Mass = r.f(0.001, 100)
	case 1:
		b.Inertia = b.Inertia.Mul(r.f(0.001, 100))
	case 2:
		b.Pos = r.vec(-3, 3) // teleport
	case 3:
		b.Vel = r.vec(-100, 100)
		b.AngVel = r.vec(-100, 100)
	case 4:
		b.Rot = r.quat()
	case 5:
		b.ApplyForce(r.vec(-1000, 1000))
		b.ApplyTorque(r.vec(-100, 100))
	case 6:
		w.Wake(i)
	case 7:
		w.WakeAll()
	case 8:
		b.Static = !b.Static
		if b.Static {
			b.Kinematic = false
		}
	default:
		b.Kinematic = !b.Kinematic
		if b.Kinematic {
			b.Static = false
		}
	}
	fw.record("edit %d body %d", k, i)
}

// editGeom changes geom g's shape, pose, material or body the way the
// exported Geoms allow.
func (fw *fuzzWorld) editGeom(k, g int) {
	r, geom := fw.r, &fw.w.Geoms[g]
	switch k {
	case 10:
		geom.Shape.Size = r.vec(0.01, 1)
		geom.Shape.Radius = r.f(0.01, 0.5)
	case 11:
		geom.Local = contact.Pose{Pos: r.vec(-0.2, 0.2), Rot: r.quat()}
	case 12:
		geom.Material = stepper.Material{Friction: r.f(0, 1.5), Rolling: r.f(0, 0.01), Stiffness: r.f(0, 1e6),
			Damping: r.f(0, 0.1), Restitution: r.f(0, 1)}
	default:
		geom.Body = r.n(len(fw.w.Bodies)+2) - 1
	}
	fw.record("edit %d geom %d", k, g)
}

// remove takes a body (with its geoms, and its joints or not) or a joint
// out of the world, the way a user edits the exported slices.
func (fw *fuzzWorld) remove() {
	w, r := fw.w, fw.r
	if r.n(2) == 0 && len(w.Joints) > 0 {
		j := r.n(len(w.Joints))
		w.Joints = append(w.Joints[:j], w.Joints[j+1:]...)
		fw.record("remove joint %d", j)
		return
	}
	if len(w.Bodies) == 0 {
		return
	}
	i := r.n(len(w.Bodies))
	removed := w.Bodies[i]
	nuRemove(w, i)
	if r.n(4) != 0 { // drop its joints too; else Step must say they are stale
		js := w.Joints[:0]
		for _, j := range w.Joints {
			keep := true
			for _, id := range j.Bodies() {
				if id == i {
					keep = false
				}
			}
			if keep {
				js = append(js, j)
			}
		}
		w.Joints = js
	}
	fw.record("remove body %d", i)
	fw.readd(removed)
}

// readd, after a body was removed, adds it back (AddBody must not call it
// a duplicate), adds a body already in the world (AddBody must refuse
// it) or appends one to Bodies a second time (Step must refuse it, and
// the alias is then taken out again).
func (fw *fuzzWorld) readd(removed *body.Body) {
	w, r := fw.w, fw.r
	dup := func(err error) bool {
		var fe *num.FieldError
		return errors.As(err, &fe) && fe.Field == "Bodies"
	}
	switch r.n(4) {
	case 0:
		_, err := w.AddBody(removed)
		fw.errLine("AddBody again", err)
		if dup(err) {
			fw.t.Fatalf("a removed body added again is called a duplicate: %v", err)
		}
	case 1, 2:
		if len(w.Bodies) == 0 {
			return
		}
		k := r.n(len(w.Bodies))
		if w.Bodies[k] == nil {
			return
		}
		if r.n(2) == 0 {
			_, err := w.AddBody(w.Bodies[k])
			fw.errLine("AddBody twice", err)
			if err == nil {
				fw.t.Fatalf("AddBody accepted body %d a second time", k)
			}
			return
		}
		w.Bodies = append(w.Bodies, w.Bodies[k])
		before, steps := fw.snapshot(), w.Steps()
		st, err := w.Step()
		fw.errLine("Step with an alias", err)
		if err == nil {
			fw.t.Fatalf("Step accepted body %d twice in Bodies", k)
		}
		fw.checkFailed(err, before, steps, st)
		w.Bodies = w.Bodies[:len(w.Bodies)-1]
	}
}

// controller adds an effort actuator or a force-applying controller.
func (fw *fuzzWorld) controller() {
	w, r := fw.w, fw.r
	if len(w.Controllers) >= 4 {
		w.Controllers = w.Controllers[:0]
		return
	}
	var c stepper.Controller
	switch r.n(3) {
	case 0:
		var ax constraint.Axial
		for _, j := range w.Joints {
			if a, ok := j.(constraint.Axial); ok {
				ax = a
			}
		}
		c = &stepper.Effort{Joint: ax, Input: r.f(-20, 20), Limit: r.f(0, 10)}
	case 1:
		f, i := r.vec(-100, 100), r.n(fuzzMaxBodies)
		c = stepper.ControllerFunc(func(w *stepper.World) error {
			if i < len(w.Bodies) && w.Bodies[i] != nil {
				w.Bodies[i].ApplyForce(f)
			}
			return nil
		})
	default:
		fail := r.n(4) == 0
		c = stepper.ControllerFunc(func(w *stepper.World) error {
			if fail {
				return errors.New("fuzz controller: refuses")
			}
			return nil
		})
	}
	err := w.AddController(c)
	fw.errLine("AddController", err)
}

// queries runs the world's read-only calls and records what they return.
func (fw *fuzzWorld) queries() {
	w := fw.w
	k, u := w.Energy()
	fw.record("energy %x %x", math.Float64bits(k), math.Float64bits(u))
	cs := w.Contacts(nil)
	fw.record("contacts %d", len(cs))
	pw := w.ContactWrenches(nil)
	fw.record("wrenches %d", len(pw))
	hit, ok, err := w.Raycast(mgl64.Vec3{0, 0, 5}, mgl64.Vec3{0.1, 0, -1}, 20, nil)
	fw.errLine("Raycast", err)
	fw.record("ray %v %x %d", ok, math.Float64bits(hit.Dist), hit.Geom)
	_, err = w.RaycastAll(nil, fw.r.vec(-3, 3), fw.r.vec(-1, 1), fw.r.f(0, 10), nil)
	fw.errLine("RaycastAll", err)
	for j := range w.Joints {
		_, err := w.JointReaction(nil, j)
		fw.errLine("JointReaction", err)
		q, rate, err := w.JointState(j)
		if err == nil {
			fw.record("joint %d %x %x", j, math.Float64bits(q), math.Float64bits(rate))
		}
	}
	_, err = w.JointReaction(nil, len(w.Joints))
	fw.errLine("JointReaction out of range", err)
	fw.record("labels %d drift %d rows %d", len(w.RowLabels(nil)), len(w.JointDrift(nil)), w.JointRows())
	x, wv := w.LastSolution()
	fw.record("last solution %d %d states %d problem %v", len(x), len(wv), len(w.LastStates()), w.LastProblem() != nil)
	if !num.FiniteSlice(x) || !num.FiniteSlice(wv) {
		// A step that returned no error applied x: it must be finite.
		if fw.lastOK {
			fw.t.Fatalf("LastSolution after a step without error is not finite: x %v w %v", x, wv)
		}
	}
	_ = w.EstimateMemory(0)
	_, _, err = w.Body("b0")
	fw.errLine("Body b0", err)
}

// export writes the world's frame as the trajectory writers do, or
// (one time in four) runs it through trajectory.Run with every output:
// trajectory and statistics CSV and a BPMD database (whose recorder wraps
// the solver and records each step's MLCP).
func (fw *fuzzWorld) export() {
	if fw.r.n(4) == 0 && fw.steps < fuzzMaxSteps {
		fw.run()
		return
	}
	for _, f := range []trajectory.Format{trajectory.CSV, trajectory.JSON} {
		var buf bytes.Buffer
		tw, err := trajectory.NewWriter(&buf, f, fw.w)
		fw.errLine("trajectory.NewWriter", err)
		if err != nil {
			continue
		}
		fw.errLine("WriteFrame", tw.WriteFrame(fw.w))
		fw.errLine("Close", tw.Close())
		fw.record("export %d %x", f, sha256.Sum256(buf.Bytes()))
	}
}

// run steps the world once or twice through trajectory.Run, writing
// every output; the BPMD file goes to a temporary directory.
func (fw *fuzzWorld) run() {
	n := 1 + fw.r.n(2)
	fw.steps += n
	var traj, stats bytes.Buffer
	tw, err := trajectory.NewWriter(&traj, trajectory.CSV, fw.w)
	fw.errLine("trajectory.NewWriter", err)
	if err != nil {
		return
	}
	sw, err := trajectory.NewStatsWriter(&stats)
	fw.errLine("trajectory.NewStatsWriter", err)
	bw, err := bpmd.Create(filepath.Join(fw.t.TempDir(), "run.h5"))
	fw.errLine("bpmd.Create", err)
	if err != nil {
		return
	}
	saved, solver := fw.w.Controllers, fw.w.Settings.Solver
	rep, err := trajectory.Run(context.Background(), fw.w, trajectory.Options{Steps: n, Trajectory: tw, Stats: sw, BPMD: bw})
	fw.errLine("trajectory.Run", err)
	fw.errLine("bpmd Close", bw.Close())
	fw.errLine("trajectory Close", tw.Close())
	// Run leaves its recorder attached (a Controller and a wrapper of the
	// Solver); a user who goes on stepping without it takes them off.
	fw.w.Controllers = saved
	fw.w.Settings.Solver, fw.w.Settings.Context = solver, nil
	fw.record("run %d steps %d frames %d rows %x %x", rep.Steps, rep.Frames, rep.Rows, sha256.Sum256(traj.Bytes()), sha256.Sum256(stats.Bytes()))
	fw.state()
}

// filter excludes pairs and toggles joint collision.
func (fw *fuzzWorld) filter() {
	w, r := fw.w, fw.r
	switch r.n(3) {
	case 0:
		fw.errLine("ExcludeBodies", w.ExcludeBodies(fw.bodyIndex(), fw.bodyIndex()))
	case 1:
		fw.errLine("ExcludePair", w.ExcludePair(r.n(len(w.Geoms)+2)-1, r.n(len(w.Geoms)+2)-1))
	default:
		fw.errLine("SetJointCollision", w.SetJointCollision(r.n(len(w.Joints)+2)-1, r.n(2) == 0))
	}
}

// fuzzSeed writes programs for FuzzWorld's decoder byte by byte, in the
// order fuzzRun reads them, so that the seed corpus is sure to reach every
// shape, joint kind, setting and edit.
type fuzzSeed []byte

// Opcodes of fuzzWorld.op.
const (
	opBody       = 0
	opJoint      = 2
	opJointOpt   = 3
	opSetting    = 4
	opStep       = 5
	opEdit       = 7
	opRemove     = 8
	opController = 9
	opQueries    = 10
	opExport     = 11
	opFilter     = 12
	opCancel     = 13
)

// mid is the byte fuzzReader.f maps to the middle of its range.
const mid = 112

// shapeBytes are each shape kind's parameter bytes of sane size.
var shapeBytes = [8][]byte{
	{60, 60, 60},
	{60},
	{60, 60},
	{60, 60},
	{0, mid, mid, mid, 223, mid, mid, mid, 223, mid, mid, mid, 223},
	{mid, mid, 1},
	{mid, mid, mid, mid, mid, mid, mid, mid, mid, mid, mid},
	{},
}

// body adds a body of the given shape; kind 0 static, 1 kinematic, 2
// dynamic; z byte for its height (112 ≈ 0, 167 ≈ 1 m).
func (s fuzzSeed) body(shape, kind, z byte) fuzzSeed {
	s = append(s, opBody, shape)
	s = append(s, shapeBytes[shape]...)
	return append(s, kind, mid, 60, 60, 60, 1, mid, mid, z, 2, 1, 1, 1, 1, 1)
}

// joint adds a joint of kind k between bodies a and b (indices as
// fuzzReader.n reads them) at the origin, axis x, with the kind's bytes.
func (s fuzzSeed) joint(nb int, a, b int, k byte, extra ...byte) fuzzSeed {
	s = append(s, opJoint, byte(a), byte(b), mid, mid, mid)
	if a < nb {
		s = append(s, 1)
	}
	s = append(s, 223, 224, 224, k)
	return append(s, extra...)
}

func (s fuzzSeed) op(code byte, args ...byte) fuzzSeed {
	return append(append(s, code), args...)
}

// fzGround is a fuzzSeed header (sleep on, h = 1/60 s) and a static plane.
func fzGround() fuzzSeed { return fuzzSeed{0, 0}.body(7, 0, mid) }

// fuzzSeeds is FuzzWorld's seed corpus.
func fuzzSeeds() [][]byte {
	var out [][]byte
	add := func(s fuzzSeed) { out = append(out, []byte(s)) }
	// Every shape falling on a plane, and static ones hit by a box.
	for sh := range byte(8) {
		s := fzGround()
		if sh >= 5 {
			s = fuzzSeed{1, 0}.body(sh, 0, mid)
			s = s.body(0, 2, 167)
		} else {
			s = s.body(sh, 2, 167).body(sh, 2, 200)
		}
		add(s.op(opStep, 3).op(opQueries, mid, mid, mid, mid, mid, mid, mid).op(opExport))
	}
	// Every joint kind between two boxes and between a box and the world,
	// with each option.
	jointExtra := [11][]byte{
		{}, {}, {}, {}, {mid, mid, mid, 60}, {mid, mid, mid, 100},
		{224, 223, 224}, {224, 223, 224, 150, 3}, {3, 224, 223, 224, 224, 224, 223, 4},
		{224, 223, 224, 100, 3}, {60, 160},
	}
	for k := range byte(11) {
		s := fzGround().body(0, 2, 167).body(0, 2, 190)
		if k == 10 { // a tendon needs coordinates: two hinges first
			s = s.joint(3, 1, 2, 1).joint(3, 1, 3, 1)
		}
		if k == 8 { // a differential needs a third body
			s = s.body(1, 2, 210)
		}
		s = s.joint(3, 1, 2, k, jointExtra[k]...)
		s = s.joint(3, 2, 3, k, jointExtra[k]...)
		for opt := range byte(12) {
			s = s.op(opJointOpt, 0, opt, 150, 180, mid, mid, 100, 100)
		}
		add(s.op(opStep, 3).op(opQueries, mid, mid, mid, mid, mid, mid, mid))
	}
	// Every setting at a sane and at an extreme value, two boxes stacked.
	for k := range byte(22) {
		for _, v := range []byte{mid, 234, 236} {
			s := fzGround().body(0, 2, 140).body(0, 2, 167)
			s = s.op(opSetting, k, v, v, v, 1)
			add(s.op(opStep, 2))
		}
	}
	// Every edit, removal, controller, filter and cancellation.
	for k := range byte(15) {
		s := fzGround().body(0, 2, 140).body(2, 2, 167).joint(3, 1, 2, 1)
		s = s.op(opStep, 1).op(opEdit, 1, k, 240, 150, 60, 240, 150, 60)
		add(s.op(opStep, 3))
	}
	for k := range byte(4) {
		s := fzGround().body(0, 2, 140).body(0, 2, 167).joint(3, 1, 2, 0)
		add(s.op(opStep, 1).op(opRemove, k, k).op(opStep, 1).op(opRemove, 1, 0).op(opStep, 1))
	}
	for k := range byte(3) {
		s := fzGround().body(1, 2, 167).body(0, 2, 190).joint(3, 1, 2, 1)
		add(s.op(opController, k, mid, 0, 0, 0, 0).op(opStep, 2).op(opController, 2, 0).op(opStep, 1))
	}
	for k := range byte(3) {
		s := fzGround().body(0, 2, 140).body(0, 2, 167)
		add(s.op(opFilter, k, 1, 2, 0).op(opStep, 1).op(opCancel, k, 1).op(opCancel, 2, 0).op(opStep, 1))
	}
	// A body made by hand with bad values, an overlapping pair, a fast one.
	add(fzGround().op(opBody, 0, 60, 60, 60, 2, 234, 60, 60, 60, 1, mid, mid, 167, 0, 1, 1, 0, 1, 1, 1, 1).op(opStep, 2))
	add(fzGround().body(0, 2, mid).body(0, 2, mid).op(opStep, 3))
	add(fzGround().body(1, 2, 167).op(opEdit, 0, 3, 247, 0, 0, 0, 0, 0).op(opStep, 3))
	return out
}
