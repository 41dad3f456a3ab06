package study

import (
	"context"
	"fmt"
	"math"

	"github.com/gorigid/gorigid/scenes"
)

// Chain6Steps is Chain6's default length: the paper's 600 steps of 1 ms.
const Chain6Steps = 600

// Chain6Mode is one stabilization setting of Chain6, as parameter
// overrides of the registered chain6 scene.
type Chain6Mode struct {
	Name  string            // a CSV column
	Set   map[string]string // scene parameter overrides (`sim run chain6 --set`)
	Paper string            // what the paper reports over 600 steps
}

// Chain6Modes are the settings of Chain6: no stabilization, Baumgarte
// with β = 50, 200 and 2000 /s, the regularized velocity step of Eq. (1)
// of the energy-error paper, and post-stabilization.
var Chain6Modes = []Chain6Mode{
	{"none", map[string]string{"stabilization": "none"}, "≈ 20 mm (Fig. 3)"},
	{"baumgarte_50", map[string]string{"stabilization": "baumgarte", "baumgarte": "50"}, "≈ 5 mm (Fig. 4)"},
	{"baumgarte_200", map[string]string{"stabilization": "baumgarte", "baumgarte": "200"}, "< 3 mm (Fig. 4)"},
	{"baumgarte_2000", map[string]string{"stabilization": "baumgarte", "baumgarte": "2000"}, "jagged, ≈ 50's (Fig. 5)"},
	{"regularized", map[string]string{"stabilization": "regularized"}, "- (Eq. 1, not in the paper)"},
	{"post", map[string]string{"stabilization": "post"}, "< 0.01 mm (Fig. 7)"},
}

// Chain6Run is the chain under one mode.
type Chain6Run struct {
	Mode Chain6Mode
	// Separation is the largest joint separation max |φ| after each step
	// (Stats.MaxViolation: m, the hinges' angular rows in rad).
	Separation []float64
}

// Max returns the largest separation of the run.
func (r *Chain6Run) Max() float64 {
	m := 0.0
	for _, v := range r.Separation {
		m = math.Max(m, v)
	}
	return m
}

// Final returns the separation after the last step.
func (r *Chain6Run) Final() float64 { return r.Separation[len(r.Separation)-1] }

// Chain6Result holds Chain6's runs, in Chain6Modes order.
type Chain6Result struct {
	H    float64 // the scene's time step (s)
	Runs []Chain6Run
}

// Chain6 is the drift study of M. B. Cline and D. K. Pai,
// "Post-Stabilization for Rigid Body Simulation with Contact and
// Constraints" (ICRA 2003), §VI.A, Figs. 3–7: the registered chain6 scene
// (six 100 mm links released horizontal) falls for o.Steps steps
// (default Chain6Steps) under each of Chain6Modes, and the largest joint
// separation is recorded after every step. It checks ctx between steps.
func Chain6(ctx context.Context, o Options) (*Chain6Result, error) {
	steps, err := o.steps("chain6", Chain6Steps)
	if err != nil {
		return nil, err
	}
	s, err := scenes.Lookup("chain6")
	if err != nil {
		return nil, err
	}
	res := &Chain6Result{}
	pr := newMeter(o, steps*len(Chain6Modes))
	for _, m := range Chain6Modes {
		w, err := s.Build(m.Set)
		if err != nil {
			return nil, err
		}
		res.H = w.Settings.H
		run := Chain6Run{Mode: m, Separation: make([]float64, 0, min(steps, 1<<16))}
		for k := 0; k < steps; k++ {
			if err := stopped(ctx, "chain6: mode %s: stopped at step %d", m.Name, k); err != nil {
				return nil, err
			}
			st, err := w.Step()
			if err != nil {
				return nil, fmt.Errorf("chain6 %s: %w", m.Name, err)
			}
			run.Separation = append(run.Separation, st.MaxViolation)
			pr.add(1)
		}
		res.Runs = append(res.Runs, run)
	}
	return res, nil
}
