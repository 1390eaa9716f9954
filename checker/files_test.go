package checker

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

// TestCheckFiles checks a trace of two snapshots, the second with two
// leaders, against a checks file without a spec, in both formats.
func TestCheckFiles(t *testing.T) {
	b := tracetest.New(t, trace.Schema{{Name: "role", Type: arrow.BinaryTypes.String}}, trace.Options{System: "toy"})
	f1, l2 := b.State("n1", 1, "follower"), b.State("n2", 1, "leader")
	l1 := b.State("n1", 2, "leader")
	b.Snapshot(trace.Snapshot{ID: 0, TS: 1, Members: []uint32{f1, l2}})
	b.Snapshot(trace.Snapshot{ID: 1, TS: 2, Members: []uint32{l1, l2}})
	tr := b.Open()
	checks := write(t, "checks.yaml", "checks:\n  - name: one-leader\n    property: 'forall n0, n1 in nodes: n0.role != \"leader\" or n1.role != \"leader\"'\n")
	for _, format := range []string{"text", "json"} {
		var out strings.Builder
		violated, err := CheckFiles(context.Background(), &out, FilesOptions{Checks: checks, Trace: tr.Dir, Format: format, MaxWitnesses: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !violated || !strings.Contains(out.String(), "one-leader") {
			t.Errorf("%s: violated %v:\n%s", format, violated, out.String())
		}
	}
	if _, err := CheckFiles(context.Background(), nil, FilesOptions{Checks: checks, Trace: tr.Dir, Format: "xml"}); err == nil || err.Error() != `unknown format "xml" (want text or json)` {
		t.Errorf("format xml: %v", err)
	}
	ok := write(t, "ok.yaml", "checks:\n  - name: roles\n    property: 'forall n0 in nodes: n0.role == \"leader\" or n0.role == \"follower\"'\n")
	var out strings.Builder
	if violated, err := CheckFiles(context.Background(), &out, FilesOptions{Checks: ok, Trace: tr.Dir, Format: "text"}); err != nil || violated {
		t.Errorf("holding check: violated %v, %v:\n%s", violated, err, out.String())
	}
}
