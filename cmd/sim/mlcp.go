package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
)

// solverByName returns the solver registered under name.
func solverByName(name string) (lcp.Solver, error) {
	switch name {
	case "bpp":
		return &lcp.BPP{}, nil
	case "pgs":
		return &lcp.PGS{}, nil
	case "lemke":
		return &lcp.Lemke{}, nil
	case "enum":
		return &lcp.Enum{}, nil
	case "newton-fb":
		return &lcp.Newton{}, nil
	case "newton-cck":
		return &lcp.Newton{Func: lcp.ChenChenKanzow}, nil
	case "newton-min":
		return &lcp.Newton{Func: lcp.MinMap}, nil
	case "prox":
		return &lcp.Prox{}, nil
	}
	return nil, fmt.Errorf("--solver: unknown value %q (want bpp, pgs, lemke, enum, newton-fb, newton-cck, newton-min or prox)", name)
}

func readProblemFile(path string) (*lcp.Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer f.Close()
	p, err := lcp.ReadProblem(f)
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	return p, nil
}

func totalsJSON(t errmeasure.Totals) map[string]float64 {
	return map[string]float64{"fb": t.FB, "residual": t.Residual, "energy": t.Energy}
}

// mlcpSolve implements `sim mlcp solve`. SIGINT or SIGTERM (ctx) and
// --timeout stop the solver at its next iteration; the best iterate so far
// is written with status "canceled". A timeout, a wall-clock budget, exits
// 0 like a spent iteration budget; a signal exits 130.
func mlcpSolve(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlagSet("mlcp solve")
	solverName := fs.String("solver", "bpp", "bpp, pgs, lemke, enum, newton-fb, newton-cck, newton-min or prox")
	budget := fs.Int("budget", 0, "iteration budget; 0 = the solver's default")
	pickName := fs.String("pick", "energy", "energy, fb, residual or last")
	timeout := fs.Duration("timeout", 0, "wall-clock limit of the solve (Go duration: 30s, 5m); 0 = none")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("mlcp solve: want one problem file, got %d arguments", len(pos))
	}
	if *budget < 0 {
		return usagef("--budget: must be ≥ 0, got %d", *budget)
	}
	if *timeout < 0 {
		return usagef("--timeout: must be ≥ 0, got %v", *timeout)
	}
	solver, err := solverByName(*solverName)
	if err != nil {
		return usageError{err}
	}
	measure, err := errmeasure.ParseMeasure(*pickName)
	if err != nil {
		return usagef("--pick: %v", err)
	}
	p, err := readProblemFile(pos[0])
	if err != nil {
		return err
	}
	solveCtx := ctx
	if *timeout > 0 {
		var cancel context.CancelFunc
		solveCtx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	var res lcp.Result
	pick, solveErr := errmeasure.Solve(&res, p, solver, lcp.Settings{MaxIterations: *budget, Context: solveCtx}, errmeasure.NewPicker(measure))
	sol := &lcp.Solution{
		X:          res.X,
		W:          res.W,
		Iterations: res.Iterations,
		Status:     res.Status.String(),
		Extra: map[string]any{
			"solver": solver.Name(),
			"pick":   measure.String(),
			"picked": pick.Picked,
			"pivots": res.Pivots,
			"errors": totalsJSON(pick.Totals),
		},
	}
	if res.Reason != "" {
		sol.Extra["reason"] = res.Reason
	}
	writeErr := lcp.WriteSolution(stdout, sol)
	switch {
	case ctx.Err() != nil: // SIGINT or SIGTERM
		if writeErr != nil {
			return interruptedf("mlcp solve: interrupted after %d iterations; writing the best iterate failed: %v", res.Iterations, writeErr)
		}
		return interruptedf("mlcp solve: interrupted after %d iterations; the best iterate so far is written", res.Iterations)
	case writeErr != nil:
		return writeErr
	case errors.Is(solveErr, context.DeadlineExceeded):
		return nil // --timeout: a wall-clock budget, reported by the status
	}
	return solveErr
}

// mlcpErrors implements `sim mlcp errors`.
func mlcpErrors(args []string, stdout io.Writer) error {
	fs := newFlagSet("mlcp errors")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("mlcp errors: want PROBLEM and CANDIDATE files, got %d arguments", len(pos))
	}
	p, err := readProblemFile(pos[0])
	if err != nil {
		return err
	}
	f, err := os.Open(pos[1])
	if err != nil {
		return usageError{err}
	}
	defer f.Close()
	c, err := lcp.ReadSolution(f)
	if err != nil {
		return usagef("%s: %v", pos[1], err)
	}
	if len(c.X) != p.N() {
		return usagef("%s: x: has %d entries, the problem has %d rows", pos[1], len(c.X), p.N())
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
