package stepper

import "github.com/gorigid/gorigid/constraint"

// OffRange is BOffRangeForTest's answer for one step: squared 2-norms
// (m²/s²) over the contact rows, island by island.
type OffRange struct {
	B2 float64 // |b|²
	// All is |b − P b|², P the projection on the range of J (= range of
	// A = J M⁻¹ Jᵀ): the part of b that no velocity meets. Gap, Pen and
	// Fric split it by row: normal rows of separated points (φ > 0),
	// normal rows of touching or penetrating points, friction rows.
	All, Gap, Pen, Fric float64
	// NoGap is |b − P b|² with the separated points' rows (normal and
	// friction) left out of J and b.
	NoGap float64
	// NoGapFric is |b − P b|² with only the separated points' friction
	// rows left out.
	NoGapFric float64
	// Open is |b − P b|² over the rows whose bounds leave them room
	// (lo < hi: a row with lo = hi = 0 is in no face of the solve).
	Open float64
}

// BOffRangeForTest measures b of w's last step against the range of J,
// by island of the contact rows (bodies joined by a contact row).
func BOffRangeForTest(w *World) OffRange {
	rows, b := w.ws.build.rows, w.ws.assembly.eq.B
	lo, hi := w.ws.assembly.eq.Lo, w.ws.assembly.eq.Hi
	par := make([]int, len(w.Bodies))
	for i := range par {
		par[i] = i
	}
	find := func(x int) int {
		for par[x] != x {
			par[x] = par[par[x]]
			x = par[x]
		}
		return x
	}
	var cr []int
	gap := make([]bool, len(rows))
	g := false
	for i := range rows {
		r := &rows[i]
		switch r.Kind {
		case constraint.ContactNormal:
			g = r.Phi > 0 // the point's friction rows follow its normal row
		case constraint.ContactFriction, constraint.RollingFriction:
		default:
			continue
		}
		gap[i] = g
		cr = append(cr, i)
		for k := 1; k < r.N; k++ {
			if x, y := find(r.Body[0]), find(r.Body[k]); x != y {
				par[x] = y
			}
		}
	}
	islands := map[int][]int{}
	var keys []int
	for _, i := range cr {
		k := find(rows[i].Body[0])
		if _, ok := islands[k]; !ok {
			keys = append(keys, k)
		}
		islands[k] = append(islands[k], i)
	}
	var o OffRange
	for _, k := range keys {
		is := islands[k]
		p := rangeProjection(rows, is, b)
		var touching, noFric, open []int
		for j, i := range is {
			o.B2 += b[i] * b[i]
			d := (b[i] - p[j]) * (b[i] - p[j])
			o.All += d
			switch {
			case rows[i].Kind != constraint.ContactNormal:
				o.Fric += d
			case gap[i]:
				o.Gap += d
			default:
				o.Pen += d
			}
			if !gap[i] {
				touching = append(touching, i)
			}
			if !gap[i] || rows[i].Kind == constraint.ContactNormal {
				noFric = append(noFric, i)
			}
			if lo[i] < hi[i] {
				open = append(open, i)
			}
		}
		q := rangeProjection(rows, touching, b)
		for j, i := range touching {
			o.NoGap += (b[i] - q[j]) * (b[i] - q[j])
		}
		q = rangeProjection(rows, noFric, b)
		for j, i := range noFric {
			o.NoGapFric += (b[i] - q[j]) * (b[i] - q[j])
		}
		q = rangeProjection(rows, open, b)
		for j, i := range open {
			o.Open += (b[i] - q[j]) * (b[i] - q[j])
		}
	}
	return o
}

// rangeProjection returns J u for the u that minimizes |J u − b| over the
// rows sel (CGLS, conjugate gradients on Jᵀ J u = Jᵀ b from u = 0, to a
// gradient 1e-14 of its start): P b on those rows.
func rangeProjection(rows []constraint.Row, sel []int, b []float64) []float64 {
	col := map[int]int{}
	for _, i := range sel {
		r := &rows[i]
		for k := 0; k < r.N; k++ {
			if _, ok := col[r.Body[k]]; !ok {
				col[r.Body[k]] = 6 * len(col)
			}
		}
	}
	n, m := 6*len(col), len(sel)
	mul := func(u, out []float64) { // out = J u
		for j, i := range sel {
			r := &rows[i]
			v := 0.0
			for k := 0; k < r.N; k++ {
				c := col[r.Body[k]]
				for d := 0; d < 6; d++ {
					v += r.J[k][d] * u[c+d]
				}
			}
			out[j] = v
		}
	}
	mulT := func(y, out []float64) { // out = Jᵀ y
		clear(out)
		for j, i := range sel {
			r := &rows[i]
			for k := 0; k < r.N; k++ {
				c := col[r.Body[k]]
				for d := 0; d < 6; d++ {
					out[c+d] += r.J[k][d] * y[j]
				}
			}
		}
	}
	dot := func(x, y []float64) float64 {
		s := 0.0
		for i := range x {
			s += x[i] * y[i]
		}
		return s
	}
	u, res, q := make([]float64, n), make([]float64, m), make([]float64, m)
	for j, i := range sel {
		res[j] = b[i]
	}
	s := make([]float64, n)
	mulT(res, s)
	p := append([]float64(nil), s...)
	g, g0 := dot(s, s), dot(s, s)
	for it := 0; it < 20*n+100 && g > 1e-28*g0 && g > 0; it++ {
		mul(p, q)
		a := g / dot(q, q)
		for i := range u {
			u[i] += a * p[i]
		}
		for j := range res {
			res[j] -= a * q[j]
		}
		mulT(res, s)
		gn := dot(s, s)
		for i := range p {
			p[i] = s[i] + gn/g*p[i]
		}
		g = gn
	}
	mul(u, q)
	return q
}
