package stepper_test

import (
	"testing"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// RowLabels names every row of LastProblem: on the forklift (hinges,
// motors, wheels with friction and rolling rows) the joint rows come in
// World.Joints order, Dim() rows each, and each contact's rows carry its
// index, its bodies and geoms, and the kind and direction of the rows
// FillRows rebuilds at its Layout.
func TestRowLabels(t *testing.T) {
	w, err := scenes.Forklift(scenes.DefaultForkliftParams())
	require.NoError(t, err)
	require.Empty(t, w.RowLabels(nil), "before the first step")
	var labels []stepper.RowLabel
	rolling := 0
	for s := 0; s < 5; s++ {
		_, err := w.Step()
		require.NoError(t, err)
		labels = w.RowLabels(labels)
		require.Len(t, labels, w.LastProblem().N())
		k := 0
		for j, c := range w.Joints {
			for r := 0; r < c.Dim(); r++ {
				l := labels[k]
				require.Equal(t, j, l.Joint, "row %d", k)
				require.Equal(t, r, l.JointRow, "row %d", k)
				require.Equal(t, -1, l.Contact, "row %d", k)
				require.Equal(t, c.Bodies()[0], l.Bodies[0], "row %d", k)
				k++
			}
		}
		require.Equal(t, w.JointRows(), k)
		rows := make([]constraint.Row, 4)
		for i, c := range w.Contacts(nil) {
			require.Equal(t, k, c.Row)
			n := c.FillRows(rows, w.Bodies)
			require.Equal(t, c.Rows, n)
			for r := 0; r < n; r++ {
				l := labels[k]
				require.Equal(t, i, l.Contact, "row %d", k)
				require.Equal(t, -1, l.Joint, "row %d", k)
				require.Equal(t, [2]int{c.A, c.B}, l.Bodies, "row %d", k)
				require.Equal(t, [2]int{c.GeomA, c.GeomB}, l.Geoms, "row %d", k)
				require.Equal(t, rows[r].Kind, l.Kind, "row %d", k)
				if rows[r].Kind == constraint.RollingFriction {
					rolling++
					require.Equal(t, c.RollAxis, l.Direction)
				} else {
					// J is [d, r × d] on B, −[d, r × d] on A: its linear
					// part is the direction.
					rw := &rows[r]
					jb, sign := rw.J[rw.N-1], 1.0
					if rw.Body[rw.N-1] != c.B {
						sign = -1
					}
					require.Equal(t, [3]float64{sign * jb[0], sign * jb[1], sign * jb[2]}, [3]float64(l.Direction), "row %d", k)
				}
				k++
			}
		}
	}
	require.Positive(t, rolling, "the forklift's wheels have rolling rows")
}
