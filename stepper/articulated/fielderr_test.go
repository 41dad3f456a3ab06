package articulated

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFieldErrors: New's and the state checks' errors are
// *num.FieldErrors whose Field is the Go path of the bad field and whose
// Value is the bad value; the message starts with that path.
func TestFieldErrors(t *testing.T) {
	ok := Model{Links: Chain(3, 1, 1), Lines: []Line{Ground()}, Contacts: []Contact{{Link: 2, Line: 0}}}
	nan := math.NaN()
	for _, c := range []struct {
		edit  func(m *Model, s *Settings)
		field string
		value any
	}{
		{func(m *Model, s *Settings) { m.Links[2].Parent = 7 }, "Links[2].Parent", 7},
		{func(m *Model, s *Settings) { m.Links[2].Parent = -1 }, "Links[2].Parent", -1},
		{func(m *Model, s *Settings) { m.Links[1].Length = -0.5 }, "Links[1].Length", -0.5},
		{func(m *Model, s *Settings) { m.Links[0].Mass = -1 }, "Links[0].Mass", -1.0},
		{func(m *Model, s *Settings) { m.Links[2].Inertia = math.Inf(1) }, "Links[2].Inertia", math.Inf(1)},
		{func(m *Model, s *Settings) { m.Links[1].Offset = Vec2{nan, 0} }, "Links[1].Offset", nil},
		{func(m *Model, s *Settings) { m.Gravity[1] = math.Inf(-1) }, "Gravity[1]", math.Inf(-1)},
		{func(m *Model, s *Settings) { m.Lines[0].N = Vec2{} }, "Lines[0].N", Vec2{}},
		{func(m *Model, s *Settings) { m.Contacts[0].Link = 3 }, "Contacts[0].Link", 3},
		{func(m *Model, s *Settings) { m.Contacts[0].Mu = -0.1 }, "Contacts[0].Mu", -0.1},
		{func(m *Model, s *Settings) { s.H = -1e-3 }, "Settings.H", -1e-3},
		{func(m *Model, s *Settings) { s.Margin = -2 }, "Settings.Margin", -2.0},
		{func(m *Model, s *Settings) { s.MaxIterations = -4 }, "Settings.MaxIterations", -4},
		{func(m *Model, s *Settings) { s.Method = Method(9) }, "Settings.Method", Method(9)},
	} {
		t.Run(c.field, func(t *testing.T) {
			_, err := New(edited(ok, c.edit))
			var fe *num.FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.Equal(t, c.field, fe.Field)
			if c.value != nil {
				assert.Equal(t, c.value, fe.Value)
			}
			assert.True(t, strings.HasPrefix(err.Error(), c.field+": "), "%q", err)
		})
	}
	sys, err := New(ok, Settings{H: 1e-3})
	require.NoError(t, err)
	var fe *num.FieldError
	require.True(t, errors.As(sys.SetState([]float64{1}, []float64{1, 2, 3}), &fe))
	assert.Equal(t, "q", fe.Field)
	assert.Equal(t, 1, fe.Value)
	sys.U[1] = math.Inf(1)
	_, err = sys.Step()
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "U[1]", fe.Field)
	assert.Equal(t, math.Inf(1), fe.Value)
	sys.U[1] = 0
	sys.Forces = []PointForce{{Link: 5}}
	_, err = sys.Step()
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "Forces[0].Link", fe.Field)
	assert.Equal(t, 5, fe.Value)
	_, err = ParseMethod("rnea")
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "method", fe.Field)
	assert.Equal(t, "rnea", fe.Value)
}
