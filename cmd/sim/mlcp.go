package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/lcp"
)

// readProblemFormat reads a problem file in the named format (--format:
// lcp.Formats) within lim (lcp.ReadProblemFormat): unknown keys (a name, a source, a reference
// solution) are ignored with one warning line on stderr, a problem above
// lim.MaxBytes is a usage error naming --max-memory, a done lim.Context
// stops the reading with an error naming the row.
func readProblemFormat(path, format string, stderr io.Writer, lim lcp.ReadLimits) (*lcp.Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, cli.UsageError{Err: err}
	}
	defer f.Close()
	p, ignored, err := lcp.ReadProblemFormat(f, format, lim)
	var me *lcp.MemoryError
	switch {
	case errors.As(err, &me):
		return nil, cli.Usagef("%s: %v (--max-memory); refused before reading the rest of the file", path, err)
	case lim.Context != nil && lim.Context.Err() != nil && errors.Is(err, lim.Context.Err()):
		return nil, fmt.Errorf("%s: %w", path, err)
	case err != nil && (format == lcp.FormatJSON || format == "") && looksLikeText(f):
		return nil, cli.Usagef("%s: %v (a text problem? give --format %s: docs/formats.md)", path, err, textFormats())
	case err != nil:
		return nil, cli.Usagef("%s: %v", path, err)
	}
	warnIgnored(stderr, path, ignored)
	return p, nil
}

// looksLikeText reports whether f starts, after white space, with a number
// or a '#' comment, as the text formats do, rather than JSON's '{'.
func looksLikeText(f *os.File) bool {
	var head [256]byte
	k, _ := f.ReadAt(head[:], 0)
	t := strings.TrimLeft(string(head[:k]), " \t\r\n")
	return t != "" && strings.ContainsRune("0123456789+-.#", rune(t[0]))
}

// textFormats lists the text formats of lcp.Formats: "mq, siconos-lcp or
// siconos-mlcp".
func textFormats() string {
	var text []string
	for _, f := range lcp.Formats() {
		if f != lcp.FormatJSON {
			text = append(text, f)
		}
	}
	sort.Strings(text)
	return strings.Join(text[:len(text)-1], ", ") + " or " + text[len(text)-1]
}

// formatFlag declares --format, the problem file's format.
func formatFlag(fs *flag.FlagSet) *string {
	return fs.String("format", lcp.FormatJSON, "the problem file's format: "+strings.Join(lcp.Formats(), ", ")+
		" (siconos-lcp and siconos-mlcp: the .dat files of Siconos numerics, dense storage; mq: the rows of M, then q; see docs/formats.md)")
}

// checkFormat rejects an unknown --format before anything is read.
func checkFormat(format string) error {
	for _, f := range lcp.Formats() {
		if f == format {
			return nil
		}
	}
	return cli.Usagef("--format: want one of %s, got %q", strings.Join(lcp.Formats(), ", "), format)
}

// warnIgnored writes one line naming the ignored keys of a file, if any.
func warnIgnored(stderr io.Writer, path string, keys []string) {
	if len(keys) > 0 && stderr != nil {
		fmt.Fprintf(stderr, "sim: warning: %s: ignored unknown keys: %s\n", path, strings.Join(keys, ", "))
	}
}

func totalsJSON(t errmeasure.Totals) map[string]float64 {
	return map[string]float64{"fb": t.FB, "residual": t.Residual, "energy": t.Energy}
}

// mlcpSolve implements `sim mlcp solve`. The answer is written whatever
// happened (a failed solve writes its best x with status failed, then exits
// 1); "status" describes the returned x (see errmeasure.Solve). SIGINT or
// SIGTERM (ctx) and --timeout stop the solver at its next iteration; the
// best iterate so far is written with status "canceled". A timeout, a
// wall-clock budget, exits 0 like a spent iteration budget; a signal exits
// 130. --timeout and signals also stop the reading of the problem (exit 1
// and 130, nothing written), and --max-memory refuses a problem too large
// as soon as the file states its size (exit 2).
func mlcpSolve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("mlcp solve")
	solverName := fs.String("solver", "auto", strings.Join(lcp.Names(), ", ")+" (auto: BPP where it is guaranteed, else Lemke, else Newton)")
	budget := fs.Int("budget", 0, "iteration budget; 0 = the solver's default")
	pickName := fs.String("pick", "energy", "energy, energy-exact, fb, residual or last")
	polish := fs.Int("polish", 0, "projected Gauss–Seidel sweeps from the picked iterate after the solver; 0 = none")
	timeout := fs.Duration("timeout", 0, "wall-clock limit of reading the problem and solving it (Go duration: 30s, 5m); 0 = none")
	format := formatFlag(fs)
	maxMem := &cli.MemoryFlag{Bytes: cli.DefaultMaxMemory()}
	fs.Var(maxMem, "max-memory", "refuse a problem whose dense A needs more than this to read and solve, once the file states its size; default half the machine's memory")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("mlcp solve: want one problem file, got %d arguments", len(pos))
	}
	if *budget < 0 {
		return cli.Usagef("--budget: must be ≥ 0, got %d", *budget)
	}
	if *polish < 0 {
		return cli.Usagef("--polish: must be ≥ 0 sweeps, got %d", *polish)
	}
	if *timeout < 0 {
		return cli.Usagef("--timeout: must be ≥ 0, got %v", *timeout)
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	solver, err := lcp.New(*solverName)
	if err != nil {
		return cli.Usagef("--solver: %v", err)
	}
	measure, err := errmeasure.ParseMeasure(*pickName)
	if err != nil {
		return cli.Usagef("--pick: %v", err)
	}
	solveCtx := ctx // --timeout covers the reading too
	if *timeout > 0 {
		var cancel context.CancelFunc
		solveCtx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	p, err := readProblemFormat(pos[0], *format, stderr, lcp.ReadLimits{MaxBytes: maxMem.Bytes, Context: solveCtx})
	switch {
	case err != nil && ctx.Err() != nil:
		return cli.Interruptedf("mlcp solve: interrupted while reading: %v", err)
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("mlcp solve: --timeout %v ran out while reading: %v", *timeout, err)
	case err != nil:
		return err
	}
	var res lcp.Result
	pk := errmeasure.NewPicker(measure)
	pick, solveErr := errmeasure.Solve(&res, p, solver, lcp.Settings{MaxIterations: *budget, Context: solveCtx}, pk)
	if solveErr == nil && *polish > 0 {
		solveErr = errmeasure.Polish(&res, p, *polish, pk, &pick)
	}
	sol := &lcp.Solution{
		X:          res.X,
		W:          res.W,
		Iterations: res.Iterations,
		Status:     res.Status.String(),
		Extra: map[string]any{
			"solver":        solver.Name(),
			"pick":          measure.String(),
			"picked":        pick.Picked,
			"from_picker":   pick.FromPicker,
			"pivots":        res.Pivots,
			"errors":        totalsJSON(pick.Totals),
			"residual_max":  pick.Residual,
			"solver_status": pick.SolverStatus.String(),
			"polish_sweeps": pick.Sweeps,
		},
	}
	if !math.IsInf(pick.Bound, 1) && symmetric(p.A) {
		// Certified only for symmetric positive semidefinite A (see
		// errmeasure.CertifiedBound); absent when infinite.
		sol.Extra["certified_bound"] = pick.Bound
	}
	if measure == errmeasure.EnergyExact {
		sol.Extra["exact_mass"] = pk.ExactMass()
	}
	if res.Reason != "" {
		sol.Extra["reason"] = res.Reason
	}
	if pick.SolverReason != "" && pick.SolverReason != res.Reason {
		sol.Extra["solver_reason"] = pick.SolverReason
	}
	if a, ok := solver.(*lcp.Auto); ok && a.Answered != "" {
		sol.Extra["answered_by"] = a.Answered
		sol.Extra["answered_why"] = a.Why
	}
	writeErr := lcp.WriteSolution(stdout, sol)
	switch {
	case ctx.Err() != nil: // SIGINT or SIGTERM
		if writeErr != nil {
			return cli.Interruptedf("mlcp solve: interrupted after %d iterations; writing the best iterate failed: %v", res.Iterations, writeErr)
		}
		return cli.Interruptedf("mlcp solve: interrupted after %d iterations; the best iterate so far is written", res.Iterations)
	case writeErr != nil:
		return writeErr
	case errors.Is(solveErr, context.DeadlineExceeded):
		return nil // --timeout: a wall-clock budget, reported by the status
	}
	return solveErr
}

// symmetric reports whether A equals its transpose exactly (the stepper's
// A = J M⁻¹ Jᵀ + C is assembled symmetric).
func symmetric(a lcp.Matrix) bool {
	n, _ := a.Dims()
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if a.At(i, j) != a.At(j, i) {
				return false
			}
		}
	}
	return true
}

// solutionKeys are the keys sim itself writes into solution files besides
// x, w, iterations and status; mlcp errors warns about any other.
var solutionKeys = map[string]bool{
	"solver": true, "pick": true, "picked": true, "from_picker": true, "pivots": true,
	"errors": true, "residual_max": true, "solver_status": true, "reason": true,
	"solver_reason": true, "answered_by": true, "answered_why": true,
	"solver_iterations": true, "step": true, "time": true,
	"polish_sweeps": true, "certified_bound": true, "exact_mass": true,
}

// mlcpErrors implements `sim mlcp errors`.
func mlcpErrors(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("mlcp errors")
	format := formatFlag(fs)
	maxMem := &cli.MemoryFlag{Bytes: cli.DefaultMaxMemory()}
	fs.Var(maxMem, "max-memory", "refuse a problem whose dense A needs more than this, once the file states its size; default half the machine's memory")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return cli.Usagef("mlcp errors: want PROBLEM and CANDIDATE files, got %d arguments", len(pos))
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	p, err := readProblemFormat(pos[0], *format, stderr, lcp.ReadLimits{MaxBytes: maxMem.Bytes, Context: ctx})
	switch {
	case err != nil && ctx.Err() != nil:
		return cli.Interruptedf("mlcp errors: interrupted while reading: %v", err)
	case err != nil:
		return err
	}
	f, err := os.Open(pos[1])
	if err != nil {
		return cli.UsageError{Err: err}
	}
	defer f.Close()
	c, err := lcp.ReadSolution(f)
	if err != nil {
		return cli.Usagef("%s: %v", pos[1], err)
	}
	var unknown []string
	for k := range c.Extra {
		if !solutionKeys[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	warnIgnored(stderr, pos[1], unknown)
	if len(c.X) != p.N() {
		return cli.Usagef("%s: x: has %d entries, the problem has %d rows", pos[1], len(c.X), p.N())
	}
	w, source := c.W, "candidate"
	if w == nil {
		w, source = p.Residual(nil, c.X), "Ax+b"
	}
	rows, tot := errmeasure.Rows(nil, p, c.X, w, nil)
	out := map[string]any{"w_source": source}
	jr := make([]map[string]float64, len(rows))
	for i, r := range rows {
		jr[i] = map[string]float64{"fb": r.FB, "residual": r.Residual, "energy": r.Energy}
	}
	total := totalsJSON(tot)
	// The exact effective mass (Eq. 11) for small systems.
	if p.N() <= 500 {
		if a, err := errmeasure.ExactInverseMass(p.A); err == nil {
			ex, et := errmeasure.Rows(nil, p, c.X, w, a)
			for i := range jr {
				jr[i]["energy_exact"] = ex[i].Energy
			}
			total["energy_exact"] = et.Energy
		}
	}
	out["rows"] = jr
	out["total"] = total
	return writeJSON(stdout, out)
}
