package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The spec and trajectory readers return errors, never panic, on any
// input.
func FuzzParseSpec(f *testing.F) {
	f.Add([]byte(testSpec))
	f.Add([]byte(`{"scene": "push", "steps": 1, "params": [{"name": "mu_s", "values": [1e308, -0]}]}`))
	f.Add([]byte(`{"scene": "push", "sampling": "lhs", "samples": 3, "params": [{"name": "mu_s", "min": 0, "max": 1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseSpec(data, shippedDir)
	})
}

func FuzzReadTrajectory(f *testing.F) {
	b, err := os.ReadFile(filepath.Join(shippedDir, "e1.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:600])
	f.Add([]byte("step,time,body,x,y,z,qw,qx,qy,qz\n0,0,0,1,2,3,1,0,0,0\n0,0,0,NaN,2,3,1,0,0,0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = readTrajectory(bytes.NewReader(data), 0)
	})
}
