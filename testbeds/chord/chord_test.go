package chord

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/augur-dev/augur/testbeds"
)

func run(t *testing.T, bug string, seed uint64, steps int) testbeds.Stats {
	t.Helper()
	cfg := testbeds.Config{Nodes: Testbed.Nodes, Steps: steps, Seed: seed, Faults: Testbed.Faults, Bug: bug}
	st, err := Run(cfg, filepath.Join(t.TempDir(), "run.trace"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Snapshots != steps {
		t.Errorf("%d snapshots, want %d", st.Snapshots, steps)
	}
	return st
}

// TestBugsManifest checks that each injected bug trips the ground truth in
// a short seeded run.
func TestBugsManifest(t *testing.T) {
	for _, tc := range []struct {
		bug  string
		seed uint64
	}{
		{BugPredSelf, 1},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			st := run(t, tc.bug, tc.seed, 3000)
			if st.Tagged["bug:"+tc.bug] == 0 {
				t.Errorf("no snapshot tagged bug:%s; tags %v", tc.bug, st.Tagged)
			}
			for tag := range st.Tagged {
				if tag != "steady" && tag != "bug:"+tc.bug {
					t.Errorf("unexpected tag %s", tag)
				}
			}
		})
	}
}

// TestCorrect checks that bug-free runs pass every ground-truth check
// under the default faults.
func TestCorrect(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		st := run(t, "", seed, 20000)
		for tag, n := range st.Tagged {
			if tag != "steady" {
				t.Errorf("seed %d: %d snapshots tagged %s", seed, n, tag)
			}
		}
		if st.Crashes == 0 || st.Dropped == 0 {
			t.Errorf("seed %d: no faults: %+v", seed, st)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, b := run(t, BugPredSelf, 6, 2000), run(t, BugPredSelf, 6, 2000)
	a.Elapsed, b.Elapsed = 0, 0
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different runs:\n%+v\n%+v", a, b)
	}
}

func TestUnknownBug(t *testing.T) {
	if _, err := Run(testbeds.Config{Nodes: 5, Steps: 10, Bug: "nope"}, filepath.Join(t.TempDir(), "x.trace")); err == nil {
		t.Error("Run with an unknown bug succeeded")
	}
}

func TestBetween(t *testing.T) {
	for _, tc := range []struct {
		a, x, b int
		want    bool
	}{
		{10, 20, 30, true},
		{10, 10, 30, false}, // open at both ends
		{10, 30, 30, false},
		{10, 40, 30, false},
		{60000, 5, 30, true}, // wraps past zero
		{60000, 65535, 30, true},
		{60000, 100, 30, false},
		{10, 5, 10, true}, // (a, a) is the ring but a
		{10, 10, 10, false},
	} {
		if got := between(tc.a, tc.x, tc.b); got != tc.want {
			t.Errorf("between(%d, %d, %d) = %v, want %v", tc.a, tc.x, tc.b, got, tc.want)
		}
	}
}

// TestSuccessorList checks that a successor list runs clockwise from its
// node and stops where it would wrap past it.
func TestSuccessorList(t *testing.T) {
	r := &ring{keys: []int{100, 200, 300, 400, 500}}
	for _, tc := range []struct {
		i          int
		cand, want []int
	}{
		{0, []int{1, 2, 3, 4}, []int{1, 2, 3}},
		{3, []int{4, 0, 1}, []int{4, 0, 1}},
		{3, []int{4, 3, 0}, []int{4}},    // the node itself
		{2, []int{3, 4, 3}, []int{3, 4}}, // a duplicate
		{2, []int{4, 3}, []int{4}},       // out of order
		{1, nil, nil},
	} {
		if got := r.successorList(tc.i, tc.cand); !slices.Equal(got, tc.want) {
			t.Errorf("successorList(%d, %v) = %v, want %v", tc.i, tc.cand, got, tc.want)
		}
	}
}

// TestBootRing checks that an episode starts from a stable ring.
func TestBootRing(t *testing.T) {
	cfg := testbeds.Config{Nodes: 5}
	r := newRing(testbeds.NewSim(cfg), cfg)
	if failed := r.Check(); len(failed) > 0 {
		t.Fatalf("boot ring fails %v", failed)
	}
	for i, n := range r.nodes {
		if len(n.succs) != listLen {
			t.Errorf("%s: successors %v", testbeds.Name(i), n.succs)
		}
		if r.nodes[n.succs[0]].pred != i {
			t.Errorf("%s: successor %s has predecessor %d", testbeds.Name(i), testbeds.Name(n.succs[0]), r.nodes[n.succs[0]].pred)
		}
		for j := range r.nodes {
			if between(r.keys[i], r.keys[j], r.keys[n.succs[0]]) {
				t.Errorf("%s: %s lies between it and its successor", testbeds.Name(i), testbeds.Name(j))
			}
		}
	}
}
