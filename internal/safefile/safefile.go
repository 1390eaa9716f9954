// Package safefile writes files so that a reader never sees half of one:
// the content goes to a temporary file in the same directory, which is
// synced and renamed over the target.
package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes what write produces to path. A regular file at path is
// replaced, atomically, and keeps its permissions; a new file gets perm.
// A target that is not a regular file (/dev/null, /dev/stdout, a pipe) is
// written in place. Whether path may be written at all is for
// clobber.Check to say.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	info, err := os.Stat(path)
	switch {
	case err == nil && !info.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err := write(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	case err == nil:
		perm = info.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
