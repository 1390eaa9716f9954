package workload_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/internal/workload"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// TestDeterministic checks that a seed always gives the same trace, that
// the spec fits it, and that state rows are shared between snapshots.
func TestDeterministic(t *testing.T) {
	dir := t.TempDir()
	o := workload.Options{Nodes: 5, Snapshots: 3000, Seed: 3}
	var files [2][]byte
	for i := range files {
		p := filepath.Join(dir, string(rune('a'+i))+".trace")
		if err := workload.Write(p, o); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(p, trace.StatesFile))
		if err != nil {
			t.Fatal(err)
		}
		files[i] = data
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two traces of one seed differ")
	}
	tr, err := trace.Open(filepath.Join(dir, "a.trace"))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	spec, err := specs.Parse("bench.yaml", []byte(workload.Spec))
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.Check(tr.Schema); err != nil {
		t.Fatal(err)
	}
	if tr.NumSnapshots() != o.Snapshots || tr.NumStates() > 2*o.Snapshots {
		t.Errorf("%d snapshots and %d states, want %d snapshots and few states per snapshot", tr.NumSnapshots(), tr.NumStates(), o.Snapshots)
	}
	t.Logf("%d snapshots, %d states", tr.NumSnapshots(), tr.NumStates())
}
