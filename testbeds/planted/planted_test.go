package planted

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/trace"
)

// small makes systems small enough for the reference evaluator and the
// full pool.
var small = Options{MaxNodes: 8, MinSnapshots: 800, MaxSnapshots: 1200}

// mustGenerate generates the system of seed or fails t.
func mustGenerate(t *testing.T, seed int64, opts Options) *System {
	t.Helper()
	sys, err := Generate(seed, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// write writes sys's spec and trace into a test directory and returns
// their paths.
func write(t *testing.T, sys *System) (spec, tr string) {
	t.Helper()
	dir := t.TempDir()
	spec, tr = filepath.Join(dir, "spec.yaml"), filepath.Join(dir, "run.trace")
	if err := sys.WriteSpec(spec); err != nil {
		t.Fatal(err)
	}
	if err := sys.WriteTrace(tr); err != nil {
		t.Fatal(err)
	}
	return spec, tr
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, seed := range []int64{1, 7, LastDevSeed} {
		a, b := mustGenerate(t, seed, small), mustGenerate(t, seed, small)
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

// TestPlantedAreTheAnswer checks, over the whole pool of each spec, that
// every planted property is in the pool and that no other property is as
// good an answer (see rivals).
func TestPlantedAreTheAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates whole pools")
	}
	for seed := int64(1); seed <= 6; seed++ {
		for pl, rs := range rivals(t, mustGenerate(t, seed, small)) {
			t.Errorf("seed %d: %s has rivals %q", seed, pl, rs)
		}
	}
}

// TestSystems checks what the systems of the first development seeds
// are made of: all shapes planted, controls, sizes and variables within
// bounds.
func TestSystems(t *testing.T) {
	shapes := map[Shape]int{}
	controls := 0
	for seed := int64(1); seed <= 20; seed++ {
		sys := mustGenerate(t, seed, Options{})
		if sys.Control {
			controls++
			if len(sys.Planted) > 0 {
				t.Errorf("seed %d: a control with planted properties", seed)
			}
		} else if n := len(sys.Planted); n < 1 || n > maxPlanted {
			t.Errorf("seed %d: %d planted properties", seed, n)
		}
		for _, p := range sys.Planted {
			shapes[p.Shape]++
		}
		if sys.Nodes < MinNodes || sys.Nodes > MaxNodes || sys.Snapshots < DefaultMinSnapshots || sys.Snapshots > DefaultMaxSnapshots {
			t.Errorf("seed %d: %d nodes, %d snapshots", seed, sys.Nodes, sys.Snapshots)
		}
		if n := len(sys.Variables); n < minVars || n > maxVars || sys.d.categories() < minCategories {
			t.Errorf("seed %d: variables %v of %d categories", seed, sys.Variables, sys.d.categories())
		}
		if sys.Steady == 0 || sys.Steady == sys.Snapshots {
			t.Errorf("seed %d: %d of %d snapshots steady", seed, sys.Steady, sys.Snapshots)
		}
	}
	for _, sh := range Shapes() {
		if shapes[sh] == 0 {
			t.Errorf("no %s property planted in seeds 1-20 (%v)", sh, shapes)
		}
	}
	if controls == 0 || controls > 8 {
		t.Errorf("%d controls in 20 systems", controls)
	}
}
