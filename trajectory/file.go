package trajectory

import (
	"bufio"
	"errors"
	"os"
)

// partialFile is an output written under FILE.partial and renamed to FILE
// by commit, so a crash never leaves a truncated file under the final
// name. An interrupted run commits what it has: every row written stays.
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

// WriteFileAtomic writes data to path through path+".partial", renamed
// when complete, so path never holds a truncated file.
func WriteFileAtomic(path string, data []byte) error {
	tmp := path + PartialSuffix
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
