package stepper

import (
	"errors"
	"fmt"
	"math"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
)

// Conflict describes a step whose MLCP has no solution: rigid rows ask for
// constraint velocities that no impulses give (the solver's lcp.ErrSingular,
// "the equations are inconsistent"), as when a wheel held by a hinge to a
// static base reaches a few micrometres into a static floor: the hinge
// rows fix the wheel's height and the contact row asks it up by −φ/h.
// Such a step is not an error when the conflict, the largest row residual
// times h, is at most Settings.ProjectAbove: the step uses the solver's
// least-violation answer (block pivoting's last proximal iterate, moved
// towards the last step's impulses by the safeguard when it would add
// energy), which leaves each row's velocity short by its residual, so the
// rows stay apart by at most that much per step, below what the position
// projection corrects. Stats.Status is then Failed (the MLCP was not
// solved) and Stats.Conflict says which rows conflicted. A larger
// conflict is Step's error, which says the same.
type Conflict struct {
	// Rows is the number of rows in conflict, those whose residual
	// (errmeasure.ResidualRow, m/s or rad/s) is at least
	// conflictShare of the largest; JointRows of them are joint rows, the
	// rest contact rows. 0: the step had no conflict.
	Rows, JointRows int
	// Row is the row with the largest residual, Residual that residual
	// (m/s or rad/s) and Length = Residual·h (m or rad), the conflict the
	// step leaves between the rows.
	Row              int
	Residual, Length float64
	// Joint is the World.Joints index of Row's joint, −1 for a contact
	// row; Point is the index of its contact point (World.Contacts), −1
	// for a joint row. BodyA and BodyB are the bodies it joins
	// (constraint.World = −1 for the static world).
	Joint, Point int
	BodyA, BodyB int
}

// conflictShare is the fraction of the largest residual from which a row
// counts as in conflict (Conflict.Rows): the proximal iterate spreads an
// inconsistency over the rows whose Jacobians it involves, and rows far
// below the worst are left by the solver's tolerance, not by the conflict.
const conflictShare = 0.01

// String names the conflict's rows, the worst row's joint or contact and
// bodies, and its size.
func (c Conflict) String() string {
	if c.Rows == 0 {
		return "no conflict"
	}
	what := fmt.Sprintf("contact point %d", c.Point)
	if c.Joint >= 0 {
		what = fmt.Sprintf("a row of joint %d", c.Joint)
	}
	return fmt.Sprintf("%d rows conflict (%d joint, %d contact); the worst, row %d, %s between bodies %d and %d, misses its velocity by %.3g (m/s or rad/s), %.3g m or rad per step",
		c.Rows, c.JointRows, c.Rows-c.JointRows, c.Row, what, c.BodyA, c.BodyB, c.Residual, c.Length)
}

// tolerateConflict returns nil and sets st.Conflict when err is the
// solve's inconsistency (lcp.ErrSingular) with an answer on every row and
// a conflict (Conflict.Length) of at most Settings.ProjectAbove; err
// otherwise, naming the conflicting rows when it is an inconsistency with
// an answer.
func (w *World) tolerateConflict(err error, sol *solveStage, rs *rowStage, st *Stats) error {
	n := len(rs.rows)
	if !errors.Is(err, lcp.ErrSingular) || len(sol.res.X) != n || len(sol.res.W) != n {
		return err
	}
	c := w.conflict(&sol.prob, sol.res.X, sol.res.W, rs)
	if c.Rows == 0 {
		return err
	}
	if c.Length <= w.Settings.projectAbove() {
		st.Conflict = c
		return nil
	}
	return fmt.Errorf("%w: %v, more than ProjectAbove (%g)", err, c, w.Settings.projectAbove())
}

// conflict finds the rows of x, w that miss the MLCP p (errmeasure.ResidualRow)
// and the joint or contact point of the worst.
func (w *World) conflict(p *lcp.Problem, x, wv []float64, rs *rowStage) Conflict {
	c := Conflict{Row: -1, Joint: -1, Point: -1, BodyA: constraint.World, BodyB: constraint.World}
	for i := range x {
		if r := errmeasure.ResidualRow(x[i], wv[i], p.Lo[i], p.Hi[i]); r > c.Residual || math.IsNaN(r) && c.Row < 0 {
			c.Residual, c.Row = r, i
		}
	}
	if c.Row < 0 || !(c.Residual > 0) {
		return Conflict{}
	}
	for i := range x {
		if errmeasure.ResidualRow(x[i], wv[i], p.Lo[i], p.Hi[i]) >= conflictShare*c.Residual {
			c.Rows++
			if i < rs.nj {
				c.JointRows++
			}
		}
	}
	c.Length = c.Residual * w.Settings.H
	if c.Row < rs.nj {
		start := 0
		for j, d := range rs.jdims {
			if c.Row < start+d {
				c.Joint = j
				ids := w.Joints[j].Bodies()
				c.BodyA = ids[0]
				if len(ids) > 1 {
					c.BodyB = ids[1]
				}
				break
			}
			start += d
		}
		return c
	}
	for i := range w.ws.contacts.points {
		pt := &w.ws.contacts.points[i]
		if pt.Row <= c.Row && c.Row < pt.Row+pt.Rows {
			c.Point, c.BodyA, c.BodyB = i, pt.A, pt.B
			break
		}
	}
	return c
}
