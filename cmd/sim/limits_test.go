package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneLine asserts that stderr is exactly one line starting with want.
func oneLine(t *testing.T, stderr, want string) {
	t.Helper()
	assert.True(t, strings.HasPrefix(stderr, want), "want %q, got %q", want, stderr)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
}

// Issue 28's inputs without a size limit: each is refused at once, with
// exit status 2 and one line, before it allocates what it asks for.
//   - chain6 with links = 1 000 000 (the 416-byte job that killed each
//     worker): by the parameter's maximum;
//   - chain6 at its maximum of 10 000 links under --max-memory 100MiB:
//     the estimate (50 000 rows: 406 MiB) is above the limit;
//   - 2 000 spheres at one point (2 million contact pairs, SIGTERM
//     ignored for 24 s while memory grew): by the estimate, under an
//     explicit limit and under the default (half the machine's memory;
//     the clump's A alone has 72 billion entries);
//   - a dense 20 000-row MLCP (11 GB, then killed): as soon as its first
//     row states the size; the file here is cut after that row, so any
//     further reading would fail with malformed JSON instead.
func TestRunAndSolveRefuseAboveTheMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runSim(t, "run", "chain6", "--set", "links=1e6", "--steps", "1")
	assert.Equal(t, 2, code)
	oneLine(t, stderr, "sim: chain6: --set links=1e6: links must be ≤ 10000, its maximum\n")

	out := filepath.Join(dir, "c.csv")
	_, stderr, code = runSim(t, "run", "chain6", "--set", "links=10000", "--steps", "1", "--max-memory", "100MiB", "--out", out)
	assert.Equal(t, 2, code)
	oneLine(t, stderr, "sim: refused before the first step: the world needs about 406 MiB, more than the memory limit of 100 MiB (10000 bodies, 10000 joints, 0 contact pairs: 50000 rows, 999925 nonzeros of A) (--max-memory)")
	assert.NoFileExists(t, out)

	type shape struct {
		Type     string             `json:"type"`
		Radius   float64            `json:"radius"`
		Material map[string]float64 `json:"material"`
	}
	type bodySpec struct {
		Name   string     `json:"name"`
		Mass   float64    `json:"mass"`
		Pos    [3]float64 `json:"position"`
		Shapes []shape    `json:"shapes"`
	}
	spec := struct {
		Version  int                `json:"version"`
		Settings map[string]float64 `json:"settings"`
		Bodies   []bodySpec         `json:"bodies"`
	}{Version: 1, Settings: map[string]float64{"h": 1.0 / 60}}
	for i := range 2000 {
		spec.Bodies = append(spec.Bodies, bodySpec{Name: fmt.Sprint("s", i), Mass: 1, Pos: [3]float64{0, 0, 1},
			Shapes: []shape{{Type: "sphere", Radius: 0.1, Material: map[string]float64{"friction": 0.5}}}})
	}
	clump := filepath.Join(dir, "clump.json")
	data, err := json.Marshal(spec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(clump, data, 0o644))
	_, stderr, code = runSim(t, "run", clump, "--steps", "3", "--max-memory", "2GiB", "--out", out)
	assert.Equal(t, 2, code)
	oneLine(t, stderr, "sim: refused before the first step: the world needs about 3.26 GiB, more than the memory limit of 2 GiB (counted before stopping at the limit: 2000 bodies, 0 joints, 2048 contact pairs: 6144 rows, 36005814 nonzeros of A) (--max-memory)")
	_, stderr, code = runSim(t, "run", clump, "--steps", "3", "--out", out)
	assert.Equal(t, 2, code, "the default limit, %d bytes, refuses it too", cli.DefaultMaxMemory())
	oneLine(t, stderr, "sim: refused before the first step: the world needs about ")
	assert.NoFileExists(t, out)

	const n = 20000
	var mlcp bytes.Buffer
	mlcp.WriteString(`{"A": [[1`)
	mlcp.WriteString(strings.Repeat(",0", n-1))
	mlcp.WriteString(`], [0, 1, 0, `) // cut: the rest of the 3.2 GB is never read
	problem := filepath.Join(dir, "dense.json")
	require.NoError(t, os.WriteFile(problem, mlcp.Bytes(), 0o644))
	stdout, stderr, code := runSim(t, "mlcp", "solve", problem, "--max-memory", "4GiB")
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	oneLine(t, stderr, "sim: "+problem+": a dense 20000-row problem needs about 11.9 GiB to read and solve, more than the limit of 4 GiB (--max-memory); refused before reading the rest of the file\n")
	_, stderr, code = runSim(t, "mlcp", "errors", problem, problem, "--max-memory", "4GiB")
	assert.Equal(t, 2, code)
	oneLine(t, stderr, "sim: "+problem+": a dense 20000-row problem needs about 11.9 GiB")
	if cli.DefaultMaxMemory() < lcp.DenseProblemBytes(n) {
		_, stderr, code = runSim(t, "mlcp", "solve", problem)
		assert.Equal(t, 2, code, "the default limit refuses it on this machine")
		assert.Contains(t, stderr, "a dense 20000-row problem needs about 11.9 GiB")
	}
}

// --timeout covers the reading of the problem, not only the solve: a
// 1 500-row dense problem (20 MB of JSON, about a second to read) under
// --timeout 1ms stops while reading, exit 1, one line naming the row.
func TestMLCPTimeoutCoversReading(t *testing.T) {
	const n = 1500
	var b strings.Builder
	b.WriteString(`{"A": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		row := make([]string, n)
		for j := range row {
			row[j] = "0.001"
		}
		row[i] = "1"
		b.WriteString("[" + strings.Join(row, ",") + "]")
	}
	b.WriteString(`], "b": [` + strings.TrimSuffix(strings.Repeat("-1,", n), ",") + `], "lo": [` +
		strings.TrimSuffix(strings.Repeat("0,", n), ",") + `], "hi": [` + strings.TrimSuffix(strings.Repeat("null,", n), ",") + `]}`)
	problem := filepath.Join(t.TempDir(), "p.json")
	require.NoError(t, os.WriteFile(problem, []byte(b.String()), 0o644))
	stdout, stderr, code := runSim(t, "mlcp", "solve", problem, "--timeout", "1ms")
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	oneLine(t, stderr, "sim: mlcp solve: --timeout 1ms ran out while reading: "+problem+": reading stopped at row ")
	assert.Contains(t, stderr, "of A: context deadline exceeded")
}
