package scenes

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/stepper"
)

// TendonSpec is a fixed tendon (constraint.Tendon): the linear combination
// L = Σ Coef·q of the coordinates q of named hinge and prismatic joints
// (rad or m, each 0 at the scene's initial pose) kept in [Lower, Upper].
// ±Inf (null in JSON) leaves a side free; Lower = Upper makes it an
// equality, L = Lower (MJCF's joint equality, URDF's mimic joint).
// Tendons are built after every joint and added to World.Joints after
// them, in order.
type TendonSpec struct {
	Name         string // optional, for messages and World.Joint
	Terms        []TendonTerm
	Lower, Upper float64
}

// TendonTerm is one joint of a tendon: its name (JointSpec.Name of a
// hinge or prismatic joint) and its coefficient (non-zero).
type TendonTerm struct {
	Joint string
	Coef  float64
}

// validateTendons checks the tendons against the joints: every term names
// one hinge or prismatic joint, once per tendon, with a finite non-zero
// coefficient, and the range is ordered with a finite side.
func (s *SceneSpec) validateTendons(p *problems) {
	if len(s.Tendons) == 0 {
		return
	}
	types := map[string]string{}
	count := map[string]int{}
	index := map[string]int{}
	for i := range s.Joints {
		if n := s.Joints[i].Name; n != "" {
			types[n] = s.Joints[i].Type
			count[n]++
			index[n] = i
		}
	}
	for i := range s.Tendons {
		t := &s.Tendons[i]
		path := fmt.Sprintf("tendons[%d]", i)
		if len(t.Terms) == 0 {
			p.add(path+".joints", "a tendon needs at least one joint")
		}
		for k, tm := range t.Terms {
			tp := fmt.Sprintf("%s.joints[%d]", path, k)
			switch {
			case count[tm.Joint] == 0:
				p.add(tp+".joint", "no joint named %s", quoteName(tm.Joint))
			case count[tm.Joint] > 1:
				p.add(tp+".joint", "%d joints are named %s; a tendon needs one", count[tm.Joint], quoteName(tm.Joint))
			case types[tm.Joint] != JointHinge && types[tm.Joint] != JointPrismatic:
				p.add(tp+".joint", "%s is a %s joint; a tendon combines hinge and prismatic coordinates", quoteName(tm.Joint), types[tm.Joint])
			}
			for l := 0; l < k; l++ {
				if t.Terms[l].Joint == tm.Joint {
					p.add(tp+".joint", "%s is already term %d of this tendon", quoteName(tm.Joint), l)
				}
			}
			if !num.Finite(tm.Coef) || tm.Coef == 0 {
				p.addv(tp+".coef", tm.Coef, "must be finite and non-zero, got %v", tm.Coef)
			}
		}
		var bodies []string
		for _, tm := range t.Terms {
			if count[tm.Joint] != 1 {
				continue
			}
			j := &s.Joints[index[tm.Joint]]
			for _, b := range []string{j.A, j.B} {
				if b != WorldName && !slices.Contains(bodies, b) {
					bodies = append(bodies, b)
				}
			}
		}
		if len(bodies) > constraint.MaxBodies {
			p.add(path+".joints", "the joints touch %d bodies (%s); a tendon's rows touch at most %d", len(bodies), strings.Join(bodies, ", "), constraint.MaxBodies)
		}
		switch {
		case math.IsNaN(t.Lower) || math.IsNaN(t.Upper) || t.Lower > t.Upper:
			p.add(path, "need lower ≤ upper, got [%v, %v]", t.Lower, t.Upper)
		case math.IsInf(t.Lower, 1) || math.IsInf(t.Upper, -1):
			p.add(path, "lower must be < +Inf and upper > −Inf, got [%v, %v]", t.Lower, t.Upper)
		case math.IsInf(t.Lower, -1) && math.IsInf(t.Upper, 1):
			p.add(path, "lower and upper are both free: a tendon without a range has no effect")
		}
	}
}

// buildTendons adds the tendons to w, whose joints are s.Joints in order.
func (s *SceneSpec) buildTendons(w *stepper.World) error {
	for i := range s.Tendons {
		t := &s.Tendons[i]
		joints := make([]constraint.Coordinate, len(t.Terms))
		coef := make([]float64, len(t.Terms))
		for k, tm := range t.Terms {
			for j := range s.Joints {
				if s.Joints[j].Name == tm.Joint {
					c, ok := w.Joints[j].(constraint.Coordinate)
					if !ok {
						return &PathError{Field: fmt.Sprintf("tendons[%d].joints[%d].joint", i, k), Value: tm.Joint, Reason: fmt.Sprintf("%s is not a hinge or prismatic joint", quoteName(tm.Joint))}
					}
					joints[k] = c
				}
			}
			coef[k] = tm.Coef
		}
		c, err := constraint.NewTendon(joints, coef, t.Lower, t.Upper)
		if err == nil {
			err = w.AddConstraint(c)
		}
		if err == nil && t.Name != "" {
			err = w.NameJoint(len(w.Joints)-1, t.Name)
		}
		if err != nil {
			return pathErr(fmt.Sprintf("tendons[%d]", i), err)
		}
	}
	return nil
}

// node encodes t as decodeTendon reads it.
func (t *TendonSpec) node() *jnode {
	n := jobj()
	if t.Name != "" {
		n.set("name", jstr(t.Name))
	}
	a := jarr()
	for _, tm := range t.Terms {
		a.arr = append(a.arr, jobj().set("joint", jstr(tm.Joint)).set("coef", jnum(tm.Coef)))
	}
	return n.set("joints", a).set("lower", jinf(t.Lower)).set("upper", jinf(t.Upper))
}
