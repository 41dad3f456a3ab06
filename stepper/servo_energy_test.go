package stepper_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServoWorkIsAppliedWork: a position servo is an actuator (MuJoCo's
// position actuator), so Stats.EnergyAdded counts its work x·J v⁺ as
// applied work, as it does a motor's. A rotor (isotropic inertia I about
// the hinge through its centre, no gravity) at rest 1 rad from its servo's
// target: the servo's implicit row gives I (ω⁺ − ω) = x and ΔK =
// x ω⁺ − ½ I (ω⁺ − ω)², so the step creates exactly −½ I (ω⁺ − ω)² ≤ 0
// (backward Euler's dissipation) once the servo's x ω⁺ is counted. Left
// out, the first step alone reports the servo's whole ΔK, +2.96 J
// (ω⁺ = h kp/(I + h kd + h² kp) = 7.69 rad/s), as energy the step created
// (the Go1's home keyframe: its position actuators showed as +0.07 J a
// step). Tolerance: the sums' rounding, 1e-12 of K + 1 J.
func TestServoWorkIsAppliedWork(t *testing.T) {
	const h, i, kp, kd = 0.01, 0.1, 100.0, 2.0
	w, j := rotor(t, h, i, 0)
	require.NoError(t, j.SetServo(1, kp, kd, math.Inf(1)))
	omega := 0.0
	for s := 0; s < 200; s++ {
		st, err := w.Step()
		require.NoError(t, err)
		_, rate, err := w.JointState(0)
		require.NoError(t, err)
		if s == 0 {
			require.InEpsilon(t, h*kp/(i+h*kd+h*h*kp), rate, 1e-12, "first step's ω⁺")
		}
		want := -0.5 * i * (rate - omega) * (rate - omega)
		if d := math.Abs(st.EnergyAdded - want); d > 1e-12*(st.Kinetic+1) {
			t.Fatalf("step %d: EnergyAdded %.6g J, want −½ I Δω² = %.6g J (K %.4g J)", st.Step, st.EnergyAdded, want, st.Kinetic)
		}
		omega = rate
	}
}
