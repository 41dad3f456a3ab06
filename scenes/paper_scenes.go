package scenes

// Registration of the scenes of Enzenhöfer et al. 2019 §5.1–5.2 with the
// binder, so that `sim list`, `sim run rod|brickwall --set NAME=VALUE` and
// the studies reach every field of RodParams and BrickWallParams. The time
// step is not a scene parameter (as for chain6): the defaults keep the
// paper's h (0.01 s for the rod, 1/60 s for the wall) and `sim run --dt`
// overrides it.

func init() {
	Register(NewScene("rod",
		"frictionless rod on two ground contacts under a moment Tx, Eq. 26 (energy-error paper §5.1, Fig. 7)",
		DefaultRodParams, declareRod, Rod))
	Register(NewScene("brickwall",
		"30-brick masonry wall on the ground, rows of 3 and 2 (energy-error paper §5.2, Fig. 8)",
		DefaultBrickWallParams, declareBrickWall, BrickWall))
}

// declareRod binds RodParams.
func declareRod(ps *ParamSet, p *RodParams) {
	ps.Float("mass", "kg", "rod mass m", &p.Mass).Positive().Max(maxMass)
	ps.Float("length", "m", "rod length l (contacts at both ends)", &p.Length).Positive().Max(maxSize)
	ps.Float("radius", "m", "contact radius of the rod's ends (does not enter A or b)", &p.Radius).Positive().Max(maxSize)
	ps.Float("torque", "N·m", "constant moment Tx about the world x axis", &p.Torque).Range(-maxTorque, maxTorque)
	ps.Float("gravity", "m/s²", "gravitational acceleration g along −z", &p.Gravity).Range(-maxGravity, maxGravity)
	ps.Float("friction", "", "friction coefficient μ rod–ground (paper: frictionless)", &p.Friction).Range(0, maxFriction)
}

// declareBrickWall binds BrickWallParams.
func declareBrickWall(ps *ParamSet, p *BrickWallParams) {
	ps.Int("rows", "", "rows of bricks, alternating 3 and 2 (12 rows: 30 bricks)", &p.Rows).Range(1, MaxWallRows)
	ps.Float("length", "m", "brick length along x", &p.Length).Positive().Max(maxSize)
	ps.Float("depth", "m", "brick depth along y", &p.Depth).Positive().Max(maxSize)
	ps.Float("height", "m", "brick height along z", &p.Height).Positive().Max(maxSize)
	ps.Float("density", "kg/m³", "brick density", &p.Density).Positive().Max(maxDensity)
	ps.Float("gap", "m", "lateral gap between neighbours in a row", &p.Gap).Range(0, maxSize)
	ps.Float("friction", "", "friction coefficient μ, brick–brick and brick–ground", &p.Friction).Range(0, maxFriction)
}
