package lcp

import (
	"errors"
	"fmt"
	"testing"
)

// TestStatus: every status's name, Early and Err, and ParseStatus inverting
// String, as the one table says.
func TestStatus(t *testing.T) {
	tests := []struct {
		st    Status
		name  string
		early bool
	}{
		{NotStarted, "not_started", false},
		{Converged, "converged", false},
		{BudgetExhausted, "budget_exhausted", true},
		{Failed, "failed", true},
		{Unconverged, "unconverged", true},
		{Canceled, "canceled", true},
		{Stopped, "stopped", true},
	}
	if len(tests) != len(statuses) {
		t.Fatalf("%d statuses tested, %d in the table", len(tests), len(statuses))
	}
	for _, tc := range tests {
		if got := tc.st.String(); got != tc.name {
			t.Errorf("%d: String %q, want %q", int(tc.st), got, tc.name)
		}
		if got := tc.st.Early(); got != tc.early {
			t.Errorf("%v: Early %v, want %v", tc.st, got, tc.early)
		}
		if err := tc.st.Err(); (err != nil) != tc.early {
			t.Errorf("%v: Err %v, want an error iff early", tc.st, err)
		}
		if st, err := ParseStatus(tc.name); err != nil || st != tc.st {
			t.Errorf("ParseStatus(%q) = %v, %v; want %v", tc.name, st, err, tc.st)
		}
	}
	if !errors.Is(Stopped.Err(), ErrStopped) {
		t.Errorf("Stopped.Err() = %v, want ErrStopped", Stopped.Err())
	}
	for _, st := range []Status{-1, Stopped + 1} {
		if st.String() != fmt.Sprintf("Status(%d)", int(st)) || !st.Early() || st.Err() == nil {
			t.Errorf("out of the table: %q, Early %v, Err %v", st.String(), st.Early(), st.Err())
		}
	}
	_, err := ParseStatus("done")
	want := `status: unknown value "done" (want converged, budget_exhausted, failed, unconverged, canceled, stopped or not_started)`
	if err == nil || err.Error() != want {
		t.Errorf("ParseStatus(\"done\"): %v, want %s", err, want)
	}
}
