package etcdraft

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/augur-dev/augur/testbeds"
)

func run(t *testing.T, bug string, seed uint64, steps int) testbeds.Stats {
	t.Helper()
	cfg := testbeds.Config{Nodes: 3, Steps: steps, Seed: seed, Faults: testbeds.DefaultFaults(), Bug: bug}
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
		{BugLostVote, 2},
		{BugLostTail, 1},
		{BugApplyUncommitted, 5},
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
	for seed := uint64(1); seed <= 3; seed++ {
		st := run(t, "", seed, 3000)
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
	a, b := run(t, BugLostVote, 6, 2000), run(t, BugLostVote, 6, 2000)
	a.Elapsed, b.Elapsed = 0, 0
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different runs:\n%+v\n%+v", a, b)
	}
}

func TestUnknownBug(t *testing.T) {
	if _, err := Run(testbeds.Config{Nodes: 3, Steps: 10, Bug: "nope"}, filepath.Join(t.TempDir(), "x.trace")); err == nil {
		t.Error("Run with an unknown bug succeeded")
	}
}
