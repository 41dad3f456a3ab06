package trajectory

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
)

// partialFile is an output written under FILE.partial and renamed to FILE
// by commit, so a crash never leaves a truncated file under the final
// name. An interrupted run commits what it has: every row written stays.
// The run holds FILE's OutputLock while it writes, so FILE.partial is its
// own: a second run of the same FILE is refused before it opens it.
type partialFile struct {
	*bufio.Writer
	f     *os.File
	final string
}

// createPartial opens path+".partial" for writing.
func createPartial(path string) (*partialFile, error) {
	f, err := os.Create(path + PartialSuffix)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, err
	}
	return &partialFile{Writer: bufio.NewWriterSize(f, 1<<16), f: f, final: path}, nil
}

// commit flushes, closes and renames the file to its final name.
func (a *partialFile) commit() error {
	if a == nil || a.f == nil {
		return nil
	}
	err := a.Flush()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.final)
	}
	a.f = nil
	return err
}

// abandon closes the file without renaming it (a crash, or a failure
// before anything was written); remove also deletes it.
func (a *partialFile) abandon(remove bool) {
	if a == nil || a.f == nil {
		return
	}
	_ = a.Flush()
	_ = a.f.Close()
	if remove {
		_ = os.Remove(a.f.Name())
	}
	a.f = nil
}

// WriteFileAtomic writes data to path through a temporary file of its own
// in the same directory (PATH.*.partial, a unique name), renamed to path
// when complete: path never holds a truncated file, and two writers of
// the same path each rename a whole file of their own (the last one
// stays), never a mix of both.
func WriteFileAtomic(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, base+".*"+PartialSuffix)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}
