package sweep

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the shipped measured trajectories in testdata/push")

// The shipped "measured" data: the push scene run by gorigid (bpp) with
// the true coefficients, recorded at every step, plus independent normal
// noise (shippedNoise). `go test ./sweep -run TestShippedData -update`
// writes them; without -update the test checks the files are exactly
// what that command writes.
var (
	shippedTruth = map[string]float64{"mu_p": 0.3, "mu_f": 0.4, "mu_s": 0.5, "tripod": 0.03}
	shippedNoise = Noise{SigmaXY: 0.0002, SigmaAngle: 0.005} // 0.2 mm, 0.29°; seed = experiment number
)

const shippedDir = "../testdata/push"

// shippedSpecRaw reads calibrate.json without its measured files.
func shippedSpecRaw(t testing.TB) Spec {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(shippedDir, "calibrate.json"))
	require.NoError(t, err)
	var s Spec
	require.NoError(t, json.Unmarshal(data, &s))
	return s
}

func synthesize(t testing.TB, s Spec, exp int) []byte {
	t.Helper()
	set := s.runSet(exp, nil, nil)
	for k, v := range shippedTruth {
		set[k] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	frames, err := Simulate(s.Scene, set, "bpp", s.Steps, s.Substeps, s.Body)
	require.NoError(t, err)
	n := shippedNoise
	n.Seed = uint64(exp + 1)
	var b bytes.Buffer
	require.NoError(t, WriteTrajectory(&b, s.Body, 0.07, n.Apply(frames, 1)))
	return b.Bytes()
}

func TestShippedData(t *testing.T) {
	s := shippedSpecRaw(t)
	for i, e := range s.Experiments {
		got := synthesize(t, s, i)
		path := filepath.Join(shippedDir, e.Measured)
		if *update {
			require.NoError(t, os.WriteFile(path, got, 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%s: regenerate with go test ./sweep -run TestShippedData -update", path)
		f, err := ReadTrajectory(path, s.Body)
		require.NoError(t, err)
		require.Len(t, f, s.Steps+1)
	}
}
