package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	hello := func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }
	if err := Write(path, 0o644, hello); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o644 {
		t.Fatalf("stat = %v, %v", info, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("failed")
	if err := Write(path, 0o644, func(io.Writer) error { return failed }); !errors.Is(err, failed) {
		t.Errorf("failing write: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "hello" {
		t.Errorf("a failed write changed the file: %q", data)
	}
	if err := Write(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "bye"); return err }); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("overwrite changed the permissions to %v", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := Write(os.DevNull, 0o644, hello); err != nil {
		t.Errorf("write to %s: %v", os.DevNull, err)
	}
}

// TestCreate checks the File that Write is made of: a hard link to the
// target keeps its content, Commit replaces the target, Abort leaves it
// as it was, and neither leaves a temporary file.
func TestCreate(t *testing.T) {
	dir := t.TempDir()
	path, link := filepath.Join(dir, "out.prof"), filepath.Join(dir, "link")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, link); err != nil {
		t.Fatal(err)
	}
	write := func(content string) *File {
		f, err := Create(path, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(f, content); err != nil {
			t.Fatal(err)
		}
		return f
	}
	write("aborted").Abort()
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("after Abort the target holds %q", data)
	}
	if err := write("new").Commit(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "new" {
		t.Errorf("after Commit the target holds %q", data)
	}
	if data, _ := os.ReadFile(link); string(data) != "old" {
		t.Errorf("the hard link holds %q; want the old content", data)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("Commit changed the permissions to %v", info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// TestWriteNamedPipe checks that a named pipe is written in place when a
// process reads it, and that one no process reads is an error at once
// rather than a wait for a reader that never comes.
func TestWriteNamedPipe(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	hello := func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }
	done := make(chan error, 1)
	go func() { done <- Write(pipe, 0o644, hello) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no process reads") {
			t.Errorf("write to a pipe no process reads: %v, want an error saying so", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("write to a pipe no process reads waits for a reader")
	}

	r, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Write(pipe, 0o644, hello); err != nil {
		t.Fatalf("write to a pipe being read: %v", err)
	}
	if data, err := io.ReadAll(r); err != nil || string(data) != "hello" {
		t.Errorf("read %q, %v; want hello", data, err)
	}
	if info, err := os.Lstat(pipe); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v, %v", info, err)
	}
}

// TestWriteAll checks that outputs are replaced as a set: when one cannot
// be written, none is.
func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.md")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	full := errors.New("no space left on device")
	for _, tt := range []struct {
		name    string
		outputs []Output
	}{
		{"second write fails", []Output{{a, 0o644, write("new")}, {b, 0o644, func(io.Writer) error { return full }}}},
		{"second cannot be created", []Output{{a, 0o644, write("new")}, {filepath.Join(dir, "missing", "c"), 0o644, write("new")}}},
	} {
		if err := WriteAll(tt.outputs...); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
		for _, p := range []string{a, b} {
			if data, _ := os.ReadFile(p); string(data) != "old" {
				t.Errorf("%s: %s is %q, want it as it was", tt.name, filepath.Base(p), data)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 2 {
			t.Errorf("%s: temporary files left: %v", tt.name, entries)
		}
	}
	if err := WriteAll(Output{a, 0o644, write("A")}, Output{b, 0o644, write("B")}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{a: "A", b: "B"} {
		if data, _ := os.ReadFile(p); string(data) != want {
			t.Errorf("%s is %q, want %q", filepath.Base(p), data, want)
		}
	}
}

func TestWriteDir(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "7")
	fill := func(files map[string]string, err error) func(string) error {
		return func(tmp string) error {
			for name, content := range files {
				if werr := os.WriteFile(filepath.Join(tmp, name), []byte(content), 0o644); werr != nil {
					return werr
				}
			}
			return err
		}
	}
	// contents lists dir's files, name=content, or "none".
	contents := func() string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "none"
		}
		var s []string
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			s = append(s, e.Name()+"="+string(data))
		}
		return strings.Join(s, " ")
	}
	failed := errors.New("interrupted")
	for _, tt := range []struct {
		name  string
		files map[string]string
		err   error
		want  string
	}{
		{"new", map[string]string{"spec.yaml": "1", "report.json": "1"}, nil, "report.json=1 spec.yaml=1"},
		{"fill fails: the old stays", map[string]string{"spec.yaml": "2"}, failed, "report.json=1 spec.yaml=1"},
		{"replaced whole", map[string]string{"spec.yaml": "3"}, nil, "spec.yaml=3"},
	} {
		err := WriteDir(dir, fill(tt.files, tt.err))
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.err)
		}
		if got := contents(); got != tt.want {
			t.Errorf("%s: %s holds %s, want %s", tt.name, dir, got, tt.want)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Errorf("%s: temporary directories left: %v", tt.name, entries)
		}
	}
	file := filepath.Join(parent, "f")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(file, fill(nil, nil)); err == nil {
		t.Error("a file replaced by a directory")
	}
	if data, _ := os.ReadFile(file); string(data) != "mine" {
		t.Errorf("the file is %q, want it as it was", data)
	}
}
