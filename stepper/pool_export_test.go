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

// PoolTraceForTest sets the function that w's pool gives each job before
// it runs (workPool.trace): the job then runs with the task trace
// returns, or not at all when that is nil; nil trace stops tracing.
func PoolTraceForTest(w *World, trace func(n int, task func(k int)) func(k int)) {
	w.ws.pool.trace = trace
}
