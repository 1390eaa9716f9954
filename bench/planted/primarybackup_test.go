package planted

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// pbCases are primary/backup systems of the sizes the benchmark draws
// from: the fewest nodes, the most, and the tests' default.
var pbCases = []struct {
	name string
	seed int64
	opts Options
}{
	{"1/small", 1, small},
	{"5/small", 5, small},
	{"9/small", 9, small},
	{"13/3nodes", 13, Options{MinNodes: 3, MaxNodes: 3, MinSnapshots: 800, MaxSnapshots: 1200}},
	{"17/3nodes", 17, Options{MinNodes: 3, MaxNodes: 3, MinSnapshots: 800, MaxSnapshots: 1200}},
	{"21/16nodes", 21, Options{MinNodes: 16, MaxNodes: 16, MinSnapshots: 800, MaxSnapshots: 1200}},
	{"25/16nodes", 25, Options{MinNodes: 16, MaxNodes: 16, MinSnapshots: 800, MaxSnapshots: 1200}},
}

func TestPrimaryBackupIsDeterministic(t *testing.T) {
	for _, c := range pbCases[:4] {
		t.Run(c.name, func(t *testing.T) {
			a, b := mustGenerate(t, c.seed, c.opts), mustGenerate(t, c.seed, c.opts)
			if a.Family != PrimaryBackup {
				t.Fatalf("seed %d is of family %s", c.seed, a.Family)
			}
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

// TestPrimaryBackupPlanted checks with the reference evaluator that each
// planted property fails at exactly its bug's snapshots and its
// legitimate moments and is an almost-invariant (checkPlanted), that its
// other texts fail at the same snapshots, and that no property of the
// pool at most as complex is as good an answer (rivals).
func TestPrimaryBackupPlanted(t *testing.T) {
	for _, c := range pbCases {
		t.Run(c.name, func(t *testing.T) {
			sys := mustGenerate(t, c.seed, c.opts)
			if o, _ := c.opts.withDefaults(); sys.Nodes < o.MinNodes || sys.Nodes > o.MaxNodes {
				t.Fatalf("%s: want %d to %d nodes", sys.Describe(), o.MinNodes, o.MaxNodes)
			}
			checkPlanted(t, sys)
			checkAlts(t, sys)
			if testing.Short() {
				return // rivals evaluates the whole pool
			}
			for pl, rs := range rivals(t, sys) {
				t.Errorf("%s has rivals %q", pl, rs)
			}
		})
	}
}

// checkAlts checks that each other text of a planted property is the
// same property: it fails wherever the property does and nowhere else.
func checkAlts(t *testing.T, sys *System) {
	t.Helper()
	var props []*grammar.Property
	for _, p := range sys.Planted {
		for _, text := range append([]string{p.Text}, p.Alts...) {
			prop, err := grammar.Parse(text)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			props = append(props, prop)
		}
	}
	if len(props) == 0 {
		return
	}
	res := evaluate(t, sys, props)
	i := 0
	for _, p := range sys.Planted {
		want := res.Stats[i].Moments
		for _, alt := range p.Alts {
			i++
			if got := res.Stats[i].Moments; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s fails at %v, its other text %s at %v", p.Text, want, alt, got)
			}
		}
		i++
	}
}

// TestPrimaryBackupSystems checks what the family's systems are made of,
// over its first development seeds: every shape it plants, controls,
// bugs striking once and many times, with and without aftermath, some
// failing legitimately too, variables and steady snapshots within
// bounds.
func TestPrimaryBackupSystems(t *testing.T) {
	shapes := map[Shape]int{}
	var controls, once, many, aftermath, legit int
	seeds := seedsOf(PrimaryBackup, 40)
	for _, seed := range seeds {
		sys := mustGenerate(t, seed, Options{})
		if sys.Control != (len(sys.Planted) == 0) || len(sys.Planted) > maxPlanted {
			t.Errorf("%s: control %v with %d planted", sys.Describe(), sys.Control, len(sys.Planted))
		}
		if sys.Control {
			controls++
		}
		for _, p := range sys.Planted {
			shapes[p.Shape]++
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
		if n := len(sys.Variables); n < pbMinVars || n > int(pbNumVars) {
			t.Errorf("%s: want %d to %d variables", sys.Describe(), pbMinVars, pbNumVars)
		}
		if sys.Steady == 0 || sys.Steady == sys.Snapshots {
			t.Errorf("%s: want some snapshots steady, not all", sys.Describe())
		}
	}
	for _, sh := range []Shape{OneNodeOneLiteral, OneNodeTwoLiterals, TwoNodesTwoLiterals, TwoNodesThreeLiterals} {
		if shapes[sh] == 0 {
			t.Errorf("no %s property planted in %d systems (%v)", sh, len(seeds), shapes)
		}
	}
	if controls == 0 || controls > len(seeds)/3 || once == 0 || many == 0 || aftermath == 0 || legit == 0 {
		t.Errorf("in %d systems: %d controls; planted bugs striking once %d, 5 times or more %d, with aftermath %d, failing legitimately too %d",
			len(seeds), controls, once, many, aftermath, legit)
	}
}

// BenchmarkPrimaryBackupGenerate generates a long system: 20,000 to
// 50,000 snapshots of up to 16 nodes.
func BenchmarkPrimaryBackupGenerate(b *testing.B) {
	for i := range b.N {
		if _, err := Generate(int64(1+4*(i%8)), Options{Length: Long}); err != nil {
			b.Fatal(err)
		}
	}
}

// evaluate runs the reference evaluator on props over sys's trace, under
// its spec, keeping every violating snapshot.
func evaluate(t *testing.T, sys *System, props []*grammar.Property) *evaluator.Result {
	t.Helper()
	specPath, trPath := write(t, sys)
	spec, err := specs.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(trPath)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	prog, err := evaluator.Compile(spec, props)
	if err != nil {
		t.Fatal(err)
	}
	res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: evaluator.Reference, MaxWitnesses: evaluator.NoWitnesses, MaxMoments: sys.Snapshots})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
