package planted

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/pipeline"
)

// complexity orders properties as a reader (and the reporter) prefers
// them: fewer node variables, then iterators, then literals.
func complexity(p *grammar.Property) [3]int {
	return [3]int{len(p.NodeVars()), len(p.IterVars()), len(p.Matrix)}
}

func compareComplexity(a, b [3]int) int {
	return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]), cmp.Compare(a[2], b[2]))
}

// rivals returns, for each planted property of sys, the properties of
// its spec's pool that are as good an answer: as complex and failing at
// exactly its planted snapshots, or simpler and failing at some of them
// and nowhere else. It also fails the test when a planted property is not
// in the pool.
func rivals(t *testing.T, sys *System) map[string][]string {
	t.Helper()
	dir := t.TempDir()
	spec, tr := filepath.Join(dir, "spec.yaml"), filepath.Join(dir, "run.trace")
	if err := sys.WriteSpec(spec); err != nil {
		t.Fatal(err)
	}
	if err := sys.WriteTrace(tr); err != nil {
		t.Fatal(err)
	}
	p, err := pipeline.Open(spec, tr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := p.Evaluate(context.Background(), evaluator.Options{MaxWitnesses: -1, MaxMoments: MaxViolations + 1}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, pl := range sys.Planted {
		want, err := identity(pl.Text)
		if err != nil {
			t.Fatal(err)
		}
		var plc [3]int
		found := false
		for _, pr := range p.Program.Props {
			if id, _ := identity(pr.Text); id == want {
				found, plc = true, complexity(pr.Property)
			}
		}
		if !found {
			t.Errorf("seed %d: planted %s is not in the pool of its spec", sys.Seed, pl.Text)
			continue
		}
		for i, pr := range p.Program.Props {
			st := &res.Stats[i]
			c := compareComplexity(complexity(pr.Property), plc)
			if st.ViolatingSnapshots == 0 || st.ViolatingSnapshots > int64(len(pl.Snapshots)) || c > 0 ||
				c == 0 && st.ViolatingSnapshots < int64(len(pl.Snapshots)) {
				continue
			}
			if id, _ := identity(pr.Text); id == want {
				continue
			}
			if !slices.ContainsFunc(st.Moments, func(m uint64) bool { return !slices.Contains(pl.Snapshots, m) }) {
				out[pl.Text] = append(out[pl.Text], pr.Text)
			}
		}
	}
	return out
}

func TestRivalsExplore(t *testing.T) {
	if testing.Short() || !*explore {
		t.Skip()
	}
	for seed := int64(1); seed <= int64(*exploreN); seed++ {
		opts := Options{MaxNodes: 9, MinSnapshots: 1000, MaxSnapshots: 1500}
		if *exploreDefault {
			opts = Options{}
		}
		sys := mustGenerate(t, seed, opts)
		for pl, rs := range rivals(t, sys) {
			t.Logf("seed %d: %s (%s)\n\trivals: %v", seed, pl, sys.Describe(), rs)
		}
	}
}
