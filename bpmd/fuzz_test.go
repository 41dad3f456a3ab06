package bpmd

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// smallDB returns the bytes of a two-frame file of the 3-box stack.
func smallDB(t testing.TB) []byte {
	t.Helper()
	recs := record(t, boxStack(t), 2)
	path := filepath.Join(t.TempDir(), "small.h5")
	if err := WriteFile(path, []*Frame{recs[0].f, recs[1].f}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readBytes writes data to a file and reads it; ReadFile must return
// frames or an error, never panic (a panic fails the test).
func readBytes(t testing.TB, dir string, data []byte) error {
	path := filepath.Join(dir, "f.h5")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	return err
}

// TestCorruptFiles truncates and corrupts a valid file at seeded random
// places: every read ends in frames or an error.
func TestCorruptFiles(t *testing.T) {
	good := smallDB(t)
	dir := t.TempDir()
	if err := readBytes(t, dir, good); err != nil {
		t.Fatalf("the intact file: %v", err)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for k := 0; k < 60; k++ {
		n := rng.IntN(len(good))
		if err := readBytes(t, dir, good[:n]); err == nil {
			t.Errorf("truncated to %d of %d bytes: no error", n, len(good))
		}
	}
	for k := 0; k < 200; k++ {
		b := append([]byte(nil), good...)
		for m := 0; m < 1+rng.IntN(8); m++ {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
		_ = readBytes(t, dir, b) // frames or an error; a panic would fail
	}
	if err := readBytes(t, dir, []byte("not an HDF5 file")); err == nil {
		t.Error("a text file: no error")
	}
}

func FuzzReadFile(f *testing.F) {
	f.Add(smallDB(f))
	if b, err := os.ReadFile(h5pyFixture); err == nil {
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = readBytes(t, dir, data)
	})
}

// Issue 18: a local heap claiming a terabyte killed the process with Go's
// unrecoverable out-of-memory error inside the HDF5 library. The claim is
// now checked first: one clear error.
func TestHeapClaimsChecked(t *testing.T) {
	good := smallDB(t)
	dir := t.TempDir()
	at := bytes.Index(good, []byte("HEAP"))
	if at < 0 {
		t.Fatal("no local heap in the test file")
	}
	bad := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(bad[at+8:], 1<<40) // size of lengths is 8 in files the library writes
	err := readBytes(t, dir, bad)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the local heap data segment at byte %d claims 1099511627776 bytes", at)) {
		t.Fatalf("got %v", err)
	}
	// A limit below the file's datasets refuses them, naming the limit.
	path := filepath.Join(dir, "good.h5")
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFileWith(path, ReadOptions{MaxBytes: 16}); err == nil || !strings.Contains(err.Error(), "the limit of 16") {
		t.Fatalf("MaxBytes 16: got %v", err)
	}
	if _, err := ReadFileWith(path, ReadOptions{MaxBytes: int64(len(good))}); err != nil {
		t.Fatalf("MaxBytes = file size: %v", err)
	}
}
