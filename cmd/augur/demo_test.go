package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/augur-dev/augur/internal/demo"
	"github.com/augur-dev/augur/reporter"
)

// TestDemoFindsPlantedBugs checks that the demo's top 10 holds, for every
// planted bug, a relevant property: one whose violating snapshots mostly
// carry the bug's tag.
func TestDemoFindsPlantedBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo evaluates about 16,000 properties")
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"demo", "-q", "--format", "json"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("augur demo: exit %d: %s", code, stderr.String())
	}
	var r reporter.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.AlmostInvariants) != 10 {
		t.Fatalf("top list has %d entries, want 10", len(r.AlmostInvariants))
	}
	relevant := 0
	for _, bug := range demo.Bugs {
		rank := 0
		for _, e := range r.AlmostInvariants {
			if 2*e.ViolatingTags[bug] > e.ViolatingSnapshots {
				rank = e.Rank
				break
			}
		}
		if rank == 0 {
			t.Errorf("no property relevant to %s in the top 10", bug)
		}
		t.Logf("%s: first relevant property at rank %d", bug, rank)
	}
	for _, e := range r.AlmostInvariants {
		for _, bug := range demo.Bugs {
			if 2*e.ViolatingTags[bug] > e.ViolatingSnapshots {
				relevant++
				break
			}
		}
	}
	t.Logf("precision@10: %d/10", relevant)
}
