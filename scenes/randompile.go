package scenes

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// The random piles' box distribution and layout. Sides are drawn uniformly
// per side in [pileSideMin, pileSideMax]; drop heights (of the centre)
// uniformly in [pileDropMin, pileDropMax]; boxes sit on a square grid of
// pilePitch with a uniform jitter of up to pileJitter in x and y, and a
// random orientation (an angle uniform in [0, π) about a random axis).
const (
	pileSideMin, pileSideMax = 0.05, 0.3 // m
	pileDropMin, pileDropMax = 0.5, 3.0  // m
	pilePitch, pileJitter    = 0.35, 0.05
	// pileDraws is how often a drop height is drawn again while the box's
	// bounding sphere meets one already placed; after that the box is
	// stacked above the spheres of its neighbours.
	pileDraws = 100
	// pileStream is the second word of the PCG seed (the first is the
	// scene's seed parameter).
	pileStream = 24
	// MaxPiles is the largest number of piles of the piles scene.
	MaxPiles = 64
	// MaxPileBoxes is the largest number of boxes of a randompile, and of
	// all piles of a piles scene together: the pyramid's largest size
	// (base 200: 20 100 bricks) rounded down.
	MaxPileBoxes = 20000
)

// RandomPileParams describes a pile of boxes dropped onto the ground: the
// random pile of issue 25. Box i of n sits in cell (i mod c, i div c) of a
// c × c grid (c = ⌈√n⌉) 0.35 m apart, jittered by up to 0.05 m in x and y,
// with sides drawn uniformly in 0.05–0.3 m per side and its centre at a
// height drawn uniformly in 0.5–3 m, drawn again (up to 100 times) while
// its bounding sphere meets that of a box already placed, and then put
// above its neighbours' spheres: no two boxes intersect at the start. The
// grid is close enough for boxes to land on and against each other. All
// draws come from one PCG stream seeded with Seed, in body order, so a
// seed gives the same pile on every machine; the default seed gives the
// pile of the stepper's random-pile test.
type RandomPileParams struct {
	Boxes    int     // number of boxes, 1 to MaxPileBoxes
	Seed     int     // PCG seed, ≥ 0
	Density  float64 // kg/m³ (500: masses 0.06–13.5 kg)
	Friction float64 // μ, box–box and box–ground
	Settings stepper.Settings
}

// DefaultRandomPileParams: 100 boxes of 500 kg/m³, seed 2024, μ = 0.5,
// stepper.DefaultSettings (h = 1/60 s, standard gravity, block pivoting
// with its default budget).
func DefaultRandomPileParams() RandomPileParams {
	return RandomPileParams{Boxes: 100, Seed: 2024, Density: 500, Friction: 0.5, Settings: stepper.DefaultSettings()}
}

// RandomPile builds the pile: a ground plane (geom 0, on the world) and
// one box body "boxK" (K from 1) per box, in grid order.
func RandomPile(p RandomPileParams) (*stepper.World, error) {
	s, err := randomPileSpec(p)
	if err != nil {
		return nil, err
	}
	return buildWith(s, p.Settings)
}

// randomPileSpec describes the pile as a scene file.
func randomPileSpec(p RandomPileParams) (*SceneSpec, error) {
	if p.Boxes < 1 || p.Boxes > MaxPileBoxes {
		return nil, fieldErr("randompile", "Boxes", p.Boxes, "must be in [1, %d], got %d", MaxPileBoxes, p.Boxes)
	}
	s, err := pileScene("randompile", p.Seed, p.Density, p.Friction, p.Settings)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(p.Seed), pileStream))
	s.Bodies = appendPile(s.Bodies, rng, p.Boxes, mgl64.Vec3{}, "", p.Density, s.WorldShapes[0].Material)
	return s, nil
}

// pileScene validates the seed and what groundScene validates, and
// returns groundScene's scene.
func pileScene(name string, seed int, density, friction float64, set stepper.Settings) (*SceneSpec, error) {
	if seed < 0 {
		return nil, fieldErr(name, "Seed", seed, "must be ≥ 0, got %d", seed)
	}
	return groundScene(name, density, friction, set)
}

// groundScene validates the density (kg/m³), friction and settings shared
// by the scenes of boxes dropped or stood on the ground (randompile,
// piles, dominoes) and returns their scene with the ground plane
// (friction μ) as its first world shape.
func groundScene(name string, density, friction float64, set stepper.Settings) (*SceneSpec, error) {
	if err := checkFields(name, true, field{"Density", "kg/m³", density}); err != nil {
		return nil, err
	}
	if err := checkFields(name, false, field{"Friction", "", friction}); err != nil {
		return nil, err
	}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	mat := stepper.Material{Friction: friction}
	return &SceneSpec{Settings: specSettings(set),
		WorldShapes: []ShapeSpec{{Type: contact.Plane, Material: mat}}}, nil
}

// pileCols is the side of a pile's grid of n boxes: ⌈√n⌉ cells.
func pileCols(n int) int {
	c := int(math.Ceil(math.Sqrt(float64(n))))
	for c*c < n { // guard against a square root rounded down
		c++
	}
	return c
}

// pileExtent is the side (m) of the square that holds a pile of n boxes'
// grid cells, jitter and largest boxes.
func pileExtent(n int) float64 {
	return float64(pileCols(n)-1)*pilePitch + pileJitter + math.Sqrt(3)*pileSideMax
}

// appendPile appends the n boxes of one pile, its grid's first cell at
// origin, named prefix+"boxK", drawing from rng in body order: sides,
// jitter, drop heights, rotation axis and angle.
func appendPile(bodies []BodySpec, rng *rand.Rand, n int, origin mgl64.Vec3, prefix string, density float64, mat stepper.Material) []BodySpec {
	type placed struct {
		c mgl64.Vec3
		r float64
	}
	cols := pileCols(n)
	boxes := make([]placed, 0, n)
	for i := 0; i < n; i++ {
		s := mgl64.Vec3{pileSide(rng), pileSide(rng), pileSide(rng)}
		r := s.Len() / 2
		pos := origin.Add(mgl64.Vec3{pilePitch*float64(i%cols) + pileJitter*rng.Float64(),
			pilePitch*float64(i/cols) + pileJitter*rng.Float64(), 0})
		// Bounding spheres two or more rows apart never meet: centres are
		// at least 2·0.35 − 0.05 = 0.65 m apart in y, more than the
		// largest two radii (√3·0.3 = 0.52 m).
		near := boxes[max(0, (i/cols-1)*cols):]
		clear := func() bool {
			for _, o := range near {
				if o.c.Sub(pos).Len() <= o.r+r {
					return false
				}
			}
			return true
		}
		ok := false
		for d := 0; d < pileDraws && !ok; d++ {
			pos[2] = pileDropMin + (pileDropMax-pileDropMin)*rng.Float64()
			ok = clear()
		}
		if !ok { // stack above every neighbour's sphere
			for _, o := range near {
				pos[2] = math.Max(pos[2], o.c[2]+o.r+r+pileJitter)
			}
		}
		boxes = append(boxes, placed{pos, r})
		axis := mgl64.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}.Normalize()
		rot := mgl64.QuatRotate(math.Pi*rng.Float64(), axis)
		m := density * s[0] * s[1] * s[2]
		in := body.BoxInertia(m, s[0], s[1], s[2])
		bodies = append(bodies, BodySpec{Name: fmt.Sprintf("%sbox%d", prefix, i+1), Mass: m, Inertia: &in,
			Pos: pos, Rot: rot, Shapes: []ShapeSpec{{Type: contact.Box, Size: s, Material: mat}}})
	}
	return bodies
}

// pileSide draws one box side (m).
func pileSide(rng *rand.Rand) float64 {
	return pileSideMin + (pileSideMax-pileSideMin)*rng.Float64()
}

// declareRandomPile binds RandomPileParams.
func declareRandomPile(ps *ParamSet, p *RandomPileParams) {
	ps.Int("boxes", "", fmt.Sprintf("number of boxes, sides 0.05–0.3 m, dropped from 0.5–3 m (at most %d)", MaxPileBoxes), &p.Boxes).Range(1, MaxPileBoxes)
	ps.Int("seed", "", "seed of the PCG random stream that draws sizes, places and orientations", &p.Seed).Range(0, maxSeed)
	ps.Float("density", "kg/m³", "box density", &p.Density).Positive().Max(maxDensity)
	ps.Float("friction", "", "friction coefficient μ, box–box and box–ground", &p.Friction).Range(0, maxFriction)
}

// PilesParams describes K random piles (RandomPileParams) side by side on
// one ground plane, far enough apart that no box of one pile reaches
// another: independent islands of contacts, the scene for measuring a
// step's use of several cores. Pile k sits in cell (k mod c, k div c) of a
// c × c grid (c = ⌈√K⌉) whose pitch is a pile's extent plus Gap. All piles
// draw from one PCG stream seeded with Seed, pile after pile, so they
// differ from one another.
type PilesParams struct {
	Piles    int     // number of piles, 1 to 64
	Boxes    int     // boxes per pile; Piles·Boxes ≤ MaxPileBoxes
	Gap      float64 // m between the squares that hold the piles' grids
	Seed     int     // PCG seed, ≥ 0
	Density  float64 // kg/m³
	Friction float64 // μ, box–box and box–ground
	Settings stepper.Settings
}

// DefaultPilesParams: 4 piles of 100 boxes 4 m apart, the random pile's
// boxes (500 kg/m³, μ = 0.5), seed 2024, stepper.DefaultSettings.
func DefaultPilesParams() PilesParams {
	return PilesParams{Piles: 4, Boxes: 100, Gap: 4, Seed: 2024, Density: 500, Friction: 0.5,
		Settings: stepper.DefaultSettings()}
}

// Piles builds the piles: a ground plane (geom 0, on the world) and, pile
// by pile, one box body "pileP-boxK" (P and K from 1) per box.
func Piles(p PilesParams) (*stepper.World, error) {
	s, err := pilesSpec(p)
	if err != nil {
		return nil, err
	}
	return buildWith(s, p.Settings)
}

// pilesSpec describes the piles as a scene file.
func pilesSpec(p PilesParams) (*SceneSpec, error) {
	switch {
	case p.Piles < 1 || p.Piles > MaxPiles:
		return nil, fieldErr("piles", "Piles", p.Piles, "must be in [1, %d], got %d", MaxPiles, p.Piles)
	case p.Boxes < 1 || p.Boxes > MaxPileBoxes/p.Piles:
		return nil, fieldErr("piles", "Boxes", p.Boxes, "must be in [1, %d] for %d piles (at most %d boxes in all), got %d", MaxPileBoxes/p.Piles, p.Piles, MaxPileBoxes, p.Boxes)
	case !(p.Gap >= 0 && p.Gap <= 1000):
		return nil, fieldErr("piles", "Gap", p.Gap, "must be in [0, 1000] m, got %v", p.Gap)
	}
	s, err := pileScene("piles", p.Seed, p.Density, p.Friction, p.Settings)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(p.Seed), pileStream))
	cols := pileCols(p.Piles)
	step := pileExtent(p.Boxes) + p.Gap
	for k := 0; k < p.Piles; k++ {
		origin := mgl64.Vec3{step * float64(k%cols), step * float64(k/cols), 0}
		s.Bodies = appendPile(s.Bodies, rng, p.Boxes, origin, fmt.Sprintf("pile%d-", k+1), p.Density, s.WorldShapes[0].Material)
	}
	return s, nil
}

// declarePiles binds PilesParams.
func declarePiles(ps *ParamSet, p *PilesParams) {
	ps.Int("piles", "", "number of separate piles (at most 64)", &p.Piles).Range(1, MaxPiles)
	ps.Int("boxes", "", fmt.Sprintf("boxes per pile (at most %d in all)", MaxPileBoxes), &p.Boxes).Range(1, MaxPileBoxes)
	ps.Float("gap", "m", "clearance between neighbouring piles' grids", &p.Gap).Range(0, maxPosition)
	ps.Int("seed", "", "seed of the PCG random stream that draws sizes, places and orientations", &p.Seed).Range(0, maxSeed)
	ps.Float("density", "kg/m³", "box density", &p.Density).Positive().Max(maxDensity)
	ps.Float("friction", "", "friction coefficient μ, box–box and box–ground", &p.Friction).Range(0, maxFriction)
}

func init() {
	Register(NewScene("randompile",
		"boxes of random sides 0.05–0.3 m dropped from 0.5–3 m into a pile on the ground, μ = 0.5 (issue 25's unstructured scene)",
		DefaultRandomPileParams, declareRandomPile, RandomPile))
	describers["randompile"] = describer("randompile", DefaultRandomPileParams, declareRandomPile, randomPileSpec)
	Register(NewScene("piles",
		"separate random piles far enough apart never to touch (independent islands: a multi-core scene)",
		DefaultPilesParams, declarePiles, Piles))
	describers["piles"] = describer("piles", DefaultPilesParams, declarePiles, pilesSpec)
}
