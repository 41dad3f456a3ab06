package lcp

import (
	"fmt"
	"strings"
)

// solverTable is the one table of solver names, in the order Names lists
// them.
var solverTable = []struct {
	name string
	make func() Solver
}{
	{"auto", func() Solver { return &Auto{} }},
	{"bpp", func() Solver { return &BPP{} }},
	{"enum", func() Solver { return &Enum{} }},
	{"lemke", func() Solver { return &Lemke{} }},
	{"newton-cck", func() Solver { return &Newton{Func: ChenChenKanzow} }},
	{"newton-fb", func() Solver { return &Newton{} }},
	{"newton-min", func() Solver { return &Newton{Func: MinMap} }},
	{"pgs", func() Solver { return &PGS{} }},
	{"prox", func() Solver { return &Prox{} }},
}

// Names returns the names New accepts, sorted.
func Names() []string {
	out := make([]string, len(solverTable))
	for i, s := range solverTable {
		out[i] = s.name
	}
	return out
}

// New returns a new solver with default settings by its command-line name
// (Solver.Name of the result): one of Names. The error lists the names.
func New(name string) (Solver, error) {
	for _, s := range solverTable {
		if s.name == name {
			return s.make(), nil
		}
	}
	return nil, fmt.Errorf("unknown solver %q (want %s)", name, strings.Join(Names(), ", "))
}

// StepNames returns the names of the solvers a time step may name (a scene
// file's solver, `sim run --solver`, a sweep's solvers), in Names' order:
// every one but auto, whose fallbacks give each attempt the whole
// iteration budget so that a step's budget does not bound its solve, and
// enum, whose enumeration is exponential in the rows (a reference for
// small problems). New makes them.
func StepNames() []string {
	var out []string
	for _, n := range Names() {
		if n != "auto" && n != "enum" {
			out = append(out, n)
		}
	}
	return out
}
