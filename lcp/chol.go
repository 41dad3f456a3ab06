package lcp

import "math"

// chol is a dense lower-triangular Cholesky factor L of a symmetric positive
// definite matrix B = L Lᵀ, stored row-major with a fixed stride so that rows
// and columns can be appended and deleted in O(m²) instead of refactoring in
// O(m³). Block pivoting changes only a few indices of the free set between
// iterations (and between warm-started time steps), so updating pays.
//
// Appending index k with column a = B[:, k] and diagonal d solves L y = a and
// sets l_kk = √(d − y·y). Deleting position p removes row p of L; the rows
// below it then have one entry above the diagonal, which Givens rotations on
// adjacent columns (applied from the right, so L Lᵀ is unchanged) remove.
//
// shift, when set (positive semidefinite blocks, see BPP), factors
// B + shift·diag(B) instead: every appended diagonal is scaled by 1 + shift.
type chol struct {
	stride int
	m      int
	shift  float64
	l      []float64 // stride × stride, row-major; only the lower triangle of the leading m×m block is used
}

func (c *chol) reset(stride int) {
	if cap(c.l) < stride*stride {
		c.l = make([]float64, stride*stride)
	}
	c.l = c.l[:stride*stride]
	c.stride, c.m, c.shift = stride, 0, 0
}

// pivotFloor is the smallest acceptable squared pivot relative to the
// diagonal entry it came from: below it the block is treated as singular
// (rank deficient to working precision).
const pivotFloor = 1e-13

// appendIndex adds a row/column to the factored matrix: a holds the
// off-diagonal entries B[k][F[0..m)] and d = B[k][k]. It reports false, and
// leaves the factor unchanged, if the extended matrix is not numerically
// positive definite.
func (c *chol) appendIndex(a []float64, d float64) bool {
	m, s := c.m, c.stride
	// y is solved in place in row m of L, which is outside the factor
	// until c.m grows: a failed append leaves the factor unchanged.
	y := c.l[m*s:][:m+1]
	a = a[:m]
	for i := range a {
		row := c.l[i*s:][:i+1]
		v := a[i] - dot(row[:i], y[:i])
		y[i] = v / row[i]
	}
	r := d*(1+c.shift) - dot(y[:m], y[:m])
	if !(r > pivotFloor*math.Abs(d)) || math.IsInf(r, 0) {
		return false
	}
	y[m] = math.Sqrt(r)
	c.m++
	return true
}

// deleteIndex removes position p from the factor.
func (c *chol) deleteIndex(p int) {
	m, s := c.m, c.stride
	// Shift rows p+1.. up by one.
	for i := p; i < m-1; i++ {
		copy(c.l[i*s:i*s+i+2], c.l[(i+1)*s:(i+1)*s+i+2])
	}
	// Row i (i ≥ p) now has a non-zero at column i+1: rotate columns
	// (i, i+1) to zero it, for all rows i..m-2.
	for i := p; i < m-1; i++ {
		a := c.l[i*s+i]
		b := c.l[i*s+i+1]
		r := math.Hypot(a, b)
		if r == 0 {
			continue
		}
		cs, sn := a/r, b/r
		for k := i; k < m-1; k++ {
			x := c.l[k*s+i]
			z := c.l[k*s+i+1]
			c.l[k*s+i] = cs*x + sn*z
			c.l[k*s+i+1] = -sn*x + cs*z
		}
		// Keep the diagonal positive.
		if c.l[i*s+i] < 0 {
			for k := i; k < m-1; k++ {
				c.l[k*s+i] = -c.l[k*s+i]
			}
		}
		c.l[i*s+i+1] = 0
	}
	c.m--
}

// solve overwrites x (length m) with B⁻¹ x.
func (c *chol) solve(x []float64) {
	m, s := c.m, c.stride
	for i := 0; i < m; i++ {
		x[i] = (x[i] - dot(c.l[i*s:i*s+i], x[:i])) / c.l[i*s+i]
	}
	x = x[:m]
	for i := m - 1; i >= 0; i-- {
		v := x[i]
		col := c.l[i:] // column i from row 0, stride s
		o := (i + 1) * s
		for _, xk := range x[i+1:] {
			v -= col[o] * xk
			o += s
		}
		x[i] = v / col[i*s]
	}
}
