package stepper

// ReassembleForTest runs the assembly stage of w's last step again on the
// rows and masses that step left: into the world's own Assembly (a steady
// layout refills A) or, with cold, into a new one (A's pattern built from
// scratch, every buffer allocated: step 1's assembly), for the assembly
// benchmarks.
func ReassembleForTest(w *World, cold bool) error {
	if cold {
		var a Assembly
		a.par = w.forRange
		return a.Assemble(&w.Settings, &w.ws.mass, w.ws.build.rows)
	}
	return w.ws.assembly.eq.Assemble(&w.Settings, &w.ws.mass, w.ws.build.rows)
}
