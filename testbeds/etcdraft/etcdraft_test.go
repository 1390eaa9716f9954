package etcdraft

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/testbeds"
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
// from its disk), and with apply-uncommitted the store holds back entries
// beyond the commit index. (At seed 1, the guarded run reaches as many
// bug-tagged snapshots as the unguarded one: a store that restarts, which
// is not guarded, applies entries that are then overwritten.)
func TestGuard(t *testing.T) {
	testbedtest.Guard(t, Testbed, BugLostTail, 1, 20000, "../../specs/etcdraft.checks.yaml")
	_, g := testbedtest.Guard(t, Testbed, BugApplyUncommitted, 5, 20000, "../../specs/etcdraft.checks.yaml")
	if g.BlockedBy["apply-committed"] == 0 {
		t.Errorf("blocked by %v, want apply-committed", g.BlockedBy)
	}
}

func TestPredict(t *testing.T) {
	testbedtest.Predict(t, Testbed, BugLostVote, 2, "../../specs/etcdraft.checks.yaml")
}

// TestStoreDamage checks how a store's digests tell its damage: it agrees
// with the committed entries while it has applied a prefix of them, each
// once and in order, and disagrees for good once it skips one (as a store
// that restarts empty and applies only new entries does), applies one
// twice or applies another entry in one's place, however many committed
// entries it applies after.
func TestStoreDamage(t *testing.T) {
	entry := func(i, term uint64) *pb.Entry {
		return &pb.Entry{Index: &i, Term: &term, Data: fmt.Appendf(nil, "%c=%d", 'a'+i%keys, i)}
	}
	committed := func(from, to uint64) []*pb.Entry {
		var ents []*pb.Entry
		for i := from; i <= to; i++ {
			ents = append(ents, entry(i, 1))
		}
		return ents
	}
	other := entry(4, 2) // an entry of a deposed leader, never committed
	for _, tc := range []struct {
		name    string
		applied []*pb.Entry
		want    bool
	}{
		{"nothing", nil, true},
		{"behind", committed(2, 4), true},
		{"all", committed(2, 6), true},
		{"ahead", committed(2, 7), true},
		{"skipped", committed(5, 6), false},
		{"skipped-one", append(committed(2, 3), committed(5, 6)...), false},
		{"twice", append(committed(2, 4), committed(4, 6)...), false},
		{"uncommitted", append(committed(2, 3), other), false},
		{"overwritten", append(append(committed(2, 3), other), committed(4, 6)...), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, store := &node{kv: map[string]string{}, digests: []uint64{0, 0}}, &node{kv: map[string]string{}, digests: []uint64{0, 0}}
			want.apply(committed(2, 6))
			store.apply(tc.applied)
			if got := agree(store.digests, want.digests); got != tc.want {
				t.Errorf("agree = %v, want %v", got, tc.want)
			}
			// Damage lasts: applying the committed entries that follow
			// leaves the verdict as it was.
			want.apply(committed(7, 9))
			applied, _ := store.applied(nil)
			store.apply(committed(applied+1, 9))
			if got := agree(store.digests, want.digests); got != tc.want {
				t.Errorf("after the committed entries up to 9: agree = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDamageTagged checks the ground truth against the stores as the
// trace shows them: every snapshot in which two stores have applied
// different entries up to the same index (the checks file's same-store
// fails) carries the bug's tag, however long after the bug struck, and a
// bug-free run has none. At seed 12, apply-uncommitted's stores once parted
// at 18,312 of 20,000 snapshots of which 31 were tagged (issue 32): a
// restarted store applied only new entries, skipping those on its disk.
func TestDamageTagged(t *testing.T) {
	f, spec, err := checker.LoadWithSpec("../../specs/etcdraft.checks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f.Checks = slices.DeleteFunc(f.Checks, func(c checker.Check) bool { return c.Name != "same-store" })
	if len(f.Checks) != 1 {
		t.Fatalf("%d checks named same-store", len(f.Checks))
	}
	const steps = 20000
	for _, tc := range []struct {
		bug  string
		seed uint64
	}{
		{BugApplyUncommitted, 12},
		{BugLostTail, 4},
		{BugLostVote, 6},
		{"", 12},
	} {
		t.Run(fmt.Sprintf("%s-%d", cmp.Or(tc.bug, "none"), tc.seed), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run.trace")
			cfg := testbeds.Config{Nodes: Testbed.Nodes, Steps: steps, Seed: tc.seed, Faults: Testbed.Faults,
				Bug: tc.bug, ResetAfter: testbeds.DefaultResetAfter}
			if _, err := Testbed.Run(t.Context(), cfg, dir); err != nil {
				t.Fatal(err)
			}
			st := testbedtest.Check(t, dir, spec, f, 0)[0]
			if tc.bug == "" {
				if st.ViolatingSnapshots != 0 {
					t.Errorf("the stores part at %d snapshots of a bug-free run", st.ViolatingSnapshots)
				}
				return
			}
			if tagged := st.Tags["bug:"+tc.bug]; st.ViolatingSnapshots == 0 || tagged != st.ViolatingSnapshots {
				t.Errorf("the stores part at %d snapshots, %d of them tagged bug:%s; want some, all tagged", st.ViolatingSnapshots, tagged, tc.bug)
			}
		})
	}
}

// TestCleanRunsPassChecks checks the hand-written checks against
// bug-free runs: every one holds at every snapshot. A leader cut off by a
// partition keeps its role, with no quorum check, while the majority
// elects a leader of a later term and commits beyond the deposed one's
// log; leader completeness asks only the leaders of later terms to hold
// what was committed. At seed 5 such a leader of term 5 lacked the
// entries the leader of term 6 committed for 9 snapshots, and a check
// that asked every leader to hold every node's commit index failed
// there (and in 6 of 70 bug-free runs of 3,000 snapshots).
func TestCleanRunsPassChecks(t *testing.T) {
	f, spec, err := checker.LoadWithSpec("../../specs/etcdraft.checks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run.trace")
			cfg := testbeds.Config{Nodes: Testbed.Nodes, Steps: 3000, Seed: seed, Faults: Testbed.Faults,
				ResetAfter: testbeds.DefaultResetAfter}
			if _, err := Testbed.Run(t.Context(), cfg, dir); err != nil {
				t.Fatal(err)
			}
			for i, st := range testbedtest.Check(t, dir, spec, f, 1) {
				if st.ViolatingSnapshots > 0 {
					t.Errorf("%s fails at %d snapshots, first %+v", f.Checks[i].Name, st.ViolatingSnapshots, st.Witnesses()[0])
				}
			}
		})
	}
}

// TestRestartStore checks that a store a node rebuilds when it restarts
// is the one it had, with or without apply-uncommitted: one node, its own
// majority, commits a few proposals, crashes, restarts and commits one
// more, and its store has applied every entry of its log, in order.
func TestRestartStore(t *testing.T) {
	for _, bug := range []string{"", BugApplyUncommitted} {
		t.Run(cmp.Or(bug, "none"), func(t *testing.T) {
			cfg := testbeds.Config{Nodes: 1, Seed: 1, Bug: bug}
			c := newCluster(testbeds.NewSim(cfg), cfg)
			lead := func() {
				for range 2 * electionMin {
					c.Tick(0)
				}
			}
			lead()
			for range 3 {
				c.Propose(0)
			}
			c.Crash(0)
			c.Restart(0)
			lead()
			c.Propose(0)
			if s := c.State(0); s.Role != "leader" || s.KVApplied != s.LastIndex || s.KVApplied < 6 {
				t.Errorf("%s with a store applied up to %d, log up to %d; want a leader with a store up to its log's last index, 6 or more", s.Role, s.KVApplied, s.LastIndex)
			}
			if failed := c.Check(); len(failed) > 0 {
				t.Errorf("checks %v fail", failed)
			}
		})
	}
}
