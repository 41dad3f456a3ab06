package scenes

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/stepper"
)

// MaxPyramidBase is the largest bottom row of a pyramid
// (PyramidParams.Base: 20 100 bricks).
const MaxPyramidBase = 200

// PyramidParams describes a pyramid of bricks in one vertical plane: rows
// of Base, Base − 1, …, 1 bricks from the bottom, neighbours in a row
// touching end to end (no gaps), each row offset by half a brick so that
// every brick above the ground rests on two. It is the brick wall's large
// sibling for scaling studies: the contact graph is a triangle of n(n+1)/2
// bricks, every brick touches up to six others, and the end-to-end contacts
// add the redundant lateral rows that the wall's gaps avoid. Brick length
// runs along x, depth along y, height along z.
type PyramidParams struct {
	Base     int     // bricks in the bottom row (31: 496 bricks)
	Length   float64 // brick length along x (m)
	Depth    float64 // brick depth along y (m)
	Height   float64 // brick height along z (m)
	Density  float64 // kg/m³
	Friction float64 // μ, brick–brick and brick–ground
	Settings stepper.Settings
}

// DefaultPyramidParams: a bottom row of 31 bricks (496 bricks in 31 rows)
// of the brick wall's 0.2 × 0.1 × 0.1 m, 4 kg bricks, μ = 0.6, h = 1/60 s,
// block pivoting without a budget, standard gravity.
func DefaultPyramidParams() PyramidParams {
	return PyramidParams{Base: 31, Length: 0.2, Depth: 0.1, Height: 0.1, Density: 2000,
		Friction: 0.6,
		Settings: stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity}}
}

// Pyramid builds the pyramid: a ground plane (geom 0, on the world) and
// one box geom per brick, bricks numbered row by row from the bottom, left
// to right, the pyramid centred on x = 0. Each brick rests exactly on the
// ones below (zero gap) and touches its neighbours in the row.
func Pyramid(p PyramidParams) (*stepper.World, error) {
	s, err := pyramidSpec(p)
	if err != nil {
		return nil, err
	}
	return buildWith(s, p.Settings)
}

// pyramidSpec describes the pyramid as a scene file: the ground plane as a
// world shape, bricks "brickR-K" (row R from the bottom, K from the left).
func pyramidSpec(p PyramidParams) (*SceneSpec, error) {
	if p.Base < 1 || p.Base > MaxPyramidBase {
		return nil, fieldErr("pyramid", "Base", p.Base, "must be in [1, %d], got %d", MaxPyramidBase, p.Base)
	}
	if err := checkFields("pyramid", false, field{"Friction", "", p.Friction}); err != nil {
		return nil, err
	}
	s, brick, err := brickScene("pyramid", p.Length, p.Depth, p.Height, p.Density, p.Friction, p.Settings)
	if err != nil {
		return nil, err
	}
	for row := 0; row < p.Base; row++ {
		n := p.Base - row
		x0 := -float64(n-1) * p.Length / 2 // row r is centred: offset by half a brick per row
		z := p.Height/2 + float64(row)*p.Height
		for k := 0; k < n; k++ {
			s.Bodies = append(s.Bodies, brick(row, k, mgl64.Vec3{x0 + float64(k)*p.Length, 0, z}))
		}
	}
	return s, nil
}

// declarePyramid binds PyramidParams.
func declarePyramid(ps *ParamSet, p *PyramidParams) {
	ps.Int("base", "", "bricks in the bottom row; rows of base, base−1, …, 1 (31: 496 bricks)", &p.Base).Range(1, MaxPyramidBase)
	ps.Float("length", "m", "brick length along x", &p.Length).Positive().Max(maxSize)
	ps.Float("depth", "m", "brick depth along y", &p.Depth).Positive().Max(maxSize)
	ps.Float("height", "m", "brick height along z", &p.Height).Positive().Max(maxSize)
	ps.Float("density", "kg/m³", "brick density", &p.Density).Positive().Max(maxDensity)
	ps.Float("friction", "", "friction coefficient μ, brick–brick and brick–ground", &p.Friction).Range(0, maxFriction)
}

func init() {
	Register(NewScene("pyramid",
		"pyramid of bricks on the ground, rows of n, n−1, …, 1 without gaps (a scaling study; 496 bricks)",
		DefaultPyramidParams, declarePyramid, Pyramid))
	describers["pyramid"] = describer("pyramid", DefaultPyramidParams, declarePyramid, pyramidSpec)
}
