package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
)

// isImportFile reports whether arg names a URDF or MJCF model, which
// `sim run`, `sim export` and `sim view` import through
// scenes.LoadModel.
func isImportFile(arg string) bool {
	k := scenes.ModelKind(arg)
	return k == scenes.KindURDF || k == scenes.KindMJCF
}

// loadSceneWorld builds the World of a scene file or an imported model
// (at the MJCF keyframe named keyframe, "" for none); an import's
// warnings go to stderr, one line each.
func loadSceneWorld(path, keyframe string, stderr io.Writer) (*stepper.World, error) {
	if !isImportFile(path) {
		if keyframe != "" {
			return nil, fmt.Errorf("--keyframe %q: only an MJCF model has keyframes, not %s", keyframe, path)
		}
		return scenes.LoadFile(path)
	}
	s, err := importModel(path, keyframe, stderr)
	if err != nil {
		return nil, err
	}
	w, err := s.World()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

// cliSplitJoints is the ImportOptions.SplitJoints the command line
// imports with, so that MJCF bodies with several joints (MuJoCo's
// humanoid) and URDF planar joints run; the warning names it.
const cliSplitJoints = 1e-3

// cliImportOptions are the options `sim run|export|view` import with.
var cliImportOptions = scenes.ImportOptions{SplitJoints: cliSplitJoints, SkipMissingMeshes: true}

// importModel reads a URDF or MJCF model with the default options (and
// SplitJoints = cliSplitJoints, SkipMissingMeshes: a model whose mesh
// files are not there runs without those geoms, one warning naming each
// file), at the MJCF keyframe named keyframe ("" for the model's own
// pose; an error for URDF, which has none), and prints its warnings to
// stderr.
func importModel(path, keyframe string, stderr io.Writer) (*scenes.SceneSpec, error) {
	opts := cliImportOptions
	if keyframe != "" {
		if scenes.ModelKind(path) != scenes.KindMJCF {
			return nil, fmt.Errorf("--keyframe %q: only an MJCF model has keyframes, not %s", keyframe, path)
		}
		opts.Keyframe = keyframe
	}
	s, ws, err := scenes.LoadModel(path, opts)
	if err != nil {
		return nil, err
	}
	for _, w := range ws {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	return s, nil
}

// exportModel writes an imported model, at the MJCF keyframe named
// keyframe ("" for none), as a scene file.
func exportModel(path, keyframe string, set setFlag, stdout, stderr io.Writer) error {
	if len(set) > 0 {
		return cli.Usagef("--set: a model file has no parameters; edit %s instead", path)
	}
	s, err := importModel(path, keyframe, stderr)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	bw := bufio.NewWriter(stdout)
	if err := s.Marshal(bw); err != nil {
		return err
	}
	return bw.Flush()
}
