package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/reporter"
)

// TestPatternsAgreeWithCounting checks the reporter's second pass, which
// derives the literal patterns of the candidates from their pattern
// properties (reporter.Patterns), against the evaluators counting the
// patterns in their loop: the oracle of that arithmetic, on every
// candidate of the small run's pool, with each evaluator. It checks the
// pass that counts the candidates' patterns itself (countedPatterns) too.
func TestPatternsAgreeWithCounting(t *testing.T) {
	defer func(n int) { countedPatterns = n }(countedPatterns)
	for _, n := range []int{1 << 30, 0} { // derived always, counted always
		countedPatterns = n
		t.Run(fmt.Sprintf("counted-beyond-%d", n), testPatternsAgreeWithCounting)
	}
}

func testPatternsAgreeWithCounting(t *testing.T) {
	ctx := context.Background()
	tr := filepath.Join(t.TempDir(), "small.trace")
	if _, err := ingest.Collect(t.Context(), tr, []string{"../testdata/small.jsonl"}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	p, err := Open("../testdata/small.yaml", tr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ropts := reporter.OptionsFrom(p.Spec)
	for _, kind := range []evaluator.Kind{evaluator.Fast, evaluator.Reference} {
		counted, err := evaluator.Run(ctx, p.Trace, p.Program, evaluator.Options{Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		derived, err := evaluator.Run(ctx, p.Trace, p.Program, evaluator.Options{Kind: kind, NoPatterns: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.patterns(ctx, derived, ropts, Options{Evaluator: kind}); err != nil {
			t.Fatal(err)
		}
		checked := 0
		for i, pr := range p.Program.Props {
			st := &counted.Stats[i]
			if k := pr.Literals(); !pr.Flat() || k < 2 || k > evaluator.MaxPatternLiterals || reporter.NotCandidate(st, ropts.HoldRatio, ropts.MinSupport) != "" {
				continue
			}
			checked++
			if got, want := derived.Stats[i].Patterns, st.Patterns; got != want {
				t.Fatalf("%v: %s: derived patterns %v, counted %v", kind, pr.Text, got, want)
			}
		}
		if checked < 10 {
			t.Fatalf("%v: only %d candidates checked", kind, checked)
		}
	}
}
