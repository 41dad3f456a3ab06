package bpmd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultMaxBytes is the default ReadOptions.MaxBytes: 1 GiB.
const DefaultMaxBytes = 1 << 30

// ReadOptions steer ReadFileWith. The zero value means every default.
//
// The HDF5 library (github.com/scigolib/hdf5) allocates the size a header
// claims before it reads the data, so a corrupt size could end the process
// with Go's unrecoverable "fatal error: out of memory". The reader checks,
// before the library opens the file, every local heap and global heap
// collection header in it, and each dataset's shape before reading it.
// That does not make the library safe: other allocations in it (an
// attribute's data, a link value, a fractal-heap object, an object-header
// continuation block) also take sizes from the file unchecked, and only
// the library knows where those structures are. 2 000 mutated files
// crashed nothing through them. The lasting fix is an upstream
// change that checks every claimed size against the file size, or a BPMD
// reader of its own for the small HDF5 subset BPMD files use.
type ReadOptions struct {
	// MaxBytes bounds every size the file claims for one structure (a
	// local or global heap, a dataset) before the HDF5 library allocates
	// it; 0 means DefaultMaxBytes. A claim beyond the file's own size
	// (times 1024 for a chunked, possibly compressed, dataset) is refused
	// whatever MaxBytes is.
	MaxBytes int64
}

func (o ReadOptions) maxBytes() int64 {
	if o.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return o.MaxBytes
}

// hdf5Signature starts an HDF5 superblock, at byte 0, 512, 1024, 2048, …
var hdf5Signature = []byte("\x89HDF\r\n\x1a\n")

// checkHeapClaims reads the size fields the HDF5 library trusts before it
// allocates, and refuses a file where one exceeds the file size or limit.
//
// The library (github.com/scigolib/hdf5) allocates a local heap's data
// segment ("HEAP" header: size of lengths bytes at offset 8) and a global
// heap collection ("GCOL": size of offsets bytes at offset 8) at the size
// the header claims, before reading it; a corrupt size of terabytes ends
// the process with Go's unrecoverable "fatal error: out of memory". The
// library checks the signature before it reads the size, so every heap it
// could load starts with its signature: this scans the whole file for both
// signatures and checks each size that follows. A signature that occurs in
// raw data by chance is checked too; it refuses a valid file only if the
// bytes after it also exceed the file size, and then the error names the
// offset.
//
// Datasets are checked by their shape before they are read; see
// ReadOptions for what stays unchecked.
func checkHeapClaims(f io.ReaderAt, size, limit int64) error {
	offSize, lenSize, err := superblockSizes(f, size)
	if err != nil {
		return err
	}
	bound := min(size, limit)
	const chunk = 1 << 20
	const overlap = 16 // signature + version + reserved + an 8-byte size
	buf := make([]byte, chunk+overlap)
	for base := int64(0); base < size; base += chunk {
		n, err := f.ReadAt(buf, base)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		b := buf[:n]
		for _, sig := range []struct {
			name  string
			width int
		}{{"HEAP", lenSize}, {"GCOL", offSize}} {
			for i := 0; ; {
				k := bytes.Index(b[i:], []byte(sig.name))
				if k < 0 || base+int64(i+k) >= base+chunk {
					break // past this chunk: the next one (overlapping) sees it
				}
				at := i + k
				i = at + 1
				if at+8+sig.width > len(b) {
					continue // the file ends inside the header: the library's read fails
				}
				var claim uint64
				switch sig.width {
				case 2:
					claim = uint64(binary.LittleEndian.Uint16(b[at+8:]))
				case 4:
					claim = uint64(binary.LittleEndian.Uint32(b[at+8:]))
				default:
					claim = binary.LittleEndian.Uint64(b[at+8:])
				}
				if claim > uint64(bound) {
					what := "local heap data segment"
					if sig.name == "GCOL" {
						what = "global heap collection"
					}
					return fmt.Errorf("corrupt HDF5 file: the %s at byte %d claims %d bytes, more than the file's %d bytes or the limit of %d", what, base+int64(at), claim, size, limit)
				}
			}
		}
	}
	return nil
}

// superblockSizes returns the size of offsets and of lengths of the file's
// superblock (versions 0–3), each 2, 4 or 8 bytes.
func superblockSizes(f io.ReaderAt, size int64) (offSize, lenSize int, err error) {
	var hdr [16]byte
	for at := int64(0); at+int64(len(hdr)) <= size; at = max(512, 2*at) {
		if _, err := f.ReadAt(hdr[:], at); err != nil {
			return 0, 0, err
		}
		if !bytes.Equal(hdr[:8], hdf5Signature) {
			continue
		}
		switch v := hdr[8]; v {
		case 0, 1:
			offSize, lenSize = int(hdr[13]), int(hdr[14])
		case 2, 3:
			offSize, lenSize = int(hdr[9]), int(hdr[10])
		default:
			return 0, 0, fmt.Errorf("corrupt HDF5 file: superblock version %d at byte %d (want 0 to 3)", v, at)
		}
		for _, s := range []struct {
			name string
			v    int
		}{{"size of offsets", offSize}, {"size of lengths", lenSize}} {
			if s.v != 2 && s.v != 4 && s.v != 8 {
				return 0, 0, fmt.Errorf("corrupt HDF5 file: superblock %s = %d (want 2, 4 or 8)", s.name, s.v)
			}
		}
		return offSize, lenSize, nil
	}
	return 0, 0, errors.New("not an HDF5 file (no superblock signature)")
}

// openChecked opens path and checks its heap claims (checkHeapClaims).
func openChecked(path string, limit int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), checkHeapClaims(f, st.Size(), limit)
}
