package predict_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/predict"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/chord"
	"github.com/augur-dev/augur/testbeds/paxos"
	"github.com/augur-dev/augur/testbeds/randtree"
)

// TestExploreIncremental checks that counting the failing bindings of
// the one node an event changes finds what evaluating every explored
// state whole finds: the same states, paths, violations and witnesses,
// on copies of the testbeds with their bugs, with checks that fail often
// in explored states (one node, two nodes, an iterator, an exists) beside
// the ground truth's.
func TestExploreIncremental(t *testing.T) {
	cases := []struct {
		tb    testbeds.Testbed
		bug   string
		extra []string
	}{
		{chord.Testbed, chord.BugPredSelf, []string{
			"forall n0, n1 in nodes: n0.succ != n1.succ",
			"forall n0 in nodes: n0.pred != n0.succ or not n0.joined",
			"forall n0, n1 in nodes: forall e0 in n0.succs: e0 != n1.id or n1.joined",
			"forall n0 in nodes: exists n1 in nodes: n1.pred == n0.id",
		}},
		{paxos.Testbed, paxos.BugLastPromise, []string{
			"forall n0, n1 in nodes: n0.instance == n1.instance",
			`forall n0 in nodes: n0.phase == "idle"`,
			"forall n0, n1 in nodes: n0.promised <= n1.promised or n0.accepted_value == n1.accepted_value",
		}},
		{randtree.Testbed, randtree.BugStaleChild, []string{
			"forall n0, n1 in nodes: n0.root == n1.root",
			"forall n0, n1 in nodes: forall e0 in n0.children: e0 != n1.id or n1.parent == n0.id",
			"forall n0 in nodes: exists n1 in nodes: n1.id == n0.root",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.tb.Name, func(t *testing.T) {
			c := compileWith(t, tc.tb.Name, tc.extra)
			paths := 0
			for _, steps := range []int{200, 700} {
				m, err := tc.tb.Fork(t.Context(), testbeds.Config{Nodes: tc.tb.Nodes, Seed: 3, Faults: tc.tb.Faults, Bug: tc.bug}, steps)
				if err != nil {
					t.Fatal(err)
				}
				opts := predict.Options{Depth: 4, MaxStates: 400, MaxPaths: 1000, Budget: time.Hour}
				got, err := predict.Explore(m, c, opts)
				if err != nil {
					t.Fatal(err)
				}
				want, err := predict.ExploreWhole(m, c, opts)
				if err != nil {
					t.Fatal(err)
				}
				paths += len(want.Paths)
				if got.States != want.States || got.Seen != want.Seen || got.Depth != want.Depth || len(got.Paths) != len(want.Paths) {
					t.Fatalf("after %d steps: %d states, %d seen, depth %d, %d paths; whole: %d, %d, %d, %d",
						steps, got.States, got.Seen, got.Depth, len(got.Paths), want.States, want.Seen, want.Depth, len(want.Paths))
				}
				for i := range got.Paths {
					if g, w := describe(&got.Paths[i]), describe(&want.Paths[i]); g != w {
						t.Fatalf("after %d steps, path %d:\n got %s\nwant %s", steps, i, g, w)
					}
				}
			}
			t.Logf("%d violating paths", paths)
			if paths == 0 {
				t.Error("no violating path: the test checks nothing")
			}
		})
	}
}

// compileWith compiles the testbed's ground-truth checks and the extra
// properties.
func compileWith(t *testing.T, name string, extra []string) *checker.Checker {
	t.Helper()
	f, err := checker.Load("../specs/" + name + ".checks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := specs.Load("../specs/" + name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := &checker.File{Spec: f.Spec, Checks: f.Checks}
	for i, p := range extra {
		g.Checks = append(g.Checks, checker.Check{Name: fmt.Sprintf("extra-%d", i), Property: p})
	}
	c, err := checker.Compile(spec, g)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// describe renders a path's events and every violation, failing
// bindings and witness included.
func describe(p *predict.Path) string {
	s := fmt.Sprintf("%d events: ", len(p.Events))
	for _, e := range p.Events {
		s += fmt.Sprintf("%v %d→%d %x; ", e.Kind, e.From, e.Node, e.Hash)
	}
	for _, v := range p.Violations {
		s += fmt.Sprintf("| %s %d/%d %v ", v.Check.Name, v.Failing, v.Bindings, v.Witness)
	}
	return s
}
