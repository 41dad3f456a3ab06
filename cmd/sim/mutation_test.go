package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// -mutations sets how many mutated files of each kind TestMutatedInputs
// feeds sim; the default is a sample sized for go test ./... (issue 18's
// campaign used -mutations=2000).
var mutations = flag.Int("mutations", 60, "mutated files per kind in TestMutatedInputs")

// numberRe finds JSON numbers (and the words a mutation may swap in).
var numberRe = regexp.MustCompile(`-?[0-9][0-9.eE+\-]*`)

// mutate returns a copy of seed with 1–4 random edits: bytes set, inserted,
// deleted or duplicated, a truncation, and for JSON (text) a number
// replaced by an extreme value or another JSON type.
func mutate(rng *rand.Rand, seed []byte, text bool) []byte {
	b := append([]byte(nil), seed...)
	extremes := []string{"1e308", "-1e308", "1e309", "0", "-0", "5e-324", "1e-320", "4294967297", "-1", "999999999999", "null", "[]", "{}", `"x"`, "true", "[[1]]"}
	for n := 1 + rng.IntN(4); n > 0 && len(b) > 0; n-- {
		i := rng.IntN(len(b))
		op := rng.IntN(7)
		if text && rng.IntN(2) == 0 {
			op = 5 // half of a JSON file's edits swap a number
		}
		switch {
		case op == 0:
			b[i] = byte(rng.IntN(256))
		case op == 1:
			b = append(b[:i], append([]byte{byte(rng.IntN(256))}, b[i:]...)...)
		case op == 2:
			b = append(b[:i], b[i+1:]...)
		case op == 3 && rng.IntN(4) == 0:
			b = b[:i] // truncation
		case op == 4:
			j := min(len(b), i+1+rng.IntN(64))
			b = append(b[:j], append(append([]byte(nil), b[i:j]...), b[j:]...)...)
		case text:
			locs := numberRe.FindAllIndex(b, -1)
			if len(locs) == 0 {
				continue
			}
			l := locs[rng.IntN(len(locs))]
			b = append(b[:l[0]], append([]byte(extremes[rng.IntN(len(extremes))]), b[l[1]:]...)...)
		default:
			b[i] ^= 1 << rng.IntN(8)
		}
	}
	return b
}

// Issue 18: mutated MLCP, scene and HDF5 files through sim mlcp solve, sim
// run and sim bench. Every file ends in an exit status of 0, 1 or 2 with
// no panic (sim reports a recovered one as "internal error", status 3)
// and no hang; a fatal error would end the test binary.
func TestMutatedInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sim on many files")
	}
	dir := t.TempDir()
	var sceneSeeds [][]byte
	for _, s := range []string{"rod", "chain6", "brickwall"} {
		args := []string{"export", s}
		if s == "brickwall" {
			args = append(args, "--set", "rows=2")
		}
		out, stderr, code := runSim(t, args...)
		require.Equal(t, 0, code, stderr)
		sceneSeeds = append(sceneSeeds, []byte(out))
	}
	var mlcpSeeds [][]byte
	for _, f := range []string{"../../testdata/mlcp/rod.json"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		mlcpSeeds = append(mlcpSeeds, b)
	}
	// A 12-row box-friction problem from a real step.
	dumps := filepath.Join(dir, "dumps")
	_, stderr, code := runSim(t, "run", "brickwall", "--set", "rows=2", "--steps", "2", "--dump-mlcp", dumps, "--quiet")
	require.Equal(t, 0, code, stderr)
	dumped, _ := filepath.Glob(filepath.Join(dumps, "*.mlcp.json"))
	require.NotEmpty(t, dumped)
	b, err := os.ReadFile(dumped[len(dumped)-1])
	require.NoError(t, err)
	mlcpSeeds = append(mlcpSeeds, b)
	var h5Seeds [][]byte
	db := filepath.Join(dir, "seed.h5")
	_, stderr, code = runSim(t, "run", "rod", "--steps", "2", "--bpmd", db, "--quiet")
	require.Equal(t, 0, code, stderr)
	for _, f := range []string{db, "../../testdata/bpmd/h5py-frame.h5"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		h5Seeds = append(h5Seeds, b)
	}

	kinds := []struct {
		name  string
		seeds [][]byte
		ext   string
		text  bool
		args  func(path string) []string
	}{
		{"mlcp", mlcpSeeds, ".json", true, func(p string) []string { return []string{"mlcp", "solve", p, "--budget", "200"} }},
		{"scene", sceneSeeds, ".json", true, func(p string) []string { return []string{"run", p, "--steps", "3", "--quiet"} }},
		{"hdf5", h5Seeds, ".h5", false, func(p string) []string {
			return []string{"bench", p, "--solvers", "bpp", "--budget", "50", "--out", filepath.Join(dir, "bench")}
		}},
	}
	for ki, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(18, uint64(ki)))
			counts := map[int]int{}
			path := filepath.Join(dir, "mutant"+k.ext)
			for i := 0; i < *mutations; i++ {
				data := mutate(rng, k.seeds[i%len(k.seeds)], k.text)
				require.NoError(t, os.WriteFile(path, data, 0o644))
				type result struct {
					code   int
					stderr string
				}
				done := make(chan result, 1)
				go func() {
					_, stderr, code := runSim(t, k.args(path)...)
					done <- result{code, stderr}
				}()
				var r result
				select {
				case r = <-done:
				case <-time.After(60 * time.Second): // a mutant takes milliseconds
					keepMutant(t, k.name, data)
					t.Fatalf("mutant %d hangs", i)
				}
				counts[r.code]++
				if r.code != 0 && r.code != 1 && r.code != 2 {
					keepMutant(t, k.name, data)
					t.Errorf("mutant %d: exit %d: %s", i, r.code, r.stderr)
				}
				if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
					keepMutant(t, k.name, data)
					t.Errorf("mutant %d: a panic trace on stderr: %s", i, r.stderr)
				}
			}
			t.Logf("%d mutated %s files: exit 0: %d, exit 1: %d, exit 2: %d, other (panics): %d",
				*mutations, k.name, counts[0], counts[1], counts[2], *mutations-counts[0]-counts[1]-counts[2])
		})
	}
}

// keepMutant saves a failing mutant under the test's temporary directory
// and logs its path and a JSON-quoted prefix.
func keepMutant(t *testing.T, kind string, data []byte) {
	p := filepath.Join(os.TempDir(), fmt.Sprintf("gorigid-mutant-%s-%d", kind, time.Now().UnixNano()))
	_ = os.WriteFile(p, data, 0o644)
	q, _ := json.Marshal(string(data[:min(len(data), 200)]))
	t.Logf("mutant kept at %s: %s…", p, bytes.TrimSpace(q))
}
