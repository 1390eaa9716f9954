package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/augur-dev/augur/reporter"
)

// TestDemoFindsTheBug checks that the demo's top 10 holds a property
// relevant to the injected bug (one whose violating snapshots mostly
// carry the bug's tag), and that the share of relevant properties among
// those reported (precision, as augur bench testbeds counts it) does not
// fall below what the reporter reached on this run when the demo moved to
// the etcd raft testbed (3 of 10; with the stand-out rule, 2 of the 6
// anomalies that stand out; 2 of 7 once a rare anomaly is no longer
// hidden in one left out, the seventh a legitimate transient violated in
// 4 events). The floor is a quarter.
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
	const k, tag = 10, "bug:apply-uncommitted"
	scores := reporter.Score(&r, k, []string{tag})
	if len(scores) != 1 || scores[0].Tag != tag {
		t.Fatalf("scores = %+v, want one for %s", scores, tag)
	}
	s := scores[0]
	if s.First == 0 || s.First > k {
		t.Errorf("first relevant property at rank %d, want within the top %d", s.First, k)
	}
	reported := min(k, len(r.AlmostInvariants))
	if 4*s.Relevant < reported {
		t.Errorf("precision@%d = %d/%d, want at least 25%%", k, s.Relevant, reported)
	}
}
