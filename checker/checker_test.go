package checker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-dev/augur/specs"
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, file, msg string
	}{
		{"plain scalar", "checks:\n  - name: a\n    property: forall n0 in nodes n0.x\n", ":3:34: "},
		{"quoted scalar", "checks:\n  - name: a\n    property: \"forall n0 in nodes: n9.x\"\n", ":3:36: unbound variable n9"},
		{"unknown key", "checks:\n  - name: a\n    prop: x\n", ":3: field prop not found"},
		{"no checks", "checks: []\n", ": no checks"},
		{"empty file", "", ": no checks"},
		{"no property", "checks:\n  - name: a\n", ":2:5: check a has no property"},
		{"bad yaml", "checks:\n  - name: a\n    property: forall n0 in nodes: n0.x\n", ":3: mapping values are not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, "checks.yaml", tt.file)
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), path+tt.msg) {
				t.Errorf("Load error = %v, want it to contain %q", err, path+tt.msg)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	path := write(t, "checks.yaml", "spec: ../spec.yaml\nchecks:\n  - property: \"∀ a ∈ nodes: a.x\"\n")
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(path), "../spec.yaml"); f.Spec != want {
		t.Errorf("spec = %q, want %q", f.Spec, want)
	}
	if c := f.Checks[0]; c.Name != "check-1" || c.prop == nil || c.prop.Text() != "forall n0 in nodes: n0.x" {
		t.Errorf("check = %+v", c)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	spec := "variables:\n  term: int\n  state: {enum: [follower, leader]}\n"
	if err := os.WriteFile(filepath.Join(dir, "spec.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, msg string
	}{
		{"ok", "spec: spec.yaml\nchecks:\n  - property: \"forall a in nodes: a.term > 0\"\n", ""},
		{"no spec", "checks:\n  - property: \"forall a in nodes: a.term > 0\"\n", "checks.yaml: no spec: checking live states needs the spec"},
		{"missing spec", "spec: nothere.yaml\nchecks:\n  - property: \"forall a in nodes: a.term > 0\"\n", "checks.yaml: spec: open "},
		{"type error", "spec: spec.yaml\nchecks:\n  - property: \"forall a in nodes: a.state == 3\"\n", "checks.yaml:3:46: constant 3 does not fit type state"},
		{"unknown variable", "spec: spec.yaml\nchecks:\n  - property: \"forall a in nodes: a.x\"\n", "checks.yaml:3:35: unknown variable x in a.x (the spec declares term, state)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "checks.yaml")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Open(path)
			switch {
			case tt.msg == "" && err != nil:
				t.Fatalf("Open: %v", err)
			case tt.msg == "":
				if names := c.Checks(); len(names) != 1 || names[0] != "check-1" {
					t.Errorf("checks %v", names)
				}
			case err == nil || !strings.Contains(err.Error(), tt.msg):
				t.Errorf("Open error = %v, want it to contain %q", err, tt.msg)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	spec, err := specs.Parse("s.yaml", []byte("variables:\n  term: int\n"))
	if err != nil {
		t.Fatal(err)
	}
	empty, err := specs.Parse("e.yaml", []byte("system: empty\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec *specs.Spec
		f    *File
		msg  string
	}{
		{"no spec", nil, &File{Checks: []Check{{Name: "a", Property: "forall n0 in nodes: n0.term > 0"}}}, "checker: no spec to compile the checks against"},
		{"no checks", spec, &File{}, "checker: no checks"},
		{"syntax", spec, &File{Checks: []Check{{Name: "a", Property: "forall n0 in nodes n0.term"}}}, "check a: 1:20: "},
		{"type", spec, &File{Checks: []Check{{Name: "b", Property: "forall n0 in nodes: n0.term == true"}}}, "check b: 1:32: constant true does not fit type int"},
		{"empty spec", empty, &File{Checks: []Check{{Name: "c", Property: "forall n0 in nodes: n0.term > 0"}}}, "unknown variable term in n0.term (the spec declares no variables)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Compile(tt.spec, tt.f); err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Compile error = %v, want it to contain %q", err, tt.msg)
			}
		})
	}
}
