// Package clobber decides whether a command may write an output where it
// was asked to: never over one of its inputs, never over a directory that
// holds an input, and never inside a trace directory. Files are compared
// by identity (device and inode), not by name, so that a symbolic link,
// a hard link or another spelling of a path does not get past the check.
package clobber

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/augur-dev/augur/internal/shutdown"
)

// ErrConflict is wrapped by every error of Check.
var ErrConflict = errors.New("refusing to write there")

// Check returns an error naming the conflict if writing (or replacing)
// out could destroy one of inputs or write inside a trace directory. An
// empty out (stdout) and empty inputs are ignored; inputs that do not
// exist cannot conflict.
func Check(out string, inputs ...string) error {
	if out == "" {
		return nil
	}
	conflict := func(format string, args ...any) error {
		return fmt.Errorf("output %s: %s: %w", out, fmt.Sprintf(format, args...), ErrConflict)
	}
	outInfo, err := os.Stat(out)
	if err == nil {
		for _, in := range inputs {
			if in == "" {
				continue
			}
			if info, err := os.Stat(in); err == nil && os.SameFile(info, outInfo) {
				return conflict("it is the input %s", in)
			}
			if outInfo.IsDir() && within(in, outInfo) {
				return conflict("the input %s lies inside it", in)
			}
		}
	}
	// A symbolic link is checked where it leads too: a link to a file
	// inside a trace or an input directory names that file.
	places := ancestors(out)
	if real, err := filepath.EvalSymlinks(out); err == nil {
		places = append(places, ancestors(real)...)
	}
	for _, dir := range places {
		info, err := os.Stat(dir)
		if err != nil || !info.IsDir() {
			continue
		}
		for _, in := range inputs {
			if in == "" {
				continue
			}
			if inInfo, err := os.Stat(in); err == nil && os.SameFile(info, inInfo) {
				return conflict("it lies inside the input %s", in)
			}
		}
		if isTrace(dir) {
			return conflict("it lies inside the trace directory %s", dir)
		}
	}
	// A hard link to a file inside an input directory.
	if outInfo != nil && outInfo.Mode().IsRegular() {
		for _, in := range inputs {
			if file := find(in, outInfo); file != "" {
				return conflict("it is %s, inside the input %s", file, in)
			}
		}
	}
	return nil
}

// Key returns what identifies the file at path: its device and inode when
// it exists, else where its symbolic links lead, so that a link to an
// output not written yet has that output's key. Two paths name one file
// when their keys are equal; a command's outputs are compared by key in
// linear time, however many it has.
func Key(path string) string {
	if info, err := os.Stat(path); err == nil {
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			return fmt.Sprintf("inode %d:%d", st.Dev, st.Ino)
		}
	}
	return "path " + target(path)
}

// target returns the absolute path that p names once the symbolic links
// of its directory and at its end are followed (up to 40, as the kernel
// does), whether or not the last one exists.
func target(p string) string {
	p, _ = filepath.Abs(p)
	for range 40 {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
		}
		to, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = filepath.Clean(to)
	}
	return p
}

// CheckPlace returns an error if out cannot be written where it is, so
// that a command says so before it works rather than when it writes:
// the directory that is to hold out must exist, and an output that is a
// file (dir false) may not name a directory. An empty out (stdout) is
// ignored.
func CheckPlace(out string, dir bool) error {
	if out == "" {
		return nil
	}
	info, err := os.Stat(out)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		// A loop of links, say, fails here, before any work, not when
		// the output is written; a parent that is not a directory is
		// named below.
		return fmt.Errorf("output %s: %w", out, err)
	case !dir && ((err == nil && info.IsDir()) || strings.HasSuffix(out, string(filepath.Separator))):
		return fmt.Errorf("output %s: names a directory; give a file name", out)
	}
	parent := filepath.Dir(filepath.Clean(out))
	info, err = os.Stat(parent)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("output %s: the directory %s does not exist", out, parent)
	case err != nil:
		return fmt.Errorf("output %s: %w", out, err)
	case !info.IsDir():
		return fmt.Errorf("output %s: %s is not a directory", out, parent)
	}
	return nil
}

// WorkDir returns the directory a command works in: keep, checked with
// CheckDir against inputs and created if need be, or, if keep is "", a
// new temporary directory named with prefix, which cleanup removes.
func WorkDir(keep, prefix string, inputs ...string) (dir string, cleanup func(), err error) {
	if keep != "" {
		if err := CheckDir(keep, inputs...); err != nil {
			return "", nil, err
		}
		return keep, func() {}, os.MkdirAll(keep, 0o755)
	}
	return shutdown.TempDir(prefix)
}

// CheckDir returns an error naming the conflict if writing files into
// the directory dir (created if need be) could destroy one of inputs or
// write inside a trace directory: dir may not be an input, hold one or
// lie inside one, and may not be or lie inside a trace directory. An
// empty dir (none) is ignored.
func CheckDir(dir string, inputs ...string) error {
	if dir != "" && isTrace(dir) {
		return fmt.Errorf("output %s: it is a trace directory: %w", dir, ErrConflict)
	}
	return Check(dir, inputs...)
}

// within reports whether path lies inside the directory dir.
func within(path string, dir os.FileInfo) bool {
	for _, a := range ancestors(path) {
		if info, err := os.Stat(a); err == nil && os.SameFile(info, dir) {
			return true
		}
	}
	return false
}

// maxFind bounds the entries find looks at in one input directory: a
// trace holds a few files; a directory given as an input (a testbed's,
// a --keep) some hundreds.
const maxFind = 10000

// find returns the path of the file inside the directory dir that is
// target, or "" if there is none among its first maxFind entries (or
// dir is not a directory).
func find(dir string, target os.FileInfo) string {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return ""
	}
	var found string
	seen := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if seen++; err != nil || seen > maxFind {
			return fs.SkipAll
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil && os.SameFile(info, target) {
				found = path
				return fs.SkipAll
			}
		}
		return nil
	})
	return found
}

// ancestors returns the directories that hold path, innermost first, with
// symbolic links in the part that exists resolved.
func ancestors(path string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	dir := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	var out []string
	for {
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// traceFiles are trace.ManifestFile and trace.StatesFile, named here so
// that this helper stays a leaf, without the trace package and Arrow
// (TestTraceFiles holds them equal).
var traceFiles = [...]string{"manifest.json", "states.arrow"}

// isTrace reports whether dir is a trace directory: it holds a manifest
// and a states file (a manifest alone is common in other projects).
func isTrace(dir string) bool {
	for _, name := range traceFiles {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || !info.Mode().IsRegular() {
			return false
		}
	}
	return true
}
