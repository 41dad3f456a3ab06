package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "512": 512, "512B": 512, "1.5 GB": 1_500_000_000, "2e9": 2_000_000_000,
		"512MiB": 512 << 20, "4gib": 4 << 30, "1 KiB": 1024, "3kb": 3000, "1TiB": 1 << 40,
	} {
		got, err := ParseBytes(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for in, want := range map[string]string{
		"":       `want a size such as 512MiB or 2GB, got ""`,
		"12 XB":  `unknown unit "XB" in "12 XB"`,
		"-1GB":   `must be ≥ 0 and below 8 EiB, got "-1GB"`,
		"9EiB":   `unknown unit "EiB"`,
		"1e30":   "must be ≥ 0 and below 8 EiB",
		"NaNGiB": `unknown unit "NaNGiB"`,
	} {
		_, err := ParseBytes(in)
		assert.ErrorContains(t, err, want, in)
	}
	var m MemoryFlag
	require.NoError(t, m.Set("3GiB"))
	assert.Equal(t, "3072MiB", m.String())
	require.NoError(t, m.Set(m.String()))
	assert.Equal(t, int64(3<<30), m.Bytes, "String round-trips through Set")
}
