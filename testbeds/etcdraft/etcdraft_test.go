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
