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

	"github.com/augur-dev/augur/internal/shutdown"
)

// Write writes what write produces to path. A regular file at path is
// replaced, atomically, and keeps its permissions; a new file gets perm.
// A target that is not a regular file (/dev/null, /dev/stdout, a pipe) is
// written in place. Whether path may be written at all is for
// clobber.Check to say.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	return WriteAll(Output{path, perm, write})
}

// An Output is one file of WriteAll: its path, the permissions of a new
// one and what to write there.
type Output struct {
	Path  string
	Perm  fs.FileMode
	Write func(io.Writer) error
}

// WriteAll writes each output as Write does, as a set: every one is
// written to its temporary file first, and only when all are complete
// are they renamed over their targets, so that a run that fails to write
// one (a full disk) leaves every target as it was.
func WriteAll(outputs ...Output) error {
	files := make([]*File, 0, len(outputs))
	abort := func() {
		for _, f := range files {
			f.Abort()
		}
	}
	for _, o := range outputs {
		f, err := Create(o.Path, o.Perm)
		if err != nil {
			abort()
			return err
		}
		files = append(files, f)
		if err := o.Write(f); err != nil {
			abort()
			return err
		}
		if err := f.finish(); err != nil {
			abort()
			return err
		}
	}
	return shutdown.Commit(func() error {
		var err error
		for _, f := range files {
			if err == nil {
				err = f.rename()
			}
			f.discard()
		}
		return err
	})
}

// A File is the content of path being written, for a writer that cannot
// be a callback of Write (a CPU profile, written while a command runs):
// Commit puts it in place as Write would, Abort leaves path as it was.
type File struct {
	*os.File
	path    string      // the target; "" when the file is written in place
	perm    fs.FileMode // the target's permissions
	untrack func()      // forgets the temporary file (shutdown.Track)
	placed  bool        // renamed over the target
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
	return &File{File: tmp, path: path, perm: perm, untrack: shutdown.Track(tmp.Name())}, nil
}

// Commit syncs the file and renames it over its target, or closes it when
// it is written in place. On error the target is as it was.
func (f *File) Commit() error {
	err := f.finish()
	if err == nil {
		err = shutdown.Commit(f.rename)
	}
	f.discard()
	return err
}

// finish gives the temporary file the target's permissions, syncs and
// closes it; a file written in place is closed.
func (f *File) finish() error {
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
	return err
}

// rename puts the finished temporary file in place of its target.
func (f *File) rename() error {
	if f.path == "" {
		return nil
	}
	err := os.Rename(f.Name(), f.path)
	f.placed = err == nil
	return err
}

// discard removes the temporary file unless it was put in place, and
// forgets it.
func (f *File) discard() {
	if f.path == "" {
		return
	}
	if !f.placed {
		os.Remove(f.Name())
	}
	f.untrack()
}

// Abort closes the file and removes the temporary one: the target is as
// it was.
func (f *File) Abort() {
	f.Close()
	f.discard()
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

// WriteDir fills a new directory with what fill writes there and puts it
// at path whole, replacing a directory at path: a run that fails or is
// interrupted leaves path as it was, never half filled. fill writes into
// a temporary directory beside path, whose name it is given.
func WriteDir(path string, fill func(dir string) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	untrack := shutdown.Track(tmp)
	defer func() {
		os.RemoveAll(tmp) // gone once renamed
		untrack()
	}()
	if err := fill(tmp); err != nil {
		return err
	}
	return shutdown.Commit(func() error { return ReplaceDir(tmp, path) })
}

// ReplaceDir renames the directory tmp to path, first moving aside, and
// then removing, a directory at path, and makes the rename durable. A
// path that is not a directory is left alone, and an error.
func ReplaceDir(tmp, path string) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
		return syncDir(filepath.Dir(path))
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s: exists and is not a directory; not replacing it", path)
	}
	old := tmp + ".old"
	if err := os.Rename(path, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Rename(old, path)
		return err
	}
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
