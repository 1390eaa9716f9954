package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/pipeline"
)

// TestExplain explains properties of the small run, one for each reason
// a property is absent from the report or not generated, and checks the
// verdict names it. TestExplainPlaces covers the places in the report.
func TestExplain(t *testing.T) {
	spec, tr := smallTrace(t)
	tests := []struct {
		name     string
		property string
		o        pipeline.Options
		verdict  string // in the verdict
	}{
		{"invariant", "forall n0 in nodes: n0.applied <= n0.commit", pipeline.Options{},
			" of the invariants"},
		{"large share", `forall n0 in nodes: n0.state != "candidate"`, pipeline.Options{},
			"not listed: its anomaly is violated through a large share of the run: temporal rate 0.92333"},
		{"or-effect", `forall n0 in nodes: n0.commit <= n0.lastIndex or n0.state == "leader"`, pipeline.Options{},
			"not listed: dropped as an or-effect"},
		{"pruned", "forall n0 in nodes: n0.applied == n0.commit", pipeline.Options{},
			"not a candidate: pruned by the filter after 100 snapshots, at holding rate 0.76167"},
		{"below the hold ratio", "forall n0 in nodes: n0.applied == n0.commit", pipeline.Options{NoFilter: true},
			"not a candidate: holding rate 0.77056 below the hold ratio 0.95"},
		{"little support", "forall n0 in nodes: n0.applied <= n0.commit", pipeline.Options{OnlyTag: "bug:two-leaders"},
			"not a candidate: support 3: non-vacuous in fewer than min_support = 10 snapshots"},

		{"unknown variable", "forall n0 in nodes: n0.comit <= n0.lastIndex", pipeline.Options{},
			"not generated: it is no property over the spec: 1:21: unknown variable comit"},
		{"exists", `exists n0 in nodes: n0.state == "leader"`, pipeline.Options{},
			"not generated: it has an exists quantifier"},
		{"separate node quantifiers", "forall n0 in nodes: forall n1 in nodes: n0.term == n1.term", pipeline.Options{},
			"not generated: its prefix is not one forall … in nodes followed by iterators"},
		{"max nodes", "forall n0, n1, n2 in nodes: n0.term == n1.term or n1.term == n2.term", pipeline.Options{},
			"not generated: it has 3 node variables, more than generate.max_nodes = 2; evaluated alone, it would be a candidate"},
		{"max literals", `forall n0 in nodes: n0.applied <= n0.commit or n0.commit <= n0.lastIndex or n0.lead == ""`, pipeline.Options{},
			"not generated: it has 3 literals, more than generate.max_literals = 2"},
		{"iterate", "forall n0 in nodes: forall e0 in n0.log: e0.index <= n0.lastIndex", pipeline.Options{},
			"not generated: it iterates over n0.log, not a container variable of a node named in generate.iterate []"},
		{"unused variable", "forall n0, n1 in nodes: n0.applied <= n0.commit", pipeline.Options{},
			"not generated: variable n1 occurs in no literal"},
		{"constant not mined", "forall n0 in nodes: n0.term == 99", pipeline.Options{},
			"not generated: no constants of term were mined: it takes more than generate.constants.max_distinct = 8 distinct values in the trace; evaluated alone, it would not be a candidate: pruned by the filter"},
		{"constant not among the mined", `forall n0 in nodes: n0.lead == "n9"`, pipeline.Options{},
			`not generated: "n9" is not a constant of lead, whose constants are: ""`},
		{"trivial literal", "forall n0 in nodes: n0.commit == n0.commit", pipeline.Options{},
			"not generated: n0.commit == n0.commit compares a path with itself"},
		{"tautology", `forall n0 in nodes: n0.lead != "" or n0.lead == ""`, pipeline.Options{},
			`not generated: n0.lead == "" and n0.lead != "": a tautology`},
		{"same paths", "forall n0 in nodes: n0.applied < n0.commit or n0.commit < n0.applied", pipeline.Options{},
			"not generated: n0.applied < n0.commit and n0.commit < n0.applied compare the same two paths"},
		{"enum constants", `forall n0 in nodes: n0.state == "leader" or n0.state == "follower"`, pipeline.Options{},
			`not generated: n0.state == "follower" or n0.state == "leader": 2 constants of n0.state, an enum of 3 values; at most 1 are generated`},
		{"constant beside a negated one", `forall n0 in nodes: n0.state == "leader" or n0.state != "follower"`, pipeline.Options{},
			`not generated: n0.state == "leader" and n0.state != "follower": a constant of a path beside a negated constant of the same path is redundant`},
		{"set of a container", "forall n0 in nodes: set(n0.log)", pipeline.Options{},
			"not generated: set(n0.log): set(x) is generated for paths that are not containers"},
		{"negated order", "forall n0 in nodes: not n0.commit < n0.applied", pipeline.Options{},
			"not generated: not n0.commit < n0.applied: the negation of an order is never generated; n0.applied <= n0.commit"},
		{"redundant", "forall n0 in nodes: n0.commit < n0.lastIndex or set(n0.commit)", pipeline.Options{},
			"not generated: within the limits, but dropped at generation: its literals are redundant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := pipeline.Explain(context.Background(), spec, tr, tt.property, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(x.Verdict, tt.verdict) {
				t.Errorf("verdict %q\nwant it to hold %q", x.Verdict, tt.verdict)
			}
		})
	}
}

// TestExplainAgreesWithInfer checks that explaining each listed
// almost-invariant of a report gives its rank, rates and anomaly.
func TestExplainAgreesWithInfer(t *testing.T) {
	ctx := context.Background()
	spec, tr := smallTrace(t)
	rep, err := pipeline.Infer(ctx, spec, tr, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rep.AlmostInvariants {
		x, err := pipeline.Explain(ctx, spec, tr, e.Text, pipeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !x.Generated || x.Rank != e.Rank || x.Order != e.Rank || x.Anomaly == nil || x.Anomaly.Role != "representative" || x.Anomaly.ID != e.ID {
			t.Errorf("%s: explained as generated %v, rank %d, order %d, anomaly %+v; want rank %d, representing its anomaly",
				e.Text, x.Generated, x.Rank, x.Order, x.Anomaly, e.Rank)
			continue
		}
		if ev := x.Evaluation; ev.HoldingRate != e.HoldingRate || ev.Violations != e.Violations || ev.Support != e.Support || ev.ViolationEvents != e.ViolationEvents {
			t.Errorf("%s: evaluation %+v differs from the report's entry %+v", e.Text, ev, e)
		}
	}
}

// TestExplainPlaces explains properties at each place of the small
// run's report, found in reports of it: under a representative, as an
// equivalent or failing at its moments; beyond the report's size, and
// listed with a larger one.
func TestExplainPlaces(t *testing.T) {
	ctx := context.Background()
	spec, tr := smallTrace(t)
	rep, err := pipeline.Infer(ctx, spec, tr, pipeline.Options{Top: 100})
	if err != nil {
		t.Fatal(err)
	}
	const size = 5 // small.yaml's report.size
	if len(rep.AlmostInvariants) <= size {
		t.Fatalf("the small run lists %d almost-invariants, want more than %d", len(rep.AlmostInvariants), size)
	}
	type place struct {
		name, property string
		o              pipeline.Options
		verdict        string
		place          int // Explanation.Place
	}
	beyond := rep.AlmostInvariants[size]
	places := []place{
		{"beyond the size", beyond.Text, pipeline.Options{}, fmt.Sprintf("not listed: its anomaly ranks %d, beyond the report's size (%d): --top %d lists it", size+1, size, size+1), size + 1},
		{"within a larger size", beyond.Text, pipeline.Options{Top: size + 1}, fmt.Sprintf("listed at rank %d", size+1), 0},
	}
	for _, e := range rep.AlmostInvariants {
		if len(e.Equivalents) > 0 {
			places = append(places, place{"equivalent", e.Equivalents[0], pipeline.Options{Top: 100},
				fmt.Sprintf("listed at rank %d, as an equivalent of %s", e.Rank, e.Text), 0})
			break
		}
	}
	for _, e := range rep.AlmostInvariants {
		if len(e.AlsoFailsHere) > 0 {
			places = append(places, place{"also fails here", e.AlsoFailsHere[0], pipeline.Options{Top: 100},
				fmt.Sprintf("listed at rank %d, as one that also fails at the moments of %s", e.Rank, e.Text), 0})
			break
		}
	}
	if len(places) < 4 {
		t.Fatalf("the small run's report has no equivalent or no property failing under another")
	}
	for _, tt := range places {
		t.Run(tt.name, func(t *testing.T) {
			x, err := pipeline.Explain(ctx, spec, tr, tt.property, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if x.Verdict != tt.verdict || x.Place != tt.place {
				t.Errorf("%s:\nverdict %q, place %d\nwant    %q, place %d", tt.property, x.Verdict, x.Place, tt.verdict, tt.place)
			}
		})
	}
}

// TestExplainForms checks that a property is found in the pool up to the
// naming of its node variables and canonical form.
func TestExplainForms(t *testing.T) {
	spec, tr := smallTrace(t)
	const pool = `forall n0, n1 in nodes: n0.applied == n0.lastIndex or n1.state != "candidate"`
	for _, prop := range []string{
		pool,
		`forall a, b in nodes: b.applied == b.lastIndex or a.state != "candidate"`,
		`∀ n1, n0 ∈ nodes: ¬(n0.state == "candidate") ∨ n1.lastIndex == n1.applied`,
	} {
		x, err := pipeline.Explain(context.Background(), spec, tr, prop, pipeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !x.Generated || x.GeneratedAs != "" && x.GeneratedAs != pool {
			t.Errorf("%s: generated %v as %q, want it found as %s", prop, x.Generated, x.GeneratedAs, pool)
		}
	}
}

// TestExplainJSON checks the stable field names of the JSON form.
func TestExplainJSON(t *testing.T) {
	spec, tr := smallTrace(t)
	x, err := pipeline.Explain(context.Background(), spec, tr, "forall n0 in nodes: n0.commit <= n0.lastIndex", pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := x.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"property", "id", "generated", "evaluation", "anomaly", "order", "anomalies", "rank", "list", "verdict"} {
		if _, ok := got[key]; !ok {
			t.Errorf("JSON lacks %q:\n%s", key, buf.Bytes())
		}
	}
	ev, _ := got["evaluation"].(map[string]any)
	for _, key := range []string{"holding_rate", "temporal_rate", "violations", "bindings", "support", "violating_snapshots", "violation_events", "pruned", "moments", "witnesses"} {
		if _, ok := ev[key]; !ok {
			t.Errorf("JSON evaluation lacks %q", key)
		}
	}
}

// TestExplainBadProperty checks that a property that does not parse is
// an error with its position.
func TestExplainBadProperty(t *testing.T) {
	spec, tr := smallTrace(t)
	_, err := pipeline.Explain(context.Background(), spec, tr, "forall n0 in nodes: n0.commit <", pipeline.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "1:32: ") {
		t.Errorf("error %v, want one at 1:32", err)
	}
}

// TestExplainUnfiltered checks that a pruned property is evaluated again
// over the whole run, where it may become a candidate.
func TestExplainUnfiltered(t *testing.T) {
	spec, tr := smallTrace(t)
	for _, tt := range []struct {
		property  string
		candidate bool
	}{
		{"forall n0, n1 in nodes: n0.applied <= n1.commit", true},
		{"forall n0 in nodes: n0.applied == n0.commit", false},
	} {
		x, err := pipeline.Explain(context.Background(), spec, tr, tt.property, pipeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !x.Evaluation.Pruned || x.Unfiltered == nil {
			t.Errorf("%s: pruned %v, unfiltered %+v; want pruned, evaluated again", tt.property, x.Evaluation.Pruned, x.Unfiltered)
			continue
		}
		if x.Unfiltered.Pruned || x.Unfiltered.Support != 300 || (x.UnfilteredNotCandidate == "") != tt.candidate {
			t.Errorf("%s: unfiltered %+v, not candidate %q; want the whole run, a candidate %v", tt.property, x.Unfiltered, x.UnfilteredNotCandidate, tt.candidate)
		}
	}
}

// TestExplainListedWith checks, on a run made for it, that a property
// failing in the baseline too, far less often than here, is listed with
// its refinement that never fails there, first, and that explain says
// so. n0.applied <= n0.commit fails at 8 strikes, 7 of them while n0
// installs a snapshot (the or-effect test keeps the refinement with
// "or n0.snap"), and once in the good run, while installing one; the
// refinement fails at the one strike without a snapshot, never in the
// good run. The p-value, P(at least 8 of 9 events here) with runs of one
// length, is 10/512.
func TestExplainListedWith(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, strikes map[int]bool) string { // strike's first snapshot → installing a snapshot
		var b bytes.Buffer
		for s := range 600 {
			commit := s / 10
			fmt.Fprintf(&b, `{"snapshot":%d,"ts":%d,"nodes":{`, s, s)
			for i, n := range []string{"n1", "n2", "n3"} {
				applied, snap := commit, false
				for at, installing := range strikes {
					if n == "n2" && at <= s && s < at+2 {
						applied, snap = commit+1, installing
					}
				}
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"%s":{"applied":%d,"commit":%d,"snap":%t}`, n, applied, commit, snap)
			}
			b.WriteString("}}\n")
		}
		jsonl, tr := filepath.Join(dir, name+".jsonl"), filepath.Join(dir, name+".trace")
		if err := os.WriteFile(jsonl, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.Collect(t.Context(), tr, []string{jsonl}, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	run := write("run", map[int]bool{40: true, 110: true, 170: true, 250: false, 320: true, 400: true, 470: true, 540: true})
	good := write("good", map[int]bool{300: true})
	spec := filepath.Join(dir, "spec.yaml")
	const specText = "system: refined\ntypes:\n  Index: int64\nvariables:\n  applied: Index\n  commit: Index\n  snap: bool\ngenerate:\n  max_nodes: 1\n  max_literals: 2\n"
	if err := os.WriteFile(spec, []byte(specText), 0o644); err != nil {
		t.Fatal(err)
	}
	const (
		q = "forall n0 in nodes: n0.applied <= n0.commit"
		p = "forall n0 in nodes: n0.applied <= n0.commit or n0.snap"
	)
	x, err := pipeline.Explain(t.Context(), spec, run, q, pipeline.Options{Baselines: []string{good}})
	if err != nil {
		t.Fatal(err)
	}
	if x.Rank != 1 || x.Anomaly == nil || x.Anomaly.ListedWith != p || x.Anomaly.RefinedBy != p || !x.Anomaly.MoreThanBaseline {
		t.Fatalf("rank %d, anomaly %+v; want rank 1, listed with and refined by %s", x.Rank, x.Anomaly, p)
	}
	if xp, err := pipeline.Explain(t.Context(), spec, run, p, pipeline.Options{Baselines: []string{good}}); err != nil || xp.Rank != 2 || xp.Anomaly == nil || xp.Anomaly.Refines != q {
		t.Fatalf("%s: %v, %+v; want rank 2, refining %s", p, err, xp, q)
	}
	var b bytes.Buffer
	if err := x.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "far less often than here (1 violation event in 600 non-vacuous snapshots there, 8 in 600 here: p-value 0.0195 at level 0.05), and its longer form " + p + " never does: listed with it, among the anomalies that do not"; !strings.Contains(b.String(), want) {
		t.Errorf("explain says\n%s\nwant a line with %q", b.String(), want)
	}
}
