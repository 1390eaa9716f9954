package planted

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// TestPlantedAlmostInvariants checks with the reference evaluator that
// each planted property fails at exactly its planted snapshots, which
// carry its bug tag and follow one another (one lasting break), and is an
// almost-invariant of the trace under the spec's settings.
func TestPlantedAlmostInvariants(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		sys := mustGenerate(t, seed, small)
		specPath, trPath := write(t, sys)
		spec, err := specs.Load(specPath)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, sys.Spec)
		}
		tr, err := trace.Open(trPath)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		if err := spec.Check(tr.Schema); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var props []*grammar.Property
		for _, p := range sys.Planted {
			prop, err := grammar.Parse(p.Text)
			if err != nil {
				t.Fatal(err)
			}
			props = append(props, prop)
		}
		// A control's trace carries no bug tag: check it with a property
		// that fails nowhere.
		if sys.Control {
			prop, _ := grammar.Parse("forall n0 in nodes: n0." + sys.Variables[0] + " == n0." + sys.Variables[0])
			props = append(props, prop)
		}
		prog, err := evaluator.Compile(spec, props)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: evaluator.Reference, MaxWitnesses: -1, MaxMoments: MaxViolations + 1})
		if err != nil {
			t.Fatal(err)
		}
		for tag := range res.Tags {
			if sys.Control && strings.HasPrefix(tag, "bug:") {
				t.Errorf("seed %d: control tagged %s", seed, tag)
			}
		}
		for i, p := range sys.Planted {
			st := &res.Stats[i]
			if fmt.Sprint(st.Moments) != fmt.Sprint(p.Snapshots) || st.ViolatingSnapshots != int64(len(p.Snapshots)) {
				t.Errorf("seed %d: %s fails at %v, planted at %v", seed, p.Text, st.Moments, p.Snapshots)
			}
			if n := len(p.Snapshots); n < 1 || n > MaxViolations || p.Snapshots[n-1]-p.Snapshots[0] != uint64(n-1) {
				t.Errorf("seed %d: %s planted at %v: want 1 to %d consecutive snapshots", seed, p.Text, p.Snapshots, MaxViolations)
			}
			if st.Tags[BugTag(p.Name)] != int64(len(p.Snapshots)) || st.Tags[SteadyTag] != int64(p.Steady) {
				t.Errorf("seed %d: %s: tags of its violations %v, want %d %s (%d steady)", seed, p.Text, st.Tags, len(p.Snapshots), BugTag(p.Name), p.Steady)
			}
			if st.Support < int64(spec.Report.MinSupport) || st.HoldingRate() < spec.Filter.HoldRatio {
				t.Errorf("seed %d: %s: support %d, holding rate %v: not an almost-invariant", seed, p.Text, st.Support, st.HoldingRate())
			}
		}
		if res.Tags[SteadyTag] != int64(sys.Steady) {
			t.Errorf("seed %d: %d steady snapshots, the system says %d", seed, res.Tags[SteadyTag], sys.Steady)
		}
	}
}
