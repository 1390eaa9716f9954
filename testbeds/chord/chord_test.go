package chord

import (
	"slices"
	"testing"

	"github.com/augur-dev/augur/testbeds/testbedtest"

	"github.com/augur-dev/augur/testbeds"
)

// TestTestbed checks what every testbed must do (package testbedtest).
func TestTestbed(t *testing.T) {
	testbedtest.Suite{
		Testbed:    Testbed,
		Seeds:      map[string]uint64{BugPredSelf: 1},
		BugSteps:   3000,
		CleanSeeds: 4,
		CleanSteps: 20000,
	}.Test(t)
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
	if !r.consistent() {
		t.Fatal("boot ring is not consistent")
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

// TestCheck checks the ground truth on a settled boot ring where node n1
// has lost track of its neighbours.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(n *node)
		want   []string
	}{
		{"stable", func(*node) {}, nil},
		{"no predecessor", func(n *node) { n.pred = none }, []string{"ring"}},
		{"own predecessor", func(n *node) { n.pred = 0 }, []string{"pred-self", "ring"}},
		{"successor skipped", func(n *node) { n.succs = n.succs[1:] }, []string{"ring"}},
		{"not joined", func(n *node) { *n = node{pred: none} }, nil}, // the ring is not settled
	} {
		cfg := testbeds.Config{Nodes: 5}
		r := newRing(testbeds.NewSim(cfg), cfg)
		r.calm -= settle * testbeds.TickEvery
		tc.change(r.nodes[0])
		if got := r.Check(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Check() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRingHeals checks that bug-free runs keep the ground truth when
// crashed nodes stay down long enough to be dropped from the ring, which
// must then heal around them and let them in again.
func TestRingHeals(t *testing.T) {
	tb := Testbed
	tb.Faults.Down = 200
	for seed := uint64(1); seed <= 2; seed++ {
		st := testbedtest.Run(t, tb, "", seed, 20000)
		for tag, n := range st.Tagged {
			if tag != "steady" {
				t.Errorf("seed %d: %d snapshots tagged %s", seed, n, tag)
			}
		}
	}
}

// TestGuard checks that the immediate safety check refuses the join that
// makes a node its own predecessor.
func TestGuard(t *testing.T) {
	testbedtest.Guard(t, Testbed, BugPredSelf, 1, 20000, "../../specs/chord.checks.yaml")
}

func TestPredict(t *testing.T) {
	testbedtest.Predict(t, Testbed, BugPredSelf, 1, "../../specs/chord.checks.yaml")
}

func TestSteer(t *testing.T) {
	testbedtest.Steer(t, Testbed, BugPredSelf, 1, 3000, "../../specs/chord.checks.yaml")
}

// TestSteerClean steers bug-free runs of seeds 1 to 30, short ones with a
// small budget so that the test takes seconds (augur bench steer steers
// longer runs).
func TestSteerClean(t *testing.T) {
	testbedtest.SteerClean(t, Testbed, "../../specs/chord.checks.yaml", 30, 50, 100)
}
