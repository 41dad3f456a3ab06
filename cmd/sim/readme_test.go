package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The code of the README and of the pages in docs/ is tested from their
// text: the README's Go program is compiled and run, and the shell blocks
// of every page are run by bash as written, with `go run ./cmd/sim`
// standing for this test binary and smaller step counts.

const (
	repoRoot   = "../.."
	readmePath = repoRoot + "/README.md"
	// readmeMaxLines keeps the README to what fits a first hour (issue 27):
	// the details belong in docs/.
	readmeMaxLines = 300
)

// docFiles returns the README and then docs/*.md, sorted: the order in
// which their blocks are read and their commands run.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, pages, "no docs/*.md")
	sort.Strings(pages)
	return append([]string{readmePath}, pages...)
}

// docName is a documentation file's path from the repository root.
func docName(path string) string {
	rel, err := filepath.Rel(repoRoot, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}

// mdBlock is one fenced code block of a Markdown file.
type mdBlock struct {
	file string // path from the repository root
	lang string
	text string
	line int    // 1-based line of the opening fence
	note string // the readme-test comment after it, if any
}

// where is the block's file and line, for messages.
func (b mdBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// readmeBlocks returns the fenced blocks of the README and the docs pages
// (docFiles) in order.
func readmeBlocks(t *testing.T) []mdBlock {
	t.Helper()
	var blocks []mdBlock
	for _, path := range docFiles(t) {
		blocks = append(blocks, markdownBlocks(t, path)...)
	}
	return blocks
}

// markdownBlocks returns the fenced blocks of one Markdown file in order. A
// line `<!-- readme-test: the json block above is NAME -->` attaches NAME
// to the last json block before it in the same file.
func markdownBlocks(t *testing.T, path string) []mdBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	file := docName(path)
	var blocks []mdBlock
	var cur *mdBlock
	var body []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &mdBlock{file: file, lang: strings.TrimSpace(strings.TrimPrefix(l, "```")), line: n}
			body = nil
		case cur != nil && strings.TrimSpace(l) == "```":
			cur.text = strings.Join(body, "\n") + "\n"
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body = append(body, l)
		case strings.HasPrefix(l, "<!-- readme-test: the json block above is "):
			require.NotEmpty(t, blocks, "%s:%d: no block above", file, n)
			name := strings.TrimSuffix(strings.TrimPrefix(l, "<!-- readme-test: the json block above is "), " -->")
			for i := len(blocks) - 1; i >= 0; i-- {
				if blocks[i].lang == "json" {
					blocks[i].note = strings.TrimSpace(name)
					break
				}
			}
		}
	}
	require.Nil(t, cur, "%s: unclosed code block", file)
	return blocks
}

// The README's Go section's program compiles against this checkout (a module that
// requires gorigid through a replace directive) and prints what the
// README says it prints, which is the analytic answer.
func TestReadmeGoProgram(t *testing.T) {
	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "go test puts GOROOT/bin on PATH")
	blocks := readmeBlocks(t)
	var prog, want string
	for i, b := range blocks {
		if b.lang == "go" && strings.Contains(b.text, "\npackage main\n") {
			require.Empty(t, prog, "%s: a second Go program", b.where())
			require.Equal(t, "README.md", b.file, "%s: the Go program is the README's", b.where())
			prog = b.text
			require.Less(t, i+1, len(blocks), "no output block after the program")
			require.Equal(t, "text", blocks[i+1].lang, "%s: the program's output block", blocks[i+1].where())
			want = blocks[i+1].text
		}
	}
	require.NotEmpty(t, prog, "README: no Go block with package main")
	for _, s := range []string{"AddGeom", "contact.NewBoxSize", "body.BoxInertia", "constraint.NewHinge", "scenes.SceneSpec{", ".World()"} {
		assert.Contains(t, prog, s, "the README's program shows %s", s)
	}

	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	// The example's module: gorigid's requirements (so no download and no
	// go.sum change is needed), gorigid itself from this checkout.
	mod := regexp.MustCompile(`(?m)^module .*$`).ReplaceAllString(string(gomod), "module readmeexample")
	mod += fmt.Sprintf("\nrequire github.com/gorigid/gorigid v0.0.0\n\nreplace github.com/gorigid/gorigid => %s\n", root)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), gosum, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go run of the README's program:\n%s", out)
	assert.Equal(t, want, string(out), "the README's output block")

	// The numbers themselves: the box rests with its centre at half its
	// 0.2 m height; the 1 m rod pivoted at its end, released 0.1 rad off the
	// vertical, follows θ(t) = 0.1·cos(2πt/T), T = 2π√(2l/3g).
	re := regexp.MustCompile(`t = ([0-9.]+) s: box at z = ([0-9.-]+) m, pendulum ([0-9.-]+) rad`)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 2, "one line per way of building the scene")
	for _, l := range lines {
		m := re.FindStringSubmatch(l)
		require.NotNil(t, m, l)
		tt, _ := strconv.ParseFloat(m[1], 64)
		z, _ := strconv.ParseFloat(m[2], 64)
		theta, _ := strconv.ParseFloat(m[3], 64)
		// 1e-4 m: the printed precision (the contact's speculative margin
		// leaves the box 3e-8 m in, far below it).
		assert.InDelta(t, 0.1, z, 1e-4, l)
		period := 2 * math.Pi * math.Sqrt(2*1/(3*9.80665))
		// 1e-3 rad: the small-angle solution is off by the amplitude's
		// period lengthening (1 + θ₀²/16: 1.5e-4 rad at t = 1 s) plus the
		// printed precision (5e-5).
		assert.InDelta(t, 0.1*math.Cos(2*math.Pi*tt/period), theta, 1e-3, l)
	}
}

// flagCaps are the largest values of a command's flags that the
// shell-block test runs (a smaller README value is kept, a missing --steps
// is added): enough to write every output, small enough for go test ./...
// (the docs state what their own counts take).
var flagCaps = map[string]map[string]int{
	"run":   {"steps": 5},
	"study": {"steps": 2},
	"bench": {"budget": 10},
}

// skippedCommands are commands of the README and docs/ that this test does
// not run, and why.
var skippedCommands = map[string]string{
	"go test":         "is the test suite itself",
	"go install":      "installs into GOPATH/bin",
	"sim view":        "serves until Ctrl-C (the browser test of .ci/run drives it)",
	"sim nats-server": "serves until Ctrl-C (TestSweepSurvives runs one)",
	"sim worker":      "serves until Ctrl-C (TestSweepSurvives runs three)",
	"sim sweep":       "runs 15 000 jobs, minutes (the sweep tests run small specs)",
	"sim calibrate":   "runs 15 000 jobs and CMA-ES, minutes (sweep.TestCalibrationOffGrid runs one off-grid search)",
}

// readmeCommand is one command line of a shell block of the README or docs/.
type readmeCommand struct {
	where string // file:line
	text  string // as written, without its comment
}

// readmeShellCommands returns the commands of the sh blocks and fails on a
// line that cannot be pasted as it is.
func readmeShellCommands(t *testing.T, blocks []mdBlock) []readmeCommand {
	t.Helper()
	var cmds []readmeCommand
	for _, b := range blocks {
		if b.lang != "sh" {
			continue
		}
		for i, l := range strings.Split(strings.TrimRight(b.text, "\n"), "\n") {
			where := fmt.Sprintf("%s:%d", b.file, b.line+1+i)
			if c, _, _ := strings.Cut(l, "#"); strings.TrimSpace(c) == "" {
				continue // a comment: output shown after a command
			}
			cmd := strings.TrimSpace(shellComment.ReplaceAllString(l, ""))
			assert.NotContains(t, cmd, "[--", "%s: optional flags in brackets cannot be pasted; say them in prose", where)
			assert.True(t, strings.HasPrefix(cmd, "go run ./cmd/sim ") || strings.HasPrefix(cmd, "go test ") ||
				strings.HasPrefix(cmd, "go install "), "%s: %q is not a go run ./cmd/sim, go test or go install line", where, cmd)
			cmds = append(cmds, readmeCommand{where, cmd})
		}
	}
	return cmds
}

// shellComment is a trailing comment: a # after a space.
var shellComment = regexp.MustCompile(`\s+#.*$`)

// capFlags lowers the flags of a command line to their caps; a missing
// --steps is added with its cap (unless the line redirects its output).
func capFlags(line string, caps map[string]int) string {
	for _, name := range []string{"steps", "budget"} {
		limit, ok := caps[name]
		if !ok {
			continue
		}
		m := regexp.MustCompile(`--` + name + `[ =]([0-9e.]+)`).FindStringSubmatch(line)
		switch {
		case m != nil:
			if v, err := strconv.ParseFloat(m[1], 64); err == nil && v > float64(limit) {
				line = strings.Replace(line, m[0], fmt.Sprintf("--%s %d", name, limit), 1)
			}
		case name == "steps" && !strings.Contains(line, ">"):
			line += fmt.Sprintf(" --steps %d", limit)
		}
	}
	return line
}

func TestCapFlags(t *testing.T) {
	caps := map[string]int{"steps": 5, "budget": 10}
	assert.Equal(t, "sim run x --steps 5 --out a.csv", capFlags("sim run x --steps 100 --out a.csv", caps))
	assert.Equal(t, "sim run x --steps 1", capFlags("sim run x --steps 1", caps))
	assert.Equal(t, "sim run x --steps 5", capFlags("sim run x --steps=1e3", caps))
	assert.Equal(t, "sim run x --out a.csv --steps 5", capFlags("sim run x --out a.csv", caps))
	assert.Equal(t, "sim bench w.h5 --budget 10 --steps 5", capFlags("sim bench w.h5 --budget 100", caps))
	assert.Equal(t, "sim export x > f.json", capFlags("sim export x > f.json", caps))
}

// The shell blocks of the README and docs/ run as written, in order, in one
// directory (a later command reads what an earlier one wrote), with fewer
// steps; what they write is covered by .gitignore.
func TestReadmeShellBlocks(t *testing.T) {
	blocks := readmeBlocks(t)
	cmds := readmeShellCommands(t, blocks)
	require.NotEmpty(t, cmds)
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	work := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(root, "testdata"), filepath.Join(work, "testdata")))
	inputs := map[string]bool{"testdata": true}
	for _, b := range blocks {
		if b.note != "" {
			require.NoError(t, os.WriteFile(filepath.Join(work, b.note), []byte(b.text), 0o644))
			inputs[b.note] = true
		}
	}
	// `go run ./cmd/sim ARGS` runs this test binary as sim (TestMain).
	shim := fmt.Sprintf(`go() {
  if [ "$1" = run ] && [ "$2" = ./cmd/sim ]; then shift 2; SIM_TEST_MAIN=1 %q "$@"; return; fi
  echo "readme test: unexpected go $*" >&2; return 1
}
`, os.Args[0])
	ran := 0
	for _, c := range cmds {
		words := strings.Fields(c.text)
		key := words[0] + " " + words[1]
		if words[0] == "go" && words[1] == "run" {
			key = "sim " + words[3]
		}
		why, skip := skippedCommands[key]
		if !skip && len(words) > 4 {
			why, skip = skippedCommands[key+" "+words[4]]
		}
		if skip {
			t.Logf("%s: not run: %s %s", c.where, key, why)
			continue
		}
		line := c.text
		if words[0] == "go" && !(words[3] == "study" && words[4] == "help") {
			line = capFlags(line, flagCaps[words[3]])
		}
		cmd := exec.Command("bash", "-c", shim+line)
		cmd.Dir = work
		start := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("%s: %s: %.1f s", c.where, line, time.Since(start).Seconds())
		if !assert.NoError(t, err, "%s: %s\n%s", c.where, line, out) {
			continue
		}
		ran++
	}
	assert.Greater(t, ran, 25, "the commands of the README and docs/ that ran")

	// Everything they wrote is ignored by git.
	patterns := gitignorePatterns(t, filepath.Join(root, ".gitignore"))
	entries, err := os.ReadDir(work)
	require.NoError(t, err)
	for _, e := range entries {
		if inputs[e.Name()] {
			continue
		}
		assert.True(t, ignoredAtRoot(patterns, e.Name(), e.IsDir()), ".gitignore does not cover %s, which a command of the README or docs/ writes", e.Name())
	}
}

// gitignorePatterns reads the patterns of a .gitignore.
func gitignorePatterns(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			require.False(t, strings.HasPrefix(l, "!"), ".gitignore: negations are not understood by this test: %s", l)
			out = append(out, l)
		}
	}
	return out
}

// ignoredAtRoot reports whether a file or directory at the repository
// root is ignored by the patterns (git's rules for the pattern forms
// .gitignore uses: a leading / anchors, a trailing / matches directories
// only, a glob without / matches the name).
func ignoredAtRoot(patterns []string, name string, isDir bool) bool {
	for _, p := range patterns {
		if strings.HasSuffix(p, "/") {
			if !isDir {
				continue
			}
			p = strings.TrimSuffix(p, "/")
		}
		p = strings.TrimPrefix(p, "/")
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}

func TestIgnoredAtRoot(t *testing.T) {
	p := []string{"/sim", "*.out", "/results/", "/*.csv"}
	assert.True(t, ignoredAtRoot(p, "sim", false))
	assert.True(t, ignoredAtRoot(p, "push.out", true))
	assert.True(t, ignoredAtRoot(p, "results", true))
	assert.False(t, ignoredAtRoot(p, "results", false), "a trailing / matches directories only")
	assert.True(t, ignoredAtRoot(p, "wall.csv", false))
	assert.False(t, ignoredAtRoot(p, "wall.json", false))
	assert.False(t, ignoredAtRoot(p, "simulation", false))
}

// The README fits a first hour: what gorigid is, the two commands, a short
// tour, the Go example and links (issue 27); the rest is in docs/.
func TestReadmeLength(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	n := strings.Count(string(data), "\n")
	assert.LessOrEqual(t, n, readmeMaxLines, "README.md has %d lines; move details to a docs/ page and link it", n)
}

// mdLink is a Markdown link's target: a path and an optional #fragment.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of the README and docs/ (outside code blocks) names
// a file of the repository, and a #fragment a heading of its target.
func TestDocLinks(t *testing.T) {
	anchors := map[string]map[string]bool{} // Markdown file → heading slugs
	headings := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		a := map[string]bool{}
		for _, l := range proseLines(string(data)) {
			if strings.HasPrefix(l, "#") {
				a[headingSlug(strings.TrimLeft(l, "#"))] = true
			}
		}
		anchors[path] = a
		return a
	}
	checked := 0
	for _, path := range docFiles(t) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, l := range proseLines(string(data)) {
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
				}
				_, err := os.Stat(dest)
				if !assert.NoError(t, err, "%s: link %s: no such file", docName(path), target) {
					continue
				}
				if frag != "" {
					assert.True(t, strings.HasSuffix(dest, ".md") && headings(dest)[frag],
						"%s: link %s: %s has no heading #%s", docName(path), target, docName(dest), frag)
				}
				checked++
			}
		}
	}
	assert.Greater(t, checked, 10, "links checked")
}

// proseLines returns a Markdown text's lines outside fenced code blocks.
func proseLines(text string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			in = !in
			continue
		}
		if !in {
			out = append(out, l)
		}
	}
	return out
}

// headingSlug is GitHub's anchor of a heading: lower case, letters, digits,
// spaces, hyphens and underscores kept, spaces turned into hyphens.
func headingSlug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestHeadingSlug(t *testing.T) {
	assert.Equal(t, "scenes-sim-list-and-sim-run", headingSlug(" Scenes: `sim list` and `sim run`"))
	assert.Equal(t, "the-papers-studies", headingSlug("The papers' studies"))
	assert.Equal(t, "benchmark-database-bpmd-and-solver-comparison---bpmd-and-sim-bench",
		headingSlug("Benchmark database (BPMD) and solver comparison: `--bpmd` and `sim bench`"))
}
