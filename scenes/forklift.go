package scenes

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// ForkliftParams describes the forklift-like vehicle of
// Enzenhöfer et al. 2019 §5.3 (Fig. 10): a chassis on two driven front
// wheels and two steered rear wheels, driven through an engine shaft, a
// torque converter, a transmission and a differential, all in the step's
// MLCP, on a ground plane, z up, the vehicle facing +x at the start (y to
// its left).
//
// Bodies, in this order (the Forklift* index constants):
//   - chassis: a box L_c × W_c × H_c (inertia of the solid box) whose centre
//     of mass sits at height z_c, at the origin; it has no collision geom
//     (the paper's vehicle never touches the ground with its body);
//   - four wheels, solid cylinders of radius r and width b_w (mass m_w),
//     axle along the chassis y axis, centres at x = ±Wheelbase/2,
//     y = ±Track/2, z = r (touching the ground); front left, front right,
//     rear left, rear right. Each wheel is a cylinder geom with
//     stepper.Material{Friction: μ, Rolling: c_rr}: its line contact gives
//     two contact points with box friction and one rolling-resistance row
//     (angular friction about the line through the two points, torque bound
//     c_rr times the normal force);
//   - two knuckles (mass m_k, a 0.1 m cube's inertia) at the rear wheel
//     centres, each on a hinge to the chassis about the vertical axis
//     through the wheel centre, built already turned to its steering angle
//     and held there by hinge limits lo = hi = 0 (the position input,
//     Steer);
//   - the engine shaft, the converter's turbine shaft and the differential
//     carrier, each on a hinge to the chassis (engine and turbine axes
//     vertical, along the chassis z axis; the carrier's along y), each with
//     an isotropic inertia J_e, J_t, J_c about its centre (only the axial
//     one matters to the drivetrain; the shafts' mass m_s moves with the
//     chassis).
//
// The engine and turbine shafts lie along the chassis' x axis (a
// longitudinal engine) and run at engine speeds: about 155 rad/s at full
// throttle (G = 22). Earlier versions had to stand them vertical and run
// the drivetrain at 22 rad/s, because turning a shaft that spins at ω by
// one exponential map of ω h per step while the chassis yaws left its
// axis error to the hinge; the stepper's gyroscopic free velocity
// (body.Body.AngularStep) and its position projection now keep a fast
// shaft on its hinge.

// Joints: a hinge per wheel (front wheels to the chassis, rear wheels to
// their knuckles), no limits, motors or friction.
//
// Drivetrain, one row each:
//   - engine: a controller applies τ_e(t) = T_max·min(t/t_r, 1) about the
//     engine axis to the engine shaft and −τ_e to the chassis (the torque
//     rises over t_r, then stays constant). The engine's torque curve
//     droops with its speed: a constraint.Converter between the engine
//     shaft and the chassis passes −b_e ω_e, so the net engine torque is
//     τ_e − b_e ω_e (a governor line reaching 0 at ω_e = T_max/b_e). The
//     droop is what gives the vehicle a steady speed: rolling resistance is
//     Coulomb-like and no other loss grows with speed.
//   - torque converter: a constraint.Converter between the engine and the
//     turbine shaft, slip relative to the chassis, passing τ = K (ω_e − ω_t)
//     (N·m, K in N·m·s/rad): a fluid coupling at its linear law, implicit in
//     the end-of-step slip (compliance 1/(K h), no position term).
//   - transmission: constraint.NewGear from the turbine to the carrier,
//     ratio G, housing the chassis: ω_t = G ω_c (relative to the chassis).
//   - differential: constraint.NewDifferential, carrier and the two front
//     wheels, housing the chassis: ω_c = ½ (ω_fl + ω_fr), so the front
//     wheels turn at different speeds in the curve.
//
// Steering: Steer δ is the angle of a virtual rear wheel on the centre
// line (positive: a left turn). The turn centre lies on the front axle
// line at R₀ = L/tan δ from its midpoint (L the wheelbase), and each rear
// wheel at y_i is turned by the Ackermann angle −atan(L tan δ/(L − y_i tan δ)),
// so that no wheel scrubs at low speed. The chassis' centre of mass then
// drives on a circle of radius √(R₀² + (L/2)²).
//
// At the defaults (h = 1/60 s): the chassis 2.0 × 1.0 × 0.5 m, 2500 kg,
// z_c = 0.35 m; wheels r = 0.3 m, b_w = 0.2 m, 40 kg, wheelbase 1.4 m,
// track 1.3 m; knuckles 10 kg; μ = 0.8, c_rr = 0.005 m; δ = 0.35 rad
// (R₀ = 3.82 m, the centre of mass on a circle of radius 3.88 m);
// J_e = 0.15, J_t = 0.05, J_c = 0.1 kg·m², m_s = 10 kg; T_max = 128 N·m,
// t_r = 1 s, b_e = 0.745 N·m·s/rad (ω_e ≤ 172 rad/s), K = 1.49 N·m·s/rad,
// G = 22 (the earlier slow drivetrain geared up by 22/3: the same vehicle
// forces). Total mass 2710 kg. The centre of mass settles (within 2 %) at
// 2.10 m/s after about 7 s (mean over 6–15 s; 2.22 m/s at h = 1/240 s),
// the engine at 158.6 rad/s, and the
// vehicle completes its circle after about 13.3 s (800 steps), back within
// 0.03 m of its start. 10 bodies; 81 rows per
// step: 53 joint rows (9 hinges of 5 rows, 4 limit rows, 2 converter
// rows, gear, differential) and 28 contact rows (per wheel 2 normal, 4
// friction, 1 rolling).
type ForkliftParams struct {
	ChassisLength  float64 // L_c, along x (m)
	ChassisWidth   float64 // W_c, along y (m)
	ChassisHeight  float64 // H_c, along z (m)
	ChassisMass    float64 // kg
	COMHeight      float64 // z_c, height of the chassis' centre of mass above the ground (m)
	Wheelbase      float64 // L, front to rear axle (m)
	Track          float64 // wheel centre to wheel centre across the vehicle (m)
	WheelRadius    float64 // r (m)
	WheelWidth     float64 // b_w (m)
	WheelMass      float64 // m_w (kg)
	KnuckleMass    float64 // m_k (kg)
	Friction       float64 // μ wheel–ground (dimensionless)
	Rolling        float64 // c_rr, rolling-resistance coefficient (m): torque bound c_rr·normal force
	Steer          float64 // δ, the virtual centre rear wheel's angle (rad), positive = left turn
	ShaftMass      float64 // m_s, mass of each drivetrain shaft (kg)
	EngineInertia  float64 // J_e (kg·m²)
	TurbineInertia float64 // J_t (kg·m²)
	CarrierInertia float64 // J_c (kg·m²)
	MaxTorque      float64 // T_max, engine torque after the ramp (N·m)
	RampTime       float64 // t_r, duration of the linear rise from 0 (s); 0 = a step
	EngineDroop    float64 // b_e, the engine torque's slope against its speed (N·m·s/rad)
	ConverterK     float64 // K, the torque converter's torque per slip (N·m·s/rad)
	GearRatio      float64 // G, turbine speed over carrier speed
	Settings       stepper.Settings
}

// Body indices of the forklift in its World.
const (
	ForkliftChassis = iota
	ForkliftWheelFL
	ForkliftWheelFR
	ForkliftWheelRL
	ForkliftWheelRR
	ForkliftKnuckleRL
	ForkliftKnuckleRR
	ForkliftEngine
	ForkliftTurbine
	ForkliftCarrier
)

// DefaultForkliftParams holds the values listed on ForkliftParams, with
// h = 1/60 s, block pivoting without a budget, the least-energy pick and
// standard gravity.
func DefaultForkliftParams() ForkliftParams {
	return ForkliftParams{
		ChassisLength: 2.0, ChassisWidth: 1.0, ChassisHeight: 0.5, ChassisMass: 2500, COMHeight: 0.35,
		Wheelbase: 1.4, Track: 1.3, WheelRadius: 0.3, WheelWidth: 0.2, WheelMass: 40, KnuckleMass: 10,
		Friction: 0.8, Rolling: 0.005, Steer: 0.35,
		ShaftMass: 10, EngineInertia: 0.15, TurbineInertia: 0.05, CarrierInertia: 0.1,
		MaxTorque: 128, RampTime: 1, EngineDroop: 0.745, ConverterK: 1.49, GearRatio: 22,
		Settings: stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity},
	}
}

// ForkliftSteerAngles returns the Ackermann angles (rad) of the rear left
// and rear right wheels for steering δ (see ForkliftParams).
func ForkliftSteerAngles(p ForkliftParams) (left, right float64) {
	t := math.Tan(p.Steer)
	l := p.Wheelbase
	ang := func(y float64) float64 { return -math.Atan(l * t / (l - y*t)) }
	return ang(p.Track / 2), ang(-p.Track / 2)
}

// ForkliftTurnRadius returns the radius (m) of the circle the chassis'
// centre of mass drives on without slip: √(R₀² + (L/2)²), R₀ = L/tan δ
// (+Inf for δ = 0).
func ForkliftTurnRadius(p ForkliftParams) float64 {
	r0 := p.Wheelbase / math.Tan(math.Abs(p.Steer))
	return math.Hypot(r0, p.Wheelbase/2)
}

// Forklift builds the vehicle: ground plane (geom 0, on the world), the
// bodies in the order of the Forklift* constants, one cylinder geom per
// wheel (geoms 1–4), the joints, the drivetrain rows and the engine-torque
// controller. Everything starts at rest, the wheels touching the ground.
func Forklift(p ForkliftParams) (*stepper.World, error) {
	s, err := forkliftSpec(p)
	if err != nil {
		return nil, err
	}
	return buildWith(s, p.Settings)
}

// forkliftSpec describes the forklift as a scene file (see Forklift); the
// engine torque is a ramp load on the engine shaft about the chassis'
// z axis with the chassis as reaction body.
func forkliftSpec(p ForkliftParams) (*SceneSpec, error) {
	const scene = "forklift"
	if err := checkFields(scene, true,
		field{"ChassisLength", "m", p.ChassisLength}, field{"ChassisWidth", "m", p.ChassisWidth},
		field{"ChassisHeight", "m", p.ChassisHeight}, field{"ChassisMass", "kg", p.ChassisMass},
		field{"COMHeight", "m", p.COMHeight}, field{"Wheelbase", "m", p.Wheelbase}, field{"Track", "m", p.Track},
		field{"WheelRadius", "m", p.WheelRadius}, field{"WheelWidth", "m", p.WheelWidth},
		field{"WheelMass", "kg", p.WheelMass}, field{"KnuckleMass", "kg", p.KnuckleMass},
		field{"ShaftMass", "kg", p.ShaftMass}, field{"EngineInertia", "kg·m²", p.EngineInertia},
		field{"TurbineInertia", "kg·m²", p.TurbineInertia}, field{"CarrierInertia", "kg·m²", p.CarrierInertia},
		field{"EngineDroop", "N·m·s/rad", p.EngineDroop}, field{"ConverterK", "N·m·s/rad", p.ConverterK},
		field{"GearRatio", "", p.GearRatio}); err != nil {
		return nil, err
	}
	if err := checkFields(scene, false, field{"Friction", "", p.Friction}, field{"Rolling", "m", p.Rolling},
		field{"MaxTorque", "N·m", p.MaxTorque}, field{"RampTime", "s", p.RampTime}); err != nil {
		return nil, err
	}
	if t := math.Abs(math.Tan(p.Steer)); math.IsNaN(p.Steer) || !(math.Abs(p.Steer) < math.Pi/2) || !(p.Track/2*t < p.Wheelbase) {
		return nil, fieldErr(scene, "Steer", p.Steer, "must be finite with |tan δ| < Wheelbase/(Track/2) = %.4g (turn centre outside the track), got %v rad", p.Wheelbase/(p.Track/2), p.Steer)
	}
	if err := p.Settings.Validate(); err != nil {
		return nil, err
	}
	s := &SceneSpec{Settings: specSettings(p.Settings),
		WorldShapes: []ShapeSpec{{Type: contact.Plane, Material: stepper.Material{Friction: p.Friction}}}}
	add := func(name string, m float64, inertia mgl64.Mat3, pos mgl64.Vec3, rot mgl64.Quat) *BodySpec {
		s.Bodies = append(s.Bodies, BodySpec{Name: name, Mass: m, Inertia: &inertia, Pos: pos, Rot: rot})
		return &s.Bodies[len(s.Bodies)-1]
	}
	id := mgl64.QuatIdent()
	add("chassis", p.ChassisMass, body.BoxInertia(p.ChassisMass, p.ChassisLength, p.ChassisWidth, p.ChassisHeight),
		mgl64.Vec3{0, 0, p.COMHeight}, id)
	r, hl := p.WheelRadius, p.Wheelbase/2
	dl, dr := ForkliftSteerAngles(p)
	type wheelSpec struct {
		name  string
		x, y  float64
		steer float64
	}
	specs := [4]wheelSpec{{"wheel-fl", hl, p.Track / 2, 0}, {"wheel-fr", hl, -p.Track / 2, 0},
		{"wheel-rl", -hl, p.Track / 2, dl}, {"wheel-rr", -hl, -p.Track / 2, dr}}
	wheelInertia := body.CylinderInertia(p.WheelMass, r, p.WheelWidth) // axis local z
	cyl := ShapeSpec{Type: contact.Cylinder, Radius: r, Length: p.WheelWidth,
		Material: stepper.Material{Friction: p.Friction, Rolling: p.Rolling}}
	toY := mgl64.QuatRotate(-math.Pi/2, mgl64.Vec3{1, 0, 0}) // local z → world y
	for _, ws := range specs {
		rot := mgl64.QuatRotate(ws.steer, mgl64.Vec3{0, 0, 1}).Mul(toY)
		b := add(ws.name, p.WheelMass, wheelInertia, mgl64.Vec3{ws.x, ws.y, r}, rot)
		b.Shapes = []ShapeSpec{cyl}
	}
	kInertia := body.BoxInertia(p.KnuckleMass, 0.1, 0.1, 0.1)
	for _, ws := range specs[2:] {
		add("knuckle-"+ws.name[len("wheel-"):], p.KnuckleMass, kInertia,
			mgl64.Vec3{ws.x, ws.y, r}, mgl64.QuatRotate(ws.steer, mgl64.Vec3{0, 0, 1}))
	}
	ex, ey, ez := mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 1, 0}, mgl64.Vec3{0, 0, 1}
	add("engine", p.ShaftMass, mgl64.Ident3().Mul(p.EngineInertia), mgl64.Vec3{0.3, 0, p.COMHeight}, id)
	add("turbine", p.ShaftMass, mgl64.Ident3().Mul(p.TurbineInertia), mgl64.Vec3{-0.1, 0, p.COMHeight}, id)
	add("carrier", p.ShaftMass, mgl64.Ident3().Mul(p.CarrierInertia), mgl64.Vec3{hl, 0, r}, id)

	// Each hinge's pivot is the centre of its first body.
	hinge := func(a, b int, axis mgl64.Vec3) *JointSpec {
		s.Joints = append(s.Joints, JointSpec{Type: JointHinge, A: s.Bodies[a].Name, B: s.Bodies[b].Name,
			Pivot: s.Bodies[a].Pos, Axis: axis})
		return &s.Joints[len(s.Joints)-1]
	}
	for i := 0; i < 4; i++ {
		wh, mount := ForkliftWheelFL+i, ForkliftChassis
		if i >= 2 {
			mount = ForkliftKnuckleRL + i - 2
		}
		hinge(wh, mount, s.Bodies[wh].Rot.Rotate(mgl64.Vec3{0, 0, 1}))
	}
	for _, k := range []int{ForkliftKnuckleRL, ForkliftKnuckleRR} {
		// Built turned: θ = 0 is the steering angle, held by the limits.
		hinge(k, ForkliftChassis, ez).Limits = &LimitsSpec{0, 0}
	}
	for _, sh := range []struct {
		id   int
		axis mgl64.Vec3
	}{{ForkliftEngine, ex}, {ForkliftTurbine, ex}, {ForkliftCarrier, ey}} {
		hinge(sh.id, ForkliftChassis, sh.axis)
	}
	s.Joints = append(s.Joints,
		JointSpec{Type: JointConverter, Name: "engine droop", A: "engine", B: "chassis", AxisA: ex, AxisB: ex, Coefficient: p.EngineDroop},
		JointSpec{Type: JointConverter, Name: "torque converter", A: "engine", B: "turbine", AxisA: ex, AxisB: ex, Coefficient: p.ConverterK, Housing: "chassis"},
		JointSpec{Type: JointGear, Name: "transmission", A: "turbine", B: "carrier", AxisA: ex, AxisB: ey, Ratio: p.GearRatio, Housing: "chassis"},
		JointSpec{Type: JointDifferential, Name: "differential", Carrier: "carrier", A: "wheel-fl", B: "wheel-fr",
			AxisCarrier: ey, AxisA: ey, AxisB: ey, Housing: "chassis"},
	)
	// The engine torque τ_e(t) = T_max·min(t/t_r, 1) about the engine axis,
	// fixed in the chassis; −τ_e on the chassis.
	s.Loads = []LoadSpec{{Type: LoadTorque, Body: "engine", Reaction: "chassis", Direction: ex, Frame: "chassis",
		Profile: ProfileSpec{Type: ProfileRamp, From: 0, To: p.MaxTorque, Duration: p.RampTime}}}
	return s, nil
}

// ForkliftWheelSpeeds returns the spin rate (rad/s) of the four wheels
// (front left, front right, rear left, rear right) about their axles,
// relative to the body each is mounted on (chassis or knuckle): positive
// when the vehicle rolls forward. w must come from Forklift.
func ForkliftWheelSpeeds(w *stepper.World) [4]float64 {
	var out [4]float64
	mounts := [4]int{ForkliftChassis, ForkliftChassis, ForkliftKnuckleRL, ForkliftKnuckleRR}
	for i := range out {
		wh := w.Bodies[ForkliftWheelFL+i]
		n := wh.Rot.Rotate(mgl64.Vec3{0, 0, 1})
		out[i] = wh.AngVel.Sub(w.Bodies[mounts[i]].AngVel).Dot(n)
	}
	return out
}

// ForkliftHeading returns the chassis' yaw (rad): the angle of its x axis
// in the ground plane, atan2 of its y and x components.
func ForkliftHeading(w *stepper.World) float64 {
	f := w.Bodies[ForkliftChassis].Rot.Rotate(mgl64.Vec3{1, 0, 0})
	return math.Atan2(f[1], f[0])
}

func init() {
	Register(NewScene("forklift",
		"forklift-like vehicle on a circle: steered rear wheels, torque converter, gear and differential in the MLCP (energy-error paper §5.3, Fig. 10)",
		DefaultForkliftParams, declareForklift, Forklift))
}

// declareForklift binds ForkliftParams. As for the other scenes, h is not
// a scene parameter: `sim run --dt` overrides the default 1/60 s.
func declareForklift(ps *ParamSet, p *ForkliftParams) {
	ps.Float("chassis_length", "m", "chassis box length along x", &p.ChassisLength).Positive().Max(maxSize)
	ps.Float("chassis_width", "m", "chassis box width along y", &p.ChassisWidth).Positive().Max(maxSize)
	ps.Float("chassis_height", "m", "chassis box height along z", &p.ChassisHeight).Positive().Max(maxSize)
	ps.Float("chassis_mass", "kg", "chassis mass", &p.ChassisMass).Positive().Max(maxMass)
	ps.Float("com_height", "m", "height of the chassis' centre of mass above the ground", &p.COMHeight).Positive().Max(maxSize)
	ps.Float("wheelbase", "m", "front to rear axle distance L", &p.Wheelbase).Positive().Max(maxSize)
	ps.Float("track", "m", "wheel centre to wheel centre across the vehicle", &p.Track).Positive().Max(maxSize)
	ps.Float("wheel_radius", "m", "wheel radius r", &p.WheelRadius).Positive().Max(maxSize)
	ps.Float("wheel_width", "m", "wheel width", &p.WheelWidth).Positive().Max(maxSize)
	ps.Float("wheel_mass", "kg", "mass of each wheel", &p.WheelMass).Positive().Max(maxMass)
	ps.Float("knuckle_mass", "kg", "mass of each rear steering knuckle", &p.KnuckleMass).Positive().Max(maxMass)
	ps.Float("friction", "", "friction coefficient μ wheel–ground", &p.Friction).Range(0, maxFriction)
	ps.Float("rolling", "m", "rolling-resistance coefficient c_rr (torque bound c_rr × normal force)", &p.Rolling).Range(0, maxSize)
	ps.Float("steer", "rad", "steering angle δ of a virtual centre rear wheel (Ackermann per wheel), positive = left", &p.Steer).Range(-math.Pi/2, math.Pi/2)
	ps.Float("shaft_mass", "kg", "mass of each drivetrain shaft (engine, turbine, carrier)", &p.ShaftMass).Positive().Max(maxMass)
	ps.Float("engine_inertia", "kg·m²", "engine shaft inertia J_e", &p.EngineInertia).Positive().Max(maxInertia)
	ps.Float("turbine_inertia", "kg·m²", "converter turbine shaft inertia J_t", &p.TurbineInertia).Positive().Max(maxInertia)
	ps.Float("carrier_inertia", "kg·m²", "differential carrier inertia J_c", &p.CarrierInertia).Positive().Max(maxInertia)
	ps.Float("max_torque", "N·m", "engine torque T_max after the ramp", &p.MaxTorque).Range(0, maxTorque)
	ps.Float("ramp_time", "s", "duration t_r of the torque's linear rise from 0", &p.RampTime).Range(0, maxTime)
	ps.Float("engine_droop", "N·m·s/rad", "engine torque lost per engine speed b_e (governor droop)", &p.EngineDroop).Positive().Max(maxRate)
	ps.Float("converter_k", "N·m·s/rad", "torque converter torque per slip K", &p.ConverterK).Positive().Max(maxRate)
	ps.Float("gear_ratio", "", "transmission ratio G, turbine over carrier speed", &p.GearRatio).Positive().Max(maxRatio)
}
