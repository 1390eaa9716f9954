package planted

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/specs/spectrace"
)

// TestInitSpecPool checks that the scoring finds a planted property in a
// report made with augur spec init's spec as in one made with the
// system's own: spec init names the variables after the trace's columns,
// which the system's spec names, so every planted property within spec
// init's limits (two literals, no predicate) is in its pool, found by the
// identity Score matches entries by, whatever the types and constants
// of the two specs.
func TestInitSpecPool(t *testing.T) {
	within := 0
	for seed := int64(1); seed <= 16; seed++ {
		sys := mustGenerate(t, seed, Options{MaxNodes: 7, MinSnapshots: 600, MaxSnapshots: 800})
		dir := t.TempDir()
		spec, tr := filepath.Join(dir, "init.yaml"), filepath.Join(dir, "run.trace")
		if err := sys.WriteTrace(tr); err != nil {
			t.Fatal(err)
		}
		if err := spectrace.InitFile(context.Background(), tr, spec, nil); err != nil {
			t.Fatal(err)
		}
		pool, err := pipeline.Generate(spec, tr)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, p := range pool.Props {
			ids[p.SymmetricText()] = true
		}
		for _, pl := range sys.Planted {
			if pl.Shape == TwoNodesThreeLiterals || pl.Shape == Predicate {
				continue // beyond spec init's limits
			}
			within++
			found := slices.ContainsFunc(slices.Concat([]string{pl.Text}, pl.Alts), func(text string) bool {
				id, err := identity(text)
				return err == nil && ids[id]
			})
			if !found {
				t.Errorf("seed %d: planted %s (%s) is not in the pool of spec init's spec", seed, pl.Text, pl.Shape)
			}
		}
	}
	if within < 10 {
		t.Errorf("%d planted properties within spec init's limits; want at least 10", within)
	}
}

// TestRunInitSpec runs two systems with the specs augur spec init writes:
// each keeps its own spec and spec init's, the report is made with the
// latter, and the summary says so.
func TestRunInitSpec(t *testing.T) {
	keep := t.TempDir()
	sum, err := Run(context.Background(), []int64{2, 3}, RunOptions{
		Generate: Options{MaxNodes: 5, MinSnapshots: 600, MaxSnapshots: 700},
		Keep:     keep,
		InitSpec: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.InitSpec || len(sum.Systems) != 2 {
		t.Fatalf("init spec %v, %d systems", sum.InitSpec, len(sum.Systems))
	}
	for _, seed := range sum.Seeds {
		dir := filepath.Join(keep, strconv.FormatInt(seed, 10))
		for _, name := range []string{"spec.yaml", "init.yaml", "report.json"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Error(err)
			}
		}
		rep, err := os.ReadFile(filepath.Join(dir, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(rep, []byte(`init.yaml`)) {
			t.Errorf("seed %d: the report names no init.yaml as its spec", seed)
		}
	}
	var text bytes.Buffer
	if err := sum.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "2 systems (short, specs of augur spec init)") {
		t.Errorf("the verdict does not say the specs were spec init's:\n%s", text.String())
	}
}
