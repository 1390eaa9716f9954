package checker

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/augur-dev/augur/reporter"
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

func TestPromote(t *testing.T) {
	dir := t.TempDir()
	r := &reporter.Report{
		Version: reporter.Version,
		Spec:    filepath.Join(dir, "specs", "raft.yaml"),
		AlmostInvariants: []*reporter.Entry{
			{Rank: 1, ID: "aaa", Text: "forall n0 in nodes: n0.a", HoldingRate: 0.99},
			{Rank: 2, ID: "bbb", Text: "forall n0 in nodes: n0.b", HoldingRate: 0.98},
		},
		Invariants: []*reporter.Entry{{Rank: 1, ID: "ccc", Text: "forall n0 in nodes: n0.c", HoldingRate: 1}},
	}
	out := filepath.Join(dir, "ci", "checks.yaml")
	f, err := Promote(r, "report.json", out, []int{2}, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	want := &File{Spec: "../specs/raft.yaml", Checks: []Check{
		{Name: "bbb", Property: "forall n0 in nodes: n0.b", HoldingRate: 0.98, Source: "report.json almost-invariant #2"},
		{Name: "ccc", Property: "forall n0 in nodes: n0.c", HoldingRate: 1, Source: "report.json invariant #1"},
	}}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("Promote = %+v, want %+v", f, want)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Write(out, false); err != nil {
		t.Fatal(err)
	}
	back, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Checks) != 2 || back.Checks[1].Property != "forall n0 in nodes: n0.c" {
		t.Errorf("read back %+v", back)
	}
	if _, err := Promote(r, "report.json", out, []int{3}, nil); err == nil || !strings.Contains(err.Error(), "no almost-invariant with rank 3 (the report lists 2)") {
		t.Errorf("Promote of a missing rank: %v", err)
	}
}
