package main

import (
	"path/filepath"
	"slices"
	"testing"

	gstudy "github.com/gorigid/gorigid/study"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The studies' numbers are asserted on the Go values in package study;
// these tests check that `sim study NAME` writes every file with its
// columns, one row per step or size, and the summary table on stdout.
func TestStudyFilesWritten(t *testing.T) {
	forkliftRules := []string{"last", "fb", "residual", "energy", "energy-exact",
		"last+polish5", "fb+polish5", "residual+polish5", "energy+polish5", "energy-exact+polish5"}
	budgetHeader := []string{"budget", "unsolved_fraction"}
	for _, r := range forkliftRules {
		budgetHeader = append(budgetHeader, r+"_mean_distance_j")
	}
	for _, r := range forkliftRules {
		budgetHeader = append(budgetHeader, r+"_farther_than_last")
	}
	type csvFile struct {
		name   string
		header []string
		rows   int // -1: not checked
	}
	for _, c := range []struct {
		study, steps string
		long         bool // skipped with -short
		stdout       string
		csv          []csvFile
		png          []string
	}{
		{study: "rod", steps: "1", stdout: "energy_total_approx",
			csv: []csvFile{{"summary.csv", []string{"quantity", "value", "unit", "paper"}, 11 + 2*14}}}, // A, b, x*, m_eff, the iterate; 14 rows per w
		{study: "chain6", steps: "100", stdout: "baumgarte_2000",
			csv: []csvFile{
				{"summary.csv", []string{"mode", "max_separation_mm", "final_separation_mm"}, 6},
				{"chain6-drift.csv", []string{"step", "time", "none", "baumgarte_50", "baumgarte_200", "baumgarte_2000", "regularized", "post"}, 100}},
			png: []string{"chain6-drift.png"}},
		{study: "contact-stabilization", steps: "30", stdout: "contact-stabilization: 30 steps",
			csv: []csvFile{
				{"summary.csv", []string{"scene", "mode", "max_penetration_mm", "mean_penetration_mm", "energy_added_j", "projections"}, 10},
				{"contact-stabilization.csv", nil, 30}},
			png: []string{"contact-stabilization.png"}},
		{study: "brickwall", steps: "3", stdout: "max brick displacement",
			csv: []csvFile{
				{"errors.csv", []string{"iteration", "fb_mean", "fb_std", "residual_mean", "residual_std", "energy_mean", "energy_std"}, 100},
				{"curves.csv", []string{"step", "iteration", "fb", "residual", "energy"}, 3 * 100},
				{"summary.csv", []string{"quantity", "value"}, 20}},
			png: []string{"brickwall-fig9.png"}},
		{study: "forklift", steps: "2", long: true, stdout: "spike:",
			csv: []csvFile{
				{"summary.csv", []string{"variant", "budget", "budget_hit_fraction", "mean_deviation_m", "max_deviation_m",
					"circle_fraction", "spikes", "mean_stepwise_distance_j", "max_stepwise_distance_j", "mean_stepwise_distance_hit_j",
					"spike_threshold_rad_s", "solver_failures", "exact_failures", "max_energy_gain_fraction", "projection_skips"}, 21},
				{"forklift-steps.csv", []string{"variant", "budget", "step", "time", "x", "y", "heading", "speed",
					"w_fl", "w_fr", "w_rl", "w_rr", "iterations", "budget_hit", "stepwise_distance_j"}, 21 * 3},
				{"wall-budgets.csv", budgetHeader, 15},
				{"forklift-budgets.csv", budgetHeader, 15}},
			png: []string{"forklift-fig11.png", "forklift-fig12.png", "forklift-fig11-budget5.png", "forklift-fig12-budget5.png", "wall-budgets.png", "forklift-budgets.png"}},
		{study: "recursive-timing", steps: "3", long: true, stdout: "slope",
			csv: []csvFile{
				{"recursive-timing.csv", []string{"contacts", "method", "nb", "us_per_step"}, 3 * 4 * 8},
				{"recursive-crossover.csv", []string{"nb", "on3_us_per_step", "aba_us_per_step"}, 16},
				{"summary.csv", []string{"quantity", "value", "unit", "paper"}, 3*4*2 + 4}},
			png: []string{"recursive-timing.png"}},
		{study: "rk4-contact", steps: "50", stdout: "ratio explicit-euler / rk4",
			csv: []csvFile{
				{"rk4-contact.csv", nil, 50},
				{"summary.csv", []string{"quantity", "value", "unit", "paper"}, 3 + 2 + 2*4}},
			png: []string{"rk4-contact.png"}},
		{study: "scaling", steps: "1", long: true, stdout: "brickwall: time ∝ bricks^p",
			csv: []csvFile{
				{"scaling.csv", []string{"scene", "bodies", "rows", "step1_ms", "steady_ms", "mean_ms", "iterations_mean",
					"iterations_max", "budget_hits", "max_displacement_m", "stands", "steps", "rows_max", "max_kinetic_j", "max_speed_m_s",
					"at_rest", "toppled"}, len(gstudy.ScalingCases) + len(gstudy.ScalingPileCases)},
				{"steps.csv", []string{"scene", "bodies", "step", "cpu_ms", "iterations"}, scalingSteps(1)},
				{"procs.csv", nil, len(gstudy.ScalingProcs)},
				{"summary.csv", []string{"quantity", "value"}, 1 + len(gstudy.ScalingScenes)*3*2 + 2}},
			png: []string{"scaling.png"}},
	} {
		t.Run(c.study, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("long")
			}
			dir := t.TempDir()
			out, stderr, code := runSim(t, "study", c.study, "--steps", c.steps, "--out", dir)
			require.Equal(t, 0, code, stderr)
			assert.Empty(t, stderr, "no progress bar off a terminal")
			assert.Contains(t, out, c.stdout)
			for _, f := range c.csv {
				header, rows := readCSV(t, filepath.Join(dir, f.name))
				if f.header != nil {
					assert.Equal(t, f.header, header, f.name)
				}
				assert.Len(t, rows, f.rows, f.name)
				for _, r := range rows {
					assert.Len(t, r, len(header), f.name)
				}
			}
			for _, f := range c.png {
				assertPNG(t, filepath.Join(dir, f))
			}
		})
	}
	// The rod's summary holds the paper's numbers as written: one spot
	// check that the Go value reaches the file unchanged (1e-12: exact up
	// to the formatting's round trip).
	dir := t.TempDir()
	_, stderr, code := runSim(t, "study", "rod", "--out", dir)
	require.Equal(t, 0, code, stderr)
	v := summaryValues(t, filepath.Join(dir, "summary.csv"), []string{"quantity", "value", "unit", "paper"})
	assert.InDelta(t, 0.2981+2*0.1019, v["fb_total"], 1e-12)
}

// scalingSteps is the number of steps the scaling study's cases take at
// --steps n: a row each in steps.csv.
func scalingSteps(n int) int {
	rows := 0
	for _, c := range append(slices.Clone(gstudy.ScalingCases), gstudy.ScalingPileCases...) {
		rows += c.Steps(n)
	}
	return rows
}
