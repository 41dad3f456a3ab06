package main

import (
	"bufio"
	"io"
	"strings"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/scenes"
)

// simExport implements `sim export SCENE [--set NAME=VALUE ...]`: the
// built-in scene, parameters applied, as a scene file on stdout, which
// `sim run FILE.json` runs exactly as `sim run SCENE` with the same --set;
// `sim export --schema` writes the format's JSON Schema, and `sim export
// MODEL.urdf|MODEL.xml` an imported model as a scene file.
func simExport(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("export")
	set := setFlag{}
	fs.Var(set, "set", "NAME=VALUE scene parameter (repeatable; see sim list)")
	schema := fs.Bool("schema", false, "write the scene files' JSON Schema instead")
	keyframe := fs.String("keyframe", "", "MJCF model: start at the <key> of this name (its qpos and ctrl)")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *schema {
		if len(pos) > 0 || len(set) > 0 {
			return cli.Usagef("export --schema: takes no scene and no --set")
		}
		_, err := stdout.Write(scenes.Schema)
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("export: want one scene name, got %d arguments (exportable: %s)", len(pos), strings.Join(scenes.Exportable(), ", "))
	}
	if isImportFile(pos[0]) {
		return exportModel(pos[0], *keyframe, set, stdout, stderr)
	}
	if *keyframe != "" {
		return cli.Usagef("--keyframe %q: only an MJCF model has keyframes, not %s", *keyframe, pos[0])
	}
	bw := bufio.NewWriter(stdout)
	if err := scenes.Export(pos[0], set, bw); err != nil {
		return cli.UsageError{Err: err}
	}
	return bw.Flush()
}

// isSceneFile reports whether a `sim run` argument names a scene file
// or a URDF or MJCF model (scenes.ModelKind) rather than a built-in scene.
func isSceneFile(arg string) bool {
	return scenes.ModelKind(arg) != ""
}
