package reporter

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

const boolSpec = `
variables:
  a: bool
  b: bool
  c: bool
`

// build compiles props and builds a report from hand-made stats.
func build(t *testing.T, props []string, stats []evaluator.Stats) *Report {
	t.Helper()
	return buildWithBaseline(t, props, stats, nil)
}

// buildWithBaseline builds the report of props with stats and, if
// baseline is not nil, the number of baseline snapshots where each fails.
func buildWithBaseline(t *testing.T, props []string, stats []evaluator.Stats, baseline []int64) *Report {
	t.Helper()
	spec, err := specs.Parse("bools.yaml", []byte(boolSpec))
	if err != nil {
		t.Fatal(err)
	}
	var ps []*grammar.Property
	for _, s := range props {
		p, err := grammar.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	prog, err := evaluator.Compile(spec, ps)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Program: prog, Result: &evaluator.Result{Snapshots: 1000, Stats: stats}, Generated: len(props)}
	if baseline != nil {
		in.BaselineTrace = "good.trace"
		in.Baseline = func(asked []*grammar.Property) ([]int64, error) {
			counts := make([]int64, len(asked))
			for i, q := range asked {
				counts[i] = baseline[slices.IndexFunc(prog.Props, func(p *evaluator.Prop) bool { return p.Property == q })]
			}
			return counts, nil
		}
	}
	r, err := Build(in, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// stats makes stats of a flat property over 1000 snapshots of one binding
// each from counts of literal truth patterns.
func stats(patterns map[int]int64) evaluator.Stats {
	var s evaluator.Stats
	for pat, n := range patterns {
		s.Patterns[pat] = n
		s.Bindings += n
		if pat == 0 {
			s.Violations += n
		}
	}
	s.Support = s.Bindings
	s.ScoreSum = float64(s.Bindings - s.Violations)
	s.Perfect = s.Bindings - s.Violations
	s.ViolatingSnapshots = s.Violations
	return s
}

func texts(es []*Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Text)
	}
	return out
}

func TestOrEffectIndependent(t *testing.T) {
	// a holds 80% and b 60% of the time, independently: a or b holds 92%.
	r := build(t, []string{`forall n0 in nodes: n0.a or n0.b`}, []evaluator.Stats{
		stats(map[int]int64{0b00: 80, 0b01: 320, 0b10: 120, 0b11: 480}),
	})
	if len(r.AlmostInvariants) != 0 || r.Candidates.OrEffect != 1 {
		t.Errorf("independent disjunction kept: %v, or-effect %d", texts(r.AlmostInvariants), r.Candidates.OrEffect)
	}
}

func TestOrEffectDependent(t *testing.T) {
	// a fails 40% of the time, and b holds exactly then, but for 5 rare
	// bindings: a or b is an almost-invariant with no candidate part.
	r := build(t, []string{`forall n0 in nodes: n0.a or n0.b`}, []evaluator.Stats{
		stats(map[int]int64{0b00: 5, 0b01: 600, 0b10: 395}),
	})
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, []string{"forall n0 in nodes: n0.a or n0.b"}) {
		t.Errorf("almost-invariants = %v", got)
	}
}

func TestOrEffectSubDisjunction(t *testing.T) {
	props := []string{
		`forall n0 in nodes: n0.a`,
		`forall n0 in nodes: n0.a or n0.c`,
		`forall n0 in nodes: n0.a or n0.b`,
	}
	a := stats(map[int]int64{0: 20, 1: 980})
	// c holds at 15 of a's 20 violations and at 5% of the bindings
	// elsewhere: it explains them, so a or c stays and a is explained.
	ac := stats(map[int]int64{0b00: 5, 0b10: 15, 0b01: 931, 0b11: 49})
	// b holds at 8% of a's violations and 8% elsewhere: a or b is the
	// or-effect of a.
	ab := stats(map[int]int64{0b00: 18, 0b10: 2, 0b01: 900, 0b11: 80})
	r := build(t, props, []evaluator.Stats{a, ac, ab})
	want := []string{"forall n0 in nodes: n0.a or n0.c", "forall n0 in nodes: n0.a"}
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, want) {
		t.Fatalf("almost-invariants = %v, want %v", got, want)
	}
	if got := r.AlmostInvariants[1].ExplainedBy; !reflect.DeepEqual(got, []string{want[0]}) {
		t.Errorf("a explained by %v", got)
	}
	if r.Candidates.OrEffect != 1 {
		t.Errorf("or-effect drops = %d, want 1", r.Candidates.OrEffect)
	}
}

func TestEquivalence(t *testing.T) {
	s := stats(map[int]int64{0: 3, 1: 997})
	s.Witnesses = []evaluator.Witness{{Snapshot: 7}}
	other := s
	other.Witnesses = []evaluator.Witness{{Snapshot: 9}}
	r := build(t, []string{
		`forall n0 in nodes: n0.b`,
		`forall n0 in nodes: n0.a`,
		`forall n0 in nodes: n0.c`,
	}, []evaluator.Stats{s, s, other})
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, []string{"forall n0 in nodes: n0.a", "forall n0 in nodes: n0.c"}) {
		t.Fatalf("almost-invariants = %v", got)
	}
	if got := r.AlmostInvariants[0].Equivalents; !reflect.DeepEqual(got, []string{"forall n0 in nodes: n0.b"}) {
		t.Errorf("equivalents = %v", got)
	}
}

func TestSameMoments(t *testing.T) {
	at := func(violations int64, moments ...uint64) evaluator.Stats {
		s := stats(map[int]int64{0: violations, 1: 1000 - violations})
		s.ViolatingSnapshots, s.Moments = violations, moments
		return s
	}
	r := build(t, []string{
		`forall n0 in nodes: n0.a`,
		`forall n0 in nodes: n0.b`,     // two of a's three moments
		`forall n0 in nodes: n0.c`,     // elsewhere
		`forall n0 in nodes: not n0.b`, // a's moments, but far more violations
	}, []evaluator.Stats{at(3, 1, 2, 3), at(4, 2, 3, 9, 12), at(2, 10, 11), at(16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)})
	want := []string{"forall n0 in nodes: n0.c", "forall n0 in nodes: n0.a", "forall n0 in nodes: not n0.b"}
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, want) {
		t.Fatalf("almost-invariants = %v, want %v", got, want)
	}
	if got := r.AlmostInvariants[1].SameMoments; !reflect.DeepEqual(got, []string{"forall n0 in nodes: n0.b"}) {
		t.Errorf("a: same moments = %v", got)
	}
	if r.Candidates.SameMoments != 1 {
		t.Errorf("folded %d, want 1", r.Candidates.SameMoments)
	}
}

func TestBaseline(t *testing.T) {
	props := []string{`forall n0 in nodes: n0.a`, `forall n0 in nodes: n0.b`, `forall n0 in nodes: n0.c`}
	r := buildWithBaseline(t, props,
		[]evaluator.Stats{stats(map[int]int64{0: 1, 1: 999}), stats(map[int]int64{0: 2, 1: 998}), stats(map[int]int64{0: 3, 1: 997})},
		[]int64{4, 0, 0})
	want := []string{"forall n0 in nodes: n0.b", "forall n0 in nodes: n0.c", "forall n0 in nodes: n0.a"}
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, want) {
		t.Fatalf("almost-invariants = %v, want %v", got, want)
	}
	if r.Candidates.InBaseline != 1 || r.AlmostInvariants[2].BaselineViolatingSnapshots != 4 || r.Baseline != "good.trace" {
		t.Errorf("in baseline %d, last entry %+v", r.Candidates.InBaseline, r.AlmostInvariants[2])
	}
	for i, e := range r.AlmostInvariants {
		if e.Rank != i+1 {
			t.Errorf("%s: rank %d, want %d", e.Text, e.Rank, i+1)
		}
	}
}

func TestSymmetricText(t *testing.T) {
	a, _ := grammar.Parse(`forall x, y in nodes: x.a or not y.b`)
	b, _ := grammar.Parse(`forall x, y in nodes: y.a or not x.b`)
	if sa, sb := symmetricText(a), symmetricText(b); sa != sb {
		t.Errorf("symmetric texts differ: %q, %q", sa, sb)
	}
}

func TestOrEffectDroppedSub(t *testing.T) {
	// a or b holds by OR-ing independent facts and is dropped; a or b or
	// c stays, since c holds exactly where a and b fail.
	ab := stats(map[int]int64{0b00: 80, 0b01: 320, 0b10: 120, 0b11: 480})
	abc := stats(map[int]int64{0b100: 78, 0b000: 2, 0b001: 320, 0b010: 120, 0b011: 480})
	r := build(t, []string{
		`forall n0 in nodes: n0.a or n0.b`,
		`forall n0 in nodes: n0.a or n0.b or n0.c`,
	}, []evaluator.Stats{ab, abc})
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, []string{"forall n0 in nodes: n0.a or n0.b or n0.c"}) {
		t.Errorf("almost-invariants = %v", got)
	}
}

func TestWriteHTML(t *testing.T) {
	r := build(t, []string{`forall n0 in nodes: n0.a or n0.b`}, []evaluator.Stats{stats(map[int]int64{0b00: 2, 0b01: 500, 0b10: 498})})
	e := r.AlmostInvariants[0]
	e.ViolatingTags = map[string]int64{"bug:x": 2, "steady": 1}
	r.Timeline = &Timeline{
		Snapshots:  1000,
		Violations: map[string][]int{e.ID: {10, 11, 999}},
		Tags:       map[string][]int{"bug:x": {10, 500}},
	}
	var b strings.Builder
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		`<code>forall n0 in nodes: n0.a or n0.b</code>`,
		`aria-label="violations over the trace"><rect class="violations" x="8" y="0" width="1" height="10"/><rect class="violations" x="799"`,
		`aria-label="bug:x over the trace"><rect class="tag" x="8" y="0" width="1" height="10"/><rect class="tag" x="400"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %s", want)
		}
	}
	if strings.Contains(html, "steady over the trace") {
		t.Error("HTML draws a lane for steady")
	}
}
