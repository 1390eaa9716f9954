package planted

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// TestBaselineRun checks, in every family, that asking for good runs
// leaves the system as it is, and that each good run is another run of
// the same system: its spec reads it, it is as long, nothing in it is
// tagged with a bug, and its random choices are its own, apart from the
// run's and the other good run's; the first is the same whether one or
// two are asked for.
func TestBaselineRun(t *testing.T) {
	withGood, withTwo := small, small
	withGood.GoodRuns, withTwo.GoodRuns = 1, 2
	for _, f := range Families() {
		for _, seed := range seedsOf(f, 2) {
			t.Run(fmt.Sprintf("%s/%d", f, seed), func(t *testing.T) {
				sys, twin, triplet := mustGenerate(t, seed, small), mustGenerate(t, seed, withGood), mustGenerate(t, seed, withTwo)
				if err := sys.WriteGoodRun(0, filepath.Join(t.TempDir(), "good.trace")); err == nil {
					t.Error("WriteGoodRun of a system generated without Options.GoodRuns: no error")
				}
				if err := twin.WriteGoodRun(1, filepath.Join(t.TempDir(), "good.trace")); err == nil {
					t.Error("WriteGoodRun(1) of a system generated with one good run: no error")
				}
				if sys.Spec != twin.Spec || fmt.Sprint(sys.Planted) != fmt.Sprint(twin.Planted) || sys.Describe() != twin.Describe() {
					t.Fatalf("Options.GoodRuns changed the system:\n%s\n%s", sys.Describe(), twin.Describe())
				}
				specPath, runPath := write(t, twin)
				_, sysPath := write(t, sys)
				if !bytes.Equal(manifest(t, runPath), manifest(t, sysPath)) {
					t.Errorf("Options.GoodRuns changed the trace")
				}
				goodPath := filepath.Join(t.TempDir(), "good.trace")
				if err := twin.WriteGoodRun(0, goodPath); err != nil {
					t.Fatal(err)
				}
				first, second := filepath.Join(t.TempDir(), "good.trace"), filepath.Join(t.TempDir(), "good2.trace")
				if err := triplet.WriteGoodRun(0, first); err != nil {
					t.Fatal(err)
				}
				if err := triplet.WriteGoodRun(1, second); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(manifest(t, first), manifest(t, goodPath)) {
					t.Errorf("the first good run changed with a second asked for")
				}
				if bytes.Equal(manifest(t, goodPath), manifest(t, runPath)) {
					t.Errorf("the good run is the run itself")
				}
				if bytes.Equal(manifest(t, second), manifest(t, goodPath)) {
					t.Errorf("the second good run is the first")
				}
				for _, path := range []string{goodPath, second} {
					snapshots, tags := tagsOf(t, specPath, path, twin.Variables[0])
					if snapshots != twin.Snapshots {
						t.Errorf("%s has %d snapshots, the run %d", filepath.Base(path), snapshots, twin.Snapshots)
					}
					for tag := range tags {
						if strings.HasPrefix(tag, "bug:") {
							t.Errorf("%s is tagged %s", filepath.Base(path), tag)
						}
					}
				}
			})
		}
	}
}

// manifest returns the manifest of the trace at path: its digests tell
// two traces apart.
func manifest(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(path, trace.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tagsOf reads the trace at path with the spec at specPath, and returns
// its number of snapshots and its tags' counts.
func tagsOf(t *testing.T, specPath, path, variable string) (int, map[string]int64) {
	t.Helper()
	spec, err := specs.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	prop, err := grammar.Parse("forall n0 in nodes: n0." + variable + " == n0." + variable)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := evaluator.Compile(spec, []*grammar.Property{prop})
	if err != nil {
		t.Fatal(err)
	}
	res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{MaxWitnesses: evaluator.NoWitnesses})
	if err != nil {
		t.Fatal(err)
	}
	return res.Snapshots, res.Tags
}
