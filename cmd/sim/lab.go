package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/gorigid/gorigid/internal/cli"
)

// runLab runs a lab command (cli.Lab). The sim binary starts simlab;
// sim's tests run the lab commands in process instead (lab_test.go).
var runLab = execSimlab

// simlabPackage is the import path of the simlab command.
const simlabPackage = "github.com/gorigid/gorigid/cmd/simlab"

// execSimlab runs `simlab ARGS` with sim's standard streams and returns
// its exit status. It takes the simlab next to sim's own executable (go
// install ./cmd/... puts both in one directory); else, inside gorigid's
// module with the go command at hand (go run ./cmd/sim), one it builds
// from that module into the user's cache directory, so it matches the
// source (go build redoes nothing while it is up to date); else the one
// on PATH. SIGINT or SIGTERM to sim is passed on as SIGINT, and simlab
// stops as it would on its own.
func execSimlab(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd, err := simlabCommand(ctx, args, stderr)
	if err != nil {
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	// After a cancel Run reports ctx.Err(); the status is simlab's still.
	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// Killed by a signal (SIGPIPE under sim study help | head):
			// the shell's status for it, as if sim had been killed.
			return cli.ExitStatus(128 + int(ws.Signal()))
		}
		if code := ps.ExitCode(); code != 0 {
			return cli.ExitStatus(code)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: running simlab: %w", args[0], err)
	}
	return nil
}

// simlabCommand finds simlab (execSimlab says where it looks).
func simlabCommand(ctx context.Context, args []string, stderr io.Writer) (*exec.Cmd, error) {
	name := "simlab"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return exec.CommandContext(ctx, p, args...), nil
		}
	}
	if goTool, err := exec.LookPath("go"); err == nil {
		out, err := exec.CommandContext(ctx, goTool, "list", "-m").Output()
		cache, cerr := os.UserCacheDir()
		if err == nil && cerr == nil && strings.TrimSpace(string(out)) == "github.com/gorigid/gorigid" {
			// go build leaves an up-to-date binary alone, so only the
			// first run, or one after a change, compiles.
			p := filepath.Join(cache, "gorigid", name)
			if _, err := os.Stat(p); err != nil {
				fmt.Fprintf(stderr, "sim: %s runs in simlab (it links gonum/plot and NATS): go build -o %s ./cmd/simlab, a minute or more the first time\n", args[0], p)
			}
			build := exec.CommandContext(ctx, goTool, "build", "-o", p, simlabPackage)
			build.Stdout, build.Stderr = stderr, stderr
			if err := build.Run(); err != nil {
				return nil, fmt.Errorf("%s: building simlab: %w", args[0], err)
			}
			return exec.CommandContext(ctx, p, args...), nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return exec.CommandContext(ctx, p, args...), nil
	}
	return nil, cli.Usagef("%s runs in the simlab command, which is neither next to sim nor on PATH: "+
		"go install %s (or go install ./cmd/... in the repository), or run go run ./cmd/simlab %s there",
		args[0], simlabPackage, args[0])
}
