package main

// sim view: the replay viewer of package viewer, served on loopback.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
	"github.com/gorigid/gorigid/viewer"
)

// simView implements `sim view`.
func simView(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("view")
	sceneArg := fs.String("scene", "", "built-in scene name or scene FILE.json")
	set := setFlag{}
	fs.Var(set, "set", "NAME=VALUE scene parameter, as given to sim run (repeatable)")
	keyframe := fs.String("keyframe", "", "MJCF model: start at the <key> of this name, as the run did (its qpos and ctrl)")
	statsPath := fs.String("stats", "", "step-statistics CSV of the same run")
	addr := fs.String("addr", "127.0.0.1:0", "listen address (host:port); port 0 picks a free one")
	allowRemote := fs.Bool("allow-remote", false, "allow a non-loopback --addr (the viewer has no authentication)")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("view: want one trajectory file (.csv or .json), got %d arguments", len(pos))
	}
	if *sceneArg == "" {
		return cli.Usagef("view: --scene is required (the scene, or scene file, the trajectory was run from)")
	}
	loopback, err := checkViewAddr(*addr, *allowRemote)
	if err != nil {
		return err
	}
	w, sceneName, err := viewScene(*sceneArg, *keyframe, set, stderr)
	if err != nil {
		return err
	}
	tr, err := viewer.Load(pos[0])
	if err != nil {
		return cli.Usagef("view: %v", err)
	}
	var st *trajectory.StatsTable
	if *statsPath != "" {
		if st, err = loadStats(*statsPath); err != nil {
			return err
		}
	}
	v, err := viewer.New(w, tr, st, viewer.Options{Scene: sceneName, Trajectory: filepath.Base(pos[0])})
	var bc *viewer.BodyCountError
	var sr *viewer.StatsRangeError
	switch {
	case errors.As(err, &bc):
		return cli.Usagef("view: %s has %d bodies per frame, scene %s has %d (was the run made with other --set values?)",
			pos[0], bc.Trajectory, sceneName, bc.Scene)
	case errors.As(err, &sr):
		return cli.Usagef("--stats: %s covers steps %v–%v, but %s covers %d–%d (another run's statistics?)",
			*statsPath, sr.StatsFirst, sr.StatsLast, pos[0], sr.First, sr.Last)
	case err != nil:
		return cli.UsageError{Err: err}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return cli.Usagef("--addr: %v", err)
	}
	h := http.Handler(v)
	if loopback {
		h = viewer.LoopbackOnly(v)
	}
	if tr.Dropped != "" {
		fmt.Fprintf(stdout, "sim view: %s was cut: dropped %s\n", pos[0], tr.Dropped)
	}
	fmt.Fprintf(stdout, "sim view: serving %s (%d frames of %d bodies) at http://%s/ — Ctrl-C stops\n",
		pos[0], tr.Frames(), tr.Bodies, ln.Addr())
	// Open requests get 500 ms to finish after a signal, then the
	// connections close: the command must end within 1 s of the signal.
	if err := viewer.Serve(ctx, ln, h); ctx.Err() == nil {
		return err
	}
	return cli.Interruptedf("view: stopped by a signal")
}

// checkViewAddr accepts host:port with a loopback host (127.0.0.0/8, ::1,
// localhost) and, with allowRemote, any other; it reports whether the
// address is loopback.
func checkViewAddr(addr string, allowRemote bool) (loopback bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false, cli.Usagef("--addr: want HOST:PORT, got %q", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return false, cli.Usagef("--addr: bad port %q in %q", port, addr)
	}
	loopback = host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		loopback = ip.IsLoopback()
	}
	if !loopback && !allowRemote {
		return false, cli.Usagef("--addr: %q is not a loopback address; the viewer has no authentication, so add --allow-remote to serve it beyond this machine", addr)
	}
	return loopback, nil
}

// viewScene builds the scene the trajectory was run from: a registered
// name (with --set overrides), a scene file or an imported model (at the
// MJCF keyframe named keyframe, "" for the model's own pose; a keyframe
// of anything else is the error `sim run` gives); an import's warnings go
// to stderr.
func viewScene(arg, keyframe string, set setFlag, stderr io.Writer) (*stepper.World, string, error) {
	if isSceneFile(arg) {
		if len(set) > 0 {
			return nil, "", cli.Usagef("--set: a scene file has no parameters; edit %s instead", arg)
		}
		w, err := loadSceneWorld(arg, keyframe, stderr)
		if err != nil {
			return nil, "", cli.UsageError{Err: fmt.Errorf("--scene: %w", unwrapPathError(err, arg))}
		}
		return w, filepath.Base(arg), nil
	}
	if keyframe != "" {
		return nil, "", cli.Usagef("--keyframe %q: only an MJCF model has keyframes, not the built-in scene %s", keyframe, arg)
	}
	sc, err := scenes.Lookup(arg)
	if err != nil {
		return nil, "", cli.Usagef("--scene: %v", err)
	}
	w, err := sc.Build(set)
	if err != nil {
		return nil, "", cli.UsageError{Err: err}
	}
	return w, arg, nil
}

// unwrapPathError turns *os.PathError into "PATH: reason".
func unwrapPathError(err error, path string) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", path, pe.Err)
	}
	return err
}

// loadStats reads a step-statistics CSV (trajectory.ReadStats).
func loadStats(path string) (*trajectory.StatsTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, cli.Usagef("--stats: %v", unwrapPathError(err, path))
	}
	defer f.Close()
	st, err := trajectory.ReadStats(f)
	if err != nil {
		return nil, cli.Usagef("--stats: %s: %v", path, err)
	}
	return st, nil
}
