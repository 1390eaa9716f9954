package checker_test

import (
	"fmt"
	"testing"

	"github.com/augur-dev/augur/checker"
)

// The figures of the immediate safety check:
//
//	go test ./checker -run '^$' -bench Guard -benchmem -count 5

// BenchmarkGuard guards a follower's change of state (its commit and
// applied index advance, alternately by one and back) against the five
// raft checks, on clusters of 5 and 16 nodes; "+log" adds a check that
// iterates over the logs of 20 entries.
func BenchmarkGuard(b *testing.B) {
	for _, tc := range []struct {
		name   string
		checks []checker.Check
	}{
		{"checks=5", raftChecks},
		{"checks=5+log", append(raftChecks[:len(raftChecks):len(raftChecks)], logCheck)},
	} {
		for _, n := range []int{5, 16} {
			b.Run(fmt.Sprintf("%s/nodes=%d", tc.name, n), func(b *testing.B) {
				c := raftChecker(b, tc.checks...)
				states := cluster(n)
				s := snapshotOf(b, c, states)
				next := [2]raftState{*states[2], *states[2]}
				next[1].Commit, next[1].Applied = 19, 19
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := s.Guard(next[i&1].ID, &next[i&1]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkCheck checks a whole snapshot against the five raft checks.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{5, 16} {
		b.Run(fmt.Sprintf("checks=5/nodes=%d", n), func(b *testing.B) {
			s := snapshotOf(b, raftChecker(b, raftChecks...), cluster(n))
			b.ReportAllocs()
			for b.Loop() {
				if vs := s.Check(); vs != nil {
					b.Fatal(vs[0].Error())
				}
			}
		})
	}
}

// BenchmarkSet sets a node's state from its struct.
func BenchmarkSet(b *testing.B) {
	states := cluster(5)
	s := snapshotOf(b, raftChecker(b, append(raftChecks[:len(raftChecks):len(raftChecks)], logCheck)...), states)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Set(states[2].ID, states[2]); err != nil {
			b.Fatal(err)
		}
	}
}
