package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/augur-dev/augur/reporter"
)

// TestDemoFindsTheBug checks that the demo's report shows the injected
// bug near its top: the first property relevant to it (one whose
// violating snapshots mostly carry the bug's tag) within the top 3, the
// testbeds' target (DESIGN §11), and a relevant property comparing the
// stores' applied indices, the shape in which the bug (a store applying
// entries raft has not committed) shows. Precision is reported by augur
// bench testbeds, not a target.
func TestDemoFindsTheBug(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo evaluates about 50,000 properties")
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"demo", "-q", "--format", "json"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("augur demo: exit %d: %s", code, stderr.String())
	}
	var r reporter.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	const k, tag = 3, "bug:apply-uncommitted"
	scores := reporter.Score(&r, k, []string{tag})
	if len(scores) != 1 || scores[0].Tag != tag {
		t.Fatalf("scores = %+v, want one for %s", scores, tag)
	}
	if s := scores[0]; s.First == 0 || s.First > k {
		t.Errorf("first relevant property at rank %d, want within the top %d", s.First, k)
	}
	applied := false
	for _, e := range r.AlmostInvariants[:min(k, len(r.AlmostInvariants))] {
		applied = applied || reporter.Relevant(e, tag) && strings.Contains(e.Text, ".kv_applied")
	}
	if !applied {
		t.Errorf("no relevant property over kv_applied in the top %d", k)
	}
}
