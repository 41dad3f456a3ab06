package study

import (
	"context"
	"fmt"
)

// Options are the settings every study takes. The zero value runs the
// study's default length without progress reports.
type Options struct {
	// Steps is the number of steps of each simulation of the study; 0
	// means the study's default (its …Steps constant). Studies that take
	// one step (Rod) ignore it.
	Steps int
	// Progress, if not nil, is called synchronously as the study advances
	// with the units of work done and their total (steps over all runs of
	// the study, or solves for phases that solve stored problems). done
	// grows to total; calls are spaced to about a thousand per study.
	Progress func(done, total int)
}

// steps returns o.Steps, or def when it is 0; a negative count is an
// error naming the study.
func (o Options) steps(name string, def int) (int, error) {
	switch {
	case o.Steps < 0:
		return 0, fmt.Errorf("%s: Options.Steps: must be ≥ 0, got %d", name, o.Steps)
	case o.Steps == 0:
		return def, nil
	}
	return o.Steps, nil
}

// meter counts a study's units of work and reports them to
// Options.Progress, at most once per thousandth of the total.
type meter struct {
	f           func(done, total int)
	done, total int
	last        int // thousandths reported
}

func newMeter(o Options, total int) *meter {
	m := &meter{f: o.Progress, total: total, last: -1}
	m.add(0)
	return m
}

// add counts k more units of work.
func (m *meter) add(k int) {
	m.done += k
	if m.f == nil || m.total <= 0 {
		return
	}
	if p := int(int64(m.done) * 1000 / int64(m.total)); p != m.last || m.done == m.total {
		m.last = p
		m.f(min(m.done, m.total), m.total)
	}
}

// stopped returns nil while ctx is live, and otherwise ctx's error wrapped
// with where the study stopped.
func stopped(ctx context.Context, format string, a ...any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf(format+": %w", append(a, err)...)
	}
	return nil
}
