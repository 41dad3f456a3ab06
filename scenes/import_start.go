package scenes

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// startDepth returns how deep (m) the shape sh of a body at (pos, rot)
// reaches below the plane through p0 with unit normal n (0 when it does not):
// for the primitive shapes (sphere, capsule, box, cylinder) their lowest
// point along −n in closed form, for a convex shape (an MJCF or URDF mesh
// on a moving body, an MJCF ellipsoid) its hull's lowest vertex (the hull
// the stepper collides, centred as convexHull centres it; 0 when it cannot
// be built, which Validate reports); other kinds give 0.
func startDepth(sh *ShapeSpec, pos mgl64.Vec3, rot mgl64.Quat, p0, n mgl64.Vec3) float64 {
	lr := sh.Rot
	if lr == (mgl64.Quat{}) {
		lr = mgl64.QuatIdent()
	}
	q := rot.Mul(lr)
	s := n.Dot(pos.Add(rot.Rotate(sh.Pos)).Sub(p0)) // the shape origin's height
	az := math.Abs(n.Dot(q.Rotate(mgl64.Vec3{0, 0, 1})))
	switch sh.Type {
	case contact.Sphere:
		s -= sh.Radius
	case contact.Capsule:
		s -= az*sh.Length/2 + sh.Radius
	case contact.Cylinder:
		s -= az*sh.Length/2 + sh.Radius*math.Sqrt(math.Max(0, 1-az*az))
	case contact.Box:
		for i := range 3 {
			var e mgl64.Vec3
			e[i] = 1
			s -= math.Abs(n.Dot(q.Rotate(e))) * sh.Size[i] / 2
		}
	case contact.Convex:
		h, _, _, _, err := sh.convexHull()
		if err != nil || len(h.Vertices) == 0 {
			return 0
		}
		low := math.Inf(1)
		for _, v := range h.Vertices {
			low = math.Min(low, n.Dot(q.Rotate(v)))
		}
		s += low
	default:
		return 0
	}
	return math.Max(0, -s)
}

// shapesCollide is stepper's category and mask rule (Geom.Category,
// Geom.Mask) for two shapes.
func shapesCollide(a, b *ShapeSpec) bool {
	return stepper.CategoriesCollide(a.Category, a.Mask, b.Category, b.Mask)
}

// warnStartInside warns, once, when a dynamic body's shape (startDepth's:
// primitive or convex) starts more than stepper.DefaultProjectAbove (1 mm)
// below a world plane that it
// collides with (a keyframe's root placed too low, MuJoCo's soft contacts
// letting feet rest inside the floor): the contacts push it out on the
// first steps at up to Settings.MaxCorrectingSpeed and the position
// projection lifts the rest, which is energy the model did not have
// (Stats.EnergyAdded; mujoco_menagerie's Go1 from its "home" keyframe,
// feet 17.8 mm deep, gains 0.30 J on step 1). It names the deepest shape,
// its depth and how many shapes start inside; n is where the pose comes
// from (the keyframe's <key>, else the model's root element) and raise
// says how to raise that pose.
//
// Whatever the depth d, the contacts lift the shape out over the first
// steps and the model gains m g d (a 1 kg box: 4.9 mJ from 0.5 mm, 98 mJ
// from 10 mm). The threshold is the stepper's own tolerance: a step may
// end with a penetration up to ProjectAbove, which it does not project
// away, so a start that shallow is one the stepper's own results show
// (and a foot written to touch the floor, within rounding, is not
// warned); its energy is at most m g · 1 mm, 9.8 mJ per kg.
func (im *importer) warnStartInside(s *SceneSpec, n *xnode, raise string) {
	ws, err := s.WorldFrame()
	if err != nil {
		return // Validate reports it
	}
	excluded := map[string]bool{}
	for _, e := range ws.Exclude {
		if e.A == WorldName {
			excluded[e.B] = true
		} else if e.B == WorldName {
			excluded[e.A] = true
		}
	}
	deepest, count, what := 0.0, 0, ""
	for p := range ws.WorldShapes {
		pl := &ws.WorldShapes[p]
		if pl.Type != contact.Plane {
			continue
		}
		pr := pl.Rot
		if pr == (mgl64.Quat{}) {
			pr = mgl64.QuatIdent()
		}
		nrm := pr.Rotate(mgl64.Vec3{0, 0, 1})
		for b := range ws.Bodies {
			bd := &ws.Bodies[b]
			if bd.Static || bd.Kinematic || excluded[bd.Name] {
				continue
			}
			for k := range bd.Shapes {
				sh := &bd.Shapes[k]
				if !shapesCollide(pl, sh) {
					continue
				}
				d := startDepth(sh, bd.Pos, bd.Rot, pl.Pos, nrm)
				if d <= stepper.DefaultProjectAbove {
					continue
				}
				count++
				if d > deepest {
					deepest, what = d, fmt.Sprintf("body %q's %s (shape %d)", clip(bd.Name), sh.Type, k)
				}
			}
		}
	}
	if count == 0 {
		return
	}
	im.warnOnce("startinside", n, "%s starts %.3g mm inside a world plane (%d shape(s) more than %g mm deep): the contacts push them out on the first steps, adding energy (%s)", what, deepest*1e3, count, stepper.DefaultProjectAbove*1e3, raise)
}
