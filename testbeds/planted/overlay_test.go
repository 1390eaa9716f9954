package planted

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// overlaySystem generates the overlay system of seed under o, as
// Generate does but whatever family the seed is of, and with o taken as
// it is (3 nodes, say).
func overlaySystem(t *testing.T, seed int64, o Options) *System {
	t.Helper()
	for attempt := range uint64(maxGenerateAttempts) {
		sys, err := generateOverlay(seed, rand.New(rand.NewPCG(uint64(seed), attempt)), o)
		if err != nil {
			t.Fatal(err)
		}
		if sys != nil {
			return sys
		}
	}
	t.Fatalf("seed %d: no overlay system in %d attempts", seed, maxGenerateAttempts)
	return nil
}

// overlaySizes are the sizes the overlay tests run: the smallest and
// the largest systems, and the ones between.
var overlaySizes = []struct {
	name string
	opts Options
}{
	{"3 nodes", Options{MinNodes: 3, MaxNodes: 3, MinSnapshots: 2000, MaxSnapshots: 3000}},
	{"3 to 16 nodes", Options{MinNodes: 3, MaxNodes: 16, MinSnapshots: 1500, MaxSnapshots: 2500}},
	{"16 nodes", Options{MinNodes: 16, MaxNodes: 16, MinSnapshots: 2000, MaxSnapshots: 3000}},
}

func TestOverlayDeterministic(t *testing.T) {
	for _, seed := range []int64{3, 7, 11} {
		o := overlaySizes[1].opts
		a, b := overlaySystem(t, seed, o), overlaySystem(t, seed, o)
		if a.Spec != b.Spec || fmt.Sprint(a.Planted) != fmt.Sprint(b.Planted) || a.Describe() != b.Describe() {
			t.Fatalf("seed %d: two systems:\n%s\n%s", seed, a.Describe(), b.Describe())
		}
		_, ta := write(t, a)
		_, tb := write(t, b)
		ma, _ := os.ReadFile(filepath.Join(ta, trace.ManifestFile))
		mb, _ := os.ReadFile(filepath.Join(tb, trace.ManifestFile))
		if !bytes.Equal(ma, mb) {
			t.Errorf("seed %d: the traces differ:\n%s\n%s", seed, ma, mb)
		}
	}
}

// TestOverlayPlanted checks with the reference evaluator, over the
// written trace, that each planted property fails at exactly its bug's
// snapshots and its legitimate moments, that the bug's snapshots alone
// carry its tag, and that it is an almost-invariant under the spec's
// settings; and that a control carries no bug tag.
func TestOverlayPlanted(t *testing.T) {
	for _, size := range overlaySizes {
		t.Run(size.name, func(t *testing.T) {
			for seed := int64(3); seed < 3+4*8; seed += 4 {
				checkOverlay(t, overlaySystem(t, seed, size.opts))
			}
		})
	}
}

func checkOverlay(t *testing.T, sys *System) {
	t.Helper()
	specPath, trPath := write(t, sys)
	spec, err := specs.Load(specPath)
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", sys.Seed, err, sys.Spec)
	}
	tr, err := trace.Open(trPath)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := spec.Check(tr.Schema); err != nil {
		t.Fatalf("seed %d: %v", sys.Seed, err)
	}
	// A property that fails nowhere, for the tags of a control.
	props := []*grammar.Property{mustParse(t, fmt.Sprintf("forall n0 in nodes: n0.%s == n0.%[1]s", sys.Variables[0]))}
	moments := 1
	for _, p := range sys.Planted {
		props = append(props, mustParse(t, p.Text))
		moments = max(moments, len(p.Snapshots)+len(p.Legit)+1)
	}
	prog, err := evaluator.Compile(spec, props)
	if err != nil {
		t.Fatalf("seed %d: %v", sys.Seed, err)
	}
	res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: evaluator.Reference, MaxWitnesses: -1, MaxMoments: moments})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tags[SteadyTag] != int64(sys.Steady) {
		t.Errorf("seed %d: %d steady snapshots, the system says %d", sys.Seed, res.Tags[SteadyTag], sys.Steady)
	}
	for tag := range res.Tags {
		if sys.Control && strings.HasPrefix(tag, "bug:") {
			t.Errorf("seed %d: control tagged %s", sys.Seed, tag)
		}
	}
	for i, p := range sys.Planted {
		st := &res.Stats[i+1]
		want := slices.Sorted(slices.Values(slices.Concat(p.Snapshots, p.Legit)))
		if !slices.Equal(st.Moments, want) || st.ViolatingSnapshots != int64(len(want)) {
			t.Errorf("seed %d: %s fails at %v, planted at %v and legitimately at %v", sys.Seed, p.Text, st.Moments, p.Snapshots, p.Legit)
		}
		if p.Strikes < 1 || p.Strikes > MaxStrikes || len(p.Legit) > 2 {
			t.Errorf("seed %d: %s: %d strikes, %d legitimate moments", sys.Seed, p.Text, p.Strikes, len(p.Legit))
		}
		if st.Tags[BugTag(p.Name)] != int64(len(p.Snapshots)) || res.Tags[BugTag(p.Name)] != int64(len(p.Snapshots)) || st.Tags[SteadyTag] < int64(p.Steady) {
			t.Errorf("seed %d: %s: tags of its violations %v, want %d %s (%d steady)", sys.Seed, p.Text, st.Tags, len(p.Snapshots), BugTag(p.Name), p.Steady)
		}
		if st.Support < int64(spec.Report.MinSupport) || st.HoldingRate() < spec.Filter.HoldRatio {
			t.Errorf("seed %d: %s: support %d, holding rate %v: not an almost-invariant", sys.Seed, p.Text, st.Support, st.HoldingRate())
		}
	}
}

func mustParse(t *testing.T, src string) *grammar.Property {
	t.Helper()
	p, err := grammar.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOverlayRivals checks over whole pools that each planted property
// is in its spec's pool and that no other property is as good an answer
// (see rivals).
func TestOverlayRivals(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates whole pools")
	}
	o := Options{MinNodes: 3, MaxNodes: 9, MinSnapshots: 1000, MaxSnapshots: 1500}
	for seed := int64(3); seed < 3+4*12; seed += 4 {
		sys := overlaySystem(t, seed, o)
		for pl, rs := range rivals(t, sys) {
			t.Errorf("seed %d: %s has rivals %q\n%s", seed, pl, rs, sys.Describe())
		}
	}
}

// TestOverlaySystems checks what the overlay systems are made of: every
// template planted somewhere, legitimate moments, controls, variables.
func TestOverlaySystems(t *testing.T) {
	planted := map[string]int{}
	controls, legit := 0, 0
	for seed := int64(3); seed < 3+4*40; seed += 4 {
		sys := overlaySystem(t, seed, Options{MinNodes: 3, MaxNodes: 16, MinSnapshots: 1000, MaxSnapshots: 1500})
		if sys.Control != (len(sys.Planted) == 0) || len(sys.Planted) > maxPlanted {
			t.Errorf("seed %d: control %v with %d planted", seed, sys.Control, len(sys.Planted))
		}
		if sys.Control {
			controls++
		}
		for _, p := range sys.Planted {
			planted[p.Name]++
			if len(p.Legit) > 0 {
				legit++
			}
		}
		if n := len(sys.Variables); n < ovMinVars || n > int(numOvVars) {
			t.Errorf("seed %d: variables %v", seed, sys.Variables)
		}
		if sys.Steady == 0 || sys.Steady == sys.Snapshots {
			t.Errorf("seed %d: %d of %d snapshots steady", seed, sys.Steady, sys.Snapshots)
		}
	}
	for _, tm := range ovTemplates {
		if planted[tm.name] == 0 {
			t.Errorf("%s never planted in 40 systems (%v)", tm.name, planted)
		}
	}
	if controls == 0 || controls > 16 || legit == 0 {
		t.Errorf("%d controls, %d properties with legitimate moments in 40 systems", controls, legit)
	}
}
