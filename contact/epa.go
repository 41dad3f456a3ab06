package contact

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// EPA, the expanding polytope algorithm (van den Bergen 2001, "Proximity
// queries and penetration depth computation on 3D game objects"; 2003,
// Collision Detection in Interactive 3D Environments): when A and B
// overlap, D = A − B holds the origin and the penetration depth is the
// distance from the origin to D's boundary. Starting from a tetrahedron
// of support points that holds the origin (GJK's last simplex on the whole
// shapes, completed by supports along directions that give it volume), EPA
// repeatedly takes the polytope face nearest the origin, with outward unit
// normal n at distance d, asks for the support point w of D along n and
//
//   - stops if n·w − d ≤ tol: the face lies on D's boundary within tol, the
//     depth is d and the normal (A → B) is n;
//   - else adds w: removes the faces that see w, and joins w to the
//     horizon (the edges of the removed region, each kept once) by new
//     faces wound as the faces they replace.
//
// The polytope lives in fixed arrays (no allocation); it stops at
// epaMaxIter vertices or when the arrays are full and reports the best face
// so far. A polytope that cannot be given volume (it cannot happen for solid
// shapes; it guards against NaN) gives depth 0 along the centre line.

const (
	epaMaxIter  = 64
	epaMaxVerts = epaMaxIter + 4
	epaMaxFaces = 2*epaMaxVerts - 4 // a convex polytope of V vertices has 2V − 4 triangles
	epaMaxEdges = 3 * epaMaxFaces
)

type epaFace struct {
	v [3]int
	n mgl64.Vec3 // outward unit normal
	d float64    // n·(a vertex): distance of the face plane from the origin
}

type polytope struct {
	nv      int
	w, a, b [epaMaxVerts]mgl64.Vec3
	nf      int
	f       [epaMaxFaces]epaFace
	edges   [epaMaxEdges][2]int
	inner   mgl64.Vec3 // a point inside: orients faces of rounding-level area
}

func (p *polytope) addVert(a, b mgl64.Vec3) int {
	p.a[p.nv], p.b[p.nv], p.w[p.nv] = a, b, a.Sub(b)
	p.nv++
	return p.nv - 1
}

// face returns the face (i, j, k) with its normal from the winding, turned
// outward (away from inner) if rounding made it point in; a face of no
// area takes the direction from inner to its centroid.
func (p *polytope) face(i, j, k int) epaFace {
	w := &p.w
	n := w[j].Sub(w[i]).Cross(w[k].Sub(w[i]))
	l := n.Len()
	if l > 0 && !math.IsInf(l, 0) {
		n = n.Mul(1 / l)
	} else {
		n = w[i].Add(w[j]).Add(w[k]).Mul(1.0 / 3).Sub(p.inner)
		if l := n.Len(); l > 0 {
			n = n.Mul(1 / l)
		} else {
			n = mgl64.Vec3{0, 0, 1}
		}
	}
	if n.Dot(w[i].Sub(p.inner)) < 0 {
		n = n.Mul(-1)
	}
	return epaFace{v: [3]int{i, j, k}, n: n, d: n.Dot(w[i])}
}

// epa returns the penetration of A and B (Gap ≤ 0) from the simplex s that
// GJK left on the whole shapes.
func epa(A, B *convex, s *simplex, tol float64) Separation {
	var p polytope
	sup := func(d mgl64.Vec3) (mgl64.Vec3, mgl64.Vec3) { return A.support(d), B.support(d.Mul(-1)) }
	for i := 0; i < s.n; i++ {
		p.addVert(s.a[i], s.b[i])
	}
	if p.nv == 0 {
		a, b := sup(mgl64.Vec3{1, 0, 0})
		p.addVert(a, b)
	}
	// Complete a tetrahedron: each new support point must leave the span
	// of the ones before by more than eps.
	eps := 1e-3 * tol
	axes := [6]mgl64.Vec3{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}
	for p.nv < 4 {
		var dirs [6]mgl64.Vec3
		nd := 0
		switch p.nv {
		case 1:
			dirs, nd = axes, 6
		case 2:
			e := p.w[1].Sub(p.w[0])
			if e.Len() == 0 {
				p.nv = 1
				continue
			}
			e = e.Normalize()
			u := num.AnyPerp(e)
			v := e.Cross(u)
			dirs[0], dirs[1], dirs[2], dirs[3] = u, u.Mul(-1), v, v.Mul(-1)
			nd = 4
		case 3:
			nrm := p.w[1].Sub(p.w[0]).Cross(p.w[2].Sub(p.w[0]))
			if l := nrm.Len(); l > 0 {
				nrm = nrm.Mul(1 / l)
			} else {
				nrm = num.AnyPerp(p.w[1].Sub(p.w[0]).Add(p.w[2].Sub(p.w[0])).Normalize())
			}
			dirs[0], dirs[1] = nrm, nrm.Mul(-1)
			nd = 2
		}
		added := false
		for _, d := range dirs[:nd] {
			a, b := sup(d)
			w := a.Sub(b)
			if off(&p, w) > eps {
				p.addVert(a, b)
				added = true
				break
			}
		}
		if !added || !num.FiniteVec(p.w[p.nv-1]) {
			return epaFallback(A, B)
		}
	}
	w := &p.w
	if w[1].Sub(w[0]).Cross(w[2].Sub(w[0])).Dot(w[3].Sub(w[0])) > 0 {
		// Wind face 0 1 2 clockwise seen from vertex 3 (its normal points away).
		w[1], w[2] = w[2], w[1]
		p.a[1], p.a[2] = p.a[2], p.a[1]
		p.b[1], p.b[2] = p.b[2], p.b[1]
	}
	p.inner = w[0].Add(w[1]).Add(w[2]).Add(w[3]).Mul(0.25)
	p.f[0], p.f[1], p.f[2], p.f[3] = p.face(0, 1, 2), p.face(0, 3, 1), p.face(0, 2, 3), p.face(1, 3, 2)
	p.nf = 4

	best := 0
	iters := 0
	for iters = 1; iters <= epaMaxIter; iters++ {
		best = 0
		for i := 1; i < p.nf; i++ {
			if p.f[i].d < p.f[best].d {
				best = i
			}
		}
		fc := p.f[best]
		a, b := sup(fc.n)
		wn := a.Sub(b)
		if fc.n.Dot(wn)-fc.d <= tol || p.nv == epaMaxVerts || !num.FiniteVec(wn) {
			break
		}
		// Faces that see wn; the horizon is the set of their edges that
		// no other visible face shares (shared edges come in both
		// directions and cancel).
		ne := 0
		keep := 0
		full := false
		for i := 0; i < p.nf; i++ {
			f := p.f[i]
			if i != best && f.n.Dot(wn.Sub(p.w[f.v[0]])) <= 0 {
				p.f[keep] = f
				keep++
				continue
			}
			for e := 0; e < 3; e++ {
				u, v := f.v[e], f.v[(e+1)%3]
				found := -1
				for k := 0; k < ne; k++ {
					if p.edges[k] == [2]int{v, u} {
						found = k
						break
					}
				}
				if found >= 0 {
					ne--
					p.edges[found] = p.edges[ne]
				} else if ne < epaMaxEdges {
					p.edges[ne] = [2]int{u, v}
					ne++
				} else {
					full = true
				}
			}
		}
		if full || keep+ne > epaMaxFaces {
			// Cannot happen for a convex polytope within the arrays; keep
			// the answer so far rather than a broken polytope.
			p.nf = 0
			return epaResult(A, B, &p, fc, iters)
		}
		iw := p.addVert(a, b)
		p.nf = keep
		for k := 0; k < ne; k++ {
			p.f[p.nf] = p.face(p.edges[k][0], p.edges[k][1], iw)
			p.nf++
		}
		if p.nf == 0 {
			return epaResult(A, B, &p, fc, iters)
		}
	}
	return epaResult(A, B, &p, p.f[best], min(iters, epaMaxIter))
}

// off is the distance of w from the affine span of the polytope's first
// vertices (1, 2 or 3 of them).
func off(p *polytope, w mgl64.Vec3) float64 {
	d := w.Sub(p.w[0])
	switch p.nv {
	case 1:
		return d.Len()
	case 2:
		e := p.w[1].Sub(p.w[0])
		return d.Cross(e).Len() / e.Len()
	}
	n := p.w[1].Sub(p.w[0]).Cross(p.w[2].Sub(p.w[0]))
	if l := n.Len(); l > 0 {
		return math.Abs(d.Dot(n)) / l
	}
	return 0
}

// epaResult turns face fc into a Separation: the origin's projection on
// the face, n·d, as weights of its vertices gives the witness points.
func epaResult(A, B *convex, p *polytope, fc epaFace, iters int) Separation {
	q := fc.n.Mul(fc.d)
	i, j, k := fc.v[0], fc.v[1], fc.v[2]
	l0, l1, l2 := triWeights(p.w[i].Sub(q), p.w[j].Sub(q), p.w[k].Sub(q))
	onA := p.a[i].Mul(l0).Add(p.a[j].Mul(l1)).Add(p.a[k].Mul(l2))
	onB := p.b[i].Mul(l0).Add(p.b[j].Mul(l1)).Add(p.b[k].Mul(l2))
	// On a sliver face the weights can mix support points of different
	// features of one shape (a cylinder's support jumps between its ends
	// across its side), and their mean lies inside it. The true witnesses
	// lie on the support planes n·x = h_A(n) and n·x = −h_B(−n); keep the
	// one nearer its plane and place the other from it.
	n := fc.n
	errA := A.support(n).Sub(onA).Dot(n)
	errB := onB.Sub(B.support(n.Mul(-1))).Dot(n)
	if errA <= errB {
		onB = onA.Sub(n.Mul(fc.d))
	} else {
		onA = onB.Add(n.Mul(fc.d))
	}
	return Separation{Gap: -fc.d, Normal: n, OnA: onA, OnB: onB, Iterations: iters}
}

// epaFallback: depth 0 along the line of centres (or +z).
func epaFallback(A, B *convex) Separation {
	n := B.f.p.Sub(A.f.p)
	if l := n.Len(); l > 0 && !math.IsInf(l, 0) {
		n = n.Mul(1 / l)
	} else {
		n = mgl64.Vec3{0, 0, 1}
	}
	pa := A.support(n)
	return Separation{Normal: n, OnA: pa, OnB: pa}
}
