package lcp

// supernodes sets snEnd for the factor of a quasi-definite K̃ (negBelow >
// 0), whose body velocities form supernodes of six columns and more: runs
// of columns j, j+1, … with parent(j) = j+1 and c_j = c_{j+1} + 1, so that
// column j's rows below the run are those of the run's last column. The
// dual's factor (negBelow = 0) keeps the scalar row and snEnd nil, unless
// a test forces supernodes (snForce).
func (f *sparseLDL) supernodes() {
	n := len(f.perm)
	if f.negBelow == 0 && f.snForce <= 0 {
		f.snEnd = nil
		return
	}
	f.snEnd = growInt32(f.snEnd, n)
	for j := n - 1; j >= 0; j-- {
		f.snEnd[j] = int32(j)
		if j+1 < n && f.parent[j] == int32(j+1) && f.lnz[j] == f.lnz[j+1]+1 {
			f.snEnd[j] = f.snEnd[j+1]
		}
	}
}

// rowBlocked is row for a factor with supernodes (snEnd): where row k's
// pattern holds consecutive columns i … e of one supernode, their values
// are found by the small triangular solve among them, and the rows below
// the run that lie above k take the run's contributions together,
//
//	y_r −= Σ_{c=i}^{e} l_rc y_c,
//
// one pass over y for the run instead of one per column (the body
// velocities of K̃: six columns and more). Full and partial
// refactorizations and addRow all compute rows this way, in the same order,
// so a partial refactorization still gives the bits of a full one.
func (f *sparseLDL) rowBlocked(k int, full bool) bool {
	n := len(f.perm)
	y, pat := f.y, f.pat
	top := f.reach(k, full)
	akk := y[k] * (1 + f.shift)
	dk := akk
	y[k] = 0
	rs := f.rs[k]
	var yb [64]float64 // the run's y values (runs are cut at 64 columns)
	flops, cols, t := 0, 0, 0
	for top < n {
		i := int(pat[top])
		// The run: i, i+1, …, e consecutive in the pattern and in i's
		// supernode.
		e := i
		for top+(e-i)+1 < n && e-i+1 < len(yb) && int(pat[top+(e-i)+1]) == e+1 && int32(e+1) <= f.snEnd[i] {
			e++
		}
		nz := false
		var p2e int
		for c := i; c <= e; c++ {
			p2 := f.slot(c, k, rs+t, full)
			t++
			lo := f.lp[c]
			flops += p2 - lo
			cols += f.lp[c+1] - lo
			yc := y[c]
			y[c] = 0
			if yc != 0 {
				// Rows c+1 … e lead column c.
				val := f.lx[lo : lo+(e-c)]
				yr := y[c+1 : c+1+len(val)] // no bounds checks in the loop
				for q, l := range val {
					yr[q] -= l * yc
				}
				nz = true
			}
			yb[c-i] = yc
			lki := yc / f.d[c]
			dk -= lki * yc
			f.lx[p2] = lki
			p2e = p2
		}
		if nz {
			// Column e's entries above k: the rows below the run, at
			// offset e−c in column c.
			le := f.lp[e]
			idx := f.li[le:p2e]
			if e == i {
				// One column (a constraint row of K̃): y_r −= (0 + l y),
				// the bits of the sum below.
				val := f.lx[le:p2e]
				val = val[:len(idx)]
				yi := yb[0]
				for u, r := range idx {
					y[r] -= val[u] * yi
				}
			} else {
				var off [len(yb)]int
				for c := i; c <= e; c++ {
					off[c-i] = f.lp[c] + (e - c)
				}
				m := e - i + 1
				// Four rows at a time, each summed over the run's columns
				// in column order (the bits of one row at a time).
				u, cnt := 0, len(idx)
				for ; u+3 < cnt; u += 4 {
					s0, s1, s2, s3 := 0.0, 0.0, 0.0, 0.0
					for q, o := range off[:m] {
						l := f.lx[o+u : o+u+4 : o+u+4]
						yq := yb[q]
						s0 += l[0] * yq
						s1 += l[1] * yq
						s2 += l[2] * yq
						s3 += l[3] * yq
					}
					r := idx[u : u+4 : u+4]
					y[r[0]] -= s0
					y[r[1]] -= s1
					y[r[2]] -= s2
					y[r[3]] -= s3
				}
				for ; u < cnt; u++ {
					s := 0.0
					for q, o := range off[:m] {
						s += f.lx[o+u] * yb[q]
					}
					y[idx[u]] -= s
				}
			}
		}
		top += e - i + 1
	}
	return f.endRow(k, full, dk, akk, flops, cols)
}
