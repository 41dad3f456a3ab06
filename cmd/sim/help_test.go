package main

import (
	"bytes"
	"flag"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/lcp"
)

// Every command's --help lists every flag of its own flag set with its
// default, and sim help COMMAND prints the same text.
func TestCommandHelpListsItsFlags(t *testing.T) {
	for _, c := range cli.Commands {
		args := append(strings.Fields(c.Name), "--help")
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		require.Equal(t, 0, code, "%v: %s", args, errb.String())
		assert.Empty(t, errb.String(), "%v", args)
		text := out.String()
		assert.True(t, strings.HasPrefix(text, "usage: sim "+c.Synopsis+"\n"), "%v: %q", args, text)
		fs := commandFlagSets[c.Name]()
		assert.Equal(t, c.Name, fs.Name())
		fs.VisitAll(func(f *flag.Flag) {
			line := flagLine(text, "--"+f.Name)
			if assert.NotEmpty(t, line, "%v: no line for --%s", args, f.Name) {
				assert.Contains(t, line, f.Usage, "%v --%s", args, f.Name)
				if !isBoolFlag(f) && f.DefValue != "" {
					assert.Contains(t, line, "  "+f.DefValue+"  ", "%v --%s: default", args, f.Name)
				}
			}
		})
		var viaHelp bytes.Buffer
		require.Equal(t, 0, run(append([]string{"help"}, strings.Fields(c.Name)...), &viaHelp, &errb), errb.String())
		assert.Equal(t, text, viaHelp.String(), "sim help %s", c.Name)
	}
	// The commands a newcomer tries first, with the numbers they need.
	out, _, code := runSim(t, "run", "--help")
	require.Equal(t, 0, code)
	assert.Regexp(t, `--steps N +- +1000 `, out)
	assert.Regexp(t, `--dt H +s +0 +time step`, out)
	for _, name := range []string{"list", "mlcp"} {
		out, stderr, code := runSim(t, name, "--help")
		assert.Equal(t, 0, code, "%s --help: %s", name, stderr)
		assert.Contains(t, out, "usage: sim "+name, name)
	}
	out, _, _ = runSim(t, "mlcp", "--help")
	assert.Contains(t, out, "usage: sim mlcp solve FILE")
	assert.Contains(t, out, "usage: sim mlcp errors PROBLEM CANDIDATE")
	assert.Regexp(t, `--timeout D +duration +0s`, out)
	out, _, _ = runSim(t, "study", "--help")
	assert.Contains(t, out, "brickwall", "the study list")
}

// flagLine returns the line of help text that starts with the flag (or
// name), after a "flags" heading if the text has one.
func flagLine(text, flagName string) string {
	if _, rest, ok := strings.Cut(text, "\nflags (unit, default):\n"); ok {
		text = rest
	}
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == flagName {
			return l
		}
	}
	return ""
}

// The usage names every solver, and sim help solvers describes each.
func TestHelpNamesEverySolverAndPick(t *testing.T) {
	usage, _, code := runSim(t, "help")
	require.Equal(t, 0, code)
	solvers, _, _ := runSim(t, "help", "solvers")
	picks, _, _ := runSim(t, "help", "picks")
	assert.Len(t, lcp.Names(), 9, "auto, bpp, enum, lemke, three Newton variants, pgs, prox")
	for _, n := range lcp.Names() {
		assert.Contains(t, usage, n)
		assert.NotEmpty(t, solverDocs[n], "solverDocs has no line for %s", n)
		assert.NotEmpty(t, flagLine(solvers, n), "sim help solvers: no line for %s", n)
	}
	for _, n := range []string{"energy", "energy-exact", "fb", "residual", "last"} {
		assert.Contains(t, usage, n)
		line := flagLine(picks, n)
		assert.NotEmpty(t, line, "sim help picks: no line for %s", n)
		assert.Greater(t, len(strings.Fields(line)), 2, "pick %s has a description", n)
	}
	formats, _, code := runSim(t, "help", "formats")
	assert.Equal(t, 0, code)
	assert.Contains(t, formats, "docs/formats.md")
	assert.Contains(t, formats, "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz")
	for _, c := range cli.Commands {
		assert.Contains(t, usage, "sim "+c.Synopsis)
	}
}

// Integer flags take exact integers in float notation, and nothing else.
func TestIntegerFlagsTakeFloatNotation(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want int
	}{{"1e3", 1000}, {"1000", 1000}, {"2.5e1", 25}, {"-3e0", -3}, {"0x10", 16}, {"1E2", 100}} {
		fs := cli.NewFlagSet("t")
		n := fs.Int("steps", 7, "")
		_, err := cli.ParseInterspersed(fs, []string{"--steps", c.arg})
		if assert.NoError(t, err, c.arg) {
			assert.Equal(t, c.want, *n, c.arg)
		}
	}
	for _, bad := range []string{"1.5", "1e-3", "ten", "1e30", "NaN", "Inf", ""} {
		fs := cli.NewFlagSet("t")
		fs.Int("steps", 7, "")
		_, err := cli.ParseInterspersed(fs, []string{"--steps", bad})
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), "-steps", "the error names the flag")
			var ue cli.UsageError
			assert.ErrorAs(t, err, &ue, bad)
		}
	}
	// A uint64 flag keeps its own range check behind the float notation.
	fs := cli.NewFlagSet("t")
	u := fs.Uint64("seed", 0, "")
	_, err := cli.ParseInterspersed(fs, []string{"--seed", "4e9"})
	require.NoError(t, err)
	assert.Equal(t, uint64(4e9), *u)
	_, err = cli.ParseInterspersed(fs, []string{"--seed", "-1e0"})
	assert.Error(t, err)
	// Through the command line: 1e1 steps record steps 0…10.
	dir := t.TempDir()
	_, stderr, code := runSim(t, "run", "pendulum", "--steps", "1e1", "--out", dir+"/p.csv", "--quiet")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runSim(t, "run", "pendulum", "--steps", "1.5")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `invalid value "1.5" for flag -steps: want an integer`)
}

// Every user error is one line on stderr with exit status 2.
func TestUserErrorsAreOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `help: unknown topic "frobnicate"`},
		{[]string{"help", "mlcp", "frob"}, `help: unknown topic "mlcp frob"`},
		{[]string{"mlcp"}, "mlcp: want a subcommand"},
		{[]string{"mlcp", "frob"}, `mlcp: unknown subcommand "frob"`},
		{[]string{"version", "extra"}, "version: takes no arguments"},
		{[]string{"list", "--frob"}, "flag provided but not defined: -frob (sim list --help lists the flags)"},
		{[]string{"study"}, "study: want one study name"},
		{[]string{"run", "pendulum", "--steps", "2.5"}, `invalid value "2.5" for flag -steps`},
	} {
		out, stderr, code := runSim(t, c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, stderr, c.want, "%v", c.args)
		assert.True(t, strings.HasPrefix(stderr, "sim: "), stderr)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
}

func TestVersion(t *testing.T) {
	out, stderr, code := runSim(t, "version")
	require.Equal(t, 0, code, stderr)
	// go test builds without VCS information; the module path is there.
	assert.Contains(t, out, "module github.com/gorigid/gorigid")
	assert.Contains(t, out, "built with go1.")
	info := &debug.BuildInfo{GoVersion: "go1.26.0",
		Main: debug.Module{Path: "github.com/gorigid/gorigid", Version: "v0.0.0-20261124162806-ca694824d77f+dirty"},
		Settings: []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"},
			{Key: "vcs.revision", Value: "ca694824d77fd92b22c7828a67cf5b69222f8056"},
			{Key: "vcs.time", Value: "2026-11-24T16:28:06Z"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, "sim: module github.com/gorigid/gorigid v0.0.0-20261124162806-ca694824d77f+dirty\n"+
		"revision ca694824d77fd92b22c7828a67cf5b69222f8056 (2026-11-24T16:28:06Z), with uncommitted changes\n"+
		"built with go1.26.0 for linux/amd64", versionText(info))
	info.Settings = info.Settings[:2]
	assert.Contains(t, versionText(info), "revision unknown")
}

func TestOneLine(t *testing.T) {
	assert.Equal(t, "a.json: bodies[0].mass: must be > 0; a.json: joints[1].axis: must not be zero",
		cli.OneLine("a.json: bodies[0].mass: must be > 0\n  a.json: joints[1].axis: must not be zero\n"))
	assert.Equal(t, "plain", cli.OneLine("plain"))
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
