package catalog_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
	"github.com/augur-dev/augur/trace"
)

func TestLookup(t *testing.T) {
	for _, tb := range catalog.All {
		got, err := catalog.Lookup(tb.Name)
		if err != nil || got.Name != tb.Name {
			t.Errorf("Lookup(%q) = %q, %v", tb.Name, got.Name, err)
		}
		if _, err := specs.Testbed(tb.Name); err != nil {
			t.Errorf("testbed %s has no spec: %v", tb.Name, err)
		}
	}
	_, err := catalog.Lookup("zab")
	if err == nil || !strings.Contains(err.Error(), `"zab"`) || !strings.Contains(err.Error(), "etcdraft") {
		t.Errorf("Lookup(zab) = %v, want an error naming it and the testbeds", err)
	}
}

// TestRecord checks that a recorded run comes with a spec that fits it,
// and that the testbed's defaults fill what the config leaves out.
func TestRecord(t *testing.T) {
	tb, err := catalog.Lookup("chord")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	specPath, tracePath, st, err := catalog.Record(dir, "run", tb, testbeds.Config{Steps: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if specPath != filepath.Join(dir, "run.yaml") || tracePath != filepath.Join(dir, "run.trace") {
		t.Errorf("Record wrote %s and %s", specPath, tracePath)
	}
	if st.Snapshots != 200 {
		t.Errorf("recorded %d snapshots, want 200", st.Snapshots)
	}
	spec, err := specs.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := spec.Check(tr.Schema); err != nil {
		t.Errorf("the testbed's spec does not fit its trace: %v", err)
	}
	if got := tr.Manifest.CreatedBy; !strings.Contains(got, "--nodes "+strconv.Itoa(tb.Nodes)) || !strings.Contains(got, "--faults "+tb.Faults.String()) {
		t.Errorf("created by %q, want the testbed's default nodes (%d) and faults", got, tb.Nodes)
	}
}
