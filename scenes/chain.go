package scenes

import (
	"errors"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/stepper"
)

// MaxChainLinks is the largest number of links of a chain (ChainParams.Links).
const MaxChainLinks = 10000

// ChainParams describes a planar chain of thin rods joined by hinges about
// the world y axis, its first link pinned to the world at the origin,
// released from rest along +x (horizontal). A chain of one link is the
// pendulum.
type ChainParams struct {
	Links  int     // number of links, 1 to MaxChainLinks
	Length float64 // link length (m)
	Mass   float64 // link mass (kg)
	Radius float64 // rod radius for the inertia about its own axis (m)
	// Angle is the release angle of the chain below the horizontal (rad).
	Angle    float64
	Settings stepper.Settings
}

// DefaultChainParams is the 6-link chain of Cline and Pai 2003: links
// 100 mm, 0.1 kg, h = 0.001 s, released horizontal, regularized Eq. (1).
func DefaultChainParams() ChainParams {
	return ChainParams{Links: 6, Length: 0.1, Mass: 0.1, Radius: 0.005,
		Settings: stepper.Settings{H: 0.001, Gravity: stepper.StandardGravity}}
}

// DefaultPendulumParams is one 1 m, 1 kg rod hanging 0.05 rad off the
// vertical (Angle = π/2 − 0.05 rad), h = 0.001 s.
func DefaultPendulumParams() ChainParams {
	p := DefaultChainParams()
	p.Links, p.Length, p.Mass, p.Radius = 1, 1, 1, 0.01
	p.Angle = math.Pi/2 - 0.05
	return p
}

// Chain builds the chain. Errors name the field.
func Chain(p ChainParams) (*stepper.World, error) {
	s, err := chainSpec(p)
	if err != nil {
		return nil, err
	}
	return buildWith(s, p.Settings)
}

// chainSpec describes the chain as a scene file: link i (from 1) is body
// "linki", hinged to the previous link (the world for the first) at its
// start point about world y.
func chainSpec(p ChainParams) (*SceneSpec, error) {
	if p.Links < 1 || p.Links > MaxChainLinks {
		return nil, fieldErr("chain", "Links", p.Links, "must be in [1, %d], got %d", MaxChainLinks, p.Links)
	}
	if err := checkFields("chain", true, field{"Length", "", p.Length}, field{"Mass", "", p.Mass}, field{"Radius", "", p.Radius}); err != nil {
		return nil, err
	}
	if !num.Finite(p.Angle) {
		return nil, fieldErr("chain", "Angle", p.Angle, "must be finite, got %v", p.Angle)
	}
	if err := p.Settings.Validate(); err != nil {
		return nil, err
	}
	s := &SceneSpec{Settings: specSettings(p.Settings)}
	// Links lie along the body x axis, rotated by Angle about +y so that a
	// positive angle points the chain downward (−z).
	rot := mgl64.QuatRotate(p.Angle, mgl64.Vec3{0, 1, 0})
	dir := rot.Rotate(mgl64.Vec3{1, 0, 0})
	inertia := body.CylinderInertia(p.Mass, p.Radius, p.Length) // axis along local z
	// Re-express with the rod axis along local x: swap x and z.
	inertia = mgl64.Mat3{inertia[8], 0, 0, 0, inertia[4], 0, 0, 0, inertia[0]}
	prev := WorldName
	for i := 0; i < p.Links; i++ {
		start := dir.Mul(float64(i) * p.Length)
		name := fmt.Sprintf("link%d", i+1)
		in := inertia
		s.Bodies = append(s.Bodies, BodySpec{
			Name: name, Mass: p.Mass, Inertia: &in,
			Pos: start.Add(dir.Mul(p.Length / 2)), Rot: rot,
		})
		s.Joints = append(s.Joints, JointSpec{Type: JointHinge, A: prev, B: name, Pivot: start, Axis: mgl64.Vec3{0, 1, 0}})
		prev = name
	}
	return s, nil
}

// Pendulum builds a one-link chain.
func Pendulum(p ChainParams) (*stepper.World, error) {
	if p.Links != 1 {
		return nil, fieldErr("pendulum", "Links", p.Links, "must be 1, got %d", p.Links)
	}
	return Chain(p)
}

func init() {
	Register(NewScene("chain6",
		"planar chain of hinged rods, pinned at one end, falling from horizontal (Cline and Pai 2003 §VI.A)",
		DefaultChainParams, declareChain(true), Chain))
	Register(NewScene("pendulum",
		"one rod on a hinge swinging near the vertical (analytic small-amplitude period)",
		DefaultPendulumParams, declareChain(false), Pendulum))
}

// declareChain binds ChainParams to the registry's parameters; the pendulum
// has no links parameter.
func declareChain(links bool) func(ps *ParamSet, p *ChainParams) {
	return func(ps *ParamSet, p *ChainParams) {
		if links {
			ps.Int("links", "", "number of links", &p.Links).Range(1, MaxChainLinks)
		}
		ps.Float("length", "m", "link length", &p.Length).Positive().Max(maxSize)
		ps.Float("mass", "kg", "link mass", &p.Mass).Positive().Max(maxMass)
		ps.Float("radius", "m", "rod radius (inertia about the rod axis)", &p.Radius).Positive().Max(maxSize)
		ps.Float("angle", "rad", "release angle below the horizontal", &p.Angle).Range(-fullTurn, fullTurn)
		ps.Var("stabilization", "", "regularized|none|baumgarte|post", stabilizationValue{&p.Settings.Stabilization})
		ps.Float("baumgarte", "1/s", "Baumgarte constant β (stabilization=baumgarte)", &p.Settings.Baumgarte).Range(0, maxRate)
	}
}

// stabilizationValue binds a stepper.Stabilization to a scene parameter.
type stabilizationValue struct{ p *stepper.Stabilization }

func (v stabilizationValue) String() string { return v.p.String() }

func (v stabilizationValue) Set(s string) error {
	m, err := stepper.ParseStabilization(s)
	if err != nil {
		return errors.New("want regularized, none, baumgarte or post")
	}
	*v.p = m
	return nil
}
