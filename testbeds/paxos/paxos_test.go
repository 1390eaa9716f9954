package paxos

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
		Seeds:      map[string]uint64{BugLastPromise: 4, BugLostPromise: 1},
		BugSteps:   4000,
		CleanSeeds: 4,
		CleanSteps: 20000,
	}.Test(t)
}

func TestNextRound(t *testing.T) {
	for _, tc := range []struct {
		id, nodes int
		above     int64
		want      int64
	}{
		{0, 3, 0, 3},
		{2, 3, 0, 5},
		{1, 3, 4, 7},
		{1, 3, 7, 10}, // its own round: the next one
		{4, 5, 23, 29},
	} {
		got := nextRound(tc.id, tc.nodes, tc.above)
		if got != tc.want || got <= tc.above || int(got)%tc.nodes != tc.id {
			t.Errorf("nextRound(%d, %d, %d) = %d, want %d", tc.id, tc.nodes, tc.above, got, tc.want)
		}
	}
}

// newTestCluster is a 3-node cluster with the given bug and no faults.
func newTestCluster(bug string) *cluster {
	cfg := testbeds.Config{Nodes: 3, Bug: bug}
	return newCluster(testbeds.NewSim(cfg), cfg)
}

// TestProposal checks the value a proposer puts in its Accept after a
// majority of Promises, received in order.
func TestProposal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		bug      string
		promises []promise // from nodes 1, 2, … in this order
		want     string
	}{
		{"none accepted", "", []promise{{}, {}}, "own"},
		{"one accepted", "", []promise{{}, {accRound: 2, accValue: "b"}}, "b"},
		{"highest round", "", []promise{{accRound: 2, accValue: "b"}, {accRound: 1, accValue: "a"}}, "b"},
		{"highest round last", "", []promise{{accRound: 1, accValue: "a"}, {accRound: 2, accValue: "b"}}, "b"},
		{"last-promise: last", BugLastPromise, []promise{{accRound: 2, accValue: "b"}, {accRound: 1, accValue: "a"}}, "a"},
		{"last-promise: last with a value", BugLastPromise, []promise{{accRound: 2, accValue: "b"}, {}}, "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCluster(tc.bug)
			n := c.nodes[0]
			n.queue = []string{"own"}
			c.startRound(n)
			for i, p := range tc.promises {
				p.inst, p.round = n.inst, n.round
				c.onPromise(n, i+1, p)
			}
			if n.phase != accepting || n.proposal != tc.want {
				t.Errorf("phase %v, proposal %q; want accept, %q", n.phase, n.proposal, tc.want)
			}
		})
	}
}

// TestPromiseAcrossRestart checks whether an acceptor that promised round
// 5 and restarted still rejects an Accept of round 4.
func TestPromiseAcrossRestart(t *testing.T) {
	for _, tc := range []struct {
		bug      string
		accepted bool
	}{
		{"", false},
		{BugLostPromise, true},
	} {
		c := newTestCluster(tc.bug)
		c.handle(c.nodes[0], 1, prepare{1, 5})
		c.Crash(0)
		c.Restart(0)
		c.handle(c.nodes[0], 1, accept{1, 4, "x"})
		if got := c.nodes[0].accValue == "x"; got != tc.accepted {
			t.Errorf("bug %q: accepted %v, want %v", tc.bug, got, tc.accepted)
		}
	}
}

// TestCatchUp checks that a node that missed instances learns them from
// a node ahead of it and then follows it into its open instance.
func TestCatchUp(t *testing.T) {
	c := newTestCluster("")
	ahead, behind := c.nodes[1], c.nodes[0]
	for _, v := range []string{"a", "b"} {
		c.record(ahead, accept{ahead.inst, 3, v})
		c.record(c.nodes[2], accept{ahead.inst, 3, v})
		c.learn(ahead, v)
		c.advance(ahead)
	}
	c.handle(behind, 1, prepare{ahead.inst, 4}) // behind asks ahead to catch up
	c.handle(ahead, 0, catchUp{behind.inst})
	c.handle(behind, 1, decided{1, []string{"a", "b"}})
	c.handle(behind, 1, prepare{ahead.inst, 4})
	if got := c.State(0); got.Instance != 3 || got.Promised != 4 || len(got.Log) != 2 || got.Log[1].Value != "b" {
		t.Errorf("after catching up: %+v", got)
	}
	if failed := c.Check(); failed != nil {
		t.Errorf("Check() = %v", failed)
	}
}

func TestPredict(t *testing.T) {
	testbedtest.Predict(t, Testbed, BugLostPromise, 1, "../../specs/paxos.checks.yaml")
}

// TestSteerClean steers bug-free runs of seeds 1 to 30, short ones with a
// small budget so that the test takes seconds (augur bench steer steers
// longer runs).
func TestSteerClean(t *testing.T) {
	testbedtest.SteerClean(t, Testbed, "../../specs/paxos.checks.yaml", 30, 50, 100)
}

// TestVotes checks the votes an acceptor exposes: every round and value
// it accepted in the open instance, a repeated Accept once, kept across a
// restart, gone in the next instance; and that the node's hash tells
// votes apart.
func TestVotes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bug     string
		accepts []accept // delivered to node 1 in this order
		restart bool     // crash and restart node 1 after the accepts
		after   []accept // delivered after the restart
		advance bool     // then learn and move to the next instance
		want    []Vote
	}{
		{"none", "", nil, false, nil, false, []Vote{}},
		{"two rounds", "", []accept{{1, 3, "a"}, {1, 5, "b"}}, false, nil, false, []Vote{{3, "a"}, {5, "b"}}},
		{"repeated", "", []accept{{1, 3, "a"}, {1, 3, "a"}}, false, nil, false, []Vote{{3, "a"}}},
		{"restarted", "", []accept{{1, 3, "a"}, {1, 5, "b"}}, true, nil, false, []Vote{{3, "a"}, {5, "b"}}},
		{"lower round refused after a restart", "", []accept{{1, 5, "b"}}, true, []accept{{1, 4, "a"}}, false, []Vote{{5, "b"}}},
		{"lost-promise: lower round after a restart", BugLostPromise, []accept{{1, 5, "b"}}, true, []accept{{1, 4, "a"}}, false, []Vote{{5, "b"}, {4, "a"}}},
		{"next instance", "", []accept{{1, 3, "a"}}, false, nil, true, []Vote{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCluster(tc.bug)
			for _, m := range tc.accepts {
				c.handle(c.nodes[0], 1, m)
			}
			if tc.restart {
				c.Crash(0)
				c.Restart(0)
			}
			for _, m := range tc.after {
				c.handle(c.nodes[0], 1, m)
			}
			if tc.advance {
				c.learn(c.nodes[0], "a")
				c.advance(c.nodes[0])
			}
			if got := c.State(0).Votes; !slices.Equal(got, tc.want) {
				t.Errorf("votes %v, want %v", got, tc.want)
			}
			if len(tc.want) == 0 {
				return
			}
			h := c.Hash(0)
			c.Own(0)
			c.nodes[0].accVotes = c.nodes[0].accVotes[:len(c.nodes[0].accVotes)-1]
			if c.Hash(0) == h {
				t.Error("hash unchanged without the last vote")
			}
		})
	}
}
