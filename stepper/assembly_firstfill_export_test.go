package stepper

import "fmt"

// FirstFillForTest checks the assembly of w's last step against A
// recorded call by call (recordedAssembly: lcp.Sparse.Add and Finish),
// entry by entry and bit for bit, at the masses the step left (the
// projection moved the bodies after A was built): a new Assembly's
// first fill of the step's rows, alone and, as World.assemble, with A's
// pairs by island on the world's pool, and a first fill into an
// Assembly that held another layout (the rows without their last four).
// It reports
// whether the world's A was a first fill (filled) or a refill of the
// last step's pattern (refilled).
func FirstFillForTest(w *World) (filled, refilled bool, err error) {
	eq := &w.ws.assembly.eq
	rows, m := w.ws.build.rows, &w.ws.mass
	want, err := recordedAssembly(&w.Settings, m, rows)
	if err != nil {
		return false, false, err
	}
	for _, par := range []bool{false, true} {
		var cold Assembly
		if par { // as World.assemble: on the pool, A's pairs by island
			cold.par = w.forRange
			w.ws.islands.setStep = 0
			cold.groups = w.partition(rows)
		}
		if err := cold.Assemble(&w.Settings, m, rows); err != nil {
			return false, false, err
		}
		if !cold.filled {
			return false, false, fmt.Errorf("a new Assembly did not build A from its cliques")
		}
		if err := sameA(&cold, want, fmt.Sprintf("a new Assembly's first fill (pool %v)", par)); err != nil {
			return false, false, err
		}
	}
	var cold Assembly
	if len(rows) > 4 {
		if err := cold.Assemble(&w.Settings, m, rows[:len(rows)-4]); err != nil {
			return false, false, err
		}
		if err := cold.Assemble(&w.Settings, m, rows); err != nil {
			return false, false, err
		}
		if err := sameA(&cold, want, "a first fill over another layout"); err != nil {
			return false, false, err
		}
	}
	return eq.filled, eq.refilling && !eq.filled, nil
}
