package planted

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

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

// TestOverlayDeterministic checks that a seed gives one system, spec
// and trace, at every size.
func TestOverlayDeterministic(t *testing.T) {
	for _, size := range overlaySizes {
		for _, seed := range []int64{3, 7} {
			t.Run(fmt.Sprintf("%s/%d", size.name, seed), func(t *testing.T) {
				a, b := overlaySystem(t, seed, size.opts), overlaySystem(t, seed, size.opts)
				if a.Spec != b.Spec || fmt.Sprint(a.Planted) != fmt.Sprint(b.Planted) || a.Describe() != b.Describe() {
					t.Fatalf("two systems:\n%s\n%s", a.Describe(), b.Describe())
				}
				_, ta := write(t, a)
				_, tb := write(t, b)
				ma, _ := os.ReadFile(filepath.Join(ta, trace.ManifestFile))
				mb, _ := os.ReadFile(filepath.Join(tb, trace.ManifestFile))
				if !bytes.Equal(ma, mb) {
					t.Errorf("the traces differ:\n%s\n%s", ma, mb)
				}
			})
		}
	}
}

// TestOverlayPlanted checks with the reference evaluator, over the
// written trace, that each planted property fails at exactly its bug's
// snapshots and its legitimate moments and is an almost-invariant (see
// checkPlanted), in the smallest and the largest systems.
func TestOverlayPlanted(t *testing.T) {
	for _, size := range overlaySizes {
		for seed := int64(3); seed < 3+4*8; seed += 4 {
			t.Run(fmt.Sprintf("%s/%d", size.name, seed), func(t *testing.T) { checkPlanted(t, overlaySystem(t, seed, size.opts)) })
		}
	}
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
// template planted somewhere, bugs striking once and many times, with
// and without aftermath, properties failing at legitimate moments too,
// controls, variables within bounds, steady and unsteady snapshots.
func TestOverlaySystems(t *testing.T) {
	planted := map[string]int{}
	var controls, once, many, aftermath, legit int
	const systems = 40
	for seed := int64(3); seed < 3+4*systems; seed += 4 {
		sys := overlaySystem(t, seed, overlaySizes[1].opts)
		if sys.Control != (len(sys.Planted) == 0) || len(sys.Planted) > maxPlanted {
			t.Errorf("seed %d: control %v with %d planted", seed, sys.Control, len(sys.Planted))
		}
		if sys.Control {
			controls++
		}
		for _, p := range sys.Planted {
			planted[p.Name]++
			switch {
			case p.Strikes == 1:
				once++
			case p.Strikes >= 5:
				many++
			}
			if p.Aftermath {
				aftermath++
			}
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
	for _, tm := range slices.Concat(treeTemplates, ringTemplates) {
		if planted[tm.name] == 0 {
			t.Errorf("%s never planted in %d systems (%v)", tm.name, systems, planted)
		}
	}
	if controls == 0 || controls > systems/3 || once == 0 || many == 0 || aftermath == 0 || legit == 0 {
		t.Errorf("in %d systems: %d controls; planted bugs striking once %d, 5 times or more %d, with aftermath %d, failing legitimately too %d",
			systems, controls, once, many, aftermath, legit)
	}
}
