package sweep

import (
	"math"
	"math/rand/v2"
)

// Simulate runs scene with the overrides set and solver for steps steps,
// each of substeps steps of h/substeps (0 or 1: the scene's h), and
// returns the planar frames of body at every step (Run with a
// trajectory, compared with nothing).
func Simulate(scene string, set map[string]string, solver string, steps, substeps, body int) ([]Frame, error) {
	j := Job{ID: "simulate", Scene: scene, Set: set, Solver: solver, Steps: steps, Substeps: substeps, Body: body,
		Measured: []Frame{{Step: 0}}, Trajectory: true}
	r, err := Run(&j)
	if err != nil {
		return nil, err
	}
	return r.Trajectory, nil
}

// Noise is the measurement noise of synthetic data: independent normal
// errors of standard deviation SigmaXY (m) on x and y and SigmaAngle
// (rad) on θ, drawn from a PCG seeded by Seed (deterministic).
type Noise struct {
	SigmaXY, SigmaAngle float64
	Seed                uint64
}

// Apply returns a noisy copy of frames, keeping every every-th frame
// (1 = all).
func (n Noise) Apply(frames []Frame, every int) []Frame {
	rng := rand.New(rand.NewPCG(n.Seed, 0x5851f42d4c957f2d))
	var out []Frame
	for i, f := range frames {
		if i%every != 0 {
			continue
		}
		f.Q[0] += n.SigmaXY * rng.NormFloat64()
		f.Q[1] += n.SigmaXY * rng.NormFloat64()
		f.Q[2] = wrapAngle(f.Q[2] + n.SigmaAngle*rng.NormFloat64())
		out = append(out, f)
	}
	return out
}

// ExpectedE returns the expected E of Eq. (18) at the true parameters
// under the noise: E[‖q − q̄‖²] = 2 σ_xy² + ρ² σ_θ² per frame (m²).
func (n Noise) ExpectedE(angleLength float64) float64 {
	return 2*n.SigmaXY*n.SigmaXY + math.Pow(angleLength*n.SigmaAngle, 2)
}
