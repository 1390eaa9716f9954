package reporter

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/evaluator"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestWriteFormats checks the text, Markdown and JSON forms of a small
// report, with a warning, against golden files in testdata; -update
// rewrites them. Each also has to say what a reader needs whatever the
// golden file holds: the property, its rate and the warning.
func TestWriteFormats(t *testing.T) {
	r := build(t, []string{`forall n0 in nodes: n0.a or n0.b`, `forall n0 in nodes: n0.c`},
		[]evaluator.Stats{stats(map[int]int64{0b00: 2, 0b01: 500, 0b10: 498}), stats(map[int]int64{0b1: 1000})})
	r.Warnings = failureWarnings([]evaluator.ExprFailures{
		{Kind: "derived", Name: "last", Inputs: 3, Snapshot: 17, Error: "derived last: invalid argument for len (type <nil>)"},
	})
	always := failureWarnings([]evaluator.ExprFailures{
		{Kind: "predicate", Name: "p", Inputs: 7, Snapshot: 2, Error: "predicate p: boom", Always: true},
	})
	if want := "predicate p failed at run time on every argument list it was evaluated on (7), first at snapshot 2: boom; it is false everywhere, so the properties over it say nothing about it"; len(always) != 1 || always[0].Msg != want || always[0].Code != "predicate-always-failed" {
		t.Errorf("warning of a predicate that always fails = %+v, want %q", always, want)
	}
	for _, format := range []string{"text", "md", "json"} {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := r.Write(&b, format); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{
				"forall n0 in nodes: n0.a or n0.b",
				"forall n0 in nodes: n0.c",
				"0.998",
				"derived variable last failed at run time on 3 node states, first at snapshot 17: invalid argument for len (type <nil>); it is null there",
			} {
				if !bytes.Contains(b.Bytes(), []byte(want)) {
					t.Errorf("%s output lacks %q:\n%s", format, want, b.String())
				}
			}
			golden := filepath.Join("testdata", "report."+format)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s output differs from %s (rerun with -update if the change is meant):\n%s", format, golden, b.String())
			}
		})
	}
}

// bigReport is a report as a large run makes it: many candidates left
// out, entries explained by dozens of long properties, with many
// equivalents and more failing at their moments.
func bigReport() *Report {
	long := func(i int) string {
		return fmt.Sprintf("forall n0, n1 in nodes: n0.commit_index <= n1.applied_index or n0.epoch != n1.epoch or n1.role_%03d != \"primary\"", i)
	}
	var many []string
	for i := range 60 {
		many = append(many, long(i))
	}
	r := &Report{
		Version: Version, System: "pb", Snapshots: 5000,
		Properties: Counts{Generated: 545054, Evaluated: 69000, Pruned: 41000},
		Candidates: Candidates{AlmostInvariants: 157, Invariants: 40, OrEffect: 5000, Equivalent: 831, Anomalies: 157, Grouped: 900, NotStandingOut: 145, Listed: 12},
	}
	for rank := 1; rank <= 10; rank++ {
		r.AlmostInvariants = append(r.AlmostInvariants, &Entry{
			Rank: rank, ID: fmt.Sprintf("%012x", rank), Text: long(100 + rank), HoldingRate: 0.999, Violations: 4, Bindings: 20000,
			ViolatingSnapshots: 4, ViolatingTags: map[string]int64{"bug:commit-ahead": 4, "steady": 1},
			ExplainedBy: many, Equivalents: many, AlsoFailsHere: many,
		})
	}
	r.Invariants = []*Entry{{Rank: 1, ID: "i1", Text: "forall n0 in nodes: n0.applied_index <= n0.commit_index", HoldingRate: 1, Bindings: 20000}}
	return r
}

// TestFormatsAgree checks that the text, Markdown and HTML reports give
// the same counts, in the same words: what was found, how it is
// grouped, what is left out and why, and how many of each section are
// listed; and that the JSON report holds them.
func TestFormatsAgree(t *testing.T) {
	r := bigReport()
	want := []string{
		"1888 almost-invariants in 157 anomalies (831 equivalent and 900 more listed under a simpler one), 40 invariants; 5000 dropped as or-effects; 145 anomalies violated through a large share of the run, not listed",
		"Almost-invariants (12, top 10)",
		"Invariants (40, top 1)",
	}
	for _, format := range []string{"text", "md", "html"} {
		var b bytes.Buffer
		if err := r.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s report lacks %q", format, w)
			}
		}
	}
	var b bytes.Buffer
	if err := r.Write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Candidates != r.Candidates {
		t.Errorf("JSON candidates = %+v, want %+v", back.Candidates, r.Candidates)
	}
}

// TestLineLength checks that no line of a text or Markdown report runs
// past 300 characters, however many properties explain an entry, are
// equivalent to it or fail at its moments.
func TestLineLength(t *testing.T) {
	r := bigReport()
	for _, format := range []string{"text", "md"} {
		var b bytes.Buffer
		if err := r.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(b.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > 300 {
				t.Errorf("%s report, line %d: %d characters: %.120s…", format, i+1, n, line)
			}
		}
	}
}

func TestExplainedBy(t *testing.T) {
	five := []string{"forall n0 in nodes: n0.a", "forall n0 in nodes: n0.b", "forall n0 in nodes: n0.c", "forall n0 in nodes: n0.d", "forall n0 in nodes: n0.e"}
	tests := []struct {
		by    []string
		width int
		want  string
	}{
		{five[:2], 300, "  explained by forall n0 in nodes: n0.a; forall n0 in nodes: n0.b"},
		{five, 300, "  explained by forall n0 in nodes: n0.a; forall n0 in nodes: n0.b; and 3 more (--format json lists them)"},
		{five, 80, "  explained by forall n0 in nodes: n0.a; and 4 more (--format json lists them)"},
		{five, 60, "  explained by 5 longer properties (--format json lists them)"},
		{five[:1], 20, "  explained by 1 longer property (--format json names it)"},
	}
	for _, tt := range tests {
		if got := explainedBy(tt.by, tt.width); got != tt.want {
			t.Errorf("explainedBy(%d properties, %d) = %q, want %q", len(tt.by), tt.width, got, tt.want)
		}
	}
}

func TestNaming(t *testing.T) {
	refs := map[string]string{"forall n0 in nodes: n0.a": "#3", "forall n0 in nodes: n0.c": "rare value #1"}
	for _, tt := range []struct {
		text  string
		width int
		want  string
	}{
		{"forall n0 in nodes: n0.a", 10, "refines #3: why"},
		{"forall n0 in nodes: n0.c", 10, "refines rare value #1: why"},
		{"forall n0 in nodes: n0.b", 80, "refines forall n0 in nodes: n0.b: why"},
		{"forall n0 in nodes: n0.b", 20, "refines a simpler property (--format json names it): why"},
	} {
		if got := naming("refines", tt.text, "a simpler property", ": why", refs, tt.width); got != tt.want {
			t.Errorf("naming(%q, width %d) = %q, want %q", tt.text, tt.width, got, tt.want)
		}
	}
}

// TestEntryWarnings: an entry's caveat is a warning with a code, which
// the JSON report (version 2) writes as {code, message} and the text and
// HTML reports as its message, as they write the report's own warnings.
func TestEntryWarnings(t *testing.T) {
	r := build(t, []string{`forall n0 in nodes: exists n1 in nodes: n0.a or n1.b`}, []evaluator.Stats{stats(map[int]int64{0: 2, 1: 998})})
	if len(r.AlmostInvariants) != 1 {
		t.Fatalf("almost-invariants %q, want the property", texts(r.AlmostInvariants))
	}
	ws := r.AlmostInvariants[0].Warnings
	if len(ws) != 1 || ws[0].Code != WarnOrEffectUntested || !strings.HasPrefix(ws[0].Msg, "or-effect not tested") {
		t.Fatalf("warnings %+v, want one %s", ws, WarnOrEffectUntested)
	}
	r.Warnings = []diag.Warning{{Code: "class-capped", Msg: "max_per_class kept 1 of 2"}}
	for format, wants := range map[string][]string{
		"json": {`"warnings": [
        {
          "code": "or-effect-untested",
          "message": "or-effect not tested: `, `"warnings": [
    {
      "code": "class-capped",
      "message": "max_per_class kept 1 of 2"`},
		"text": {"warning: or-effect not tested: ", "warning: max_per_class kept 1 of 2\n"},
		"html": {`<div class="muted">warning: or-effect not tested: `, `<strong>Warning:</strong> max_per_class kept 1 of 2</p>`},
	} {
		var b bytes.Buffer
		if err := r.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		for _, want := range wants {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s report:\n%s\nwant it to contain %q", format, b.String(), want)
			}
		}
	}
}

func TestInBaseline(t *testing.T) {
	for _, tt := range []struct {
		c    Candidates
		want string
	}{
		{Candidates{InBaseline: 3}, "3 of the almost-invariants fail there too and are ranked last"},
		{Candidates{InBaseline: 3, MoreThanBaseline: 1}, "3 of the almost-invariants fail there too and are ranked last, the one that fails there far less often than here first"},
		{Candidates{InBaseline: 3, MoreThanBaseline: 2}, "3 of the almost-invariants fail there too and are ranked last, the 2 that fail there far less often than here first"},
		{Candidates{InBaseline: 3, MoreThanBaseline: 1, ListedWith: 1}, "3 of the almost-invariants fail there too and are ranked last, the one that fails there far less often than here first, but it is listed earlier, with a longer form of it that never fails there"},
		{Candidates{InBaseline: 3, MoreThanBaseline: 2, ListedWith: 1}, "3 of the almost-invariants fail there too and are ranked last, the 2 that fail there far less often than here first; 1 of those is listed earlier, with a longer form of it that never fails there"},
		{Candidates{InBaseline: 3, MoreThanBaseline: 2, ListedWith: 2}, "3 of the almost-invariants fail there too and are ranked last, the 2 that fail there far less often than here first; 2 of those are listed earlier, each with a longer form of it that never fails there"},
	} {
		if got := tt.c.inBaseline(); got != tt.want {
			t.Errorf("inBaseline(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestFormatRate(t *testing.T) {
	for _, tt := range []struct {
		h    float64
		want string
	}{
		{1, "1.00000"},
		{0.99889, "0.99889"},
		{1 - 1.0/564540, "0.999998"},  // rounds to 1.00000 at five decimals
		{1 - 1.0/5e6, "0.9999998"},    // and at six
		{1 - 1e-15, "0.999999999999"}, // rounded down at twelve decimals
		{0, "0.00000"},
	} {
		if got := FormatRate(tt.h); got != tt.want {
			t.Errorf("FormatRate(%v) = %q, want %q", tt.h, got, tt.want)
		}
	}
}
