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

// TestBaselineRun checks, in every family, that asking for the good run
// leaves the system as it is, and that the good run is another run of
// the same system: its spec reads it, it is as long, nothing in it is
// tagged with a bug, and its random choices are its own.
func TestBaselineRun(t *testing.T) {
	withGood := small
	withGood.Baseline = true
	for _, f := range Families() {
		for _, seed := range seedsOf(f, 2) {
			t.Run(fmt.Sprintf("%s/%d", f, seed), func(t *testing.T) {
				sys, twin := mustGenerate(t, seed, small), mustGenerate(t, seed, withGood)
				if err := sys.WriteBaseline(filepath.Join(t.TempDir(), "good.trace")); err == nil {
					t.Error("WriteBaseline of a system generated without Options.Baseline: no error")
				}
				if sys.Spec != twin.Spec || fmt.Sprint(sys.Planted) != fmt.Sprint(twin.Planted) || sys.Describe() != twin.Describe() {
					t.Fatalf("Options.Baseline changed the system:\n%s\n%s", sys.Describe(), twin.Describe())
				}
				specPath, runPath := write(t, twin)
				_, sysPath := write(t, sys)
				if !bytes.Equal(manifest(t, runPath), manifest(t, sysPath)) {
					t.Errorf("Options.Baseline changed the trace")
				}
				goodPath := filepath.Join(t.TempDir(), "good.trace")
				if err := twin.WriteBaseline(goodPath); err != nil {
					t.Fatal(err)
				}
				if bytes.Equal(manifest(t, goodPath), manifest(t, runPath)) {
					t.Errorf("the good run is the run itself")
				}
				snapshots, tags := tagsOf(t, specPath, goodPath, twin.Variables[0])
				if snapshots != twin.Snapshots {
					t.Errorf("the good run has %d snapshots, the run %d", snapshots, twin.Snapshots)
				}
				for tag := range tags {
					if strings.HasPrefix(tag, "bug:") {
						t.Errorf("the good run is tagged %s", tag)
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
