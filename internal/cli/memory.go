package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gorigid/gorigid/stepper"
)

// DefaultMaxMemory is the default of --max-memory:
// stepper.DefaultMemoryLimit, half the machine's memory in whole MiB.
func DefaultMaxMemory() int64 { return stepper.DefaultMemoryLimit() }

// ParseBytes reads a size: a number with an optional unit B, KB, MB, GB,
// TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), any case,
// with or without a space: "512MiB", "1.5 GB", "2e9". "0" means no limit.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}[unit]
	x, err := strconv.ParseFloat(num, 64)
	switch {
	case mult == 0:
		return 0, fmt.Errorf("unknown unit %q in %q (want B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)", strings.TrimSpace(t[i:]), s)
	case err != nil:
		return 0, fmt.Errorf("want a size such as 512MiB or 2GB, got %q", s)
	case !(x >= 0) || x*mult >= math.MaxInt64:
		return 0, errors.New("must be ≥ 0 and below 8 EiB, got " + strconv.Quote(s))
	}
	return int64(x * mult), nil
}

// MemoryFlag is a --max-memory flag: a size (ParseBytes), 0 for none.
type MemoryFlag struct{ Bytes int64 }

// String writes the size in MiB, exact when it is a whole number of them.
func (m *MemoryFlag) String() string {
	if m == nil {
		return ""
	}
	if m.Bytes%(1<<20) == 0 {
		return strconv.FormatInt(m.Bytes>>20, 10) + "MiB"
	}
	return strconv.FormatInt(m.Bytes, 10)
}

// Set parses a size.
func (m *MemoryFlag) Set(s string) error {
	b, err := ParseBytes(s)
	if err != nil {
		return err
	}
	m.Bytes = b
	return nil
}
