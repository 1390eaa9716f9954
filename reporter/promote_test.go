package reporter

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/augur-dev/augur/checker"
)

func TestPromote(t *testing.T) {
	dir := t.TempDir()
	r := &Report{
		Version: Version,
		Spec:    filepath.Join(dir, "specs", "raft.yaml"),
		AlmostInvariants: []*Entry{
			{Rank: 1, ID: "aaa", Text: "forall n0 in nodes: n0.a", HoldingRate: 0.99},
			{Rank: 2, ID: "bbb", Text: "forall n0 in nodes: n0.b", HoldingRate: 0.98},
		},
		Invariants: []*Entry{{Rank: 1, ID: "ccc", Text: "forall n0 in nodes: n0.c", HoldingRate: 1}},
	}
	out := filepath.Join(dir, "ci", "checks.yaml")
	f, err := Promote(r, "report.json", out, []int{2}, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	want := &checker.File{Spec: "../specs/raft.yaml", Checks: []checker.Check{
		{Name: "bbb", Property: "forall n0 in nodes: n0.b", HoldingRate: 0.98, Source: "report.json almost-invariant #2"},
		{Name: "ccc", Property: "forall n0 in nodes: n0.c", HoldingRate: 1, Source: "report.json invariant #1"},
	}}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("Promote = %+v, want %+v", f, want)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Write(out); err != nil {
		t.Fatal(err)
	}
	back, err := checker.Load(out)
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
