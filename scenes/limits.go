package scenes

import "math"

// The stated maxima of the built-in scenes' parameters (Param.Max). They
// bound what a --set value can ask for, far beyond any physical use of
// the scenes: counts are bounded by what the scene's builder accepts
// (MaxChainLinks, MaxDominoes, MaxPileBoxes, the wall's 1 000 rows, the
// pyramid's base of 200), sizes and masses by values no rigid-body scene
// of these kinds reaches.
const (
	maxSize     = 100.0       // m: a link, a brick, a wheel, a pusher
	maxPosition = 1000.0      // m: a start position or a travel
	maxMass     = 1e6         // kg
	maxDensity  = 1e5         // kg/m³ (the densest element, osmium, is 22 590)
	maxFriction = 10.0        // Coulomb μ (rubber on dry rubber is about 2)
	maxInertia  = 1e6         // kg·m²
	maxTorque   = 1e6         // N·m
	maxGravity  = 1000.0      // m/s²
	maxRate     = 1e6         // 1/s: a Baumgarte constant, a droop or a converter gain per kg·m²
	maxTime     = 1e4         // s: a ramp
	maxRatio    = 1000.0      // a gear ratio
	maxSpeed    = 100.0       // m/s
	maxSpin     = 100.0       // rad/s: the dominoes' Spin bound
	maxSeed     = 1<<31 - 1   // a PCG seed; every seed below it draws a different scene
	fullTurn    = 2 * math.Pi // rad: angles lie in [−2π, 2π]
)
