package scenes

import (
	"github.com/gorigid/gorigid/internal/num"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// PushParams describes the planar grasping experiment of Lu, Williams,
// Trinkle and Lacoursière, "A framework for problem standardization and
// algorithm comparison in multibody system" (2014), §4 (their Fig. 3): a
// round object on a surface, supported by three point contacts at the
// tripod radius (the point-contact model of Zhang, Betz and Trinkle,
// 2010), pushed by a square pusher along a prescribed straight path into
// two fixed fingers.
//
// Geometry (z up, the surface is z = 0): the object is a vertical
// capsule of radius Radius (its round outline in the plane) held 1 cm
// above the surface, its centre of mass at height 7 cm, standing on
// three small spheres (1 mm) at Tripod from its axis, 120° apart; only
// those feet touch the surface. The pusher is a kinematic box 4 cm along
// the path, 8 cm across, 6 cm tall, which starts on the path through the
// object's start, 5 mm clear of the object, creeps over those 5 mm at a
// tenth of PushSpeed (it meets the object gently instead of striking it),
// moves on at PushSpeed to PushDistance from its start, and stops. The fingers are two vertical
// capsules of radius 1 cm fixed at (±FingerGap/2, FingerY).
//
// Friction: the pair rule of stepper.Material is the geometric mean
// √(μ_a μ_b); the object's surfaces carry μ = 1 and the pusher, fingers
// and surface carry μ_p², μ_f² and μ_s², so the pairs get exactly the
// coefficients μ_p, μ_f and μ_s (to rounding of the square root).
//
// The experiment is planar: the object's inertia about the horizontal
// axes is PlanarInertia times its inertia about z, so the tipping moment
// of a push 7 cm above the feet turns it by a negligible angle in a run
// (the paper's experiment is planar and its simulator 2-D).
type PushParams struct {
	MuPusher  float64 // μ_p, object–pusher
	MuFingers float64 // μ_f, object–fingers
	MuSurface float64 // μ_s, object–surface
	Tripod    float64 // tripod radius R_tri (m), distance of the support points from the axis
	Mass      float64 // object mass (kg)
	Radius    float64 // object radius (m)
	// ObjectX, ObjectY (m) and ObjectAngle (rad, about z) are the object's
	// start.
	ObjectX, ObjectY, ObjectAngle float64
	// PushAngle is the path's direction (rad from +y towards −x); the path
	// starts behind the object's start point.
	PushAngle float64
	// PusherAngle turns the pusher's face about z relative to the path
	// (rad): a tilted face makes the object slide along it unless μ_p
	// holds it.
	PusherAngle  float64
	PushSpeed    float64 // m/s
	PushDistance float64 // m; the pusher stops after it
	// FingerY is the fingers' position along y (m), FingerGap the distance
	// between their axes (m).
	FingerY, FingerGap float64
	PlanarInertia      float64 // ratio I_xx/I_zz = I_yy/I_zz, ≥ 1
	Settings           stepper.Settings
}

// DefaultPushParams: μ_p = 0.3, μ_f = 0.4, μ_s = 0.5, R_tri = 0.03 m; a
// 0.2 kg object of radius 5 cm at the origin, pushed along +y at 0.3 m/s
// for 7 cm, then sliding on into fingers 9 cm apart at y = 0.12 m (the object, 10 cm
// across, does not fit between them); h = 0.01 s.
//
// Settings.Coherent is stepper.CoherentDefault (on), as in
// stepper.DefaultSettings and the other built-in scenes: a solve without
// new contacts starts its proximal centre at the last step's impulses. The
// experiment is a calibration's objective (package sweep: E over μ_p,
// μ_f, μ_s and R_tri), and the trajectories shipped in sweep's
// testdata/push are generated with these settings (go test ./sweep -run
// TestShippedData -update). E is rough at the scale of the solver's last
// bits at either centre (along lines through sweep's off-grid truth in
// μ_p, μ_s and R_tri it scatters 17–83 times the measurement noise's sd
// around a fitted parabola, with the coherent centre, at centre 0 and at
// centre 0 with tolerance 1e-7: sweep's TestOffGridLines with
// -offgrid.scan); sweep's confidence region counts that roughness as
// noise (Region.RoughSD), and the off-grid calibration holds the truth
// with the coherent centre and at centre 0 (go test ./sweep -run
// 'TestCalibrationOffGrid$', with -offgrid.centre0 for
// stepper.CoherentOff).
func DefaultPushParams() PushParams {
	return PushParams{MuPusher: 0.3, MuFingers: 0.4, MuSurface: 0.5, Tripod: 0.03,
		Mass: 0.2, Radius: 0.05, PushSpeed: 0.3, PushDistance: 0.07,
		FingerY: 0.12, FingerGap: 0.09, PlanarInertia: 1000,
		Settings: stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity}}
}

// Push geometry constants (m).
const (
	pushCOMHeight  = 0.07  // object's centre of mass above the surface
	pushFootRadius = 0.001 // the tripod's spheres
	pushHalfLength = 0.01  // half the straight part of the object's capsule
	pushFingerR    = 0.01  // fingers' radius
	pushGap        = 0.005 // pusher front to object at the start
)

// Push builds the experiment: the surface (world geom 0), the fingers
// (world geoms 1, 2), the object (body 0, "object": its capsule, then the
// three feet) and the pusher (body 1, "pusher", kinematic, with its path).
func Push(p PushParams) (*stepper.World, error) {
	s, err := pushSpec(p)
	if err != nil {
		return nil, err
	}
	return buildWith(s, p.Settings)
}

func pushSpec(p PushParams) (*SceneSpec, error) {
	if err := checkFields("push", false, field{"MuPusher", "", p.MuPusher}, field{"MuFingers", "", p.MuFingers},
		field{"MuSurface", "", p.MuSurface}, field{"PushDistance", "m", p.PushDistance}); err != nil {
		return nil, err
	}
	if err := checkFields("push", true, field{"Tripod", "m", p.Tripod}, field{"Mass", "kg", p.Mass},
		field{"Radius", "m", p.Radius}, field{"PushSpeed", "m/s", p.PushSpeed}, field{"FingerGap", "m", p.FingerGap}); err != nil {
		return nil, err
	}
	for _, f := range []field{{"ObjectX", "m", p.ObjectX}, {"ObjectY", "m", p.ObjectY}, {"ObjectAngle", "rad", p.ObjectAngle},
		{"PushAngle", "rad", p.PushAngle}, {"PusherAngle", "rad", p.PusherAngle}, {"FingerY", "m", p.FingerY}} {
		if !num.Finite(f.v) {
			return nil, fieldErr("push", f.name, f.v, "must be finite, got %v", f.v)
		}
	}
	if !(p.PlanarInertia >= 1) || math.IsInf(p.PlanarInertia, 0) {
		return nil, fieldErr("push", "PlanarInertia", p.PlanarInertia, "must be finite and ≥ 1, got %v", p.PlanarInertia)
	}
	if p.Tripod > p.Radius {
		return nil, fieldErr("push", "Tripod", p.Tripod, "must be ≤ the object's Radius %v m, got %v", p.Radius, p.Tripod)
	}
	if err := p.Settings.Validate(); err != nil {
		return nil, err
	}
	r := p.Radius
	izz := 0.5 * p.Mass * r * r
	inertia := mgl64.Diag3(mgl64.Vec3{p.PlanarInertia * izz, p.PlanarInertia * izz, izz})
	one := stepper.Material{Friction: 1}
	obj := BodySpec{Name: "object", Mass: p.Mass, Inertia: &inertia,
		Pos: mgl64.Vec3{p.ObjectX, p.ObjectY, pushCOMHeight}, Rot: mgl64.QuatRotate(p.ObjectAngle, mgl64.Vec3{0, 0, 1}),
		Shapes: []ShapeSpec{{Type: contact.Capsule, Radius: r, Length: 2 * pushHalfLength, Material: one}}}
	for k := 0; k < 3; k++ {
		a := math.Pi/2 + 2*math.Pi*float64(k)/3
		obj.Shapes = append(obj.Shapes, ShapeSpec{Type: contact.Sphere, Radius: pushFootRadius,
			Pos:      mgl64.Vec3{p.Tripod * math.Cos(a), p.Tripod * math.Sin(a), pushFootRadius - pushCOMHeight},
			Material: one})
	}
	// The path's direction d and the pusher's orientation: its local y
	// along d.
	d := mgl64.QuatRotate(p.PushAngle, mgl64.Vec3{0, 0, 1}).Rotate(mgl64.Vec3{0, 1, 0})
	rot := mgl64.QuatRotate(p.PushAngle+p.PusherAngle, mgl64.Vec3{0, 0, 1})
	const depth, width = 0.04, 0.08
	start := mgl64.Vec3{p.ObjectX, p.ObjectY, pushCOMHeight}.Sub(d.Mul(pusherBack(p.PusherAngle, width/2, depth/2, r+pushGap)))
	// The pusher creeps over the gap at a tenth of its speed, so it meets
	// the object gently and then pushes it, rather than striking it.
	creepSpeed := 0.1 * p.PushSpeed
	end := start.Add(d.Mul(p.PushDistance))
	path := []Waypoint{{0, start}}
	switch {
	case p.PushDistance == 0:
	case p.PushDistance <= pushGap:
		path = append(path, Waypoint{p.PushDistance / creepSpeed, end})
	default:
		t1 := pushGap / creepSpeed
		path = append(path, Waypoint{t1, start.Add(d.Mul(pushGap))}, Waypoint{t1 + (p.PushDistance-pushGap)/p.PushSpeed, end})
	}
	pusher := BodySpec{Name: "pusher", Kinematic: true, Pos: start, Rot: rot,
		Shapes: []ShapeSpec{{Type: contact.Box, Size: mgl64.Vec3{width, depth, 0.06},
			Material: stepper.Material{Friction: p.MuPusher * p.MuPusher}}},
		Path: path}
	finger := func(x float64) ShapeSpec {
		return ShapeSpec{Type: contact.Capsule, Radius: pushFingerR, Length: 0.04,
			Pos: mgl64.Vec3{x, p.FingerY, pushCOMHeight}, Material: stepper.Material{Friction: p.MuFingers * p.MuFingers}}
	}
	return &SceneSpec{
		Settings: specSettings(p.Settings),
		WorldShapes: []ShapeSpec{
			{Type: contact.Plane, Material: stepper.Material{Friction: p.MuSurface * p.MuSurface}},
			finger(-p.FingerGap / 2), finger(p.FingerGap / 2),
		},
		Bodies: []BodySpec{obj, pusher},
	}, nil
}

// pusherBack returns how far behind the object's centre, along the path,
// the centre of a pusher box of half sides hx (across) and hy (along its
// face normal), turned by tilt relative to the path, must start so that
// the box is at distance clear from the object's centre: the distance
// from the box grows with the offset, so bisection finds it (to 1e-12 m).
func pusherBack(tilt, hx, hy, clear float64) float64 {
	dist := func(s float64) float64 {
		// The object's centre in the pusher's frame.
		sn, cs := math.Sincos(tilt)
		x, y := s*sn, s*cs
		dx := math.Max(math.Abs(x)-hx, 0)
		dy := math.Max(math.Abs(y)-hy, 0)
		return math.Hypot(dx, dy)
	}
	lo, hi := 0.0, hy+hx+clear
	for hi-lo > 1e-12 {
		if m := (lo + hi) / 2; dist(m) < clear {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// declarePush binds PushParams.
func declarePush(ps *ParamSet, p *PushParams) {
	ps.Float("mu_p", "", "friction coefficient object–pusher μ_p", &p.MuPusher).Range(0, maxFriction)
	ps.Float("mu_f", "", "friction coefficient object–fingers μ_f", &p.MuFingers).Range(0, maxFriction)
	ps.Float("mu_s", "", "friction coefficient object–surface μ_s", &p.MuSurface).Range(0, maxFriction)
	ps.Float("tripod", "m", "tripod radius R_tri of the three support points", &p.Tripod).Positive().Max(maxSize)
	ps.Float("mass", "kg", "object mass", &p.Mass).Positive().Max(maxMass)
	ps.Float("radius", "m", "object radius", &p.Radius).Positive().Max(maxSize)
	ps.Float("object_x", "m", "object start x", &p.ObjectX).Range(-maxPosition, maxPosition)
	ps.Float("object_y", "m", "object start y", &p.ObjectY).Range(-maxPosition, maxPosition)
	ps.Float("object_angle", "rad", "object start angle about z", &p.ObjectAngle).Range(-fullTurn, fullTurn)
	ps.Float("push_angle", "rad", "pusher path direction, from +y towards −x", &p.PushAngle).Range(-fullTurn, fullTurn)
	ps.Float("pusher_angle", "rad", "pusher face turned about z relative to the path", &p.PusherAngle).Range(-fullTurn, fullTurn)
	ps.Float("push_speed", "m/s", "pusher speed along its path", &p.PushSpeed).Positive().Max(maxSpeed)
	ps.Float("push_distance", "m", "pusher travel, then it stops", &p.PushDistance).Range(0, maxPosition)
	ps.Float("finger_y", "m", "fingers' position along y", &p.FingerY).Range(-maxPosition, maxPosition)
	ps.Float("finger_gap", "m", "distance between the fingers' axes", &p.FingerGap).Positive().Max(maxSize)
}

func init() {
	Register(NewScene("push",
		"round object on a tripod pushed by a kinematic square pusher into two fingers (BPMD paper §4, Fig. 3)",
		DefaultPushParams, declarePush, Push))
	describers["push"] = describer("push", DefaultPushParams, declarePush, pushSpec)
}
