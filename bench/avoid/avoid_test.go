package avoid

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/testbeds/catalog"
)

// TestRows checks the sums of a row, its avoided shares and progress
// loss, and the targets.
func TestRows(t *testing.T) {
	run := func(seed uint64, m Mode, violations, progress int) *Run {
		return &Run{Testbed: "paxos", Bug: "lost-promise", Seed: seed, Mode: m, Violations: violations, Progress: progress, Steps: 1000}
	}
	runs := []*Run{
		run(1, Plain, 3, 10), run(1, Guard, 1, 10), run(1, Steer, 0, 10), run(1, Predict, 2, 10),
		run(2, Plain, 1, 10), run(2, Guard, 1, 10), run(2, Steer, 1, 8), run(2, Predict, 0, 0),
	}
	rows := Rows(runs)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	r := rows[0]
	if r.Seeds != 2 || r.Violations[Plain] != 4 || r.Manifest[Plain] != 2 || r.Manifest[Steer] != 1 || r.Stalled[Predict] != 1 {
		t.Errorf("row %+v", r)
	}
	for _, tt := range []struct {
		m    Mode
		want float64
	}{{Guard, 0.5}, {Steer, 0.75}, {Predict, 0.5}} {
		if a, ok := r.Avoided(tt.m); !ok || a != tt.want {
			t.Errorf("%s avoided %v, %v; want %v", tt.m, a, ok, tt.want)
		}
	}
	if l, ok := r.Loss(Steer); !ok || l < 0.099 || l > 0.101 {
		t.Errorf("steer lost %v, want 10%%", l)
	}
	if !Met(rows) {
		t.Error("targets not met; 75% avoided, 10% lost meets them")
	}
	runs[6].Progress = 7
	if Met(Rows(runs)) {
		t.Error("targets met with 15% of the progress lost")
	}
	var b bytes.Buffer
	if err := WriteText(&b, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no (predict: 1 runs stalled)") || !strings.Contains(b.String(), "mean avoided over 1 bugs that manifested: guard 50% steer 75% predict 50%") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestVet checks that vetting drops a check that refuses the changes of a
// bug-free run and keeps the hand-written ones, which a correct run never
// breaks.
func TestVet(t *testing.T) {
	tb, err := catalog.Lookup("randtree")
	if err != nil {
		t.Fatal(err)
	}
	f, err := checker.Load("../../specs/randtree.checks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	hand := len(f.Checks)
	f.Checks = append(f.Checks, checker.Check{Name: "never-joined", Property: "forall n0 in nodes: not n0.joined"})
	dropped, err := Vet(context.Background(), tb, f, []uint64{1, 2}, 300)
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || dropped[0].Check != "never-joined" || dropped[0].Refused == 0 || dropped[0].Round != 1 {
		t.Errorf("dropped %+v, want never-joined in round 1", dropped)
	}
	if len(f.Checks) != hand {
		t.Errorf("%d checks kept, want the %d hand-written ones", len(f.Checks), hand)
	}
}
