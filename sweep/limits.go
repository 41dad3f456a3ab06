package sweep

import (
	"errors"
	"fmt"
	"time"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/scenes"
)

// Limits bound one job. A job over a limit is refused: its result is
// failed with an Error naming the limit, the value and the maximum, and
// it is never run again (runs are deterministic, so a second run would
// exceed the limit again). A zero field takes DefaultLimits' value.
//
// Bodies and Rows also bound how long a job takes to stop: its context
// reaches the step loop (checked between steps) and the solve (checked
// every iteration), not a step's contact detection and assembly, whose
// time the size of the scene bounds.
type Limits struct {
	// Steps is the most steps a job may ask for, counting each of
	// Job.Steps' frames as Job.Substeps steps; checked before the scene
	// is built.
	Steps int
	// Bodies is the most bodies the job's scene may have; checked on
	// the scene's description (scenes.Describe), before the world is
	// built.
	Bodies int
	// Rows is the most constraint rows a step may have; a job whose step
	// has more stops after that step.
	Rows int
	// Wall is the most wall-clock time a job may run. Its context is
	// then cancelled, and the job is recorded failed.
	Wall time.Duration
}

// DefaultLimits are the limits of a zero Limits field. The shipped
// calibrations run 60–300 steps of a 2-body scene (about 1 ms per job).
// The defaults leave orders of magnitude above that, and keep the time
// a run takes to stop under 1 s of CPU: at the bodies limit (chain6 with
// 10 000 links, 50 000 rows) the scene's check and build take 50–110 ms
// of CPU each and the first step, the slowest, 210–270 ms, and a run
// cancelled in its build or its steps stopped within 0–124 ms of CPU
// (TestRunStopsAtTheLimits, five runs at a load of about 17 on 2 cores,
// where the wall clock stretches each part up to tenfold).
var DefaultLimits = Limits{Steps: 1_000_000, Bodies: 10_000, Rows: 100_000, Wall: 10 * time.Minute}

// Validate reports a negative limit.
func (l Limits) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int64
	}{{"Steps", int64(l.Steps)}, {"Bodies", int64(l.Bodies)}, {"Rows", int64(l.Rows)}, {"Wall", int64(l.Wall)}} {
		if f.v < 0 {
			errs = append(errs, &num.FieldError{What: "limits", Field: f.name, Value: f.v, Reason: fmt.Sprintf("must be ≥ 0 (0 = the default), got %d", f.v)})
		}
	}
	return errors.Join(errs...)
}

// OrDefault returns l with every zero field set to DefaultLimits'.
func (l Limits) OrDefault() Limits {
	d := DefaultLimits
	if l.Steps > 0 {
		d.Steps = l.Steps
	}
	if l.Bodies > 0 {
		d.Bodies = l.Bodies
	}
	if l.Rows > 0 {
		d.Rows = l.Rows
	}
	if l.Wall > 0 {
		d.Wall = l.Wall
	}
	return d
}

// RefusedError is a job that is not run: over one of its Limits, or
// invalid (an unknown scene, a parameter the scene rejects, a non-finite
// swept value, a compared body or measured frames that do not fit). Its
// message starts with "refused: ".
type RefusedError struct {
	Err error
}

func (e *RefusedError) Error() string { return "refused: " + e.Err.Error() }

func (e *RefusedError) Unwrap() error { return e.Err }

func refusef(format string, args ...any) error {
	return &RefusedError{Err: fmt.Errorf(format, args...)}
}

// Check refuses a job that cannot run or is over the limits, without
// building its world: it describes the scene (scenes.Describe, which
// checks every parameter override) and counts its bodies. The error is a
// *RefusedError naming the field or limit and the value.
func (l Limits) Check(j *Job) error {
	l = l.OrDefault()
	if j.Substeps < 0 || j.Substeps > maxSubsteps {
		return refusef("substeps: must be 0 to %d, got %d", maxSubsteps, j.Substeps)
	}
	if !(j.Tolerance >= 0 && j.Tolerance < 1) {
		return refusef("tolerance: must be ≥ 0 and < 1 (0 = the solver's default), got %v", j.Tolerance)
	}
	if sub := max(j.Substeps, 1); j.Steps < 1 || j.Steps > l.Steps/sub {
		if sub > 1 {
			return refusef("steps: %d × %d substeps is outside 1…%d (sweep.Limits.Steps)", j.Steps, sub, l.Steps)
		}
		return refusef("steps: %d is outside 1…%d (sweep.Limits.Steps)", j.Steps, l.Steps)
	}
	if !num.FiniteSlice(j.Params) {
		return refusef("params: not finite: %v", j.Params)
	}
	if !num.Finite(j.AngleLength) || j.AngleLength < 0 {
		return refusef("angle_length: must be finite and ≥ 0, got %v", j.AngleLength)
	}
	if len(j.Measured) == 0 {
		return refusef("measured: no frames")
	}
	spec, err := scenes.Describe(j.Scene, j.Set)
	if err != nil {
		return &RefusedError{Err: err}
	}
	if n := len(spec.Bodies); n > l.Bodies {
		return refusef("bodies: scene %s has %d bodies, above the limit %d (sweep.Limits.Bodies)", j.Scene, n, l.Bodies)
	}
	if j.Body < 0 || j.Body >= len(spec.Bodies) {
		return refusef("body: scene %s has %d bodies, got %d", j.Scene, len(spec.Bodies), j.Body)
	}
	return nil
}
