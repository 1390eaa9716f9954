package checker_test

import (
	"fmt"
	"testing"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/specs"
)

// This file holds the raft-like system of the examples, benchmarks and
// API tests: a node's state as a service would expose it, its spec and
// checks of the kind augur promotes.

// entry is a log entry.
type entry struct {
	Index int64 `augur:"index"`
	Term  int64 `augur:"term"`
}

// raftState is a node's state, as passed to collector.Node.Expose.
type raftState struct {
	ID      string  `augur:"id"`
	Term    int64   `augur:"term"`
	Vote    string  `augur:"vote"`
	State   string  `augur:"state"`
	Commit  int64   `augur:"commit"`
	Applied int64   `augur:"applied"`
	Log     []entry `augur:"log"`
}

const raftSpec = `
system: raft
types:
  NodeID: string
  Term: int64
  Index: int64
  Entry: "{index: Index, term: Term}"
variables:
  id: NodeID
  term: Term
  vote: NodeID
  state: {enum: [follower, candidate, leader]}
  commit: Index
  applied: Index
  log: list<Entry>
derived:
  lastTerm: {type: Term, expr: "len(log) == 0 ? 0 : log[len(log)-1].term"}
`

// raftChecks are five checks over one or two nodes, without iterators.
var raftChecks = []checker.Check{
	{Name: "one-leader-per-term", Property: `forall n0, n1 in nodes: n0.term != n1.term or n0.state != "leader" or n1.state != "leader"`},
	{Name: "applied-le-commit", Property: `forall n0 in nodes: n0.applied <= n0.commit`},
	{Name: "leader-voted-for-itself", Property: `forall n0 in nodes: n0.state != "leader" or n0.vote == n0.id`},
	{Name: "leader-commit-highest-in-term", Property: `forall n0, n1 in nodes: n0.state != "leader" or n0.term != n1.term or n1.commit <= n0.commit`},
	{Name: "distinct-ids", Property: `forall n0, n1 in nodes: n0.id != n1.id`},
}

// logCheck iterates over a log: committed entries are in every log that
// reaches them.
var logCheck = checker.Check{
	Name:     "committed-entries-everywhere",
	Property: `forall n0, n1 in nodes: forall e0 in n0.log: n0.commit < e0.index or n1.commit < e0.index or e0 in n1.log`,
}

func raftChecker(tb testing.TB, checks ...checker.Check) *checker.Checker {
	tb.Helper()
	spec, err := specs.Parse("raft.yaml", []byte(raftSpec))
	if err != nil {
		tb.Fatal(err)
	}
	c, err := checker.Compile(spec, &checker.File{Checks: checks})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// cluster returns the states of n nodes in term 3: n00 leads, and every
// node has the same log of 20 entries, committed and applied up to 18 by
// the followers and 19 by the leader.
func cluster(n int) []*raftState {
	var log []entry
	for i := range int64(20) {
		log = append(log, entry{Index: i + 1, Term: 1 + i/10})
	}
	states := make([]*raftState, n)
	for i := range states {
		st := &raftState{ID: fmt.Sprintf("n%02d", i), Term: 3, Vote: "n00", State: "follower", Commit: 18, Applied: 18, Log: log}
		if i == 0 {
			st.State, st.Commit, st.Applied = "leader", 19, 19
		}
		states[i] = st
	}
	return states
}

// snapshotOf returns a snapshot holding states.
func snapshotOf(tb testing.TB, c *checker.Checker, states []*raftState) *checker.Snapshot {
	tb.Helper()
	s := c.NewSnapshot()
	for _, st := range states {
		if err := s.Set(st.ID, st); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}
