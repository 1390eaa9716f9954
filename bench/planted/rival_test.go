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
// its spec's pool that are as good an answer: failing at some of its
// planted snapshots and nowhere else but at its legitimate moments, and
// simpler, or as complex and failing at as many snapshots. It also fails
// the test when a planted property is not in the pool.
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
	moments := 1
	for _, pl := range sys.Planted {
		moments = max(moments, len(pl.Snapshots)+len(pl.Legit)+1)
	}
	res, err := p.Evaluate(context.Background(), evaluator.Options{MaxWitnesses: evaluator.NoWitnesses, MaxMoments: moments}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, pl := range sys.Planted {
		// The property and its other texts.
		same := map[string]bool{}
		for _, text := range slices.Concat([]string{pl.Text}, pl.Alts) {
			id, err := identity(text)
			if err != nil {
				t.Fatal(err)
			}
			same[id] = true
		}
		var plc [3]int
		found := false
		for _, pr := range p.Program.Props {
			if id, _ := identity(pr.Text); same[id] {
				found, plc = true, complexity(pr.Property)
			}
		}
		if !found {
			t.Errorf("seed %d: planted %s is not in the pool of its spec", sys.Seed, pl.Text)
			continue
		}
		fails := int64(len(pl.Snapshots) + len(pl.Legit))
		for i, pr := range p.Program.Props {
			st := &res.Stats[i]
			c := compareComplexity(complexity(pr.Property), plc)
			if st.ViolatingSnapshots == 0 || st.ViolatingSnapshots > fails || c > 0 || c == 0 && st.ViolatingSnapshots < fails {
				continue
			}
			if id, _ := identity(pr.Text); same[id] {
				continue
			}
			bug := slices.ContainsFunc(st.Moments, func(m uint64) bool { return slices.Contains(pl.Snapshots, m) })
			elsewhere := slices.ContainsFunc(st.Moments, func(m uint64) bool {
				return !slices.Contains(pl.Snapshots, m) && !slices.Contains(pl.Legit, m)
			})
			if bug && !elsewhere {
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
