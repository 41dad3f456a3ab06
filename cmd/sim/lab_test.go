package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/internal/lab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests run the lab commands in process, with the code simlab runs;
// the sim binary starts simlab for them (lab.go).
func init() { runLab = lab.Dispatch }

// The sim binary starts simlab for a lab command: with its arguments and
// streams, returning its exit status (a fake simlab on PATH here).
func TestExecSimlabFromPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake simlab is a shell script")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"simlab $*\"\necho oops >&2\nexit 7\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "simlab"), []byte(script), 0o755))
	// PATH without the go command: inside the repository sim would
	// otherwise build the real simlab.
	t.Setenv("PATH", dir)
	var stdout, stderr bytes.Buffer
	err := execSimlab(context.Background(), []string{"study", "rod", "--steps", "3"}, &stdout, &stderr)
	assert.Equal(t, cli.ExitStatus(7), err)
	assert.Equal(t, "simlab study rod --steps 3\n", stdout.String())
	assert.Equal(t, "oops\n", stderr.String())
	// cli.Run passes the status on and prints nothing more.
	code := cli.Run([]string{"bench", "x.h5"}, &stdout, &stderr, func(ctx context.Context, args []string, o, e io.Writer) error {
		return execSimlab(ctx, args, o, e)
	})
	assert.Equal(t, 7, code)
	assert.Equal(t, "oops\noops\n", stderr.String())
}
