// Package infile opens the files augur reads as a whole or at offsets
// (traces, specs, checks, stats): regular files only, so that a named
// pipe does not block a command forever and a device such as /dev/zero
// is not read without end, and, for a file read whole, at most a given
// size, so that a huge file is refused before it is read into memory.
package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge is wrapped by the error of ReadFile for a file larger than
// its limit.
var ErrTooLarge = errors.New("file too large")

// Open opens the file at path for reading if it is a regular file (a
// symbolic link is followed), and otherwise returns an error saying what
// it is. It opens without blocking, as opening a named pipe would until
// a writer comes, then examines what it opened.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = regular(path, info)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenLimited opens the regular file at path as Open does, refusing a
// file larger than limit bytes with an error wrapping ErrTooLarge, and
// returns it with its size.
func OpenLimited(path string, limit int64) (*os.File, int64, error) {
	f, err := Open(path)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err == nil && info.Size() > limit {
		err = tooLarge(path, info.Size(), limit)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}

// ReadFile returns the content of the regular file at path, refusing a
// file larger than limit bytes with an error wrapping ErrTooLarge.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, size, err := OpenLimited(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One buffer of the size, and a byte more to see a file that has
	// grown since; it grows only if the file has.
	data := make([]byte, 0, size+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, tooLarge(path, int64(len(data)), limit)
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// tooLarge returns the error of ReadFile for a file of size bytes.
func tooLarge(path string, size, limit int64) error {
	return fmt.Errorf("%s: %d bytes, more than the %d read of such a file: %w", path, size, limit, ErrTooLarge)
}

// A NotRegularError is the error of Open for what is not a regular file.
type NotRegularError struct {
	Path string
	What string // "a named pipe", "a device", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: is %s, not a regular file", e.Path, e.What)
}

// regular returns nil if info describes a regular file, and otherwise a
// *NotRegularError naming path and saying what it is.
func regular(path string, info fs.FileInfo) error {
	var what string
	switch m := info.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	default:
		what = "a special file"
	}
	return &NotRegularError{Path: path, What: what}
}
