package scenes

import (
	"github.com/gorigid/gorigid/internal/num"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// RodParams describes the rigid rod of Enzenhöfer et al. 2019 §5.1
// (Fig. 7): a thin rod of mass m and length l lying on the ground along the
// world y axis, at rest, touching it at both ends, with a constant moment
// Tₓ about the world x axis through its centre of mass. Frictionless.
type RodParams struct {
	Mass    float64 // m (kg)
	Length  float64 // l (m)
	Radius  float64 // contact radius of the rod's ends (m); the paper's diameter is negligible: it does not enter A or b
	Torque  float64 // Tₓ (N·m), held constant
	Gravity float64 // g (m/s²), along −z
	// Friction is μ between rod and ground; the paper's rod is frictionless.
	Friction float64
	Settings stepper.Settings // H = 0.01 s in the paper
}

// DefaultRodParams holds the paper's values: m = 4 kg, l = 1.5 m,
// Tₓ = 20 N·m, g = 9.81 m/s², h = 0.01 s, frictionless.
func DefaultRodParams() RodParams {
	return RodParams{Mass: 4, Length: 1.5, Radius: 0.01, Torque: 20, Gravity: 9.81,
		Settings: stepper.Settings{H: 0.01}}
}

// Rod builds the rod on a ground plane (geom 0, on the world) with its
// capsule (geom 1). The rod's inertia is diag(ml²/12, I_y, ml²/12) with
// I_y = body.RodAxialRatio·ml²/12 ("I_y is small", Eq. 25), so its first
// step's MLCP is Eq. (26): A = [[4/m, −2/m], [−2/m, 4/m]] = [[1, −0.5],
// [−0.5, 1]] kg⁻¹ and b = −h(g ± 6Tₓ/(ml)) = [−0.2981, 0.1019] m/s.
// Settings.Gravity is replaced by (0, 0, −Gravity).
func Rod(p RodParams) (*stepper.World, error) {
	s, err := rodSpec(p)
	if err != nil {
		return nil, err
	}
	set := p.Settings
	set.Gravity = s.Settings.Gravity
	return buildWith(s, set)
}

// rodSpec describes the rod as a scene file: the ground plane as a world
// shape, the body "rod" with its capsule and its held torque.
func rodSpec(p RodParams) (*SceneSpec, error) {
	if err := checkFields("rod", true, field{"Mass", "kg", p.Mass}, field{"Length", "m", p.Length}, field{"Radius", "m", p.Radius}); err != nil {
		return nil, err
	}
	if err := checkFields("rod", false, field{"Friction", "", p.Friction}); err != nil {
		return nil, err
	}
	switch {
	case !num.Finite(p.Torque):
		return nil, fieldErr("rod", "Torque", p.Torque, "must be finite, got %v", p.Torque)
	case !num.Finite(p.Gravity):
		return nil, fieldErr("rod", "Gravity", p.Gravity, "must be finite, got %v", p.Gravity)
	}
	set := p.Settings
	set.Gravity = mgl64.Vec3{0, 0, -p.Gravity}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	t := p.Mass * p.Length * p.Length / 12
	inertia := mgl64.Diag3(mgl64.Vec3{t, body.RodAxialRatio * t, t})
	mat := stepper.Material{Friction: p.Friction}
	// The capsule's axis is its local z; turn it onto the body y axis with
	// an exact quaternion, (1 − x)/√2 rotates z onto y.
	c := math.Sqrt(0.5)
	return &SceneSpec{
		Settings:    specSettings(set),
		WorldShapes: []ShapeSpec{{Type: contact.Plane, Material: mat}},
		Bodies: []BodySpec{{
			Name: "rod", Mass: p.Mass, Inertia: &inertia,
			Pos: mgl64.Vec3{0, 0, p.Radius}, Rot: mgl64.QuatIdent(),
			Torque: mgl64.Vec3{p.Torque, 0, 0},
			Shapes: []ShapeSpec{{Type: contact.Capsule, Radius: p.Radius, Length: p.Length,
				Rot: mgl64.Quat{W: c, V: mgl64.Vec3{-c, 0, 0}}, Material: mat}},
		}},
	}, nil
}
