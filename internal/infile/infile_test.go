package infile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFile checks that only regular files of at most the limit are
// read, and that a named pipe or a device is refused at once.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small, sparse, fifo := filepath.Join(dir, "small.json"), filepath.Join(dir, "sparse.json"), filepath.Join(dir, "fifo")
	if err := os.WriteFile(small, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want string // part of the error; "" for none
	}{
		{"small.json", ""},
		{"sparse.json", "3221225472 bytes, more than the 1048576 read"},
		{"fifo", "is a named pipe, not a regular file"},
		{"zero", "is a device, not a regular file"},
		{".", "is a directory, not a regular file"},
		{"missing", "no such file"},
	}
	for _, tt := range tests {
		start := time.Now()
		data, err := ReadFile(filepath.Join(dir, tt.name), 1<<20)
		if d := time.Since(start); d > time.Second {
			t.Errorf("ReadFile(%s) took %v", tt.name, d)
		}
		switch {
		case tt.want == "" && (err != nil || string(data) != `{"a":1}`):
			t.Errorf("ReadFile(%s) = %q, %v", tt.name, data, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ReadFile(%s): %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
	if _, err := ReadFile(sparse, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile of a large file: %v, want ErrTooLarge", err)
	}
}

// TestReadFileOnce: a file is read into one buffer of its size, not into
// one grown as it is read (io.ReadAll allocated about 2.5 times a file of
// 32 MiB, and held twice it at the end).
func TestReadFileOnce(t *testing.T) {
	const size = 32 << 20
	path := filepath.Join(t.TempDir(), "stats.arrow")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	data, err := ReadFile(path, size)
	runtime.ReadMemStats(&after)
	if err != nil || len(data) != size {
		t.Fatalf("ReadFile = %d bytes, %v; want %d", len(data), err, size)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > size+size/8 {
		t.Errorf("reading %d MiB allocated %.1f MiB", size>>20, float64(n)/(1<<20))
	}
}
