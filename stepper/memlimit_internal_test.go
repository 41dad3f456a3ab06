package stepper

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MemTotal of a meminfo file, in bytes; the default limit is half of this
// machine's, in whole MiB.
func TestMachineMemory(t *testing.T) {
	f := filepath.Join(t.TempDir(), "meminfo")
	require.NoError(t, os.WriteFile(f, []byte("MemTotal:       24683656 kB\nMemFree:        22054500 kB\n"), 0o644))
	got, ok := machineMemory(f)
	assert.True(t, ok)
	assert.Equal(t, int64(24683656*1024), got)
	require.NoError(t, os.WriteFile(f, []byte("MemFree: 1 kB\n"), 0o644))
	_, ok = machineMemory(f)
	assert.False(t, ok)
	_, ok = machineMemory(filepath.Join(t.TempDir(), "none"))
	assert.False(t, ok)
	if total, ok := machineMemory("/proc/meminfo"); ok {
		assert.Equal(t, total/2&^(1<<20-1), DefaultMemoryLimit())
	} else if runtime.GOOS != "linux" {
		assert.Equal(t, int64(FallbackMemoryLimit), DefaultMemoryLimit())
	}
}
