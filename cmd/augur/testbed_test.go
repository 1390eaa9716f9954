package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
	"github.com/augur-dev/augur/testbeds/testbedtest"
)

// testbedTraces are the small committed traces of the testbeds, one with
// and one without a bug each (of another seed, so that it can serve as a
// baseline), used by testdata/script/testbeds_golden.txtar.
var testbedTraces = []struct {
	testbed, bug string
	seed         uint64
	steps        int
}{
	{"etcdraft", "", 3, 5000},
	{"etcdraft", "lost-vote", 2, 5000},
	{"chord", "", 2, 5000},
	{"chord", "pred-self", 1, 5000},
	{"paxos", "", 2, 5000},
	{"paxos", "last-promise", 2, 20000},
	{"randtree", "", 2, 5000},
	{"randtree", "stale-child", 1, 5000},
}

// TestTestbedTraces checks that the committed testbed traces are what the
// testbeds make from their seeds today. Regenerate them with
//
//	go test ./cmd/augur -run TestTestbedTraces -update
func TestTestbedTraces(t *testing.T) {
	for _, tt := range testbedTraces {
		name := tt.testbed
		if tt.bug != "" {
			name += "-" + tt.bug
		}
		t.Run(name, func(t *testing.T) {
			tb, err := catalog.Lookup(tt.testbed)
			if err != nil {
				t.Fatal(err)
			}
			cfg := testbeds.Config{Nodes: tb.Nodes, Steps: tt.steps, Seed: tt.seed, Faults: tb.Faults,
				Bug: tt.bug, ResetAfter: testbeds.DefaultResetAfter}
			dir := filepath.Join(t.TempDir(), "run.trace")
			if _, err := tb.Run(t.Context(), cfg, dir); err != nil {
				t.Fatal(err)
			}
			committed := filepath.Join("..", "..", "testdata", "testbeds", name+".trace")
			if *update {
				if err := os.RemoveAll(committed); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Dir(committed), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(dir, committed); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, f := range testbedtest.DiffTraces(t, dir, committed) {
				t.Errorf("%s differs from the committed trace; regenerate with -update", f)
			}
		})
	}
}
