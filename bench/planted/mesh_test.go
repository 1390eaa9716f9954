package planted

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/trace"
)

func TestMeshIsDeterministic(t *testing.T) {
	for _, seed := range seedsOf(Mesh, 3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			a, b := mustGenerate(t, seed, small), mustGenerate(t, seed, small)
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

// TestMeshPlanted checks with the reference evaluator (checkPlanted)
// that each planted property of mesh systems of 3 nodes, 16 nodes and
// sizes between fails at exactly its bug's snapshots and its legitimate
// moments, and is an almost-invariant.
func TestMeshPlanted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  Options
		seeds int
	}{
		{"3-nodes", Options{MinNodes: 3, MaxNodes: 3, MinSnapshots: 800, MaxSnapshots: 1200}, 6},
		{"16-nodes", Options{MinNodes: 16, MaxNodes: 16, MinSnapshots: 800, MaxSnapshots: 1200}, 4},
		{"small", small, 8},
	} {
		for _, seed := range seedsOf(Mesh, tc.seeds) {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				sys := mustGenerate(t, seed, tc.opts)
				if sys.Nodes < tc.opts.MinNodes || sys.Nodes > max(tc.opts.MaxNodes, tc.opts.MinNodes) {
					t.Errorf("%s: want %d to %d nodes", sys.Describe(), tc.opts.MinNodes, tc.opts.MaxNodes)
				}
				checkPlanted(t, sys)
			})
		}
	}
}

// TestMeshPlantedAreTheAnswer checks, over the whole pool of mesh
// systems' specs, that every planted property is in the pool and has no
// rival (see rivals).
func TestMeshPlantedAreTheAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates whole pools")
	}
	for _, tc := range []struct {
		name  string
		opts  Options
		seeds int
	}{
		{"3-nodes", Options{MinNodes: 3, MaxNodes: 3, MinSnapshots: 800, MaxSnapshots: 1200}, 4},
		{"small", small, 8},
	} {
		for _, seed := range seedsOf(Mesh, tc.seeds) {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				sys := mustGenerate(t, seed, tc.opts)
				for pl, rs := range rivals(t, sys) {
					t.Errorf("%s: %s has rivals %q", sys.Describe(), pl, rs)
				}
			})
		}
	}
}

// TestMeshSystems checks what mesh systems are made of, over the first
// development seeds of the family: every shape but the predicate
// planted, bugs striking once and many times, with and without
// aftermath, properties failing at legitimate moments too, controls,
// steady and unsteady snapshots, variables within bounds.
func TestMeshSystems(t *testing.T) {
	shapes := map[Shape]int{}
	var controls, once, many, aftermath, legit, planted int
	for _, seed := range seedsOf(Mesh, 40) {
		sys := mustGenerate(t, seed, Options{})
		if sys.Family != Mesh {
			t.Fatalf("seed %d: a system of family %s", seed, sys.Family)
		}
		if sys.Control {
			controls++
			if len(sys.Planted) > 0 {
				t.Errorf("%s: a control with planted properties", sys.Describe())
			}
		} else if n := len(sys.Planted); n < 1 || n > maxPlanted {
			t.Errorf("%s: %d planted properties", sys.Describe(), n)
		}
		if len(sys.Variables) < meshMinVars || sys.Steady == 0 || sys.Steady == sys.Snapshots {
			t.Errorf("%s: want at least %d variables, some snapshots steady and some not", sys.Describe(), meshMinVars)
		}
		for _, p := range sys.Planted {
			planted++
			shapes[p.Shape]++
			if p.Strikes == 1 {
				once++
			} else {
				many++
			}
			if p.Aftermath {
				aftermath++
			}
			if len(p.Legit) > 0 {
				legit++
			}
		}
	}
	for _, sh := range []Shape{OneNodeOneLiteral, OneNodeTwoLiterals, TwoNodesTwoLiterals, Iterator} {
		if shapes[sh] == 0 {
			t.Errorf("no %s property planted (%v)", sh, shapes)
		}
	}
	if controls == 0 || controls > 16 || once == 0 || many == 0 || aftermath == 0 || aftermath == planted || legit == 0 || legit > planted/2 {
		t.Errorf("%d controls; of %d planted properties, %d struck once, %d more often, %d with aftermath, %d failing legitimately too",
			controls, planted, once, many, aftermath, legit)
	}
}

func BenchmarkMeshGenerate(b *testing.B) {
	opts := Options{MinNodes: 16, MaxNodes: 16, MinSnapshots: 50000, MaxSnapshots: 50000}
	seeds := seedsOf(Mesh, 4)
	for i := 0; b.Loop(); i++ {
		if _, err := Generate(seeds[i%len(seeds)], opts); err != nil {
			b.Fatal(err)
		}
	}
}
