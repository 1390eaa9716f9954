package clobber

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-dev/augur/trace"
)

// A checkCase is an output, its inputs, and part of the error expected
// ("" for none).
type checkCase struct {
	out    string
	inputs []string
	want   string
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"spec.yaml", "run.trace/manifest.json", "run.trace/states.arrow", "web/manifest.json", "parts/p0.arrow"} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, link := range [][2]string{{"spec.yaml", "alias.yaml"}, {"run.trace", "alias.trace"}} {
		if err := os.Symlink(filepath.Join(dir, link[0]), link[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, link := range [][2]string{{"spec.yaml", "hard.yaml"}, {"run.trace/manifest.json", "hard.json"}, {"parts/p0.arrow", "hard.arrow"}} {
		if err := os.Link(link[0], link[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("run.trace/states.arrow", "link.arrow"); err != nil {
		t.Fatal(err)
	}
	tests := []checkCase{
		{"", []string{"spec.yaml"}, ""},
		{"report.json", []string{"spec.yaml", "run.trace"}, ""},
		{"spec.yaml", []string{"run.trace", "spec.yaml"}, "it is the input spec.yaml"},
		{"./parts/../spec.yaml", []string{"spec.yaml"}, "it is the input spec.yaml"},
		{"alias.yaml", []string{"spec.yaml"}, "it is the input spec.yaml"},
		{"hard.yaml", []string{"spec.yaml"}, "it is the input spec.yaml"},
		{"hard.json", []string{"spec.yaml", "run.trace"}, "it is run.trace/manifest.json, inside the input run.trace"},
		{"hard.arrow", []string{"parts"}, "it is parts/p0.arrow, inside the input parts"},
		{"hard.arrow", []string{"spec.yaml"}, ""},
		{"link.arrow", []string{"spec.yaml"}, "inside the trace directory"},
		{"link.arrow", []string{"run.trace"}, "it lies inside the input run.trace"},
		{"run.trace/states.arrow", []string{"spec.yaml"}, "inside the trace directory"},
		{"run.trace/new.json", nil, "inside the trace directory"},
		{"alias.trace/report.json", []string{"spec.yaml"}, "inside the trace directory"},
		{"run.trace/x/y.json", nil, "inside the trace directory"},
		{"web/report.json", nil, ""},
		{"parts", []string{"parts/p0.arrow"}, "the input parts/p0.arrow lies inside it"},
		{"parts/p1.arrow", []string{"parts"}, "it lies inside the input parts"},
		{"new.trace", []string{"missing.jsonl", ""}, ""},
	}
	// A directory written into (--keep DIR) may not be a trace either.
	dirTests := []checkCase{
		{"", nil, ""},
		{"kept", []string{"spec.yaml"}, ""},
		{"run.trace", nil, "it is a trace directory"},
		{"alias.trace", nil, "it is a trace directory"},
		{"run.trace/kept", nil, "inside the trace directory"},
		{".", []string{"parts/p0.arrow"}, "the input parts/p0.arrow lies inside it"},
		{"parts", []string{"parts"}, "it is the input parts"},
	}
	for _, f := range []struct {
		name  string
		check func(string, ...string) error
		tests []checkCase
	}{{"Check", Check, tests}, {"CheckDir", CheckDir, dirTests}} {
		for _, tt := range f.tests {
			err := f.check(tt.out, tt.inputs...)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("%s(%q, %q) = %v, want nil", f.name, tt.out, tt.inputs, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrConflict)):
				t.Errorf("%s(%q, %q) = %v, want an ErrConflict saying %q", f.name, tt.out, tt.inputs, err, tt.want)
			}
		}
	}
}

// TestWorkDir checks that a kept directory is created and kept, checked
// like any output directory, and that a temporary one is removed.
func TestWorkDir(t *testing.T) {
	root := t.TempDir()
	keep := filepath.Join(root, "keep")
	dir, cleanup, err := WorkDir(keep, "x-")
	if err != nil || dir != keep {
		t.Fatalf("WorkDir(keep) = %q, %v", dir, err)
	}
	cleanup()
	if fi, err := os.Stat(keep); err != nil || !fi.IsDir() {
		t.Errorf("kept directory: %v", err)
	}
	input := filepath.Join(keep, "spec.yaml")
	if err := os.WriteFile(input, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := WorkDir(root, "x-", input); !errors.Is(err, ErrConflict) {
		t.Errorf("WorkDir holding an input: error %v, want ErrConflict", err)
	}
	dir, cleanup, err = WorkDir("", "x-")
	if err != nil || !strings.HasPrefix(filepath.Base(dir), "x-") {
		t.Fatalf("WorkDir(\"\") = %q, %v", dir, err)
	}
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary directory left behind: %v", err)
	}
}

// TestCheckPlace checks that an output whose directory is missing, or a
// file output that names a directory, is refused before any work.
func TestCheckPlace(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("file", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, link := range [][2]string{{"loop.b", "loop"}, {"loop", "loop.b"}, {"missing.json", "dangling"}} {
		if err := os.Symlink(link[0], link[1]); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		out  string
		dir  bool
		want string // part of the error; "" for none
	}{
		{"", false, ""},
		{"report.json", false, ""},
		{"dir/report.json", false, ""},
		{"file", false, ""},
		{"/dev/null", false, ""},
		{"new.trace", true, ""},
		{"dir", true, ""},
		{"dir", false, "output dir: names a directory"},
		{"newdir/", false, "output newdir/: names a directory"},
		{"dir/", false, "output dir/: names a directory"},
		{"missing/report.json", false, "output missing/report.json: the directory missing does not exist"},
		{"missing/new.trace", true, "the directory missing does not exist"},
		{"file/report.json", false, "output file/report.json: file is not a directory"},
		{"dangling", false, ""}, // the link is replaced
		{"loop", false, "output loop: stat loop: too many levels of symbolic links"},
		{"loop", true, "output loop: stat loop: too many levels of symbolic links"},
	}
	for _, tt := range tests {
		err := CheckPlace(tt.out, tt.dir)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckPlace(%q, %v) = %v, want nil", tt.out, tt.dir, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckPlace(%q, %v) = %v, want an error saying %q", tt.out, tt.dir, err, tt.want)
		}
	}
}

// TestTraceFiles checks that the files that make a directory a trace
// are those the trace package writes.
func TestTraceFiles(t *testing.T) {
	if want := [...]string{trace.ManifestFile, trace.StatesFile}; traceFiles != want {
		t.Errorf("traceFiles = %q, want %q", traceFiles, want)
	}
}

func TestKey(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(at("a.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"alias.json": "a.json", "later.json": "new.json", "chain.json": "later.json"} {
		if err := os.Symlink(to, at(link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(at("a.json"), at("hard.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(at("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"a.json", "a.json", true},
		{"a.json", "sub/../a.json", true},
		{"a.json", "alias.json", true},
		{"a.json", "hard.json", true},
		{"new.json", "later.json", true}, // a link to an output not there yet
		{"new.json", "chain.json", true},
		{"a.json", "new.json", false},
		{"later.json", "alias.json", false},
	} {
		if got := Key(at(tt.a)) == Key(at(tt.b)); got != tt.want {
			t.Errorf("%s and %s one file: %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
