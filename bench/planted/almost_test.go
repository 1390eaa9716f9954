package planted

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
	"github.com/augur-dev/augur/trace"
)

// TestPlantedAlmostInvariants checks with the reference evaluator, in
// systems of every family, that each planted property fails at exactly
// its planted snapshots, which carry its bug tag and make up its
// strikes, and at its legitimate moments, which carry none; and that it
// is an almost-invariant of the trace under the spec's settings.
func TestPlantedAlmostInvariants(t *testing.T) {
	n := 3
	if testing.Short() {
		n = 1
	}
	for _, f := range Families() {
		for _, seed := range seedsOf(f, n) {
			t.Run(fmt.Sprintf("%s/%d", f, seed), func(t *testing.T) { checkPlanted(t, mustGenerate(t, seed, small)) })
		}
	}
}

// checkPlanted checks the planted properties of sys, as
// TestPlantedAlmostInvariants says.
func checkPlanted(t *testing.T, sys *System) {
	specPath, trPath := write(t, sys)
	spec, err := specs.Load(specPath)
	if err != nil {
		t.Fatalf("%v\n%s", err, sys.Spec)
	}
	tr, err := trace.Open(trPath)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := spectrace.Check(spec, tr.Schema); err != nil {
		t.Fatal(err)
	}
	var props []*grammar.Property
	moments := 1
	for _, p := range sys.Planted {
		prop, err := grammar.Parse(p.Text)
		if err != nil {
			t.Fatal(err)
		}
		props = append(props, prop)
		moments = max(moments, len(p.Snapshots)+len(p.Legit)+1)
	}
	// A control's trace carries no bug tag: check it with a property
	// that fails nowhere.
	if sys.Control {
		prop, err := grammar.Parse("forall n0 in nodes: n0." + sys.Variables[0] + " == n0." + sys.Variables[0])
		if err != nil {
			t.Fatal(err)
		}
		props = append(props, prop)
	}
	prog, err := evaluator.Compile(spec, props)
	if err != nil {
		t.Fatal(err)
	}
	res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: evaluator.Reference, MaxWitnesses: evaluator.NoWitnesses, MaxMoments: moments})
	if err != nil {
		t.Fatal(err)
	}
	for tag := range res.Tags {
		if sys.Control && strings.HasPrefix(tag, "bug:") {
			t.Errorf("control tagged %s", tag)
		}
	}
	for i, p := range sys.Planted {
		st := &res.Stats[i]
		fails := slices.Sorted(slices.Values(slices.Concat(p.Snapshots, p.Legit)))
		if !slices.Equal(st.Moments, fails) || st.ViolatingSnapshots != int64(len(fails)) {
			t.Errorf("%s fails at %v, planted at %v, legitimately at %v", p.Text, st.Moments, p.Snapshots, p.Legit)
		}
		// Its steady violations are the bug's steady snapshots and, maybe,
		// some of its legitimate moments.
		if steady := st.Tags[SteadyTag]; st.Tags[BugTag(p.Name)] != int64(len(p.Snapshots)) || steady < int64(p.Steady) || steady > int64(p.Steady+len(p.Legit)) {
			t.Errorf("%s: tags of its violations %v, want %d %s, %d to %d steady", p.Text, st.Tags, len(p.Snapshots), BugTag(p.Name), p.Steady, p.Steady+len(p.Legit))
		}
		if res.Tags[BugTag(p.Name)] != int64(len(p.Snapshots)) {
			t.Errorf("%s: %d snapshots tagged %s, %d planted", p.Text, res.Tags[BugTag(p.Name)], BugTag(p.Name), len(p.Snapshots))
		}
		checkStrikes(t, sys, &p)
		if st.Support < int64(spec.Report.MinSupport) || st.HoldingRate() < spec.Filter.HoldRatio {
			t.Errorf("%s: support %d, holding rate %v: not an almost-invariant", p.Text, st.Support, st.HoldingRate())
		}
	}
	if res.Tags[SteadyTag] != int64(sys.Steady) {
		t.Errorf("%d steady snapshots, the system says %d", res.Tags[SteadyTag], sys.Steady)
	}
}

// checkStrikes checks how p's bug struck: Strikes separate episodes of 1
// to MaxEpisode snapshots, at most MaxBrokenShare of the run together;
// one or two legitimate moments at most, fewer failures than the bug's.
func checkStrikes(t *testing.T, sys *System, p *Planted) {
	t.Helper()
	var episodes [][]uint64
	for i, s := range p.Snapshots {
		if i == 0 || s != p.Snapshots[i-1]+1 {
			episodes = append(episodes, nil)
		}
		episodes[len(episodes)-1] = append(episodes[len(episodes)-1], s)
	}
	if len(episodes) != p.Strikes || p.Strikes < 1 || p.Strikes > MaxStrikes {
		t.Errorf("%s: %d strikes, in %d episodes: want 1 to %d", p.Text, p.Strikes, len(episodes), MaxStrikes)
	}
	for _, e := range episodes {
		if len(e) > MaxEpisode {
			t.Errorf("%s: an episode of %d snapshots from %d: want at most %d", p.Text, len(e), e[0], MaxEpisode)
		}
	}
	if budget := max(1, int(MaxBrokenShare*float64(sys.Snapshots))); len(p.Snapshots) > budget {
		t.Errorf("%s: broken at %d snapshots of %d: want at most %d", p.Text, len(p.Snapshots), sys.Snapshots, budget)
	}
	legit := 0
	for i, s := range p.Legit {
		if i == 0 || s != p.Legit[i-1]+1 {
			legit++
		}
	}
	if legit > maxLegitMoments || len(p.Legit) >= len(p.Snapshots) {
		t.Errorf("%s: fails legitimately at %v, %d moments, and at %d snapshots by its bug: want at most %d moments and fewer snapshots",
			p.Text, p.Legit, legit, len(p.Snapshots), maxLegitMoments)
	}
}
