package stepper

import (
	"fmt"
	"math"
	"testing"

	"github.com/gorigid/gorigid/constraint"
	"github.com/stretchr/testify/require"
)

// recordedA assembles A = J M⁻¹ Jᵀ + C of rows the way Assemble did
// before its first fill built A's pattern from the bodies' rows
// (firstFill): every call recorded by lcp.Sparse.Add, in Assemble's order
// (each dynamic body's row pairs, then each row's compliance), and
// compressed by Finish. It is the reference the first fill must equal.
func recordedA(t testing.TB, s *Settings, m *Mass, rows []constraint.Row) *Assembly {
	t.Helper()
	a, err := recordedAssembly(s, m, rows)
	require.NoError(t, err)
	return a
}

// requireSameA requires got.A and want.A to hold the same pattern and
// the same bits (sameA).
func requireSameA(t testing.TB, got, want *Assembly, msg string) {
	t.Helper()
	require.NoError(t, sameA(got, want, msg))
}

// recordedAssembly is recordedA's assembly.
func recordedAssembly(s *Settings, m *Mass, rows []constraint.Row) (*Assembly, error) {
	var a Assembly
	if err := checkRows(rows, len(m.Bodies)); err != nil {
		return nil, err
	}
	a.massMatrix(m, rows, false)
	for i := range rows {
		c, _, _ := rows[i].Compliance(s.H)
		a.A.Add(i, i, c)
	}
	a.A.Finish()
	return &a, nil
}

// sameA reports an error unless got.A and want.A hold the same number of
// entries and every entry that a row pair sharing a body can hold (the
// pattern of J M⁻¹ Jᵀ + C) is the same bits in both.
func sameA(got, want *Assembly, msg string) error {
	if g, w := got.A.NNZ(), want.A.NNZ(); g != w {
		return fmt.Errorf("%s: %d entries, want %d", msg, g, w)
	}
	n, _ := want.A.Dims()
	for i := range n {
		if g, w := got.A.At(i, i), want.A.At(i, i); math.Float64bits(g) != math.Float64bits(w) {
			return fmt.Errorf("%s: A[%d][%d] = %v, want %v", msg, i, i, g, w)
		}
	}
	for _, list := range want.byBody {
		for _, p := range list {
			for _, q := range list {
				if g, w := got.A.At(p.row, q.row), want.A.At(p.row, q.row); math.Float64bits(g) != math.Float64bits(w) {
					return fmt.Errorf("%s: A[%d][%d] = %v, want %v", msg, p.row, q.row, g, w)
				}
			}
		}
	}
	return nil
}
