package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
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
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	checks := write("checks.yaml", "checks:\n  - name: one-leader\n    property: 'forall n0, n1 in nodes: n0.role != \"leader\" or n1.role != \"leader\"'\n")
	for _, format := range []string{"text", "json"} {
		var out strings.Builder
		violated, err := CheckFiles(context.Background(), &out, CheckOptions{Checks: checks, Trace: tr.Dir, Format: format, MaxWitnesses: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !violated || !strings.Contains(out.String(), "one-leader") {
			t.Errorf("%s: violated %v:\n%s", format, violated, out.String())
		}
	}
	if _, err := CheckFiles(context.Background(), nil, CheckOptions{Checks: checks, Trace: tr.Dir, Format: "xml"}); err == nil || err.Error() != `unknown format "xml" (want text or json)` {
		t.Errorf("format xml: %v", err)
	}
	ok := write("ok.yaml", "checks:\n  - name: roles\n    property: 'forall n0 in nodes: n0.role == \"leader\" or n0.role == \"follower\"'\n")
	var out strings.Builder
	if violated, err := CheckFiles(context.Background(), &out, CheckOptions{Checks: ok, Trace: tr.Dir, Format: "text"}); err != nil || violated {
		t.Errorf("holding check: violated %v, %v:\n%s", violated, err, out.String())
	}
}

// TestCheckFailureWarnings checks that a result carries the failures of
// the expressions its property reads, and that both outputs print them,
// the JSON as warnings with their codes.
func TestCheckFailureWarnings(t *testing.T) {
	d := evaluator.ExprFailures{Kind: "derived", Name: "last", Inputs: 4, Error: "derived last: boom", Always: true}
	p := evaluator.ExprFailures{Kind: "predicate", Name: "agree", Inputs: 1, Snapshot: 3, Error: "predicate agree: boom"}
	for _, tt := range []struct {
		src  string
		want []bool // reads d, p
	}{
		{"forall a in nodes: a.last <= a.commit", []bool{true, false}},
		{"forall a, b in nodes: agree(a.log, b.log)", []bool{false, true}},
		// A field of a log entry named like the derived variable.
		{"forall a in nodes: forall e in a.log: e.last == 0", []bool{false, false}},
	} {
		prop, err := grammar.Parse(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := []bool{reads(prop, d), reads(prop, p)}; !slices.Equal(got, tt.want) {
			t.Errorf("%s reads %v, want %v", tt.src, got, tt.want)
		}
	}
	r := []CheckResult{{Check: &checker.Check{Name: "c", Property: "forall a in nodes: a.last <= 0"}, Failures: []evaluator.ExprFailures{d}}}
	var text, js bytes.Buffer
	if err := writeCheckText(&text, "t.trace", 1, r); err != nil {
		t.Fatal(err)
	}
	if err := writeCheckJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	want := "derived variable last failed at run time on every node state it was evaluated on (4), first at snapshot 0: boom"
	if !strings.Contains(text.String(), "warning: c: "+want) || !strings.Contains(js.String(), `{
          "code": "derived-always-failed",
          "message": "`+want) {
		t.Errorf("outputs lack the warning:\n%s\n%s", text.String(), js.String())
	}
}

// TestCheckWitnessesOption checks CheckOptions.MaxWitnesses at its
// boundaries over a check violated at 30 snapshots: zero takes the
// default, NoWitnesses and any negative count show none, a positive
// count shows that many, and more than the violations shows them all,
// also more than memory could hold.
// Every violation is counted whatever is shown.
func TestCheckWitnessesOption(t *testing.T) {
	const violating = 30
	b := tracetest.New(t, trace.Schema{{Name: "role", Type: arrow.BinaryTypes.String}}, trace.Options{System: "toy"})
	for i := range violating {
		l1, l2 := b.State("n1", uint64(i), "leader"), b.State("n2", uint64(i), "leader")
		b.Snapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i + 1), Members: []uint32{l1, l2}})
	}
	tr := b.Open()
	checks := filepath.Join(t.TempDir(), "checks.yaml")
	if err := os.WriteFile(checks, []byte("checks:\n  - name: one-leader\n    property: 'forall n0, n1 in nodes: n0.role != \"leader\" or n1.role != \"leader\"'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		max, want int
	}{
		{NoWitnesses, 0},
		{-5, 0},
		{0, DefaultCheckWitnesses},
		{1, 1},
		{DefaultCheckWitnesses + 1, DefaultCheckWitnesses + 1},
		{violating + 10, violating},
		{1 << 40, violating}, // no room for as many is reserved (it ran out of memory)
	} {
		var out bytes.Buffer
		violated, err := CheckFiles(t.Context(), &out, CheckOptions{Checks: checks, Trace: tr.Dir, Format: "json", MaxWitnesses: tt.max, Workers: 1})
		if err != nil || !violated {
			t.Fatalf("MaxWitnesses %d: violated %v, %v", tt.max, violated, err)
		}
		var doc struct {
			Checks []struct {
				ViolatingSnapshots int               `json:"violating_snapshots"`
				Witnesses          []json.RawMessage `json:"witnesses"`
			} `json:"checks"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Checks) != 1 {
			t.Fatalf("MaxWitnesses %d: %v\n%s", tt.max, err, out.String())
		}
		if res := doc.Checks; len(res) != 1 || len(res[0].Witnesses) != tt.want || res[0].ViolatingSnapshots != violating {
			t.Errorf("MaxWitnesses %d: %d results, %d witnesses of %d violating snapshots; want %d of %d", tt.max, len(res), len(res[0].Witnesses), res[0].ViolatingSnapshots, tt.want, violating)
		}
	}
}
