package etcdraft

import (
	"testing"

	"github.com/augur-dev/augur/testbeds/testbedtest"
)

// TestTestbed checks what every testbed must do (package testbedtest).
func TestTestbed(t *testing.T) {
	testbedtest.Suite{
		Testbed:    Testbed,
		Seeds:      map[string]uint64{BugLostVote: 2, BugLostTail: 1, BugApplyUncommitted: 5},
		BugSteps:   3000,
		CleanSeeds: 3,
		CleanSteps: 3000,
	}.Test(t)
}

// TestGuard checks the immediate safety check on raft: with lost-tail, a
// node becoming a leader that lacks committed entries, or a store about
// to diverge, is refused (the step is taken back by rebuilding the node
// from its disk), and with apply-uncommitted the store refuses to apply
// entries beyond the commit index.
func TestGuard(t *testing.T) {
	testbedtest.Guard(t, Testbed, BugLostTail, 1, 20000, "../../specs/etcdraft.checks.yaml")
	_, g := testbedtest.Guard(t, Testbed, BugApplyUncommitted, 1, 20000, "../../specs/etcdraft.checks.yaml")
	if g.BlockedBy["apply-committed"] == 0 {
		t.Errorf("blocked by %v, want apply-committed", g.BlockedBy)
	}
}

func TestPredict(t *testing.T) {
	testbedtest.Predict(t, Testbed, BugLostVote, 2, "../../specs/etcdraft.checks.yaml")
}
