package stepper

import "time"

// PoolAlwaysSharesForTest turns off w's pool's rule that runs jobs on the
// caller alone while the process gets under poolShare cores (workPool),
// so that a benchmark on a loaded machine measures the helpers' overlap
// rather than the rule: the pool then never reads the process's CPU time
// and every window keeps its helpers.
func PoolAlwaysSharesForTest(w *World) {
	w.ws.pool.processCPU = func() (time.Duration, bool) { return 0, false }
	w.ws.pool.alone = 0
}
