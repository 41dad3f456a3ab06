package stepper

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
)

// A recorded layout matches the same rows and bodies only: a row moved to
// another body, a row more or less, a row on one body fewer and a body
// turned static each make it differ (the assembly then builds A's pattern
// again and the partition its islands).
func TestRowLayoutSame(t *testing.T) {
	bodies := []*body.Body{{}, {}, {Static: true}}
	row := func(bs ...int) constraint.Row {
		var r constraint.Row
		r.N = copy(r.Body[:], bs)
		return r
	}
	rows := []constraint.Row{row(0, 1), row(0, 1), row(1, 2)}
	var l rowLayout
	assert.False(t, l.same(bodies, rows), "nothing recorded")
	l.record(bodies, rows)
	assert.True(t, l.same(bodies, rows))
	assert.True(t, l.same(bodies, []constraint.Row{row(0, 1), row(0, 1), row(1, 2)}), "equal rows, another slice")
	assert.False(t, l.same(bodies, []constraint.Row{row(0, 1), row(0, 2), row(1, 2)}), "a row on another body")
	assert.False(t, l.same(bodies, rows[:2]), "a row fewer")
	assert.False(t, l.same(bodies, append(rows[:3:3], row(0))), "a row more")
	assert.False(t, l.same(bodies, []constraint.Row{row(0, 1), row(0, 1), row(1)}), "a row on one body fewer")
	moved := []*body.Body{{}, {Kinematic: true}, {Static: true}}
	assert.False(t, l.same(moved, rows), "a body made kinematic")
	assert.False(t, l.same(bodies[:2], rows), "a body fewer")
}
