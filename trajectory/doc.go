// Package trajectory writes and reads gorigid's trajectory and
// step-statistics files, and runs a World for a number of steps while
// recording them: the run loop of `sim run`, importable.
//
// # Formats
//
// The formats are those of docs/formats.md in the repository (the
// interchange formats other tools read):
//
//   - the trajectory CSV, one row per body per recorded step,
//     step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz (Header);
//   - the trajectory JSON, {"bodies": [names], "dt": h, "frames": [...]},
//     one frame per line, null for a non-finite number;
//   - the step-statistics CSV, one row per recorded step (StatsHeader).
//
// Numbers are written as the shortest decimal that reads back to the same
// bits (strconv 'g', -1), so two identical runs give byte-identical files.
// Writer and StatsWriter write them; Reader reads a trajectory one frame
// at a time (CSV or JSON, and the .partial file of a killed run), and
// ReadStats reads a statistics file, including those written before
// columns were added at its end.
//
// # The run loop
//
// Run steps a stepper.World Options.Steps times and records step 0 and
// every Options.Every-th step to the writers given: trajectory frames,
// statistics rows, the step's MLCP and picked solution as JSON
// (DumpStep), and BPMD frames (package bpmd). It stops when its context is
// done, after the current step, whose solve then ends at its best iterate:
// every complete row is written. RunFiles does the same into files, each
// written as FILE.partial and renamed to FILE when the run ends, whether
// it finished, failed or was interrupted, so a crash never leaves a
// truncated file under the final name. A run holds each output's lock
// (FILE.lock with its process id, LockOutput) while it writes, so a
// second run of the same output is refused instead of mixing its rows
// into the first's; a lock left by a killed run is taken over.
//
// Failing loudly, at once: every step's energy gain (stepper.Stats.EnergyAdded)
// is judged against the system's energy so far (EnergyScale: kinetic plus
// potential energy above the lowest potential seen, the largest so far,
// ≥ 0 whatever the potential's origin). Options.OnEnergyGain hears of the
// first step above EnergyWarnFraction (1 %) right after it,
// Options.MaxEnergyGain stops the run after a step above it (an
// *EnergyGainError, its rows written), and the Report counts the largest
// fraction and the steps whose position projection was skipped
// (Report.EnergyWarning, Report.ProjectionNote).
//
// The statistics are those of the regularized velocity-level equations
// (Eq. 1) and the error measures of Enzenhöfer, Peiret, Teichmann and
// Kövecses, "A Unit-Consistent Error Measure for Multibody Systems With
// Unilateral Constraints" (2019): err_energy is the energy error of
// Eqs. (14)–(23), err_fb the Fischer–Burmeister total of Eqs. (5)–(7),
// err_residual the natural-residual total of Eqs. (8)–(10), all of the
// picked iterate.
//
// References:
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
package trajectory
