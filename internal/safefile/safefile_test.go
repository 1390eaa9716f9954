package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
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
