package stepper

// Hooks for the external tests of A's deferred fill (lazya_test.go).

// LazyACounts returns the Assembles of w that put A's values off its
// diagonal off and the deferred fills that ran, since the last reset.
func LazyACounts(w *World) (deferred, filled int) {
	eq := &w.ws.assembly.eq
	return eq.deferred, eq.filledA
}

// ResetLazyACounts zeroes LazyACounts.
func ResetLazyACounts(w *World) { w.ws.assembly.eq.deferred, w.ws.assembly.eq.filledA = 0, 0 }

// SetEagerA makes w fill A at every Assemble (the reference).
func SetEagerA(w *World) { w.ws.assembly.eq.eagerA = true }

// APending reports whether w's A has values put off and not yet filled.
func APending(w *World) bool { return w.ws.assembly.eq.A.Pending() }

// StateHash is stateHash: w's bodies, solution, index sets, warm starts
// and contact memory as one SHA-256.
func StateHash(w *World) [32]byte { return stateHash(w) }
