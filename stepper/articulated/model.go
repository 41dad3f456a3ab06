package articulated

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/internal/num"
)

// Vec2 is a planar vector (m, m/s or N, by context).
type Vec2 [2]float64

// Link is one rigid link of a planar chain or tree. Its frame has its origin
// at the link's inboard joint and its x axis along the link: the centre of
// mass is at (Length/2, 0) and the tip at (Length, 0).
type Link struct {
	// Parent is the index of the link this one hangs from, or −1 for the
	// root. Exactly one link is the root.
	Parent int
	// Offset is the joint's position in the parent's frame (m); a chain
	// joins each link at its parent's tip, (parent.Length, 0). Ignored for
	// the root (whose joint is Model.Pin, or floating).
	Offset Vec2
	Length float64 // m, > 0
	Mass   float64 // kg, > 0
	// Inertia is the moment of inertia about the centre of mass (kg·m²);
	// 0 means a slender rod, Mass·Length²/12.
	Inertia float64
}

// Line is a fixed straight obstacle: the half-plane n·(x − P) ≥ 0 is free
// space. Ground is Line{N: Vec2{0, 1}}, the line y = 0.
type Line struct {
	P Vec2 // a point on the line (m)
	N Vec2 // the normal towards free space; normalized by New, must not be 0
}

// Contact is a point of a link that may touch a line: the gap function of
// Eq. (3) is g_N = n·(p − P) with p the point in world coordinates.
type Contact struct {
	Link  int  // index into Model.Links
	Point Vec2 // position in the link's frame (m); (0, 0) is the inboard joint
	Line  int  // index into Model.Lines
	// Mu is the friction coefficient μ of Eq. (1), ≥ 0. μ = 0 makes the
	// contact frictionless: it contributes its normal row only.
	Mu float64
}

// Model describes a planar articulated system: links joined by revolute
// joints in a tree, a root that is floating or pinned to the world, and
// the contact points and lines.
type Model struct {
	Links []Link
	// Floating makes the root free: its generalized coordinates are the
	// position of its inboard end (x, y) and its absolute angle. Otherwise
	// the root turns about the fixed point Pin and its coordinate is its
	// absolute angle.
	Floating bool
	Pin      Vec2 // m; the pinned root's joint
	// Gravity (m/s²). The zero value is no gravity; Chain sets (0, −9.81).
	Gravity  Vec2
	Lines    []Line
	Contacts []Contact
}

// Chain returns the links of a serial chain of nb identical links of mass
// m (kg) and length l (m), each joined at its parent's tip: the system of
// Fig. 4 of the paper. Link 0 is the root; its inboard end is the point P.
func Chain(nb int, m, l float64) []Link {
	links := make([]Link, nb)
	for i := range links {
		links[i] = Link{Parent: i - 1, Length: l, Mass: m}
		if i > 0 {
			links[i].Offset = Vec2{l, 0}
		}
	}
	return links
}

// Ground is the line y = 0 with free space above.
func Ground() Line { return Line{N: Vec2{0, 1}} }

// NumDOF returns the number of generalized coordinates: one per joint, and
// two more (the root's x, y) when the root floats.
func (m *Model) NumDOF() int {
	if m.Floating {
		return len(m.Links) + 2
	}
	return len(m.Links)
}

// Validate reports the first problem in m, naming the field, index and
// value: no links, a parent out of range, several roots or none, a cycle,
// non-positive or non-finite length, mass or inertia, a zero line normal,
// contact indices out of range, negative μ.
func (m *Model) Validate() error {
	_, err := m.topology()
	return err
}

// topology validates m and returns the links in an order that lists every
// parent before its children.
func (m *Model) topology() ([]int, error) {
	nb := len(m.Links)
	if nb == 0 {
		return nil, fieldErr("Links", 0, "empty; a model needs at least one link")
	}
	finite := num.Finite
	root := -1
	for i, l := range m.Links {
		switch {
		case l.Parent < -1 || l.Parent >= nb:
			return nil, fieldErr(fmt.Sprintf("Links[%d].Parent", i), l.Parent, "%d refers to no link (want −1 for the root or 0…%d)", l.Parent, nb-1)
		case l.Parent == i:
			return nil, fieldErr(fmt.Sprintf("Links[%d].Parent", i), l.Parent, "a link cannot be its own parent")
		case !(l.Length > 0) || !finite(l.Length):
			return nil, fieldErr(fmt.Sprintf("Links[%d].Length", i), l.Length, "must be > 0 and finite, got %v", l.Length)
		case !(l.Mass > 0) || !finite(l.Mass):
			return nil, fieldErr(fmt.Sprintf("Links[%d].Mass", i), l.Mass, "must be > 0 and finite, got %v", l.Mass)
		case l.Inertia < 0 || !finite(l.Inertia):
			return nil, fieldErr(fmt.Sprintf("Links[%d].Inertia", i), l.Inertia, "must be ≥ 0 and finite (0 = rod), got %v", l.Inertia)
		case !finite(l.Offset[0]) || !finite(l.Offset[1]):
			return nil, fieldErr(fmt.Sprintf("Links[%d].Offset", i), l.Offset, "must be finite, got %v", l.Offset)
		}
		if l.Parent == -1 {
			if root >= 0 {
				return nil, fieldErr(fmt.Sprintf("Links[%d].Parent", i), l.Parent, "−1, but Links[%d] is already the root (one root only)", root)
			}
			root = i
		}
	}
	if root < 0 {
		// Every link has a parent: following parents from link 0 must loop.
		return nil, fieldErr("Links", nb, "no root (Parent = −1); the parents form a cycle %s", cycleFrom(m.Links, 0))
	}
	// Breadth-first from the root; links not reached lie on a cycle.
	children := make([][]int, nb)
	for i, l := range m.Links {
		if l.Parent >= 0 {
			children[l.Parent] = append(children[l.Parent], i)
		}
	}
	order := make([]int, 0, nb)
	order = append(order, root)
	for k := 0; k < len(order); k++ {
		order = append(order, children[order[k]]...)
	}
	if len(order) < nb {
		seen := make([]bool, nb)
		for _, i := range order {
			seen[i] = true
		}
		for i := range seen {
			if !seen[i] {
				return nil, fieldErr(fmt.Sprintf("Links[%d].Parent", i), m.Links[i].Parent, "not connected to the root; the parents form a cycle %s", cycleFrom(m.Links, i))
			}
		}
	}
	for k, p := range []float64{m.Pin[0], m.Pin[1], m.Gravity[0], m.Gravity[1]} {
		if !finite(p) {
			return nil, fieldErr([...]string{"Pin[0]", "Pin[1]", "Gravity[0]", "Gravity[1]"}[k], p, "must be finite, got %v", p)
		}
	}
	for i, ln := range m.Lines {
		if !finite(ln.P[0]) || !finite(ln.P[1]) || !finite(ln.N[0]) || !finite(ln.N[1]) {
			return nil, fieldErr(fmt.Sprintf("Lines[%d]", i), ln, "P and N must be finite, got P = %v, N = %v", ln.P, ln.N)
		}
		if math.Hypot(ln.N[0], ln.N[1]) == 0 {
			return nil, fieldErr(fmt.Sprintf("Lines[%d].N", i), ln.N, "must not be zero (it is the normal towards free space)")
		}
	}
	for i, c := range m.Contacts {
		switch {
		case c.Link < 0 || c.Link >= nb:
			return nil, fieldErr(fmt.Sprintf("Contacts[%d].Link", i), c.Link, "%d refers to no link (0…%d)", c.Link, nb-1)
		case c.Line < 0 || c.Line >= len(m.Lines):
			return nil, fieldErr(fmt.Sprintf("Contacts[%d].Line", i), c.Line, "%d refers to no line (%d lines)", c.Line, len(m.Lines))
		case !(c.Mu >= 0) || !finite(c.Mu):
			return nil, fieldErr(fmt.Sprintf("Contacts[%d].Mu", i), c.Mu, "must be ≥ 0 and finite, got %v", c.Mu)
		case !finite(c.Point[0]) || !finite(c.Point[1]):
			return nil, fieldErr(fmt.Sprintf("Contacts[%d].Point", i), c.Point, "must be finite, got %v", c.Point)
		}
	}
	return order, nil
}

// cycleFrom follows parents from link i and prints the cycle it meets.
func cycleFrom(links []Link, i int) string {
	seen := map[int]int{}
	var path []int
	for i >= 0 {
		if at, ok := seen[i]; ok {
			s := ""
			for _, j := range path[at:] {
				s += fmt.Sprintf("%d → ", j)
			}
			return s + fmt.Sprint(i)
		}
		seen[i] = len(path)
		path = append(path, i)
		i = links[i].Parent
	}
	return "(none)"
}

// fieldErr is the package's error for one bad field of a Model, Settings
// or state: a *num.FieldError whose Field is the Go path of the field
// ("Links[2].Mass") and whose Value is the offending value.
func fieldErr(field string, value any, format string, args ...any) error {
	return &num.FieldError{Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
}
