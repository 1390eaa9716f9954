package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/filter"
	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/reporter"
	"github.com/augur-dev/augur/specs"
)

// An Explanation says why a property is where it is in the report of a
// spec over a trace, or absent from it: whether the spec generates it,
// its evaluation, the filter, the or-effect tests, its anomaly and its
// rank. It is what augur explain prints; its JSON field names are
// stable, like the report's.
type Explanation struct {
	Property string `json:"property"` // canonical text of the property asked about
	// ID is the property's id in reports: that of GeneratedAs when the
	// pool holds it under another naming, so that every spelling of one
	// property explains under the id its report entry carries.
	ID string `json:"id"`
	// Generated says that the pool holds the property, as GeneratedAs
	// when that differs from Property: the same property up to the
	// naming of its node variables, or written with the other value of
	// a two-valued enum.
	Generated    bool   `json:"generated"`
	GeneratedAs  string `json:"generated_as,omitempty"`
	NotGenerated string `json:"not_generated,omitempty"` // why the pool lacks it
	// Evaluation is its evaluation over the trace, in the run when it
	// was generated, or alone; nil when it is no property over the spec.
	Evaluation *Evaluation `json:"evaluation,omitempty"`
	// NotCandidate says why it is no candidate of the report (pruned by
	// the filter, too little support, holding rate too low); "" when it
	// is one.
	NotCandidate string `json:"not_candidate,omitempty"`
	// Unfiltered is the evaluation of a pruned property over the whole
	// run, without the filter, and UnfilteredNotCandidate says why it
	// would still be no candidate, or "".
	Unfiltered             *Evaluation `json:"unfiltered,omitempty"`
	UnfilteredNotCandidate string      `json:"unfiltered_not_candidate,omitempty"`
	// OrEffectTests are the or-effect tests made of it, a candidate;
	// OrEffectDropped says that they dropped it.
	OrEffectTests   []reporter.OrEffectTest `json:"or_effect_tests,omitempty"`
	OrEffectDropped bool                    `json:"or_effect_dropped,omitempty"`
	// ExplainedBy lists the longer properties whose other literals hold
	// where it fails, far beyond chance.
	ExplainedBy []string `json:"explained_by,omitempty"`
	// Anomaly is the anomaly it joined, an almost-invariant not dropped.
	Anomaly *Anomaly `json:"anomaly,omitempty"`
	// Order is its anomaly's place among all Anomalies of its list,
	// ranked: its rank under augur infer --all; 0 when it has none.
	Order     int `json:"order,omitempty"`
	Anomalies int `json:"anomalies"`
	// Rank is the rank at which the report lists it, or its anomaly, in
	// List ("almost_invariants", "rare_values" or "invariants"); 0 when
	// it is not listed, and LeftOut says which rule left it out.
	Rank    int    `json:"rank"`
	List    string `json:"list,omitempty"`
	LeftOut string `json:"left_out,omitempty"`
	// Place is the rank its anomaly would have in List with no size
	// limit (--top Place lists it), when the report's size left it out.
	Place int `json:"place,omitempty"`
	// Broken is, with a baseline, where it stands as an invariant of the
	// baseline that this run breaks; nil when it is not one.
	Broken *Broken `json:"broken,omitempty"`
	// AloneBaseline is, with a baseline, the evaluation over it of a
	// property the pool lacks; nil otherwise.
	AloneBaseline *AloneBaseline `json:"alone_baseline,omitempty"`
	// Verdict sums it up in a sentence.
	Verdict string `json:"verdict"`
}

// Broken is where a property stands in the report's section of the
// baseline's invariants that the run breaks.
type Broken struct {
	ViolatingSnapshots int64  `json:"violating_snapshots"` // in this run
	Representative     string `json:"representative"`      // of its group, itself when it represents it
	// Rank is its group's rank in the section, 0 when the report's size
	// cut it; Place is then the rank it would have with no size limit
	// (--top Place lists it).
	Rank  int `json:"rank"`
	Place int `json:"place,omitempty"`
}

// AloneBaseline is a property the pool lacks, evaluated alone over the
// baseline's runs, without the filter.
type AloneBaseline struct {
	ViolatingSnapshots int64 `json:"violating_snapshots"` // in all the runs
	Support            int64 `json:"support"`             // non-vacuous snapshots, in all the runs
	// Broken says that it never fails there, with enough support, and
	// fails here: generated, it would be an invariant of the baseline
	// that this run breaks.
	Broken bool `json:"broken"`
}

// Evaluation is a property's evaluation over the trace.
type Evaluation struct {
	HoldingRate        float64          `json:"holding_rate"`
	TemporalRate       float64          `json:"temporal_rate"`
	Violations         int64            `json:"violations"`
	Bindings           int64            `json:"bindings"`
	Support            int64            `json:"support"`
	ViolatingSnapshots int64            `json:"violating_snapshots"`
	ViolatingTags      map[string]int64 `json:"violating_tags,omitempty"`
	// ViolationEvents and Score are a candidate's (reporter.Entry).
	ViolationEvents int64   `json:"violation_events,omitempty"`
	Score           float64 `json:"score,omitempty"`
	// Pruned says that the filter dropped it after PrunedAfter
	// snapshots: the counts stop there.
	Pruned      bool  `json:"pruned"`
	PrunedAfter int64 `json:"pruned_after,omitempty"`
	// Moments are its first violating snapshots, Witnesses the first
	// violating bindings.
	Moments   []uint64            `json:"moments"`
	Witnesses []evaluator.Witness `json:"witnesses"`
	Warnings  []diag.Warning      `json:"warnings,omitempty"`
}

// Anomaly is the anomaly a property joined.
type Anomaly struct {
	Representative string `json:"representative"`
	ID             string `json:"id"`
	// Role is "representative", "equivalent" or "also fails here".
	Role string `json:"role"`
	// During is the text of the anomaly during whose episodes the
	// representative fails, far more often than chance, so that it ranks
	// after the anomalies with moments of their own; "" when none.
	During string `json:"during,omitempty"`
	// Refines is the text of the simpler property of which the
	// representative is a syntactic weakening, kept as an implication,
	// listed just before it; "" when none.
	Refines string `json:"refines,omitempty"`
	// RefinedBy is the text of the entry that refines the representative
	// and ranks just after it, which brought it above its own score; ""
	// when none does.
	RefinedBy string `json:"refined_by,omitempty"`
	// ListedWith is, with a baseline, the text of a refinement of the
	// representative that never fails there, with which the
	// representative, failing there far less often than here, is listed
	// among the anomalies that do not (reporter.Entry.ListedWith).
	ListedWith string `json:"listed_with,omitempty"`
	// RareValue says that the representative states only that a value is
	// rare (reporter.Entry.RareValue): it is listed apart.
	RareValue bool `json:"rare_value,omitempty"`
	// StartUp says that the representative fails in one episode from the
	// run's first snapshot (reporter.Entry.StartUp): ranked after the
	// others.
	StartUp bool `json:"start_up,omitempty"`
	// BaselineViolatingSnapshots counts the snapshots of the baseline
	// where the representative fails: such anomalies rank after the
	// others.
	BaselineViolatingSnapshots int64 `json:"baseline_violating_snapshots,omitempty"`
	// MoreThanBaseline says that the representative fails far more often
	// here than in the baseline (reporter.Entry.MoreThanBaseline): it
	// ranks first of the anomalies that fail there, or with ListedWith.
	MoreThanBaseline bool `json:"more_than_baseline,omitempty"`
	// BaselineTest is, when the representative fails in the baseline
	// too, the test that decided MoreThanBaseline; nil otherwise.
	BaselineTest *BaselineTest `json:"baseline_test,omitempty"`
}

// A BaselineTest is the test that an anomaly's representative fails far
// more often here than in the baseline (reporter.BaselinePValue): its
// violation events and non-vacuous snapshots here and there, the
// p-value, and the level below which it passes.
type BaselineTest struct {
	Events          int64   `json:"events"`
	Support         int64   `json:"support"`
	BaselineEvents  int64   `json:"baseline_events"`
	BaselineSupport int64   `json:"baseline_support"`
	PValue          float64 `json:"p_value"`
	Level           float64 `json:"level"`
}

// baselineTest returns the test of e, a representative, against the
// baseline; nil when it does not fail there.
func baselineTest(e *reporter.Entry) *BaselineTest {
	if e.BaselineViolatingSnapshots == 0 {
		return nil
	}
	return &BaselineTest{
		Events: e.ViolationEvents, Support: e.Support,
		BaselineEvents: e.BaselineViolationEvents, BaselineSupport: e.BaselineSupport,
		PValue: reporter.BaselinePValue(e.ViolationEvents, e.Support, e.BaselineViolationEvents, e.BaselineSupport),
		Level:  reporter.DefaultThresholds.BaselineLevel,
	}
}

// Explain tells where the property propertyText stands in the report of
// the spec at specPath over the trace at tracePath, run with options o
// as Infer runs: it finds the property in the pool up to canonical form,
// the naming of node variables and the value of a two-valued enum
// (forms), and records its fate through the run. A property the pool
// lacks is evaluated alone, when it is one over the spec, and the
// explanation says why it was not generated. The error is the
// property's parse error or a failure of the run.
func Explain(ctx context.Context, specPath, tracePath, propertyText string, o Options) (*Explanation, error) {
	xs, err := ExplainAll(ctx, specPath, tracePath, []string{propertyText}, o)
	if err != nil {
		return nil, err
	}
	return xs[0], nil
}

// ExplainAll explains each of propertyTexts as Explain does, in order,
// from one run: the pool is evaluated and the report built once for all
// the properties it holds, where explaining them one at a time runs the
// whole pipeline for each. The error is the first parse error or a
// failure of the run, saying which property when there are several.
func ExplainAll(ctx context.Context, specPath, tracePath string, propertyTexts []string, o Options) ([]*Explanation, error) {
	which := func(i int, err error) error { // names the property when there are several
		if len(propertyTexts) > 1 {
			return fmt.Errorf("property %d: %w", i+1, err)
		}
		return err
	}
	props := make([]*grammar.Property, len(propertyTexts))
	for i, text := range propertyTexts {
		prop, err := grammar.Parse(text)
		if err != nil {
			return nil, which(i, err)
		}
		props[i] = prop
	}
	p, err := OpenContext(ctx, specPath, tracePath)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	xs := make([]*Explanation, len(props))
	var pool, at []int // the pool's indices of the properties it holds, and theirs in xs
	for i, prop := range props {
		x := &Explanation{Property: prop.Text(), ID: prop.ID()}
		xs[i] = x
		j := p.find(prop)
		if j < 0 {
			if err := p.explainAbsent(ctx, x, prop, o); err != nil {
				return nil, which(i, err)
			}
			continue
		}
		x.Generated = true
		if text := p.Program.Props[j].Text; text != x.Property {
			x.GeneratedAs, x.ID = text, p.Program.Props[j].ID
		}
		pool, at = append(pool, j), append(at, i)
	}
	if len(pool) == 0 {
		return xs, nil
	}
	opts := passOptions(o)
	opts.FullMoments = reporter.DefaultThresholds.FullMoments
	if !o.NoFilter {
		opts.Pruner = filter.New(p.Spec.Filter)
	}
	res, err := p.Evaluate(ctx, opts, "evaluating", o.Progress)
	if err != nil {
		return nil, err
	}
	rep, err := p.report(ctx, res, o, pool)
	if err != nil {
		return nil, err
	}
	for k, f := range rep.Fates {
		x := xs[at[k]]
		x.fate(f, rep.Candidates)
		if f.Stats.Pruned {
			if err := p.explainPruned(ctx, x, p.Program.Props[pool[k]].Property, o); err != nil {
				return nil, which(at[k], err)
			}
		}
	}
	return xs, nil
}

// explainPruned evaluates prop, a property the filter pruned, over the
// whole run without the filter, and says whether it would then be a
// candidate.
func (p *Pipeline) explainPruned(ctx context.Context, x *Explanation, prop *grammar.Property, o Options) error {
	res, err := p.again(ctx, p.Trace, []*grammar.Property{prop}, passOptions(o), "evaluating the property without the filter", o.Progress)
	if err != nil {
		return err
	}
	st := &res.Stats[0]
	ropts := reporter.OptionsFrom(p.Spec)
	x.Unfiltered = evaluationOf(st, nil)
	x.UnfilteredNotCandidate = reporter.NotCandidate(st, ropts.HoldRatio, ropts.MinSupport)
	return nil
}

// fate fills in x from f, the fate of its property in a report that
// found c.
func (x *Explanation) fate(f *reporter.Fate, c reporter.Candidates) {
	x.Evaluation = evaluationOf(f.Stats, f.Entry)
	x.NotCandidate = f.NotCandidate
	x.OrEffectTests, x.OrEffectDropped = f.OrEffect, f.OrEffectDropped
	x.Order, x.Rank, x.LeftOut, x.List, x.Place = f.Order, f.Rank, f.LeftOut, f.List, f.Place
	x.Anomalies = c.AlmostInvariants
	if f.List == "rare_values" {
		x.Anomalies = c.RareValues
	}
	if f.Entry != nil {
		x.ExplainedBy = f.Entry.ExplainedBy
	}
	if f.Anomaly != nil {
		x.Anomaly = &Anomaly{Representative: f.Anomaly.Text, ID: f.Anomaly.ID, Role: f.Role, During: f.Anomaly.During, Refines: f.Anomaly.Refines, RefinedBy: f.Anomaly.RefinedBy, ListedWith: f.Anomaly.ListedWith, RareValue: f.Anomaly.RareValue, StartUp: f.Anomaly.StartUp, BaselineViolatingSnapshots: f.Anomaly.BaselineViolatingSnapshots, MoreThanBaseline: f.Anomaly.MoreThanBaseline, BaselineTest: baselineTest(f.Anomaly)}
	}
	if f.Broken != nil {
		x.Broken = &Broken{ViolatingSnapshots: f.Broken.ViolatingSnapshots, Representative: f.BrokenRep.Text, Rank: f.BrokenRank, Place: f.BrokenPlace}
	}
	defer func() {
		if br := x.Broken; x.Rank == 0 && br != nil && br.Rank > 0 {
			x.Verdict = fmt.Sprintf("listed at rank %d of the baseline's invariants broken here; not among the almost-invariants: %s", br.Rank, x.LeftOut)
		}
	}()
	switch {
	case x.Rank == 0:
		x.Verdict = "not listed: " + x.LeftOut
	case x.Anomaly != nil && x.Anomaly.Role != "representative":
		x.Verdict = fmt.Sprintf("listed at rank %d, as %s of %s", x.Rank, roleText(x.Anomaly.Role), x.Anomaly.Representative)
	case x.List == "invariants":
		x.Verdict = fmt.Sprintf("listed at rank %d of the invariants", x.Rank)
	case x.List == "rare_values":
		x.Verdict = fmt.Sprintf("listed at rank %d of the rare values", x.Rank)
	default:
		x.Verdict = fmt.Sprintf("listed at rank %d", x.Rank)
	}
}

// listName names a report's list (Explanation.List) as its section does.
func listName(list string) string {
	if list == "rare_values" {
		return "rare values"
	}
	return strings.ReplaceAll(list, "_", "-")
}

// roleText phrases a role under a representative.
func roleText(role string) string {
	if role == "equivalent" {
		return "an equivalent"
	}
	return "one that also fails at the moments"
}

// evaluationOf returns the evaluation of a property from its stats and,
// for a candidate, its entry, whose rates are rounded as reported.
func evaluationOf(st *evaluator.Stats, e *reporter.Entry) *Evaluation {
	ev := &Evaluation{
		HoldingRate:        evaluator.RoundRate(st.HoldingRate()),
		TemporalRate:       st.TemporalRate(),
		Violations:         st.Violations,
		Bindings:           st.Bindings,
		Support:            st.Support,
		ViolatingSnapshots: st.ViolatingSnapshots,
		ViolatingTags:      st.Tags,
		Pruned:             st.Pruned,
		PrunedAfter:        st.PrunedAfter,
		Moments:            st.Moments,
		Witnesses:          st.Witnesses(),
	}
	if e != nil {
		ev.HoldingRate, ev.ViolationEvents, ev.Score = e.HoldingRate, e.ViolationEvents, e.Score
		ev.Witnesses, ev.Warnings = e.Witnesses, e.Warnings
	}
	if ev.Moments == nil {
		ev.Moments = []uint64{}
	}
	if ev.Witnesses == nil {
		ev.Witnesses = []evaluator.Witness{}
	}
	return ev
}

// find returns the index in p's pool of the property equal to prop up
// to canonical form, the naming of its node variables and the value of
// two-valued enums, or -1. The generator keeps one form of each such
// class (generator doc: node symmetry, enums of two values), so at most
// one matches.
func (p *Pipeline) find(prop *grammar.Property) int {
	index := make(map[string]int, len(p.Program.Props))
	for i, pr := range p.Program.Props {
		index[pr.Text] = i
	}
	for _, text := range forms(p.Spec, prop) {
		if i, ok := index[text]; ok {
			return i
		}
	}
	return -1
}

// forms returns the canonical texts of the properties equivalent to prop
// that the generator may have kept instead: each renaming of the
// variables of its node quantifiers, with each literal x == a or x != a
// over an enum of two values also written with the other value.
func forms(spec *specs.Spec, prop *grammar.Property) []string {
	c := grammar.Canonical(prop)
	var flips []int // literals over a two-valued enum
	for i, l := range c.Matrix {
		if _, ok := enumFlip(spec, c, l); ok {
			flips = append(flips, i)
		}
	}
	seen := map[string]bool{}
	var texts []string
	for mask := range 1 << len(flips) {
		q := &grammar.Property{Quants: c.Quants, Matrix: slices.Clone(c.Matrix)}
		for k, i := range flips {
			if mask&(1<<k) != 0 {
				q.Matrix[i], _ = enumFlip(spec, c, c.Matrix[i])
			}
		}
		q.Renamings(func(r *grammar.Property) {
			if text := r.Text(); !seen[text] {
				seen[text] = true
				texts = append(texts, text)
			}
		})
	}
	return texts
}

// neForm returns prop with each literal x == a over an enum of the two
// values a and b read as x != b, the form generation builds (it makes
// no x == c of such an enum: constantPair); nil when prop has none.
func neForm(spec *specs.Spec, prop *grammar.Property) *grammar.Property {
	var q *grammar.Property
	for i, l := range prop.Matrix {
		cmp, ok := l.Atom.(*grammar.Compare)
		if !ok || cmp.Op != grammar.OpEq {
			continue
		}
		if ne, ok := enumFlip(spec, prop, l); ok {
			if q == nil {
				q = &grammar.Property{Quants: prop.Quants, Matrix: slices.Clone(prop.Matrix)}
			}
			q.Matrix[i] = ne
		}
	}
	if q == nil {
		return nil
	}
	return grammar.Canonical(q)
}

// enumFlip returns, for a literal x == a or x != a of prop where x is an
// enum of the two values a and b, the literal x != b or x == b, the same
// on non-null values; false for any other literal.
func enumFlip(spec *specs.Spec, prop *grammar.Property, l *grammar.Literal) (*grammar.Literal, bool) {
	cmp, ok := l.Atom.(*grammar.Compare)
	if !ok || l.Neg || cmp.Op != grammar.OpEq && cmp.Op != grammar.OpNe {
		return nil, false
	}
	x, xok := cmp.X.(*grammar.Path)
	c, cok := cmp.Y.(*grammar.Const)
	if !xok || !cok || c.Kind != grammar.ConstString {
		return nil, false
	}
	t := pathType(spec, prop, x)
	if t == nil || t.Kind != specs.String {
		return nil, false
	}
	vals := slices.Compact(slices.Sorted(slices.Values(t.Enum)))
	if len(vals) != 2 || !slices.Contains(vals, c.Str) {
		return nil, false
	}
	other := vals[0]
	if other == c.Str {
		other = vals[1]
	}
	op := grammar.OpEq
	if cmp.Op == grammar.OpEq {
		op = grammar.OpNe
	}
	return &grammar.Literal{Atom: &grammar.Compare{Op: op, X: x, Y: &grammar.Const{Kind: grammar.ConstString, Str: other}}}, true
}

// pathType returns the type of the path x of prop, or nil when the spec
// does not type it: a node variable's path starts with a variable of the
// spec, an iterator's with an element of its domain, and the fields
// after that select struct fields.
func pathType(spec *specs.Spec, prop *grammar.Property, x *grammar.Path) *specs.Type {
	fields := x.Fields
	var t *specs.Type
	for _, q := range prop.Quants {
		if !slices.Contains(q.Vars, x.Var) {
			continue
		}
		if q.Domain != nil {
			d := pathType(spec, prop, q.Domain)
			if d == nil || !d.Container() {
				return nil
			}
			t = d.Elem
			if d.Kind == specs.Map {
				t = d.Key
			}
		} else if len(fields) > 0 {
			t, _ = spec.Lookup(fields[0])
			fields = fields[1:]
		}
	}
	for _, name := range fields {
		if t == nil {
			return nil
		}
		i := slices.IndexFunc(t.Fields, func(f specs.Field) bool { return f.Name == name })
		if i < 0 {
			return nil
		}
		t = t.Fields[i].Type
	}
	return t
}

// explainAbsent fills in x for prop, a property the pool lacks: why, and
// its evaluation alone over the trace when it is a property over the
// spec.
func (p *Pipeline) explainAbsent(ctx context.Context, x *Explanation, prop *grammar.Property, o Options) error {
	prog, err := evaluator.Compile(p.Spec, []*grammar.Property{prop})
	if err != nil {
		x.NotGenerated = "it is no property over the spec: " + err.Error()
		x.LeftOut = "not generated: " + x.NotGenerated
		x.Verdict = x.LeftOut
		return nil
	}
	x.NotGenerated, err = whyNotGenerated(p.Spec, p.Constants, p.Pool, prog.Props[0].Property)
	if err != nil {
		return err
	}
	x.LeftOut = "not generated: " + x.NotGenerated
	opts := passOptions(o)
	if !o.NoFilter {
		opts.Pruner = filter.New(p.Spec.Filter)
	}
	res, err := run(ctx, p.Trace, prog, opts, "evaluating the property alone", o.Progress)
	if err != nil {
		return err
	}
	st := &res.Stats[0]
	ropts := reporter.OptionsFrom(p.Spec)
	x.Evaluation = evaluationOf(st, nil)
	x.NotCandidate = reporter.NotCandidate(st, ropts.HoldRatio, ropts.MinSupport)
	if x.NotCandidate == "" {
		x.Verdict = x.LeftOut + "; evaluated alone, it would be a candidate"
	} else {
		x.Verdict = x.LeftOut + "; evaluated alone, it would not be a candidate: " + x.NotCandidate
	}
	if len(o.Baselines) > 0 {
		if x.AloneBaseline, err = p.aloneBaseline(ctx, prog, o); err != nil {
			return err
		}
		ab := x.AloneBaseline
		ab.Broken = ab.ViolatingSnapshots == 0 && ab.Support >= ropts.MinSupport && st.ViolatingSnapshots > 0
	}
	return nil
}

// aloneBaseline evaluates prog, a property the pool lacks, over each of
// the baseline's runs, without the filter.
func (p *Pipeline) aloneBaseline(ctx context.Context, prog *evaluator.Program, o Options) (*AloneBaseline, error) {
	opts := passOptions(o)
	opts.MaxWitnesses = evaluator.NoWitnesses
	ab := &AloneBaseline{}
	for i, path := range o.Baselines {
		base, err := p.openBaseline(path)
		if err != nil {
			return nil, err
		}
		res, err := run(ctx, base, prog, opts, "evaluating the property alone over the baseline"+nth(i, len(o.Baselines)), o.Progress)
		base.Close()
		if err != nil {
			return nil, err
		}
		ab.ViolatingSnapshots += res.Stats[0].ViolatingSnapshots
		ab.Support += res.Stats[0].Support
	}
	return ab, nil
}

// whyNotGenerated says why pool, generated from spec with the constants
// consts, lacks prop, a canonical property over the spec: the first rule
// of generation (generator doc) it breaks, or else that its class was
// capped (generator.Candidate keeps one of its forms) or that the
// generator dropped it as redundant.
func whyNotGenerated(spec *specs.Spec, consts generator.Constants, pool *generator.Pool, prop *grammar.Property) (string, error) {
	if ne := neForm(spec, prop); ne != nil {
		why, err := whyNotGenerated(spec, consts, pool, ne)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("generation would build it as %s (the same on non-null values: x == a of an enum of two values is x != b), and that is %s", ne.Text(), why), nil
	}
	if why := outsideLimits(spec, prop); why != "" {
		return why, nil
	}
	if why := unusedVariable(prop); why != "" {
		return why, nil
	}
	if why := unminedConstant(spec, consts, prop); why != "" {
		return why, nil
	}
	if why := trivialLiterals(spec, prop); why != "" {
		return why, nil
	}
	class := generator.Class{Nodes: len(prop.NodeVars()), Iters: len(prop.IterVars()), Literals: len(prop.Matrix)}
	i := slices.IndexFunc(pool.Classes, func(cc generator.ClassCount) bool { return cc.Class == class })
	dropped := fmt.Sprintf("within the limits, but dropped at generation: its literals are redundant on non-null values (one implies another, or together they are always true, or they equal a shorter disjunction), which the generator's decision procedure rules out (class %s)", class)
	if i < 0 || pool.Classes[i].Generated == pool.Classes[i].Kept {
		return dropped, nil
	}
	var fs []*grammar.Property
	for _, text := range forms(spec, prop) {
		f, err := grammar.Parse(text)
		if err != nil {
			return "", fmt.Errorf("a form of %s: %w", prop.Text(), err)
		}
		fs = append(fs, f)
	}
	candidate, err := generator.Candidate(spec, consts, fs)
	if err != nil {
		return "", err
	}
	if !candidate {
		return dropped, nil
	}
	// The kept are those of the fewest loose set(x) literals, then of
	// the fewest distinct variables read (generator.LooseSets, Focus).
	rank := func(q *grammar.Property) [2]int { return [2]int{generator.LooseSets(q), generator.Focus(q)} }
	var most [2]int
	for _, q := range pool.Props {
		if len(q.Matrix) == class.Literals && len(q.NodeVars()) == class.Nodes && len(q.IterVars()) == class.Iters {
			if r := rank(q); r[0] > most[0] || r[0] == most[0] && r[1] > most[1] {
				most = r
			}
		}
	}
	cc, r := pool.Classes[i], rank(prop)
	return fmt.Sprintf("within the limits, but its class (%s) has %d properties, capped at generate.max_per_class = %d: it is not among the %d kept, those with the fewest set(x) literals (a not set(x) guarding a literal on x aside), then reading the fewest distinct variables and fields (it has %d such set(x) literals and reads %d; the last kept, %d and %d)",
		class, cc.Generated, spec.Generate.MaxPerClass, cc.Kept, r[0], r[1], most[0], most[1]), nil
}

// outsideLimits says how prop exceeds the shapes generation builds: its
// prefix, quantifiers, literals and iterators.
func outsideLimits(spec *specs.Spec, prop *grammar.Property) string {
	g := spec.Generate
	for _, q := range prop.Quants {
		if q.Kind == grammar.Exists {
			return "it has an exists quantifier: generated properties quantify with forall only (exists is for hand-written checks)"
		}
	}
	if len(prop.Quants) == 0 || prop.Quants[0].Domain != nil || slices.ContainsFunc(prop.Quants[1:], func(q *grammar.Quantifier) bool { return q.Domain == nil }) {
		return "its prefix is not one forall … in nodes followed by iterators: node variables bound by separate quantifiers need not be distinct nodes, and generated properties bind them all in one"
	}
	if n := len(prop.NodeVars()); n > g.MaxNodes {
		return fmt.Sprintf("it has %d node variables, more than generate.max_nodes = %d", n, g.MaxNodes)
	}
	if n := len(prop.Matrix); n > g.MaxLiterals {
		return fmt.Sprintf("it has %d literals, more than generate.max_literals = %d", n, g.MaxLiterals)
	}
	iters := prop.IterVars()
	if len(iters) > generator.MaxIterators {
		return fmt.Sprintf("it has %d iterators; generated properties have at most %d", len(iters), generator.MaxIterators)
	}
	nodes := prop.NodeVars()
	for _, q := range prop.Quants {
		if q.Domain == nil {
			continue
		}
		d := q.Domain
		if !slices.Contains(nodes, d.Var) || len(d.Fields) != 1 || !slices.Contains(g.Iterate, d.Fields[0]) {
			return fmt.Sprintf("it iterates over %s, not a container variable of a node named in generate.iterate %v", d, g.Iterate)
		}
	}
	return ""
}

// unusedVariable names a variable of prop's prefix that no literal uses
// (a node variable may be used by an iterator's domain instead): such a
// property belongs to a smaller scope.
func unusedVariable(prop *grammar.Property) string {
	used := map[string]bool{}
	for x := range grammar.Paths(prop) {
		used[x.Var] = true
	}
	for _, v := range append(prop.NodeVars(), prop.IterVars()...) {
		if !used[v] {
			return fmt.Sprintf("variable %s occurs in no literal: a generated property uses every variable of its prefix (with fewer variables it belongs to a smaller scope)", v)
		}
	}
	return ""
}

// unminedConstant says why a constant of prop is none the generator
// uses: constants appear only in x == c and x != c with x a node path,
// and only those mined from the trace or declared by an enum.
func unminedConstant(spec *specs.Spec, consts generator.Constants, prop *grammar.Property) string {
	nodes := prop.NodeVars()
	for _, l := range prop.Matrix {
		cmp, ok := l.Atom.(*grammar.Compare)
		if !ok {
			if slices.ContainsFunc(atomOperands(l.Atom), isConst) {
				return fmt.Sprintf("%s has a constant operand: constants appear only in x == c and x != c", l)
			}
			continue
		}
		c, ok := cmp.Y.(*grammar.Const)
		if !ok {
			if isConst(cmp.X) {
				return fmt.Sprintf("%s has a constant operand: constants appear only in x == c and x != c", l)
			}
			continue
		}
		x, ok := cmp.X.(*grammar.Path)
		switch {
		case !ok:
			return fmt.Sprintf("%s compares two constants", l)
		case cmp.Op != grammar.OpEq && cmp.Op != grammar.OpNe:
			return fmt.Sprintf("%s orders a path and a constant: constants appear only in x == c and x != c", l)
		case !slices.Contains(nodes, x.Var):
			return fmt.Sprintf("%s compares an iterator's path with a constant: constants are mined for node paths only", l)
		case c.Kind == grammar.ConstBool:
			return fmt.Sprintf("%s compares a bool with a constant: bool paths are generated as bare literals x and not x", l)
		}
		key := strings.Join(x.Fields, ".")
		vals, mined := consts[key]
		if t := pathType(spec, prop, x); t != nil && len(t.Enum) == 1 {
			return fmt.Sprintf("%s is an enum of one value: it gets no constants", key)
		}
		if !mined {
			return fmt.Sprintf("no constants of %s were mined: it takes more than generate.constants.max_distinct = %d distinct values in the trace", key, spec.Generate.Constants.MaxDistinct)
		}
		if !slices.ContainsFunc(vals, func(v any) bool { return constIs(c, v) }) {
			return fmt.Sprintf("%s is not a constant of %s, whose constants are: %s", c, key, formatValues(vals))
		}
	}
	return ""
}

// trivialLiterals says which literals of prop the generator never
// builds or never combines: literals trivially true or false, the
// negation of an order, a literal beside its own negation, two
// comparisons of the same paths or constants of the same path, set(x)
// of a container or in a long disjunction.
func trivialLiterals(spec *specs.Spec, prop *grammar.Property) string {
	texts := make([]string, len(prop.Matrix))
	for i, l := range prop.Matrix {
		texts[i] = l.String()
	}
	for _, l := range prop.Matrix {
		if neg := negation(l); slices.Contains(texts, neg.String()) {
			return fmt.Sprintf("%s and %s: a tautology (x or not x)", neg, l)
		}
	}
	pairs := map[string]string{} // compared paths → the literal comparing them
	eqs := map[string][]string{} // path → its literals x == c
	for i, l := range prop.Matrix {
		switch a := l.Atom.(type) {
		case *grammar.Compare:
			x, y := a.X.String(), a.Y.String()
			if x == y {
				return fmt.Sprintf("%s compares a path with itself: trivially true or false", l)
			}
			if l.Neg && (a.Op == grammar.OpLt || a.Op == grammar.OpLe) {
				other := &grammar.Compare{Op: grammar.OpLe, X: a.Y, Y: a.X}
				if a.Op == grammar.OpLe {
					other.Op = grammar.OpLt
				}
				return fmt.Sprintf("%s: the negation of an order is never generated; %s, the same on non-null values, is", l, other)
			}
			if isConst(a.Y) {
				if why := constantPair(spec, prop, a, texts[i], eqs); why != "" {
					return why
				}
				break
			}
			key := min(x, y) + " " + max(x, y)
			if prev, ok := pairs[key]; ok {
				return fmt.Sprintf("%s and %s compare the same two paths: their disjunction is a single comparison or always true", prev, l)
			}
			pairs[key] = texts[i]
		case *grammar.Subset:
			if a.X.String() == a.Y.String() {
				return fmt.Sprintf("%s is trivially true", l)
			}
		case *grammar.IsSet:
			if x, ok := a.X.(*grammar.Path); ok {
				if t := pathType(spec, prop, x); t != nil && t.Container() {
					return fmt.Sprintf("%s: set(x) is generated for paths that are not containers (a null container is empty)", l)
				}
			}
			if len(prop.Matrix) > generator.MaxSetLiterals {
				return fmt.Sprintf("%s: set(x) literals appear only in disjunctions of at most %d literals", l, generator.MaxSetLiterals)
			}
		case *grammar.In, *grammar.Empty:
			for _, q := range prop.Quants {
				if q.Domain != nil && slices.ContainsFunc(atomOperands(a), func(x grammar.Operand) bool { return x.String() == q.Domain.String() }) {
					return fmt.Sprintf("%s is trivially true or false under the iterator over %s", l, q.Domain)
				}
			}
		case *grammar.Call:
			args := make([]string, len(a.Args))
			for k, x := range a.Args {
				args[k] = x.String()
			}
			if len(slices.Compact(slices.Sorted(slices.Values(args)))) < len(args) {
				return fmt.Sprintf("%s applies a predicate to the same path twice: predicates are generated on distinct paths", l)
			}
		}
	}
	return ""
}

// constantPair says why the literal lit, text, comparing a path with a
// constant, is never combined with the literals before it, whose x == c
// texts eqs holds by path: x == a beside x != b (the second implies the
// first, or they cover all), or too many constants of an enum of V
// values (V-1 of them say x != c for the remaining c).
func constantPair(spec *specs.Spec, prop *grammar.Property, lit *grammar.Compare, text string, eqs map[string][]string) string {
	x := lit.X.String()
	for _, l := range prop.Matrix {
		cmp, ok := l.Atom.(*grammar.Compare)
		if ok && cmp != lit && isConst(cmp.Y) && cmp.X.String() == x && cmp.Op != lit.Op {
			return fmt.Sprintf("%s and %s: a constant of a path beside a negated constant of the same path is redundant", l, text)
		}
	}
	if lit.Op != grammar.OpEq {
		return ""
	}
	eqs[x] = append(eqs[x], text)
	path, ok := lit.X.(*grammar.Path)
	if !ok {
		return ""
	}
	if t := pathType(spec, prop, path); t != nil && t.Enum != nil {
		if v := len(slices.Compact(slices.Sorted(slices.Values(t.Enum)))); len(eqs[x]) > v-2 {
			return fmt.Sprintf("%s: %d constants of %s, an enum of %d values; at most %d are generated (%d of them say %s != c for the remaining value c)",
				strings.Join(eqs[x], " or "), len(eqs[x]), x, v, v-2, v-1, x)
		}
	}
	return ""
}

// negation returns the literal that is l's negation, as canonical text
// prints it.
func negation(l *grammar.Literal) *grammar.Literal {
	if cmp, ok := l.Atom.(*grammar.Compare); ok && (cmp.Op == grammar.OpEq || cmp.Op == grammar.OpNe) {
		op := grammar.OpEq
		if cmp.Op == grammar.OpEq {
			op = grammar.OpNe
		}
		return &grammar.Literal{Atom: &grammar.Compare{Op: op, X: cmp.X, Y: cmp.Y}}
	}
	return &grammar.Literal{Neg: !l.Neg, Atom: l.Atom}
}

// atomOperands returns the operands of a.
func atomOperands(a grammar.Atom) []grammar.Operand {
	switch a := a.(type) {
	case *grammar.Compare:
		return []grammar.Operand{a.X, a.Y}
	case *grammar.In:
		return []grammar.Operand{a.X, a.S}
	case *grammar.Subset:
		return []grammar.Operand{a.X, a.Y}
	case *grammar.Empty:
		return []grammar.Operand{a.S}
	case *grammar.IsSet:
		return []grammar.Operand{a.X}
	case *grammar.Truth:
		return []grammar.Operand{a.X}
	case *grammar.Call:
		return a.Args
	}
	return nil
}

func isConst(x grammar.Operand) bool {
	_, ok := x.(*grammar.Const)
	return ok
}

// constIs reports whether the constant c is the mined value v (bool,
// int64, uint64 or string, as in generator.Constants).
func constIs(c *grammar.Const, v any) bool {
	switch v := v.(type) {
	case string:
		return c.Kind == grammar.ConstString && c.Str == v
	case int64:
		return c.Kind == grammar.ConstInt && c.Int == v
	case uint64:
		return c.Kind == grammar.ConstUint && c.Uint == v || c.Kind == grammar.ConstInt && c.Int >= 0 && uint64(c.Int) == v
	case bool:
		return c.Kind == grammar.ConstBool && c.Bool == v
	}
	return false
}

// formatValues prints mined constants as the property language writes
// them.
func formatValues(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

// WriteJSON writes x as indented JSON, properties as written.
func (x *Explanation) WriteJSON(w io.Writer) error {
	return writeJSON(w, x)
}

// WriteExplanationsJSON writes xs as one JSON array, each element as
// WriteJSON writes it.
func WriteExplanationsJSON(w io.Writer, xs []*Explanation) error {
	return writeJSON(w, xs)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // properties hold < and <=
	return enc.Encode(v)
}

// WriteText writes x for a terminal: the verdict, then each step, a
// labelled line each.
func (x *Explanation) WriteText(w io.Writer) error {
	var b strings.Builder
	label := func(l string) func(format string, args ...any) {
		return func(format string, args ...any) {
			fmt.Fprintf(&b, "%-11s %s\n", l, fmt.Sprintf(format, args...))
		}
	}
	more := label("")
	label("property")("%s", x.Property)
	label("id")("%s", x.ID)
	label("verdict")("%s", x.Verdict)
	switch {
	case x.GeneratedAs != "":
		label("generated")("yes, as %s", x.GeneratedAs)
	case x.Generated:
		label("generated")("yes")
	default:
		label("generated")("no: %s", x.NotGenerated)
	}
	if ev := x.Evaluation; ev != nil {
		l := "evaluation"
		if !x.Generated {
			l = "alone"
		}
		writeEvaluation(label(l), more, ev)
		if ev.Pruned {
			label("filter")("pruned after %d snapshots: the counts above stop there", ev.PrunedAfter)
		} else {
			label("filter")("kept")
		}
		if u := x.Unfiltered; u != nil {
			label("unfiltered")("over the whole run, without the filter (--no-filter):")
			more("%s", formatRates(u))
			more("%s", count(u.ViolatingSnapshots, "violating snapshot"))
			if x.UnfilteredNotCandidate != "" {
				more("it would still be no candidate: %s", x.UnfilteredNotCandidate)
			} else {
				more("it would be a candidate")
			}
		}
		if x.NotCandidate != "" {
			label("candidate")("no: %s", x.NotCandidate)
		} else {
			label("candidate")("yes")
		}
	}
	if n := len(x.OrEffectTests); n > 0 {
		passed := 0
		for _, t := range x.OrEffectTests {
			if t.Passed {
				passed++
			}
		}
		if x.OrEffectDropped {
			label("or-effect")("dropped: %s, none passed", count(int64(n), "test"))
		} else {
			label("or-effect")("kept: %d of %s passed, and one is enough", passed, count(int64(n), "test"))
		}
		lits := literalTexts(cmp.Or(x.GeneratedAs, x.Property)) // the tests' literal positions are the pool's
		// Tests against the two namings of a symmetric sub-property read
		// alike, word for word: one line says both.
		var lines []string
		alike := map[string]int{}
		for _, t := range x.OrEffectTests {
			line := formatTest(t, lits)
			if alike[line]++; alike[line] == 1 {
				lines = append(lines, line)
			}
		}
		for _, line := range lines {
			if n := alike[line]; n > 1 {
				line = fmt.Sprintf("%d tests alike, the same up to the naming of nodes: %s", n, line)
			}
			more("%s", line)
		}
	}
	if n := len(x.ExplainedBy); n > 0 {
		by := x.ExplainedBy[:min(n, maxExplainedBy)]
		label("explained")("by %s", strings.Join(by, "; "))
		if n > len(by) {
			more("and %d more (--format json lists them)", n-len(by))
		}
	}
	if a := x.Anomaly; a != nil {
		// The place is the report line's. The order among all anomalies
		// (x.Order, as augur infer --all ranks them) is in JSON only:
		// beside the report's rank it read as a contradiction.
		if a.Role == "representative" {
			label("anomaly")("represents its anomaly")
		} else {
			label("anomaly")("%s, under %s", a.Role, a.Representative)
		}
		if a.Refines != "" {
			more("it is a longer form of %s, listed just before it: it fails only where that one does", a.Refines)
		}
		if a.RefinedBy != "" && a.ListedWith == "" { // else the baseline's line says where
			more("it is moved up above its own score to just before %s, a longer form of it failing only where it does", a.RefinedBy)
		}
		if a.During != "" {
			more("it fails during the episodes of %s: ranked after the anomalies with moments of their own", a.During)
		}
		if a.StartUp {
			more("the representative fails only while the run starts up, in one episode from its first snapshot: ranked after the others")
		}
		if a.RareValue {
			more("the representative states only that a value is rare, relating nothing: listed apart, among the rare values")
		}
		if bt := a.BaselineTest; bt != nil {
			test := fmt.Sprintf("%s in %d non-vacuous snapshots there, %d in %d here: p-value %.3g at level %.3g",
				count(bt.BaselineEvents, "violation event"), bt.BaselineSupport, bt.Events, bt.Support, bt.PValue, bt.Level)
			switch {
			case a.ListedWith != "":
				more("the representative fails at %s of the baseline, far less often than here (%s), and its longer form %s never does: listed with it, among the anomalies that do not", count(a.BaselineViolatingSnapshots, "snapshot"), test, a.ListedWith)
			case a.MoreThanBaseline:
				more("the representative fails at %s of the baseline, far less often than here (%s): ranked after the anomalies that do not, first of those that do", count(a.BaselineViolatingSnapshots, "snapshot"), test)
			default:
				more("the representative fails at %s of the baseline, not far less often than here (%s): ranked after the anomalies that do not", count(a.BaselineViolatingSnapshots, "snapshot"), test)
			}
		}
	}
	if x.Rank > 0 {
		label("report")("rank %d of the %s", x.Rank, listName(x.List))
	} else if x.LeftOut != "" {
		label("report")("left out: %s", x.LeftOut)
	}
	if br := x.Broken; br != nil {
		// The section is a list of its own beside the almost-invariants,
		// with its own ranks: "there" read as a second rank of the same
		// list to a blind user.
		const section = `the report's section "Invariants of the baseline broken here"`
		where := fmt.Sprintf("its group ranks %d in %s", br.Rank, section)
		if br.Rank == 0 {
			where = fmt.Sprintf("its group ranks %d in %s, beyond the report's size: --top %d lists it", br.Place, section, br.Place)
		}
		if br.Representative != x.Property && br.Representative != x.GeneratedAs {
			where += ", under " + br.Representative
		}
		label("baseline")("an invariant of the baseline broken here, at %s: %s", count(br.ViolatingSnapshots, "snapshot"), where)
	}
	if ab := x.AloneBaseline; ab != nil {
		switch {
		case ab.ViolatingSnapshots > 0:
			label("baseline")("evaluated alone, it fails at %s of the baseline too", count(ab.ViolatingSnapshots, "snapshot"))
		case ab.Broken:
			label("baseline")("evaluated alone, it never fails in the baseline (support %d): generated, it would be an invariant of the baseline broken here", ab.Support)
		default:
			label("baseline")("evaluated alone, it never fails in the baseline (support %d)", ab.Support)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeEvaluation writes ev: its rates and counts with first, the rest
// with more.
func writeEvaluation(first, more func(format string, args ...any), ev *Evaluation) {
	first("%s", formatRates(ev))
	if ev.ViolatingSnapshots > 0 {
		more("%s%s%s", count(ev.ViolatingSnapshots, "violating snapshot"), formatTags(ev.ViolatingTags), formatEvents(ev))
		more("first violating snapshots: %s", formatMoments(ev.Moments))
	}
	for _, wit := range ev.Witnesses {
		more("at %s", wit)
	}
	for _, warn := range ev.Warnings {
		more("warning: %s", warn)
	}
}

// formatRates prints the rates and counts of ev.
func formatRates(ev *Evaluation) string {
	return fmt.Sprintf("holding rate %s, temporal rate %s, %d of %d bindings violated, support %d",
		reporter.FormatRate(ev.HoldingRate), reporter.FormatRate(ev.TemporalRate), ev.Violations, ev.Bindings, ev.Support)
}

// maxExplainedBy is the number of properties explaining it the text
// form names.
const maxExplainedBy = 3

// count returns "1 thing" or "n things".
func count(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// literalTexts returns the texts of the literals of the property text, in
// its order; nil when it does not parse.
func literalTexts(text string) []string {
	p, err := grammar.Parse(text)
	if err != nil {
		return nil
	}
	lits := make([]string, len(p.Matrix))
	for i, l := range p.Matrix {
		lits[i] = l.String()
	}
	return lits
}

// literals names the literals at positions at: their texts joined by
// "or", in parentheses when there are several, when lits has them; else
// "literal" and the positions from 0 ("literals 0, 2").
func literals(at []int, lits []string) string {
	texts, ns := make([]string, len(at)), make([]string, len(at))
	named := true
	for k, i := range at {
		ns[k] = strconv.Itoa(i)
		if named = named && i >= 0 && i < len(lits); named {
			texts[k] = lits[i]
		}
	}
	switch {
	case !named && len(at) == 1:
		return "literal " + ns[0]
	case !named:
		return "literals " + strings.Join(ns, ", ")
	case len(at) == 1:
		return texts[0]
	}
	return "(" + strings.Join(texts, " or ") + ")"
}

// formatTest prints an or-effect test on one line: what it compared, its
// 2×2 table in words, p-value, level and odds ratio, and its outcome.
// lits are the tested property's literals, which a split test and a
// negation name by position.
func formatTest(t reporter.OrEffectTest, lits []string) string {
	tt := t.Table // [Q violated][R holds], or [first holds][second holds]
	if t.Sub == "" {
		var rest []int
		for i := range lits {
			if !slices.Contains(t.Split, i) {
				rest = append(rest, i)
			}
		}
		second := "the other literals"
		if len(rest) > 0 && len(rest)+len(t.Split) == len(lits) {
			second = literals(rest, lits)
		}
		// Passing says they do not: "passed" alone read as "independent".
		verdict := "as far as the counts tell, they do: failed"
		if t.Passed {
			verdict = "they do not: passed"
		}
		return fmt.Sprintf("whether %s and %s hold independently: of the bindings, both hold at %d, only the first at %d, only the second at %d, neither at %d; p-value %.3g at level %.3g: %s",
			literals(t.Split, lits), second, tt[1][1], tt[1][0], tt[0][1], tt[0][0], t.PValue, t.Level, verdict)
	}
	passed := "failed"
	if t.Passed {
		passed = "passed"
	}
	if tt[1][0]+tt[1][1] == 0 {
		return fmt.Sprintf("against %s: never violated at the bindings, so the rest explains nothing: %s", t.Sub, passed)
	}
	line := fmt.Sprintf("against %s: violated at %d bindings, the rest holding at %d of them; holding at %d, the rest at %d of them; p-value %.3g at level %.3g, odds ratio %.3g: %s",
		t.Sub, tt[1][0]+tt[1][1], tt[1][1], tt[0][0]+tt[0][1], tt[0][1], t.PValue, t.Level, t.OddsRatio, passed)
	if len(t.Negates) == 2 {
		line += fmt.Sprintf(", but %s and %s are each other's negation at every binding: the rest restates the violations, and it is not listed as explaining them", literals(t.Negates[:1], lits), literals(t.Negates[1:], lits))
	}
	if t.SubLeftOut {
		line += "; that one is violated through a large share of the run: not listed itself (--all lists it)"
	}
	return line
}

func formatTags(tags map[string]int64) string {
	if len(tags) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		parts = append(parts, fmt.Sprintf("%s×%d", k, tags[k]))
	}
	return ", tagged " + strings.Join(parts, " ")
}

func formatEvents(ev *Evaluation) string {
	if ev.ViolationEvents == 0 {
		return ""
	}
	return fmt.Sprintf(", %s, score %.5f", count(ev.ViolationEvents, "violation event"), ev.Score)
}

func formatMoments(ms []uint64) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprint(m)
	}
	return strings.Join(parts, " ")
}
