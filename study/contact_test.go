package study_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gorigid/gorigid/study"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shortened run (one cycle of the box's force script, 1500 steps):
// post-stabilization holds every contact within the projection tolerance
// after every step, and the default keeps penetrations under its 1 mm
// projection threshold plus what one step can add; neither puts energy in.
func TestContactStabilizationShort(t *testing.T) {
	res, err := study.ContactStabilization(context.Background(), study.Options{Steps: 1500})
	require.NoError(t, err)
	require.Len(t, res.Box, len(study.ContactModes))
	for i, m := range study.ContactModes {
		b, p := &res.Box[i], &res.Pile[i]
		t.Logf("%-16s box: max %.3g m mean %.3g m added %.3g J (%d projections); pile: max %.3g m mean %.3g m added %.3g J",
			m.Name, b.MaxPenetration(), b.MeanPenetration(), b.Added, b.Projections, p.MaxPenetration(), p.MeanPenetration(), p.Added)
	}
	post := study.ContactModes[len(study.ContactModes)-1]
	require.Equal(t, "post", post.Name)
	last := len(study.ContactModes) - 1
	// 1e-9 m: stepper.ProjectionTolerance.
	assert.LessOrEqual(t, res.Box[last].MaxPenetration(), 1e-9)
	assert.LessOrEqual(t, res.Pile[last].MaxPenetration(), 1e-9)
	def := 3
	require.Equal(t, "default", study.ContactModes[def].Name)
	// 1 mm: the default Settings.ProjectAbove; what exceeds it is projected
	// away within the step.
	assert.LessOrEqual(t, res.Box[def].MaxPenetration(), 1e-3)
	assert.LessOrEqual(t, res.Pile[def].MaxPenetration(), 1e-3)
}

// Example: the contact experiment, shortened to 200 steps; post-
// stabilization keeps both scenes within the projection tolerance.
func ExampleContactStabilization() {
	res, err := study.ContactStabilization(context.Background(), study.Options{Steps: 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, m := range study.ContactModes {
		if m.Name == "post" {
			fmt.Println("post, box within 1e-9 m:", res.Box[i].MaxPenetration() <= 1e-9)
			fmt.Println("post, pile within 1e-9 m:", res.Pile[i].MaxPenetration() <= 1e-9)
		}
	}
	// Output:
	// post, box within 1e-9 m: true
	// post, pile within 1e-9 m: true
}
