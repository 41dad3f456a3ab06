package scenes

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// The dominoes' shape: thickness along the local x axis (the direction
// they fall), width along y, height along z, and the spiral layout's
// inner radius and distance between turns.
const (
	dominoThick, dominoWidth, dominoHeight = 0.02, 0.1, 0.2 // m
	spiralInner, spiralTurn                = 1.0, 0.3       // m
	// MaxDominoes is the largest number of dominoes.
	MaxDominoes = 20000
)

// DominoesParams describes a row of 0.02 × 0.1 × 0.2 m dominoes standing
// on the ground, Pitch apart along their path, the first tipped over its
// front bottom edge so that it topples the next, and so on. Layout "line"
// stands them along x; "spiral" stands them along an Archimedean spiral
// r = 1 m + (0.3 m/2π)·θ, outward and anticlockwise seen from above, each
// facing along the spiral's tangent, neighbours' centres Pitch apart, so
// that 1 000 dominoes fit in a disc
// of about 7 m. Turns are 0.3 m apart, more than a domino's width, and the
// 1 m inner radius turns the path by at most 0.12 rad per domino.
type DominoesParams struct {
	Count    int     // number of dominoes, 1 to MaxDominoes
	Layout   string  // "line" or "spiral"
	Pitch    float64 // m between neighbours' centres along the path, 0.03 to 1
	Density  float64 // kg/m³
	Friction float64 // μ, domino–domino and domino–ground
	Spin     float64 // rad/s: the first domino's initial rate about its front bottom edge
	Settings stepper.Settings
}

// DefaultDominoesParams: ten dominoes in a line 0.12 m apart, 700 kg/m³
// (0.28 kg each), μ = 0.4, the first turning at 3 rad/s,
// stepper.DefaultSettings — the stepper's leaning-dominoes test.
func DefaultDominoesParams() DominoesParams {
	return DominoesParams{Count: 10, Layout: "line", Pitch: 0.12, Density: 700, Friction: 0.4, Spin: 3,
		Settings: stepper.DefaultSettings()}
}

// Dominoes builds the dominoes: a ground plane (geom 0, on the world) and
// one box body "dominoK" (K from 1) per domino, in path order.
func Dominoes(p DominoesParams) (*stepper.World, error) {
	s, err := dominoesSpec(p)
	if err != nil {
		return nil, err
	}
	return buildWith(s, p.Settings)
}

// dominoesSpec describes the dominoes as a scene file.
func dominoesSpec(p DominoesParams) (*SceneSpec, error) {
	switch {
	case p.Count < 1 || p.Count > MaxDominoes:
		return nil, fieldErr("dominoes", "Count", p.Count, "must be in [1, %d], got %d", MaxDominoes, p.Count)
	case p.Layout != "line" && p.Layout != "spiral":
		return nil, fieldErr("dominoes", "Layout", p.Layout, "must be line or spiral, got %q", p.Layout)
	case !(p.Pitch >= 0.03 && p.Pitch <= 1):
		return nil, fieldErr("dominoes", "Pitch", p.Pitch, "must be in [0.03, 1] m, got %v", p.Pitch)
	case math.IsNaN(p.Spin) || math.Abs(p.Spin) > 100:
		return nil, fieldErr("dominoes", "Spin", p.Spin, "must be in [-100, 100] rad/s, got %v", p.Spin)
	}
	s, err := groundScene("dominoes", p.Density, p.Friction, p.Settings)
	if err != nil {
		return nil, err
	}
	mat := s.WorldShapes[0].Material
	size := mgl64.Vec3{dominoThick, dominoWidth, dominoHeight}
	m := p.Density * size[0] * size[1] * size[2]
	in := body.BoxInertia(m, size[0], size[1], size[2])
	theta := 0.0
	for i := 0; i < p.Count; i++ {
		pos := mgl64.Vec3{p.Pitch * float64(i), 0, dominoHeight / 2}
		rot := mgl64.QuatIdent()
		if p.Layout == "spiral" {
			r := spiralInner + spiralB*theta
			sin, cos := math.Sincos(theta)
			pos = spiralAt(theta)
			// The tangent dP/dθ = (b cos θ − r sin θ, b sin θ + r cos θ).
			rot = mgl64.QuatRotate(math.Atan2(spiralB*sin+r*cos, spiralB*cos-r*sin), mgl64.Vec3{0, 0, 1})
			theta = spiralNext(theta, p.Pitch)
		}
		d := BodySpec{Name: fmt.Sprintf("domino%d", i+1), Mass: m, Inertia: &in, Pos: pos, Rot: rot,
			Shapes: []ShapeSpec{{Type: contact.Box, Size: size, Material: mat}}}
		if i == 0 {
			// Turning about its front bottom edge (local x = +thickness/2,
			// z = −height/2): v = ω × (centre − edge).
			d.AngVel = rot.Rotate(mgl64.Vec3{0, p.Spin, 0})
			d.Vel = d.AngVel.Cross(rot.Rotate(mgl64.Vec3{-dominoThick / 2, 0, dominoHeight / 2}))
		}
		s.Bodies = append(s.Bodies, d)
	}
	return s, nil
}

// spiralB is the spiral's growth: r = spiralInner + spiralB·θ (m/rad).
const spiralB = spiralTurn / (2 * math.Pi)

// spiralAt is the point of the spiral at angle θ, at a domino's centre
// height.
func spiralAt(theta float64) mgl64.Vec3 {
	r := spiralInner + spiralB*theta
	sin, cos := math.Sincos(theta)
	return mgl64.Vec3{r * cos, r * sin, dominoHeight / 2}
}

// spiralNext returns the angle θ' > θ whose point is pitch from θ's
// (chord length), by bisection on [θ, θ + 2·pitch/r]: the chord grows
// with θ' there, since pitch ≤ 1 m is less than the inner radius.
func spiralNext(theta, pitch float64) float64 {
	p0 := spiralAt(theta)
	lo, hi := theta, theta+2*pitch/(spiralInner+spiralB*theta)
	for k := 0; k < 64 && lo < hi; k++ {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if spiralAt(mid).Sub(p0).Len() < pitch {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// declareDominoes binds DominoesParams.
func declareDominoes(ps *ParamSet, p *DominoesParams) {
	ps.Int("count", "", fmt.Sprintf("number of dominoes, 0.02 × 0.1 × 0.2 m (at most %d)", MaxDominoes), &p.Count).Range(1, MaxDominoes)
	ps.String("layout", "", "line (along x) or spiral (outward from a 1 m radius, turns 0.3 m apart)", &p.Layout, "line", "spiral")
	ps.Float("pitch", "m", "distance between neighbours along the path (0.03–1 m)", &p.Pitch).Range(0.03, 1)
	ps.Float("density", "kg/m³", "domino density", &p.Density).Positive().Max(maxDensity)
	ps.Float("friction", "", "friction coefficient μ, domino–domino and domino–ground", &p.Friction).Range(0, maxFriction)
	ps.Float("spin", "rad/s", "the first domino's initial rate about its front bottom edge", &p.Spin).Range(-maxSpin, maxSpin)
}

func init() {
	Register(NewScene("dominoes",
		"a row of dominoes, the first tipped over so that each topples the next; in a line or a spiral",
		DefaultDominoesParams, declareDominoes, Dominoes))
	describers["dominoes"] = describer("dominoes", DefaultDominoesParams, declareDominoes, dominoesSpec)
}
