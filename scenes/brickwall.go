package scenes

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// MaxWallRows is the largest number of rows of a brick wall
// (BrickWallParams.Rows: 2 500 bricks).
const MaxWallRows = 1000

// BrickWallParams describes the brick wall of Enzenhöfer et al. 2019 §5.2
// (Fig. 8): bricks in masonry (running) bond on the ground, rows
// alternating three and two bricks, the bottom row three, rows of two
// offset by half a brick, small lateral gaps between neighbours. Brick
// length runs along x, depth along y, height along z.
type BrickWallParams struct {
	Rows     int     // number of rows (12 in the paper: 30 bricks)
	Length   float64 // brick length along x (m)
	Depth    float64 // brick depth along y (m)
	Height   float64 // brick height along z (m)
	Density  float64 // kg/m³
	Gap      float64 // lateral gap between neighbours in a row (m), ≥ 0
	Friction float64 // μ, brick–brick and brick–ground
	Settings stepper.Settings
}

// DefaultBrickWallParams: 12 rows (30 bricks) of 0.2 × 0.1 × 0.1 m bricks
// at 2000 kg/m³ (4 kg each), 1 mm lateral gaps, μ = 0.6, h = 1/60 s, block
// pivoting without a budget, standard gravity.
func DefaultBrickWallParams() BrickWallParams {
	return BrickWallParams{Rows: 12, Length: 0.2, Depth: 0.1, Height: 0.1, Density: 2000,
		Gap: 0.001, Friction: 0.6,
		Settings: stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity}}
}

// BrickWall builds the wall: a ground plane (geom 0, on the world) and one
// box geom per brick, bricks numbered row by row from the bottom, left to
// right. Each brick rests exactly on the one below (zero gap).
func BrickWall(p BrickWallParams) (*stepper.World, error) {
	s, err := brickWallSpec(p)
	if err != nil {
		return nil, err
	}
	return buildWith(s, p.Settings)
}

// brickWallSpec describes the wall as a scene file: the ground plane as a
// world shape, bricks "brickR-K" (row R from the bottom, K from the left).
func brickWallSpec(p BrickWallParams) (*SceneSpec, error) {
	if p.Rows < 1 || p.Rows > MaxWallRows {
		return nil, fieldErr("brickwall", "Rows", p.Rows, "must be in [1, %d], got %d", MaxWallRows, p.Rows)
	}
	if err := checkFields("brickwall", false, field{"Gap", "m", p.Gap}, field{"Friction", "", p.Friction}); err != nil {
		return nil, err
	}
	s, brick, err := brickScene("brickwall", p.Length, p.Depth, p.Height, p.Density, p.Friction, p.Settings)
	if err != nil {
		return nil, err
	}
	pitch := p.Length + p.Gap
	for row := 0; row < p.Rows; row++ {
		n, x0 := 3, -pitch // rows of three: centres at −pitch, 0, +pitch
		if row%2 == 1 {
			n, x0 = 2, -pitch/2 // rows of two: over the joints of the row below
		}
		z := p.Height/2 + float64(row)*p.Height
		for k := 0; k < n; k++ {
			s.Bodies = append(s.Bodies, brick(row, k, mgl64.Vec3{x0 + float64(k)*pitch, 0, z}))
		}
	}
	return s, nil
}

// brickScene validates the brick sizes (m), density (kg/m³) and settings
// shared by the brick wall and the pyramid, and returns their scene with
// the ground plane (friction μ) and a maker of brick bodies named
// "brickR-K" (row R from the bottom, K from the left, both from 1) at a
// centre position.
func brickScene(name string, length, depth, height, density, friction float64, set stepper.Settings) (*SceneSpec, func(row, k int, pos mgl64.Vec3) BodySpec, error) {
	if err := checkFields(name, true, field{"Length", "m", length}, field{"Depth", "m", depth},
		field{"Height", "m", height}, field{"Density", "kg/m³", density}); err != nil {
		return nil, nil, err
	}
	if err := set.Validate(); err != nil {
		return nil, nil, err
	}
	mat := stepper.Material{Friction: friction}
	s := &SceneSpec{Settings: specSettings(set),
		WorldShapes: []ShapeSpec{{Type: contact.Plane, Material: mat}}}
	box := ShapeSpec{Type: contact.Box, Size: mgl64.Vec3{length, depth, height}, Material: mat}
	m := density * length * depth * height
	inertia := body.BoxInertia(m, length, depth, height)
	brick := func(row, k int, pos mgl64.Vec3) BodySpec {
		in := inertia
		return BodySpec{Name: fmt.Sprintf("brick%d-%d", row+1, k+1), Mass: m, Inertia: &in,
			Pos: pos, Rot: mgl64.QuatIdent(), Shapes: []ShapeSpec{box}}
	}
	return s, brick, nil
}
