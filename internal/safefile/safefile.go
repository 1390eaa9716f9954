// Package safefile writes files so that a reader never sees half of one:
// the content goes to a temporary file in the same directory, which is
// synced and renamed over the target.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Write writes what write produces to path. A regular file at path is
// replaced, atomically, and keeps its permissions; a new file gets perm.
// A target that is not a regular file (/dev/null, /dev/stdout, a pipe) is
// written in place. Whether path may be written at all is for
// clobber.Check to say.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// A File is the content of path being written, for a writer that cannot
// be a callback of Write (a CPU profile, written while a command runs):
// Commit puts it in place as Write would, Abort leaves path as it was.
type File struct {
	*os.File
	path string      // the target; "" when the file is written in place
	perm fs.FileMode // the target's permissions
}

// Create starts writing path: to a temporary file beside it, or, for a
// target that is not a regular file, in place.
func Create(path string, perm fs.FileMode) (*File, error) {
	info, err := os.Stat(path)
	switch {
	case err == nil && !info.Mode().IsRegular():
		f, err := openInPlace(path, info.Mode())
		if err != nil {
			return nil, err
		}
		return &File{File: f}, nil
	case err == nil:
		perm = info.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return nil, err
	}
	return &File{File: tmp, path: path, perm: perm}, nil
}

// Commit syncs the file and renames it over its target, or closes it when
// it is written in place. On error the target is as it was.
func (f *File) Commit() error {
	if f.path == "" {
		return f.Close()
	}
	err := f.Chmod(f.perm)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort closes the file and removes the temporary one: the target is as
// it was.
func (f *File) Abort() {
	f.Close()
	if f.path != "" {
		os.Remove(f.Name())
	}
}

// openInPlace opens the target that is not a regular file for writing. A
// named pipe is opened without blocking: opening one that no process
// reads would wait for a reader forever, deaf to the command's signals,
// so that is an error instead.
func openInPlace(path string, mode fs.FileMode) (*os.File, error) {
	if mode&fs.ModeNamedPipe == 0 {
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		return nil, fmt.Errorf("%s: a named pipe that no process reads; start its reader first", path)
	}
	return f, err
}
