package checker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
