package trajectory

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFieldErrors: a bad Options field, a CSV cell that does not parse
// and a JSON frame entry of the wrong size come back as *num.FieldErrors
// naming the field and holding the bad value (the raw cell for a CSV
// parse error), with the message the tests above match.
func TestFieldErrors(t *testing.T) {
	row := func(step, body string) string { return step + ",0," + body + ",1,2,3,1,0,0,0,0,0,0,0,0,0\n" }
	frame := func(step int, bodies string) string {
		return `{"step":` + itoa(step) + `,"time":0,"bodies":[` + bodies + `]}`
	}
	b := `{"x":[1,2,3],"q":[1,0,0,0]}`
	read := func(in string, f Format) error {
		r, err := NewReader(strings.NewReader(in), f)
		if err == nil {
			_, err = r.ReadAll()
		}
		return err
	}
	w := scene(t, "pendulum", nil)
	run := func(o Options) error { _, err := Run(context.Background(), w, o); return err }
	for _, c := range []struct {
		name, what, field string
		value             any
		err               error
	}{
		{"steps", "trajectory", "Options.Steps", -1, run(Options{Steps: -1})},
		{"every", "trajectory", "Options.Every", -2, run(Options{Steps: 1, Every: -2})},
		{"memory", "trajectory", "Options.MaxMemory", int64(-3), run(Options{Steps: 1, MaxMemory: -3})},
		{"energy", "trajectory", "Options.MaxEnergyGain", -0.5, run(Options{Steps: 1, MaxEnergyGain: -0.5})},
		{"csv step", "line 2", "step", "x1", read(Header+"\n"+row("x1", "0"), CSV)},
		{"csv body", "line 3", "body", "b", read(Header+"\n"+row("0", "0")+row("0", "b"), CSV)},
		{"csv y", "line 2", "y", "zz", read(Header+"\n"+strings.Replace(row("0", "0"), ",1,2,", ",1,zz,", 1), CSV)},
		{"json x", "", "frames[0].bodies[0].x", 2, read(`{"frames":[`+frame(0, `{"x":[1,2],"q":[1,0,0,0]}`)+`]}`, JSON)},
		{"json bodies", "", "frames[1].bodies", 2, read(`{"frames":[`+frame(0, b)+`,`+frame(1, b+","+b)+`]}`, JSON)},
		{"json step order", "", "frames[1].step", int64(1), read(`{"frames":[`+frame(1, b)+`,`+frame(1, b)+`]}`, JSON)},
		{"stats", "line 2", "kinetic", "half", func() error {
			cells := strings.Split(strings.Repeat("0,", strings.Count(StatsHeader, ","))+"0", ",")
			cells[9] = "half" // kinetic
			_, err := ReadStats(strings.NewReader(StatsHeader + "\n" + strings.Join(cells, ",") + "\n"))
			return err
		}()},
	} {
		var fe *num.FieldError
		require.True(t, errors.As(c.err, &fe), "%s: %v", c.name, c.err)
		assert.Equal(t, c.what, fe.What, c.name)
		assert.Equal(t, c.field, fe.Field, c.name)
		assert.Equal(t, c.value, fe.Value, c.name)
	}
}
