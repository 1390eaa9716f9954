package reporter

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

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
	if want := "predicate p failed at run time on every argument list it was evaluated on (7), first at snapshot 2: boom; it is false everywhere, so the properties over it say nothing about it"; len(always) != 1 || always[0].Message != want || always[0].Code != "predicate-always-failed" {
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
