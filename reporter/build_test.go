package reporter

import (
	"fmt"
	"math"
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
  t: bool
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
	return buildThresholds(t, props, stats, baseline, Thresholds{})
}

// compileBools compiles props over boolSpec.
func compileBools(t *testing.T, props ...string) *evaluator.Program {
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
	return prog
}

// buildThresholds builds as buildWithBaseline does, with thresholds th.
func buildThresholds(t *testing.T, props []string, stats []evaluator.Stats, baseline []int64, th Thresholds) *Report {
	t.Helper()
	return buildOptions(t, props, stats, baseline, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01, Size: AllEntries, Thresholds: th})
}

// buildOptions builds as buildWithBaseline does, with options opts, and
// explains the properties of props at the indices explain.
func buildOptions(t *testing.T, props []string, stats []evaluator.Stats, baseline []int64, opts Options, explain ...int) *Report {
	t.Helper()
	prog := compileBools(t, props...)
	in := Input{Program: prog, Result: &evaluator.Result{Snapshots: 1000, Stats: stats}, Generated: len(props), Explain: explain}
	if baseline != nil {
		in.BaselineTraces = []string{"good.trace"}
		in.Baseline = func(asked []*grammar.Property) ([][]evaluator.Stats, error) {
			sts := make([]evaluator.Stats, len(asked))
			for i, q := range asked {
				n := baseline[slices.IndexFunc(prog.Props, func(p *evaluator.Prop) bool { return p.Property == q })]
				sts[i] = evaluator.Stats{ViolatingSnapshots: n, Violations: n, Support: 1000}
			}
			return [][]evaluator.Stats{sts}, nil
		}
	}
	r, err := Build(in, opts)
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
	s.ScoreSum = evaluator.Score{Int: uint64(s.Bindings - s.Violations)}
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
	r := build(t, []string{`forall n0 in nodes: n0.a == n0.t or n0.b == n0.t`}, []evaluator.Stats{
		stats(map[int]int64{0b00: 80, 0b01: 320, 0b10: 120, 0b11: 480}),
	})
	if len(r.AlmostInvariants) != 0 || r.Candidates.OrEffect != 1 {
		t.Errorf("independent disjunction kept: %v, or-effect %d", texts(r.AlmostInvariants), r.Candidates.OrEffect)
	}
}

func TestOrEffectDependent(t *testing.T) {
	// a fails 40% of the time, and b holds exactly then, but for 5 rare
	// bindings: a or b is an almost-invariant with no candidate part.
	r := build(t, []string{`forall n0 in nodes: n0.a == n0.t or n0.b == n0.t`}, []evaluator.Stats{
		stats(map[int]int64{0b00: 5, 0b01: 600, 0b10: 395}),
	})
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, []string{"forall n0 in nodes: n0.a == n0.t or n0.b == n0.t"}) {
		t.Errorf("almost-invariants = %v", got)
	}
}

// TestOrEffectNegating checks that a disjunction whose other literal is
// the negation, at every binding, of a literal of its sub-disjunction is
// kept (the two facts' equivalence is an invariant: b true exactly where
// a is false, a flag restating a state) but not listed as explaining the
// sub-disjunction's violations, which it only restates.
func TestOrEffectNegating(t *testing.T) {
	props := []string{`forall n0 in nodes: n0.a == n0.t`, `forall n0 in nodes: n0.a == n0.t or n0.b == n0.t`}
	a := stats(map[int]int64{0: 20, 1: 980})
	ab := stats(map[int]int64{0b10: 20, 0b01: 980}) // b holds exactly where a fails
	in := Input{Program: compileBools(t, props...), Result: &evaluator.Result{Snapshots: 1000, Stats: []evaluator.Stats{a, ab}}, Explain: []int{1}}
	r, err := Build(in, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, props[:1]) {
		t.Fatalf("almost-invariants = %v, want %v", got, props[:1])
	}
	if got := r.AlmostInvariants[0].ExplainedBy; got != nil {
		t.Errorf("%s explained by %v, want nothing", props[0], got)
	}
	if got := texts(r.Invariants); !reflect.DeepEqual(got, props[1:]) || r.Candidates.OrEffect != 0 {
		t.Errorf("invariants %v, %d or-effects; want %v and none", got, r.Candidates.OrEffect, props[1:])
	}
	if f := r.Fates[0]; f.OrEffectDropped || len(f.OrEffect) != 1 || !f.OrEffect[0].Passed || !reflect.DeepEqual(f.OrEffect[0].Negates, []int{0, 1}) {
		t.Errorf("%s: dropped %v, tests %+v; want kept by one test naming literals 0 and 1", props[1], f.OrEffectDropped, f.OrEffect)
	}
}

// TestOrEffectSubDisjunctionBaseline checks TestOrEffectSubDisjunction's
// pair with a baseline where a fails once and a or c never: a, failing
// far more often here, stays listed just before its refinement, and the
// text says so where it had said a was ranked first of those failing
// there too.
func TestOrEffectSubDisjunctionBaseline(t *testing.T) {
	props, sts := subDisjunction()
	r := buildWithBaseline(t, props, sts, []int64{1, 0, 0})
	want := []string{props[0], props[1]}
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, want) {
		t.Fatalf("almost-invariants = %v, want %v", got, want)
	}
	if e := r.AlmostInvariants[0]; !e.MoreThanBaseline || e.ListedWith != props[1] || r.AlmostInvariants[1].Refines != props[0] || r.Candidates.ListedWith != 1 {
		t.Errorf("a: more than baseline %v, listed with %q; a or c refines %q; %d listed with; want true, a or c, a, 1",
			e.MoreThanBaseline, e.ListedWith, r.AlmostInvariants[1].Refines, r.Candidates.ListedWith)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"fails in the baseline too (1 snapshot), far less often than here; listed with its longer form #2, which never fails there",
		"a longer form of #1, listed just before this one",
		"but it is listed earlier, with a longer form of it that never fails there",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("the text report has no line %q:\n%s", line, b.String())
		}
	}
	for _, line := range []string{"moved up above its own score", "ranked first of those"} {
		if strings.Contains(b.String(), line) {
			t.Errorf("the text report says %q:\n%s", line, b.String())
		}
	}
}

// subDisjunction returns a, a or c, a or b, and their stats.
func subDisjunction() ([]string, []evaluator.Stats) {
	props := []string{
		`forall n0 in nodes: n0.a == n0.t`,
		`forall n0 in nodes: n0.a == n0.t or n0.c == n0.t`,
		`forall n0 in nodes: n0.a == n0.t or n0.b == n0.t`,
	}
	a := stats(map[int]int64{0: 20, 1: 980})
	// c holds at 15 of a's 20 violations and at 5% of the bindings
	// elsewhere: it explains them, so a or c stays and a is explained.
	ac := stats(map[int]int64{0b00: 5, 0b10: 15, 0b01: 931, 0b11: 49})
	// b holds at 8% of a's violations and 8% elsewhere: a or b is the
	// or-effect of a. a or c, rarer, refines a, which is listed first.
	ab := stats(map[int]int64{0b00: 18, 0b10: 2, 0b01: 900, 0b11: 80})
	return props, []evaluator.Stats{a, ac, ab}
}

func TestOrEffectSubDisjunction(t *testing.T) {
	props, sts := subDisjunction()
	r := build(t, props, sts)
	want := []string{"forall n0 in nodes: n0.a == n0.t", "forall n0 in nodes: n0.a == n0.t or n0.c == n0.t"}
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, want) {
		t.Fatalf("almost-invariants = %v, want %v", got, want)
	}
	if got := r.AlmostInvariants[1].Refines; got != want[0] {
		t.Errorf("a or c refines %q, want %q", got, want[0])
	}
	if got := r.AlmostInvariants[0].RefinedBy; got != want[1] {
		t.Errorf("a refined by %q, want %q", got, want[1])
	}
	// The text says so under both: a was brought up above its own score.
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"moved up above its own score to just before #2, a longer form of it failing only where it does", "a longer form of #1, listed just before this one: this fails only where that one does"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("the text report has no line %q:\n%s", line, b.String())
		}
	}
	if got := r.AlmostInvariants[0].ExplainedBy; !reflect.DeepEqual(got, []string{want[1]}) {
		t.Errorf("a explained by %v", got)
	}
	if r.Candidates.OrEffect != 1 {
		t.Errorf("or-effect drops = %d, want 1", r.Candidates.OrEffect)
	}

	// augur explain says it too: a's fate names a or c.
	_, sts = subDisjunction() // fresh stats for a second report
	in := Input{Program: compileBools(t, props...), Result: &evaluator.Result{Snapshots: 1000, Stats: sts}, Explain: []int{0, 1}}
	r, err := Build(in, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{r.Fates[0].Anomaly.RefinedBy, r.Fates[1].Anomaly.RefinedBy}; !reflect.DeepEqual(got, []string{want[1], ""}) {
		t.Errorf("refined by %q, want %q and none", got, want[1])
	}
}

// at makes the stats of a one-literal property violated once at each of
// moments, out of 1000 snapshots.
func at(moments ...uint64) evaluator.Stats {
	n := int64(len(moments))
	s := stats(map[int]int64{0: n, 1: 1000 - n})
	s.Moments = moments
	return s
}

func TestEquivalence(t *testing.T) {
	r := build(t, []string{
		`forall n0 in nodes: n0.b == n0.t`,
		`forall n0 in nodes: n0.a == n0.t`,
		`forall n0 in nodes: n0.c == n0.t`,
	}, []evaluator.Stats{at(7, 8, 9), at(7, 8, 9), at(9, 10, 11)})
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, []string{"forall n0 in nodes: n0.a == n0.t", "forall n0 in nodes: n0.c == n0.t"}) {
		t.Fatalf("almost-invariants = %v", got)
	}
	if got := r.AlmostInvariants[0].Equivalents; !reflect.DeepEqual(got, []string{"forall n0 in nodes: n0.b == n0.t"}) {
		t.Errorf("equivalents = %v", got)
	}
	if r.Candidates.Equivalent != 1 || r.Candidates.Anomalies != 2 {
		t.Errorf("candidates %+v, want 1 equivalent in 2 anomalies", r.Candidates)
	}
}

// TestAnomalies checks that Build groups by moments, shows each anomaly by
// its simplest property, and ranks the anomalies by score: fewer violation
// episodes first, then fewer violating snapshots.
func TestAnomalies(t *testing.T) {
	const (
		a    = "forall n0 in nodes: n0.a == n0.t"
		aOrB = "forall n0 in nodes: n0.a == n0.t or n0.b == n0.t"
		c    = "forall n0 in nodes: n0.c == n0.t"
		notB = "forall n0 in nodes: n0.b != n0.t"
	)
	// a or b fails at 2 of a's 3 moments; b holds at the third and never
	// elsewhere, so it "explains" a's violations and a or b is no
	// or-effect. Within Factor of a's moments, it is a's co-symptom and
	// joins a's anomaly, which a represents although a or b has the
	// higher holding rate. c fails at 2 other moments, apart (two
	// episodes); not b at 16 in a row (one episode), after a's.
	aOrBStats := stats(map[int]int64{0b00: 2, 0b10: 1, 0b01: 997})
	aOrBStats.Moments = []uint64{1, 2}
	// An episode of up to 20 snapshots is one event.
	r := buildThresholds(t, []string{a, aOrB, c, notB},
		[]evaluator.Stats{at(1, 2, 3), aOrBStats, at(30, 32), at(span(5, 20)...)}, nil, Thresholds{EpisodeShare: 0.02})
	want := []string{a, notB, c}
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, want) {
		t.Fatalf("almost-invariants = %v, want %v", got, want)
	}
	if got := r.AlmostInvariants[0].AlsoFailsHere; !reflect.DeepEqual(got, []string{aOrB}) {
		t.Errorf("a: also fails here = %v", got)
	}
	if got := r.AlmostInvariants[0].ExplainedBy; !reflect.DeepEqual(got, []string{aOrB}) {
		t.Errorf("a: explained by = %v", got)
	}
	if r.Candidates.Grouped != 1 || r.Candidates.Anomalies != 3 {
		t.Errorf("candidates %+v, want 1 grouped in 3 anomalies", r.Candidates)
	}
	if got := []int64{r.AlmostInvariants[0].ViolatingEpisodes, r.AlmostInvariants[1].ViolatingEpisodes, r.AlmostInvariants[2].ViolatingEpisodes}; !reflect.DeepEqual(got, []int64{1, 1, 2}) {
		t.Errorf("violating episodes %v, want [1 1 2]", got)
	}
	for i := 1; i < len(r.AlmostInvariants); i++ {
		if r.AlmostInvariants[i-1].Score < r.AlmostInvariants[i].Score {
			t.Errorf("rank %d has score %g < %g of rank %d", i, r.AlmostInvariants[i-1].Score, r.AlmostInvariants[i].Score, i+1)
		}
	}
}

// TestSteadyFirst checks that an anomaly seen in steady state ranks
// before a rarer one seen only in transients when the steady tag is
// asked for, and that otherwise the rarer one ranks first, the steady
// snapshots counted either way.
func TestSteadyFirst(t *testing.T) {
	transient, steady := at(5), at(10, 11)
	steady.Tags = map[string]int64{"steady": 1}
	const a, b = "forall n0 in nodes: n0.a == n0.t", "forall n0 in nodes: n0.b == n0.t"
	prog := compileBools(t, a, b)
	for _, tt := range []struct {
		asked     string
		traceTags map[string]int64
		want      []string
	}{
		{"", map[string]int64{"steady": 900}, []string{a, b}},
		{"steady", map[string]int64{"steady": 900}, []string{b, a}},
		{"", nil, []string{a, b}},
	} {
		st := []evaluator.Stats{transient, steady}
		if tt.traceTags == nil {
			st[1].Tags = nil
		}
		res := &evaluator.Result{Snapshots: 1000, Stats: st, Tags: tt.traceTags}
		r, err := Build(Input{Program: prog, Result: res}, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01, SteadyTag: tt.asked})
		if err != nil {
			t.Fatal(err)
		}
		if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("steady tag %q, trace tags %v: almost-invariants = %v, want %v", tt.asked, tt.traceTags, got, tt.want)
		}
		if tt.traceTags != nil && (r.SteadyTag != "steady" || r.AlmostInvariants[0].SteadyViolatingSnapshots+r.AlmostInvariants[1].SteadyViolatingSnapshots != 1) {
			t.Errorf("steady tag %q, steady violating snapshots %d and %d", r.SteadyTag, r.AlmostInvariants[0].SteadyViolatingSnapshots, r.AlmostInvariants[1].SteadyViolatingSnapshots)
		}
	}
}

func TestBaseline(t *testing.T) {
	// The rare value fails in the baseline too, but is listed apart:
	// the count beside the almost-invariants leaves it out.
	props := []string{`forall n0 in nodes: n0.a == n0.t`, `forall n0 in nodes: n0.b == n0.t`, `forall n0 in nodes: n0.c == n0.t`, `forall n0 in nodes: n0.a`}
	r := buildWithBaseline(t, props,
		[]evaluator.Stats{stats(map[int]int64{0: 1, 1: 999}), stats(map[int]int64{0: 2, 1: 998}), stats(map[int]int64{0: 3, 1: 997}), stats(map[int]int64{0: 4, 1: 996})},
		[]int64{4, 0, 0, 5})
	if len(r.RareValues) != 1 || r.RareValues[0].BaselineViolatingSnapshots != 5 {
		t.Fatalf("rare values %v", texts(r.RareValues))
	}
	want := []string{"forall n0 in nodes: n0.b == n0.t", "forall n0 in nodes: n0.c == n0.t", "forall n0 in nodes: n0.a == n0.t"}
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

func TestOrEffectDroppedSub(t *testing.T) {
	// a or b holds by OR-ing independent facts and is dropped; a or b or
	// c stays, since c holds exactly where a and b fail.
	ab := stats(map[int]int64{0b00: 80, 0b01: 320, 0b10: 120, 0b11: 480})
	abc := stats(map[int]int64{0b100: 78, 0b000: 2, 0b001: 320, 0b010: 120, 0b011: 480})
	r := build(t, []string{
		`forall n0 in nodes: n0.a == n0.t or n0.b == n0.t`,
		`forall n0 in nodes: n0.a == n0.t or n0.b == n0.t or n0.c == n0.t`,
	}, []evaluator.Stats{ab, abc})
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, []string{"forall n0 in nodes: n0.a == n0.t or n0.b == n0.t or n0.c == n0.t"}) {
		t.Errorf("almost-invariants = %v", got)
	}
}

func TestWriteHTML(t *testing.T) {
	r := build(t, []string{`forall n0 in nodes: n0.a == n0.t or n0.b == n0.t`}, []evaluator.Stats{stats(map[int]int64{0b00: 2, 0b01: 500, 0b10: 498})})
	e := r.AlmostInvariants[0]
	e.ViolatingTags = map[string]int64{"bug:x": 2, "steady": 1}
	r.Timeline = &Timeline{
		Snapshots:  1000,
		Violations: map[string][]int{e.ID: {10, 11, 999}},
		Tags:       map[string][]int{"bug:x": {10, 500}},
	}
	r.Baseline, r.Candidates.InBaseline, r.Candidates.MoreThanBaseline = "good.trace", 3, 1
	var b strings.Builder
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		`<code>forall n0 in nodes: n0.a == n0.t or n0.b == n0.t</code>`,
		`aria-label="violations over the trace"><rect class="violations" x="8" y="0" width="1" height="10"/><rect class="violations" x="799"`,
		`aria-label="bug:x over the trace"><rect class="tag" x="8" y="0" width="1" height="10"/><rect class="tag" x="400"`,
		// The baseline's line, in the words of the text report.
		`Baseline <code>good.trace</code>: 3 of the almost-invariants fail there too and are ranked last, the one that fails there far less often than here first.`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %s", want)
		}
	}
	if strings.Contains(html, "steady over the trace") {
		t.Error("HTML draws a lane for steady")
	}
}

// TestLastingOutranksScattered checks that a property broken for 8
// snapshots in a row, one lasting violation, ranks before one broken at
// 3 snapshots far apart, three violations.
func TestLastingOutranksScattered(t *testing.T) {
	const (
		lasting   = "forall n0 in nodes: n0.a == n0.t"
		scattered = "forall n0 in nodes: n0.b == n0.t"
	)
	r := build(t, []string{scattered, lasting},
		[]evaluator.Stats{at(100, 400, 700), at(500, 501, 502, 503, 504, 505, 506, 507)})
	if got, want := texts(r.AlmostInvariants), []string{lasting, scattered}; !reflect.DeepEqual(got, want) {
		t.Fatalf("almost-invariants = %v, want %v", got, want)
	}
	if a, b := r.AlmostInvariants[0], r.AlmostInvariants[1]; a.ViolatingEpisodes != 1 || b.ViolatingEpisodes != 3 {
		t.Errorf("violating episodes %d and %d, want 1 and 3", a.ViolatingEpisodes, b.ViolatingEpisodes)
	}
}

// broad makes the stats of a property over 1000 snapshots of 10
// bindings each, violated at one binding of each of moments: its holding
// rate stays high however many moments there are, its temporal rate
// does not.
func broad(moments ...uint64) evaluator.Stats {
	n := int64(len(moments))
	s := evaluator.Stats{Support: 1000, Bindings: 10000, Violations: n, Perfect: 1000 - n, ViolatingSnapshots: n, Moments: moments}
	s.ScoreSum = evaluator.Score{Int: uint64(1000 - n)}.AddN(evaluator.ScoreOf(9, 10), n)
	return s
}

// TestListed checks that the report lists every anomaly violated rarely,
// however often it recurs, ranked by its violation events, and leaves
// out only those violated through a large share of the run (temporal
// rate below the hold ratio), which it counts and Options.All lists;
// and that the baseline reorders what is listed.
func TestListed(t *testing.T) {
	const (
		once      = "forall n0 in nodes: n0.a == n0.t"
		recurring = "forall n0 in nodes: n0.b == n0.t"
		thrice    = "forall n0 in nodes: n0.c == n0.t"
		through   = "forall n0 in nodes: n0.c != n0.t"
	)
	props := []string{once, recurring, thrice, through}
	var most []uint64
	for m := uint64(1); m <= 1000; m += 5 {
		most = append(most, m) // 200 moments: temporal rate 0.8
	}
	st := []evaluator.Stats{at(span(100, 104)...), at(10, 200, 400, 600, 800), at(50, 500, 900), broad(most...)}
	r := build(t, props, st)
	if got, want := texts(r.AlmostInvariants), []string{once, thrice, recurring}; !reflect.DeepEqual(got, want) {
		t.Errorf("almost-invariants = %v, want %v", got, want)
	}
	if c := r.Candidates; c.AlmostInvariants != 4 || c.NotStandingOut != 1 || c.Listed != 3 {
		t.Errorf("candidates %+v, want 4 almost-invariants, 1 not standing out, 3 listed", c)
	}
	if got := r.AlmostInvariants[1].ViolationEvents; got != 3 {
		t.Errorf("violation events of %s = %d, want 3", thrice, got)
	}
	if !strings.Contains(r.Candidates.summary(), "1 anomalies violated through a large share of the run") {
		t.Errorf("summary %q does not say what was left out", r.Candidates.summary())
	}
	// The heading counts what a longer report would list, not the
	// anomalies left out.
	r = buildOptions(t, props, st, nil, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01, Size: 2})
	if got, want := r.sections()[0], "Almost-invariants (3, top 2)"; sectionTitle(got.title, len(got.es), got.total) != want {
		t.Errorf("size 2: heading %q, want %q", sectionTitle(got.title, len(got.es), got.total), want)
	}
	r = buildOptions(t, props, st, nil, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01, All: true})
	if got, want := texts(r.AlmostInvariants), []string{once, thrice, recurring, through}; !reflect.DeepEqual(got, want) {
		t.Errorf("all: almost-invariants = %v, want %v", got, want)
	}
	if r.Candidates.NotStandingOut != 0 || r.Candidates.Listed != 4 {
		t.Errorf("all: %d not standing out, %d listed; want 0 and 4", r.Candidates.NotStandingOut, r.Candidates.Listed)
	}
	// The baseline moves what fails there too after the rest.
	r = buildWithBaseline(t, props, st, []int64{2, 0, 0, 0})
	if got, want := texts(r.AlmostInvariants), []string{thrice, recurring, once}; !reflect.DeepEqual(got, want) {
		t.Errorf("with baseline: almost-invariants = %v, want %v", got, want)
	}
	// --all with the baseline ranks what does not stand out among the
	// rest, and the fate of a property left out as not standing out
	// names that place.
	opts := Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01, Size: AllEntries}
	opts.All = true
	r = buildOptions(t, props, st, []int64{2, 0, 0, 0}, opts)
	if got, want := texts(r.AlmostInvariants), []string{thrice, recurring, through, once}; !reflect.DeepEqual(got, want) {
		t.Errorf("all, with baseline: almost-invariants = %v, want %v", got, want)
	}
	opts.All = false
	r = buildOptions(t, props, st, []int64{2, 0, 0, 0}, opts, 3)
	if f := r.Fates[0]; f.Order != 3 || !strings.HasSuffix(f.LeftOut, "(augur infer --all lists it at rank 3 of the almost-invariants)") {
		t.Errorf("with baseline: %s: order %d, left out %q; want the place --all gives it, 3", through, f.Order, f.LeftOut)
	}
}

// TestRecurringNotCut checks that the same anomaly is listed whether the
// bug strikes 3 or 20 times, in a run of 2,000 snapshots or of 50,000:
// nothing counts strikes in absolute terms.
func TestRecurringNotCut(t *testing.T) {
	for _, tc := range []struct{ strikes, snapshots int }{{3, 2000}, {20, 2000}, {3, 50000}, {20, 50000}} {
		var ms []uint64
		for k := range tc.strikes {
			ms = append(ms, uint64((k+1)*tc.snapshots/(tc.strikes+1)))
		}
		st := at(ms...)
		st.Support = int64(tc.snapshots)
		st.Bindings, st.Perfect = st.Support, st.Support-st.Violations
		st.ScoreSum = evaluator.Score{Int: uint64(st.Perfect)}
		r := build(t, []string{"forall n0 in nodes: n0.a == n0.t"}, []evaluator.Stats{st})
		if len(r.AlmostInvariants) != 1 || r.Candidates.NotStandingOut != 0 {
			t.Errorf("%d strikes in %d snapshots: listed %v, %d left out", tc.strikes, tc.snapshots, texts(r.AlmostInvariants), r.Candidates.NotStandingOut)
		}
	}
}

// TestLongViolationIsNotRare checks that a property violated through a
// long stretch of the run counts one event per EpisodeShare of the run,
// so that it ranks after a property violated at two moments; within the
// span it is one event.
func TestLongViolationIsNotRare(t *testing.T) {
	const (
		long = "forall n0 in nodes: n0.a == n0.t"
		two  = "forall n0 in nodes: n0.b == n0.t"
	)
	st := []evaluator.Stats{at(span(10, 104)...), at(300, 700)}
	r := buildThresholds(t, []string{long, two}, st, nil, Thresholds{EpisodeShare: 0.03})
	if got, want := texts(r.AlmostInvariants), []string{two, long}; !reflect.DeepEqual(got, want) {
		t.Fatalf("share 3%%: almost-invariants = %v, want %v", got, want)
	}
	if e := r.AlmostInvariants[1]; e.ViolatingEpisodes != 1 || e.ViolationEvents != 4 {
		t.Errorf("share 3%%: %d episodes, %d events; want 1 and 4", e.ViolatingEpisodes, e.ViolationEvents)
	}
	r = buildThresholds(t, []string{long, two}, st, nil, Thresholds{EpisodeShare: 0.1})
	if got, want := texts(r.AlmostInvariants), []string{long, two}; !reflect.DeepEqual(got, want) {
		t.Errorf("share 10%%: almost-invariants = %v, want %v", got, want)
	}
}

// TestBrokenInvariants checks the section of the baseline's invariants
// broken here: listed whatever their violation rate, when supported,
// simplest first, the weakenings under their simplest form.
func TestBrokenInvariants(t *testing.T) {
	const (
		lasting = "forall n0 in nodes: n0.a == n0.t"
		weaker  = "forall n0 in nodes: n0.a == n0.t or n0.b == n0.t"
		intact  = "forall n0 in nodes: n0.c == n0.t"
		rare    = "forall n0 in nodes: n0.b == n0.t or n0.c == n0.t"
		thin    = "forall n0 in nodes: n0.b != n0.t"
	)
	prog := compileBools(t, weaker, lasting, intact, rare, thin)
	// a fails from snapshot 101 on: 900 of 1000, far below any hold
	// ratio; a or b at 450 of those.
	var most, half []uint64
	for m := uint64(101); m <= 1000; m++ {
		most = append(most, m)
		if m%2 == 0 {
			half = append(half, m)
		}
	}
	thinStats := at(5)
	thinStats.Support = 3
	broken := &Evaluation{Program: prog, Result: &evaluator.Result{Snapshots: 1000, Stats: []evaluator.Stats{
		at(half...), at(most...), at(), at(300), thinStats,
	}}}
	props := []string{lasting}
	r := buildOptions(t, props, []evaluator.Stats{at()}, nil, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01})
	if r.BrokenInvariants != nil {
		t.Fatalf("without a baseline: broken invariants %v", texts(r.BrokenInvariants))
	}
	in := Input{Program: prog, Result: &evaluator.Result{Snapshots: 1000, Stats: make([]evaluator.Stats, len(prog.Props))}, BaselineTraces: []string{"good.trace"}, Broken: broken, Explain: []int{0, 2}}
	r, err := Build(in, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := texts(r.BrokenInvariants), []string{lasting, rare}; !reflect.DeepEqual(got, want) {
		t.Fatalf("broken invariants = %v, want %v", got, want)
	}
	if got := r.BrokenInvariants[0].AlsoFailsHere; !reflect.DeepEqual(got, []string{weaker}) {
		t.Errorf("under %s: %v, want the weakening", lasting, got)
	}
	if c := r.Candidates; c.BrokenInvariants != 3 || c.BrokenAnomalies != 2 {
		t.Errorf("candidates %+v, want 3 broken invariants in 2 anomalies", c)
	}
	// The fates say where the weakening and the intact one stand.
	if f := r.Fates[0]; f.Broken == nil || f.BrokenRep == nil || f.BrokenRep.Text != lasting || f.BrokenRank != 1 {
		t.Errorf("%s: broken %v under %v at rank %d, want under %s at rank 1", weaker, f.Broken != nil, f.BrokenRep, f.BrokenRank, lasting)
	}
	if f := r.Fates[1]; f.Broken != nil {
		t.Errorf("%s: a broken invariant, want none", intact)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Invariants of the baseline broken here (2)") {
		t.Errorf("text report lacks the section:\n%s", b.String())
	}
	// A section cut to one entry: the second group's place says which
	// --top lists it.
	in.Explain = []int{3}
	if r, err = Build(in, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01, Size: 1}); err != nil {
		t.Fatal(err)
	}
	if f := r.Fates[0]; f.Broken == nil || f.BrokenRank != 0 || f.BrokenPlace != 2 {
		t.Errorf("%s, the section cut to 1: rank %d, place %d; want 0 and 2", rare, f.BrokenRank, f.BrokenPlace)
	}
}

// TestFates checks what Build records of the properties asked for: why
// one is no candidate, the or-effect tests that dropped another, the
// anomaly and role of the rest, their order and rank, and which rule
// left each out.
func TestFates(t *testing.T) {
	const (
		a    = "forall n0 in nodes: n0.a == n0.t"
		aOrB = "forall n0 in nodes: n0.a == n0.t or n0.b == n0.t"
		aOrC = "forall n0 in nodes: n0.a == n0.t or n0.c == n0.t"
		c    = "forall n0 in nodes: n0.c == n0.t"
		wide = "forall n0 in nodes: n0.c != n0.t"
		low  = "forall n0 in nodes: n0.a != n0.t"
	)
	props := []string{a, aOrB, aOrC, c, wide, low}
	var most []uint64
	for m := uint64(1); m <= 1000; m += 5 {
		most = append(most, m)
	}
	aOrBStats := stats(map[int]int64{0b00: 2, 0b10: 1, 0b01: 997}) // b explains a's third violation
	aOrBStats.Moments = []uint64{1, 2}
	aOrCStats := stats(map[int]int64{0b00: 3, 0b01: 97, 0b10: 0, 0b11: 900}) // c holds wherever: independent
	aOrCStats.Moments = []uint64{1, 2, 3}
	lowStats := stats(map[int]int64{0: 500, 1: 500})
	st := []evaluator.Stats{at(1, 2, 3), aOrBStats, aOrCStats, at(500), broad(most...), lowStats}
	in := Input{Program: compileBools(t, props...), Result: &evaluator.Result{Snapshots: 1000, Stats: st}, Explain: []int{0, 1, 2, 3, 4, 5}}
	r, err := Build(in, Options{HoldRatio: 0.9, MinSupport: 10, Alpha: 0.01, Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Role, Anomaly string
		Order, Rank   int
		Dropped       bool
		LeftOut       string
	}
	sum := func(f *Fate) summary {
		s := summary{Role: f.Role, Order: f.Order, Rank: f.Rank, Dropped: f.OrEffectDropped}
		if f.Anomaly != nil {
			s.Anomaly = f.Anomaly.Text
		}
		if i := strings.IndexAny(f.LeftOut, ":("); i >= 0 {
			s.LeftOut = f.LeftOut[:i]
		}
		return s
	}
	want := []summary{
		{Role: "representative", Anomaly: a, Order: 2, LeftOut: "its anomaly ranks 2, beyond the report's size "},
		{Role: "also fails here", Anomaly: a, Order: 2, LeftOut: "its anomaly ranks 2, beyond the report's size "},
		{Dropped: true, LeftOut: "dropped as an or-effect"},
		{Role: "representative", Anomaly: c, Order: 1, Rank: 1},
		{Role: "representative", Anomaly: wide, Order: 3, LeftOut: "its anomaly is violated through a large share of the run"},
		{LeftOut: "not a candidate"},
	}
	if len(r.Fates) != len(want) {
		t.Fatalf("%d fates, want %d", len(r.Fates), len(want))
	}
	for i, f := range r.Fates {
		if got := sum(f); got != want[i] {
			t.Errorf("%s: fate %+v, want %+v", props[i], got, want[i])
		}
	}
	if f := r.Fates[2]; len(f.OrEffect) != 2 || f.OrEffect[0].Sub != a || f.OrEffect[0].Passed || f.OrEffect[1].Passed {
		t.Errorf("%s: or-effect tests %+v, want two failed tests, the first against %s", aOrC, f.OrEffect, a)
	}
	if f := r.Fates[5]; !strings.Contains(f.NotCandidate, "holding rate 0.50000") || f.Stats == nil {
		t.Errorf("%s: not a candidate because %q", low, f.NotCandidate)
	}
}

// TestOptionsZero checks that each zero field of Options takes its
// default, a spec's that sets none, and that "none" is an explicit value.
func TestOptionsZero(t *testing.T) {
	var src strings.Builder
	src.WriteString("variables:\n")
	var ps []*grammar.Property
	var sts []evaluator.Stats
	src.WriteString("  t: bool\n")
	for i := range 12 {
		fmt.Fprintf(&src, "  v%d: bool\n", i)
		p, err := grammar.Parse(fmt.Sprintf("forall n0 in nodes: n0.v%d == n0.t", i))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
		sts = append(sts, at(uint64(10*i+1))) // violated once, at its own moment
	}
	// v10 holds at half of its snapshots; v11 has a support of 20.
	sts[10] = stats(map[int]int64{0: 500, 1: 500})
	sts[11].Support, sts[11].Perfect, sts[11].ScoreSum = 20, 19, evaluator.Score{Int: 19}
	spec, err := specs.Parse("vars.yaml", []byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got := OptionsFrom(spec); got != DefaultOptions {
		t.Errorf("a spec that sets none: %+v, DefaultOptions %+v", got, DefaultOptions)
	}
	prog, err := evaluator.Compile(spec, ps)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts Options
		want int // almost-invariants listed
	}{
		{"zero: 10 of those holding at 0.95 with a support of 30", Options{}, 10},
		{"all entries", Options{Size: AllEntries}, 10},
		{"a size of 3", Options{Size: 3}, 3},
		{"any support", Options{Size: AllEntries, MinSupport: AnySupport}, 11},
		{"any rate, any support", Options{Size: AllEntries, MinSupport: AnySupport, HoldRatio: AnyRate, All: true}, 12},
	}
	for _, tt := range tests {
		in := Input{Program: prog, Result: &evaluator.Result{Snapshots: 1000, Stats: slices.Clone(sts)}}
		r, err := Build(in, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(r.AlmostInvariants); got != tt.want {
			t.Errorf("%s: %d almost-invariants listed, want %d", tt.name, got, tt.want)
		}
	}
}

// TestBaselineDuringAbove checks that an anomaly listed during
// another's episodes is no longer said to be when the baseline moves the
// other below it (a blind user read "fails during the episodes of #3"
// at #2); one whose host stays above keeps its line.
func TestBaselineDuringAbove(t *testing.T) {
	host, during, other, kept := &Entry{Text: "host"}, &Entry{Text: "during"}, &Entry{Text: "other"}, &Entry{Text: "kept"}
	during.During, kept.During = host.Text, other.Text
	es := []*Entry{other, host, during, kept}
	for _, e := range es {
		e.prop = &evaluator.Prop{}
	}
	baseline := func(props []*grammar.Property) ([][]evaluator.Stats, error) {
		return [][]evaluator.Stats{{{}, {ViolatingSnapshots: 3, Violations: 3, Support: 100}, {}, {}}}, nil
	}
	if err := tierAndOrder(es, baseline); err != nil {
		t.Fatal(err)
	}
	if got, want := texts(es), []string{"other", "during", "kept", "host"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if during.During != "" || kept.During != "other" {
		t.Errorf("during %q, kept during %q; want \"\" and \"other\"", during.During, kept.During)
	}
}

// TestBaselineRefinedUnseen checks that a property failing here far more
// often than in the baseline is listed just before its refinement when
// that one never fails there, as refinedFirst lists them without a
// baseline, wherever it stood; that one failing there as often as here
// is not, nor one whose refinement is listed after the others (During);
// and that a refinement no longer just after its simpler property no
// longer says it refines it.
func TestBaselineRefinedUnseen(t *testing.T) {
	strikes := func(at ...uint64) evaluator.Stats {
		return evaluator.Stats{ViolatingSnapshots: int64(len(at)), Violations: int64(len(at)), Support: 1000, Moments: at}
	}
	never := evaluator.Stats{Support: 1000}
	once, asOften := strikes(10), strikes(10, 50, 90) // against 12 and 3 events here
	type entry struct {
		text        string
		there       evaluator.Stats
		explainedBy []string
		refines     string // as refinedFirst left it
		during      string
	}
	for _, tt := range []struct {
		name       string
		es         []entry
		want       []string
		refines    map[string]string // after
		listedWith map[string]string
	}{{
		name: "below its refinement: moved just before it",
		// As refinedFirst leaves them: q just before p2, its first
		// refinement, which fails in the baseline as often as here.
		es: []entry{
			{text: "q", there: once, explainedBy: []string{"p2", "p"}},
			{text: "p2", there: asOften, refines: "q"},
			{text: "noise", there: never},
			{text: "usual", there: asOften, explainedBy: []string{"other"}},
			{text: "other", there: never},
			{text: "p", there: never},
		},
		// usual fails there as often as here: after what does not,
		// though other, its refinement, never fails there.
		want:       []string{"noise", "other", "q", "p", "p2", "usual"},
		refines:    map[string]string{"p": "q"},
		listedWith: map[string]string{"q": "p"},
	}, {
		name: "above its refinement: just before it too",
		es: []entry{
			{text: "q", there: once, explainedBy: []string{"p"}},
			{text: "noise", there: never},
			{text: "p", there: never},
		},
		want:       []string{"noise", "q", "p"},
		refines:    map[string]string{"p": "q"},
		listedWith: map[string]string{"q": "p"},
	}, {
		name: "two for one refinement, in their order",
		es: []entry{
			{text: "noise", there: never},
			{text: "p", there: never},
			{text: "q1", there: once, explainedBy: []string{"p"}},
			{text: "q2", there: once, explainedBy: []string{"p"}},
		},
		want:       []string{"noise", "q1", "q2", "p"},
		refines:    map[string]string{"p": "q2"},
		listedWith: map[string]string{"q1": "p", "q2": "p"},
	}, {
		name: "a refinement listed after the others brings nothing",
		es: []entry{
			{text: "noise", there: never},
			{text: "host", there: never},
			{text: "p", there: never, during: "host"},
			{text: "q", there: once, explainedBy: []string{"p"}},
		},
		want: []string{"noise", "host", "p", "q"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			var es []*Entry
			var there []evaluator.Stats
			byText := map[string]*Entry{}
			for _, x := range tt.es {
				e := &Entry{Text: x.text, ExplainedBy: x.explainedBy, Refines: x.refines, During: x.during}
				e.prop, e.Support, e.ViolationEvents, e.TemporalRate = &evaluator.Prop{}, 1000, 3, 1
				if x.there.ViolatingSnapshots == 1 {
					e.ViolationEvents = 12 // against 1 there: far more often
				}
				es, there, byText[x.text] = append(es, e), append(there, x.there), e
			}
			baseline := func([]*grammar.Property) ([][]evaluator.Stats, error) {
				return [][]evaluator.Stats{there}, nil
			}
			if err := tierAndOrder(es, baseline); err != nil {
				t.Fatal(err)
			}
			if got := texts(es); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
			for text, e := range byText {
				if e.Refines != tt.refines[text] || e.ListedWith != tt.listedWith[text] {
					t.Errorf("%s: refines %q, listed with %q; want %q and %q", text, e.Refines, e.ListedWith, tt.refines[text], tt.listedWith[text])
				}
			}
		})
	}
}

// TestBaselineRuns checks that several baseline runs count as one of
// their total length: a property failing in any of them fails in the
// baseline, its events there summed, each counted within its own run.
func TestBaselineRuns(t *testing.T) {
	strikes := func(at ...uint64) evaluator.Stats {
		return evaluator.Stats{ViolatingSnapshots: int64(len(at)), Violations: int64(len(at)), Support: 1000, Moments: at}
	}
	// here: 8 events of each property in 1000 snapshots.
	es := []*Entry{{Text: "once in one run"}, {Text: "in both runs"}, {Text: "never there"}}
	for _, e := range es {
		e.prop, e.Support, e.ViolationEvents = &evaluator.Prop{}, 1000, 8
	}
	baseline := func(props []*grammar.Property) ([][]evaluator.Stats, error) {
		return [][]evaluator.Stats{
			{{Support: 1000}, strikes(10, 11), {Support: 1000}},
			{strikes(500), strikes(10, 11), {Support: 1000}},
		}, nil
	}
	if err := tierAndOrder(es, baseline); err != nil {
		t.Fatal(err)
	}
	// 8 events here against 1 in 2000 snapshots there: far more often;
	// 8 against 2 (snapshots 10 and 11 of each run: one event in each,
	// not one across the runs): far more often too; both after "never
	// there".
	if got, want := texts(es), []string{"never there", "once in one run", "in both runs"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	for _, tt := range []struct {
		e                *Entry
		snapshots, evs   int64
		moreThanBaseline bool
	}{{es[1], 1, 1, true}, {es[2], 4, 2, true}, {es[0], 0, 0, false}} {
		if tt.e.BaselineViolatingSnapshots != tt.snapshots || tt.e.BaselineViolationEvents != tt.evs || tt.e.MoreThanBaseline != tt.moreThanBaseline {
			t.Errorf("%s: %d snapshots, %d events there, more than baseline %v; want %d, %d, %v", tt.e.Text,
				tt.e.BaselineViolatingSnapshots, tt.e.BaselineViolationEvents, tt.e.MoreThanBaseline, tt.snapshots, tt.evs, tt.moreThanBaseline)
		}
	}
}

// TestBaselineMoreOften checks that, of the properties failing in the
// baseline too, those failing here far more often, per non-vacuous
// snapshot, rank first: a bug striking a dozen times a property that a
// transient breaks once in the good run. They still rank after what
// never fails there.
func TestBaselineMoreOften(t *testing.T) {
	// The p-values by hand: with runs of one length, each of the k+kb
	// events falls here with probability 1/2, so P(at least k here) is
	// the sum of C(k+kb, i) for i from k, over 2^(k+kb).
	tests := []struct {
		name          string
		here, n       int64 // violation events here, non-vacuous snapshots here
		there, nThere int64 // the same in the baseline
		p             float64
		more          bool
	}{
		{"a dozen strikes against one", 12, 1000, 1, 1000, 14.0 / 8192, true},
		{"seven against one", 7, 1000, 1, 1000, 9.0 / 256, true},
		{"six against one", 6, 1000, 1, 1000, 8.0 / 128, false},
		{"as often", 5, 1000, 5, 1000, 638.0 / 1024, false},
		// Rates, not counts: a baseline ten times as long, where each
		// event falls here with probability 1/11 (the verdict only is
		// checked: NaN).
		{"twelve against ten in a run ten times as long", 12, 1000, 10, 10000, math.NaN(), true},
		{"twelve against a hundred in a run ten times as long", 12, 1000, 100, 10000, math.NaN(), false},
		{"never here", 0, 1000, 1, 1000, 1, false},
		{"no baseline snapshot", 3, 1000, 0, 0, 1, false},
	}
	for _, tt := range tests {
		p := BaselinePValue(tt.here, tt.n, tt.there, tt.nThere)
		if !math.IsNaN(tt.p) && math.Abs(p-tt.p) > 1e-12 {
			t.Errorf("%s: p-value %g, want %g", tt.name, p, tt.p)
		}
		if got := p < DefaultThresholds.BaselineLevel; got != tt.more {
			t.Errorf("%s: p-value %g: far more often = %v, want %v", tt.name, p, got, tt.more)
		}
	}

	// In a report: a fails in the baseline as often as here and moves
	// last; b fails there once, here at 12 separate snapshots, and ranks
	// before a, after c, which never fails there.
	props := []string{`forall n0 in nodes: n0.a == n0.t`, `forall n0 in nodes: n0.b == n0.t`, `forall n0 in nodes: n0.c == n0.t`}
	strikes := func(k int) evaluator.Stats { // k violations, 50 snapshots apart
		st := stats(map[int]int64{0: int64(k), 1: 1000 - int64(k)})
		for i := range k {
			st.Moments = append(st.Moments, uint64(i*50))
		}
		return st
	}
	r := buildWithBaseline(t, props, []evaluator.Stats{strikes(1), strikes(12), strikes(14)}, []int64{1, 1, 0})
	want := []string{"forall n0 in nodes: n0.c == n0.t", "forall n0 in nodes: n0.b == n0.t", "forall n0 in nodes: n0.a == n0.t"}
	if got := texts(r.AlmostInvariants); !reflect.DeepEqual(got, want) {
		t.Fatalf("almost-invariants = %v, want %v", got, want)
	}
	if e := r.AlmostInvariants[1]; !e.MoreThanBaseline || e.BaselineViolationEvents != 1 || e.BaselineViolatingSnapshots != 1 {
		t.Errorf("%s: more than baseline %v, %d events there", e.Text, e.MoreThanBaseline, e.BaselineViolationEvents)
	}
	if e := r.AlmostInvariants[2]; e.MoreThanBaseline {
		t.Errorf("%s: more than baseline", e.Text)
	}
	if r.Candidates.InBaseline != 2 || r.Candidates.MoreThanBaseline != 1 {
		t.Errorf("in baseline %d, more than baseline %d; want 2 and 1", r.Candidates.InBaseline, r.Candidates.MoreThanBaseline)
	}
}

// TestBrokenOrder checks the order of the broken invariants' section:
// relations before rare values, then fewer node variables, then fewer
// variables read before fewer literals, then the most violating
// snapshots.
func TestBrokenOrder(t *testing.T) {
	const (
		oneNode   = `forall n0 in nodes: n0.applied <= n0.commit or n0.commit == n0.term`
		twoVars   = `forall n0, n1 in nodes: n0.state != "leader" or n0.term != n1.term or n1.state != "leader"`
		threeVars = `forall n0, n1 in nodes: n0.applied <= n1.commit or n1.state == "leader"`
		likewise  = `forall n0, n1 in nodes: n0.applied <= n1.term or n1.state == "leader"`
		rare      = `forall n0 in nodes: n0.state != "leader"`
		// Two variables, three literals and four node links, as twoVars,
		// which relates once (n0.term != n1.term): this relates three
		// times.
		relatesThrice = `forall n0, n1 in nodes: n0.applied <= n1.commit or n0.applied == n0.commit or n1.applied == n1.commit`
	)
	for _, tt := range []struct {
		name  string
		props map[string][]uint64
		want  []string
	}{{
		name:  "fewer variables read before fewer literals",
		props: map[string][]uint64{threeVars: span(1, 300), twoVars: span(1, 40)},
		want:  []string{twoVars, threeVars},
	}, {
		name:  "fewer node variables first",
		props: map[string][]uint64{twoVars: span(1, 40), oneNode: span(1, 5)},
		want:  []string{oneNode, twoVars},
	}, {
		name:  "a rare value after every relation",
		props: map[string][]uint64{rare: span(1, 400), twoVars: span(1, 40)},
		want:  []string{twoVars, rare},
	}, {
		name:  "fewer relations before more violating snapshots",
		props: map[string][]uint64{relatesThrice: span(1, 250), twoVars: span(1, 24)},
		want:  []string{twoVars, relatesThrice},
	}, {
		name:  "as simple: the most violating snapshots first",
		props: map[string][]uint64{threeVars: span(1, 30), likewise: span(1, 60)},
		want:  []string{likewise, threeVars},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			es := entries(t, tt.props)
			brokenOrder(es)
			if got := texts(es); !slices.Equal(got, tt.want) {
				t.Errorf("order\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestSetsLast(t *testing.T) {
	// set(n0.a) is simpler than the two-node relation and holds as
	// often, yet it says only that a is never null: relations first.
	props := []string{`forall n0 in nodes: set(n0.a)`, `forall n0 in nodes: n0.a == n0.t`, `forall n0, n1 in nodes: n0.b == n1.b`}
	hold := stats(map[int]int64{1: 1000})
	r := build(t, props, []evaluator.Stats{hold, hold, hold})
	want := []string{"forall n0 in nodes: n0.a == n0.t", "forall n0, n1 in nodes: n0.b == n1.b", "forall n0 in nodes: set(n0.a)"}
	if got := texts(r.Invariants); !reflect.DeepEqual(got, want) {
		t.Errorf("invariants = %v, want %v", got, want)
	}
}

// tierAndOrder orders es with a baseline as Build does after ranking
// them: baselineTiers, refinedFirst within the tiers, baselineLast, then
// refinesAdjacent.
func tierAndOrder(es []*Entry, baseline func([]*grammar.Property) ([][]evaluator.Stats, error)) error {
	tier, err := baselineTiers(es, baseline, DefaultThresholds)
	if err != nil {
		return err
	}
	refinedFirst(es, DefaultOptions.HoldRatio, tier)
	baselineLast(es, tier, DefaultOptions.HoldRatio)
	refinesAdjacent(es)
	return nil
}
