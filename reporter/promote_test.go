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
			{Rank: 3, ID: "ddd", Text: "forall n1 in nodes: n1.b", HoldingRate: 0.97},
		},
		Invariants: []*Entry{{Rank: 1, ID: "ccc", Text: "forall n0 in nodes: n0.c", HoldingRate: 1}},
	}
	out := filepath.Join(dir, "ci", "checks.yaml")
	f, err := Promote(r, "report.json", out, []int{2, 3}, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	want := &checker.File{Spec: "../specs/raft.yaml", Checks: []checker.Check{
		{Name: "b", Property: "forall n0 in nodes: n0.b", HoldingRate: 0.98, Source: "report.json almost-invariant #2 (id bbb)"},
		{Name: "b-2", Property: "forall n1 in nodes: n1.b", HoldingRate: 0.97, Source: "report.json almost-invariant #3 (id ddd)"},
		{Name: "c", Property: "forall n0 in nodes: n0.c", HoldingRate: 1, Source: "report.json invariant #1 (id ccc)"},
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
	if len(back.Checks) != 3 || back.Checks[2].Property != "forall n0 in nodes: n0.c" {
		t.Errorf("read back %+v", back)
	}
	if _, err := Promote(r, "report.json", out, []int{4}, nil); err == nil || !strings.Contains(err.Error(), "no almost-invariant with rank 4 (the report lists 3)") {
		t.Errorf("Promote of a missing rank: %v", err)
	}
	r.AlmostInvariants[0].Text = "forall n0 in nodes: n0.a >>> 1" // a report edited by hand
	if _, err := Promote(r, "report.json", out, []int{1}, nil); err == nil || !strings.Contains(err.Error(), "report.json: almost-invariant #1: 1:") {
		t.Errorf("Promote of a property that does not parse: %v", err)
	}
}

func TestCheckName(t *testing.T) {
	tests := []struct{ property, want string }{
		{"forall n0 in nodes: n0.applied <= n0.commit", "applied-le-commit"},
		{`forall n0, n1 in nodes: n0.term != n1.term or n0.state != "leader" or n1.state != "leader"`, "term-ne-term-or-state-ne-leader"},
		{"forall n0, n1 in nodes: n0.lastIndex < n1.commit or not n1.log subset n0.log", "lastindex-lt-commit-or-not-log-subset-log"},
		{"forall n0 in nodes: forall e in n0.log: e.index <= n0.commit", "log-index-le-commit"},
		{"forall n0 in nodes: exists n1 in nodes: n1.vote == n0.id", "vote-eq-id"},
		{`forall n0 in nodes: n0.mode != "a b, c" or n0.x >= -1`, "mode-ne-a-b-c-or-x-ge-1"},
		{"forall n0 in nodes: n0.up", "up"},
		{"forall n0 in nodes: n0.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
	}
	for _, tt := range tests {
		if got := checkName(tt.property); got != tt.want {
			t.Errorf("checkName(%s) = %q, want %q", tt.property, got, tt.want)
		}
	}
}
