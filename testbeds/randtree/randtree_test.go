package randtree

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
		Seeds:      map[string]uint64{BugStaleChild: 1, BugNoRecoveryTimer: 1},
		BugSteps:   3000,
		CleanSeeds: 4,
		CleanSteps: 10000,
	}.Test(t)
}

// tree returns a cluster of len(parents) joined nodes, node i a child of
// parents[i] (none for n1, the root), with children and siblings to match.
func tree(bug string, parents ...int) *cluster {
	sim := testbeds.NewSim(testbeds.Config{Nodes: len(parents), Seed: 1})
	c := &cluster{sim: sim, bug: bug, nodes: make([]*node, len(parents))}
	for i := range parents {
		c.start(i, 0)
		c.nodes[i].joined, c.nodes[i].parent, c.nodes[i].root = true, parents[i], wellKnown
	}
	for i, p := range parents {
		if p != none {
			c.nodes[p].children = append(c.nodes[p].children, i)
		}
	}
	for _, n := range c.nodes {
		if n.parent != none {
			n.siblings = without(c.nodes[n.parent].children, n.id)
		}
	}
	return c
}

// TestSetSiblings checks the reaction to an UpdateSibling that announces a
// child as a sibling: it is no longer a child, except under stale-child.
func TestSetSiblings(t *testing.T) {
	for _, tc := range []struct {
		bug                string
		children, siblings []int
	}{
		{"", []int{}, []int{2, 3}},
		{BugStaleChild, []int{3}, []int{2, 3}},
	} {
		// n1 → n2 → n4; n4 is the parent of n3, which has just rejoined
		// under n1.
		c := tree(tc.bug, none, 0, 3, 1)
		c.Deliver(0, 1, updateSibling{wellKnown, []int{1, 2, 3}})
		n := c.nodes[1]
		if !slices.Equal(n.children, tc.children) || !slices.Equal(n.siblings, tc.siblings) {
			t.Errorf("bug %q: children %v, siblings %v; want %v, %v", tc.bug, n.children, n.siblings, tc.children, tc.siblings)
		}
		if failed := c.Check(); (tc.bug == "") != (len(failed) == 0) {
			t.Errorf("bug %q: Check() = %v", tc.bug, failed)
		}
	}
}

// TestJoin checks who adopts, forwards or ignores a Join.
func TestJoin(t *testing.T) {
	for _, tc := range []struct {
		name     string
		parents  []int
		at, from int // the node the Join reaches, and its sender
		adopted  bool
	}{
		{"root with room", []int{none, 0, none}, 0, 2, true},
		{"full root forwards", []int{none, 0, 0, 0, none}, 0, 4, false},
		{"forwarded by the parent", []int{none, 0, none}, 1, 0, true},
		{"forwarded by a stranger", []int{none, 0, 0, none}, 1, 2, false},
		{"joiner's own child", []int{none, 2, 0}, 1, 2, false},
	} {
		c := tree("", tc.parents...)
		joiner := len(tc.parents) - 1
		c.join(c.nodes[tc.at], tc.from, joiner)
		if got := slices.Contains(c.nodes[tc.at].children, joiner); got != tc.adopted {
			t.Errorf("%s: adopted %v, want %v", tc.name, got, tc.adopted)
		}
	}
}

// TestSingleRoot checks that several roots violate the ground truth only
// when one of them will never rejoin: a stray root with no recovery timer
// refuses even a late reply to one of its Joins.
func TestSingleRoot(t *testing.T) {
	for _, tc := range []struct {
		name      string
		recoverAt int64
		stuck     bool
	}{
		{"recovering", 20, false},
		{"stuck", 0, true},
	} {
		c := tree("", none, 0, none)
		c.nodes[2].root, c.nodes[2].recoverAt = 2, tc.recoverAt
		if failed := slices.Contains(c.Check(), "single-root"); failed != tc.stuck {
			t.Errorf("%s: single-root failed %v, want %v", tc.name, failed, tc.stuck)
		}
		c.Deliver(0, 2, joinReply{wellKnown, []int{1}})
		if adopted := c.nodes[2].parent == 0; adopted == tc.stuck {
			t.Errorf("%s: adopted by a JoinReply %v, want %v", tc.name, adopted, !tc.stuck)
		}
	}
}

// TestRecoveryTimer checks the recovery timer a node exposes: off while it
// joins, armed once a stray root joins itself, except under
// no-recovery-timer, and armed under a parent.
func TestRecoveryTimer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bug   string
		ticks int // ticks of n3 after its join starts, joinTimeout apart
		reply bool
		want  bool
	}{
		{"joining", "", 0, false, false},
		{"joined itself", "", joinTries, false, true},
		{"no-recovery-timer: joined itself", BugNoRecoveryTimer, joinTries, false, false},
		{"no-recovery-timer: adopted", BugNoRecoveryTimer, 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tree(tc.bug, none, 0, none)
			n := c.nodes[2]
			n.joined, n.root = false, none
			c.startJoin(n)
			for range tc.ticks {
				n.joinBy = c.sim.Now()
				c.Tick(2)
			}
			if tc.reply {
				c.Deliver(0, 2, joinReply{wellKnown, []int{1}})
			}
			if got := c.State(2).RecoveryTimer; got != tc.want {
				t.Errorf("recovery_timer %v, want %v (root %s, joining %v)", got, tc.want, name(n.root), n.joining)
			}
		})
	}
}

func TestCyclic(t *testing.T) {
	c := tree("", none, 2, 1)
	if !c.cyclic() {
		t.Error("n2 ⇄ n3 not found cyclic")
	}
	if c := tree("", none, 0, 1); c.cyclic() {
		t.Error("a chain found cyclic")
	}
}

// TestGuard checks that the immediate safety check with the ground truth's
// checks blocks stale-child's damage: the handler that would make a child
// a sibling too is refused.
func TestGuard(t *testing.T) {
	_, g := testbedtest.Guard(t, Testbed, BugStaleChild, 1, 20000, "../../specs/randtree.checks.yaml")
	if g.Tagged["bug:"+BugStaleChild] != 0 {
		t.Errorf("%d bug-tagged snapshots with the guard, want none", g.Tagged["bug:"+BugStaleChild])
	}
}

func TestPredict(t *testing.T) {
	testbedtest.Predict(t, Testbed, BugStaleChild, 1, "../../specs/randtree.checks.yaml")
}

func TestSteer(t *testing.T) {
	testbedtest.Steer(t, Testbed, BugStaleChild, 1, 3000, "../../specs/randtree.checks.yaml")
}

// TestSteerClean steers bug-free runs of seeds 1 to 30, short ones with a
// small budget so that the test takes seconds (augur bench steer steers
// longer runs).
func TestSteerClean(t *testing.T) {
	testbedtest.SteerClean(t, Testbed, "../../specs/randtree.checks.yaml", 30, 50, 100)
}
