package reporter

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// Version is the version of the JSON report.
const Version = 1

// Options are the thresholds of the reporter.
type Options struct {
	HoldRatio  float64 // least holding rate of an almost-invariant
	MinSupport int64   // least number of non-vacuous snapshots
	Alpha      float64 // significance level of the or-effect tests
	Size       int     // entries per list; 0 means all
}

// OptionsFrom returns the options a spec asks for.
func OptionsFrom(s *specs.Spec) Options {
	return Options{
		HoldRatio:  s.Filter.HoldRatio,
		MinSupport: int64(s.Report.MinSupport),
		Alpha:      s.Report.Alpha,
		Size:       s.Report.Size,
	}
}

// Input is what a report is built from.
type Input struct {
	System    string
	Spec      string // path of the spec file, relative to the report's directory or absolute
	Trace     string // path of the trace
	Generated int    // properties generated, before the evaluator
	Program   *evaluator.Program
	Result    *evaluator.Result

	// Baseline, if set, counts for each of props the snapshots of a run
	// believed good, named BaselineTrace, where it fails: the
	// almost-invariants that fail there too are ranked after the others.
	Baseline      func(props []*grammar.Property) ([]int64, error)
	BaselineTrace string
}

// Report is a ranked report. Its JSON form is stable: fields are added,
// never renamed, within a Version.
type Report struct {
	Version          int        `json:"version"`
	System           string     `json:"system"`
	Spec             string     `json:"spec,omitempty"`
	Trace            string     `json:"trace,omitempty"`
	Baseline         string     `json:"baseline,omitempty"` // trace of a run believed good
	Snapshots        int        `json:"snapshots"`
	Properties       Counts     `json:"properties"`
	Candidates       Candidates `json:"candidates"`
	AlmostInvariants []*Entry   `json:"almost_invariants"`
	Invariants       []*Entry   `json:"invariants"`
	Warnings         []Warning  `json:"warnings,omitempty"`

	// Timeline, if set, is drawn by the HTML report.
	Timeline *Timeline `json:"-"`
}

// Warning is something a reader of the report must know that is not an
// entry, such as a derived variable that failed at run time: the
// properties over it are still reported, over null.
type Warning struct {
	Code    string `json:"code"` // what kind of warning, for scripts: "derived-failed", "predicate-failed"
	Message string `json:"message"`
}

// failureWarnings turns the expression failures of a run into warnings.
func failureWarnings(fs []evaluator.ExprFailures) []Warning {
	var ws []Warning
	for _, f := range fs {
		what, counted, counts := "derived variable", "node state", "it is null there"
		if f.Kind == "predicate" {
			what, counted, counts = "predicate", "argument list", "it is false there"
		}
		more := ""
		if f.Inputs >= evaluator.MaxFailureInputs {
			more = "at least "
		}
		msg := strings.TrimPrefix(f.Error, f.Kind+" "+f.Name+": ")
		ws = append(ws, Warning{
			Code: f.Kind + "-failed",
			Message: fmt.Sprintf("%s %s failed at run time on %s%s, first at snapshot %d: %s; %s",
				what, f.Name, more, plural(f.Inputs, counted), f.Snapshot, msg, counts),
		})
	}
	return ws
}

// Counts are the sizes of the property pool.
type Counts struct {
	Generated int `json:"generated"`
	Evaluated int `json:"evaluated"`
	Pruned    int `json:"pruned"`
}

// Candidates count what the reporter found and removed, before the lists
// are cut to Options.Size.
type Candidates struct {
	AlmostInvariants int `json:"almost_invariants"`
	Invariants       int `json:"invariants"`
	OrEffect         int `json:"or_effect"`    // dropped as or-effects
	Equivalent       int `json:"equivalent"`   // folded into an equivalence set
	SameMoments      int `json:"same_moments"` // folded into a property failing at the same moments
	InBaseline       int `json:"in_baseline"`  // almost-invariants that fail in the baseline too
}

// Entry is one reported property.
type Entry struct {
	Rank               int              `json:"rank"`
	ID                 string           `json:"id"`
	Text               string           `json:"text"`
	HoldingRate        float64          `json:"holding_rate"`
	TemporalRate       float64          `json:"temporal_rate"`
	Violations         int64            `json:"violations"`
	Bindings           int64            `json:"bindings"`
	Support            int64            `json:"support"`
	ViolatingSnapshots int64            `json:"violating_snapshots"`
	ViolatingTags      map[string]int64 `json:"violating_tags"` // tags of the violating snapshots
	Equivalents        []string         `json:"equivalents"`    // same rate and violations, folded into this one
	// SameMoments lists the lower-ranked properties that fail at mostly
	// the same snapshots: other views of the same anomaly.
	SameMoments []string `json:"same_moments"`
	// ExplainedBy lists the longer properties whose other literals hold
	// where this one fails, far beyond chance: its violations may be
	// expected.
	ExplainedBy []string `json:"explained_by,omitempty"`
	// BaselineViolatingSnapshots counts the snapshots of the baseline
	// where the property fails.
	BaselineViolatingSnapshots int64               `json:"baseline_violating_snapshots,omitempty"`
	Witnesses                  []evaluator.Witness `json:"witnesses"` // first violating snapshots

	prop  *evaluator.Prop
	stats *evaluator.Stats
	sym   string // text up to the order of node variables
	drop  bool
}

// Build builds the report. It fails only when in.Baseline does.
func Build(in Input, opts Options) (*Report, error) {
	res := in.Result
	r := &Report{
		Version:   Version,
		System:    in.System,
		Spec:      in.Spec,
		Trace:     in.Trace,
		Baseline:  in.BaselineTrace,
		Snapshots: res.Snapshots,
		Properties: Counts{
			Generated: in.Generated,
			Evaluated: len(in.Program.Props),
			Pruned:    res.Pruned,
		},
		AlmostInvariants: []*Entry{},
		Invariants:       []*Entry{},
		Warnings:         failureWarnings(res.Failures),
	}
	var cands []*Entry
	for i, p := range in.Program.Props {
		st := &res.Stats[i]
		if st.Pruned || st.Support < opts.MinSupport || st.Violations > 0 && reportedRate(st.HoldingRate()) < opts.HoldRatio {
			continue
		}
		cands = append(cands, newEntry(p, st))
	}
	slices.SortFunc(cands, byRank)
	r.Candidates.OrEffect = orEffect(cands, opts.Alpha)
	for _, e := range cands {
		if e.drop {
			continue
		}
		if e.Violations > 0 {
			r.AlmostInvariants = append(r.AlmostInvariants, e)
		} else {
			r.Invariants = append(r.Invariants, e)
		}
	}
	r.AlmostInvariants, r.Candidates.Equivalent = equivalence(r.AlmostInvariants)
	r.AlmostInvariants, r.Candidates.SameMoments = sameMoments(r.AlmostInvariants)
	if in.Baseline != nil {
		n, err := baselineLast(r.AlmostInvariants, in.Baseline)
		if err != nil {
			return nil, err
		}
		r.Candidates.InBaseline = n
	}
	r.Candidates.AlmostInvariants = len(r.AlmostInvariants)
	r.Candidates.Invariants = len(r.Invariants)
	r.AlmostInvariants = cut(r.AlmostInvariants, opts.Size)
	r.Invariants = cut(r.Invariants, opts.Size)
	return r, nil
}

// Property returns the reported property.
func (e *Entry) Property() *grammar.Property { return e.prop.Property }

func newEntry(p *evaluator.Prop, st *evaluator.Stats) *Entry {
	tags, wits := maps.Clone(st.Tags), slices.Clip(st.Witnesses)
	if tags == nil {
		tags = map[string]int64{}
	}
	if wits == nil {
		wits = []evaluator.Witness{}
	}
	return &Entry{
		ID:                 p.ID,
		Text:               p.Text,
		HoldingRate:        reportedRate(st.HoldingRate()),
		TemporalRate:       st.TemporalRate(),
		Violations:         st.Violations,
		Bindings:           st.Bindings,
		Support:            st.Support,
		ViolatingSnapshots: st.ViolatingSnapshots,
		ViolatingTags:      tags,
		Equivalents:        []string{},
		SameMoments:        []string{},
		Witnesses:          wits,
		prop:               p,
		stats:              st,
		sym:                symmetricText(p.Property),
	}
}

// reportedRate rounds a holding rate to 12 decimals. Rates are sums of
// per-snapshot scores, and the order of the additions (one run, or merged
// shards) changes their last bits; the reporter compares, ranks and
// prints rates at a precision that does not see that.
func reportedRate(h float64) float64 {
	return math.Round(h*1e12) / 1e12
}

// byRank orders by holding rate, then simpler first: fewer literals,
// fewer quantified variables, then text.
func byRank(a, b *Entry) int {
	return cmp.Or(
		-cmp.Compare(a.HoldingRate, b.HoldingRate),
		cmp.Compare(a.prop.Literals(), b.prop.Literals()),
		cmp.Compare(numVars(a.prop.Property), numVars(b.prop.Property)),
		cmp.Compare(a.Text, b.Text),
	)
}

func numVars(p *grammar.Property) int {
	n := 0
	for _, q := range p.Quants {
		n += len(q.Vars)
	}
	return n
}

func cut(es []*Entry, size int) []*Entry {
	for i, e := range es {
		e.Rank = i + 1
	}
	if size > 0 && len(es) > size {
		return es[:size]
	}
	return es
}

// equivalence folds almost-invariants with the same holding rate (to
// 1e-9), the same violation count and the same first violating snapshot
// into the first, simplest, of them. The design asks only for the first
// two; the snapshot keeps unrelated properties that fail equally often
// apart.
func equivalence(es []*Entry) ([]*Entry, int) {
	type key struct {
		rate       int64
		violations int64
		first      uint64
	}
	heads := map[key]*Entry{}
	var out []*Entry
	folded := 0
	for _, e := range es {
		k := key{rate: int64(math.Round(e.HoldingRate * 1e9)), violations: e.Violations}
		if len(e.Witnesses) > 0 {
			k.first = e.Witnesses[0].Snapshot
		}
		if h, ok := heads[k]; ok {
			h.Equivalents = append(h.Equivalents, e.Text)
			folded++
			continue
		}
		heads[k] = e
		out = append(out, e)
	}
	return out, folded
}

// sameMoments folds each almost-invariant into the first higher-ranked one
// that fails at mostly the same snapshots: as many violating snapshots
// within a factor of two, and at least half of the first ones of either
// (evaluator.Stats.Moments) shared. A run's rare anomalies each break many
// properties; the report shows each anomaly once, by its best-ranked
// property, and lists the others.
func sameMoments(es []*Entry) ([]*Entry, int) {
	var heads []*Entry
	folded := 0
next:
	for _, e := range es {
		ms, n := e.stats.Moments, e.ViolatingSnapshots
		for _, h := range heads {
			hs, hn := h.stats.Moments, h.ViolatingSnapshots
			if len(ms) > 0 && 2*min(n, hn) >= max(n, hn) && 2*shared(ms, hs) >= max(len(ms), len(hs)) {
				h.SameMoments = append(h.SameMoments, e.Text)
				folded++
				continue next
			}
		}
		heads = append(heads, e)
	}
	return heads, folded
}

// baselineLast counts where the almost-invariants fail in the baseline,
// moves those that fail there after the others, keeping each group in rank
// order, and returns how many it moved. What fails in a run believed good
// as well is, most likely, how the system normally behaves (a transient of
// its protocol), not a bug.
func baselineLast(es []*Entry, baseline func([]*grammar.Property) ([]int64, error)) (int, error) {
	props := make([]*grammar.Property, len(es))
	for i, e := range es {
		props[i] = e.prop.Property
	}
	counts, err := baseline(props)
	if err != nil {
		return 0, err
	}
	for i, e := range es {
		e.BaselineViolatingSnapshots = counts[i]
	}
	slices.SortStableFunc(es, func(a, b *Entry) int {
		return cmp.Compare(min(a.BaselineViolatingSnapshots, 1), min(b.BaselineViolatingSnapshots, 1))
	})
	n := 0
	for _, e := range es {
		if e.BaselineViolatingSnapshots > 0 {
			n++
		}
	}
	return n, nil
}

// shared counts the elements common to two increasing sequences.
func shared(a, b []uint64) int {
	n := 0
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			a = a[1:]
		case a[0] > b[0]:
			b = b[1:]
		default:
			n++
			a, b = a[1:], b[1:]
		}
	}
	return n
}

// orEffect marks the candidates that hold only by OR-ing and returns how
// many it dropped. cands are in rank order. Candidates are decided from
// the fewest literals up, so that a disjunction is dropped in favour of a
// sub-disjunction only when that one stays.
func orEffect(cands []*Entry, alpha float64) int {
	bySym := make(map[string]*Entry, len(cands))
	for _, e := range cands {
		if _, ok := bySym[e.sym]; !ok {
			bySym[e.sym] = e
		}
	}
	subs := func(e *Entry, yield func(q *Entry, mask int)) {
		n := e.prop.Literals()
		if n < 2 || !testable(e) {
			return
		}
		for mask := 1; mask < 1<<n-1; mask++ {
			if q, ok := bySym[symmetricText(subProperty(e.prop.Property, mask))]; ok && q != e {
				yield(q, mask)
			}
		}
	}
	// The number of sub-disjunction tests corrects the significance level.
	tests := 0
	for _, e := range cands {
		subs(e, func(*Entry, int) { tests++ })
	}
	level := alpha / float64(max(tests, 1))

	order := slices.Clone(cands)
	slices.SortStableFunc(order, func(a, b *Entry) int { return cmp.Compare(a.prop.Literals(), b.prop.Literals()) })
	dropped := 0
	for _, e := range order {
		hasSub, explained := false, false
		subs(e, func(q *Entry, mask int) {
			if q.drop {
				return
			}
			hasSub = true
			if explains(subTable(e.stats, e.prop.Literals(), mask), level) {
				explained = true
				if !slices.Contains(q.ExplainedBy, e.Text) {
					q.ExplainedBy = append(q.ExplainedBy, e.Text)
				}
			}
		})
		switch {
		case hasSub:
			e.drop = !explained
		case e.prop.Literals() >= 2 && testable(e):
			e.drop = independentSplit(e.stats, e.prop.Literals(), alpha)
		}
		if e.drop {
			dropped++
		}
	}
	return dropped
}

func testable(e *Entry) bool {
	return e.prop.Flat() && e.prop.Literals() <= evaluator.MaxPatternLiterals
}

// minLift is how many times more often R must hold where Q fails than
// where Q holds for R to explain Q's violations ("rarely elsewhere").
const minLift = 2

// subTable returns the table of "Q violated" (rows) against "R holds"
// (columns) over P's bindings, where Q is the literals in mask and R the
// others.
func subTable(st *evaluator.Stats, n, mask int) table {
	var t table
	for pat := range 1 << n {
		qViolated := b2i(pat&mask == 0)
		rHolds := b2i(pat&^mask != 0)
		t[qViolated][rHolds] += float64(st.Patterns[pat])
	}
	return t
}

// explains reports whether R holds at Q's violations far beyond chance.
func explains(t table, level float64) bool {
	viol := t[1][0] + t[1][1]
	rest := t[0][0] + t[0][1]
	if viol == 0 || rest == 0 {
		return false
	}
	inViol, elsewhere := t[1][1]/viol, t[0][1]/rest
	return inViol >= minLift*elsewhere && association(t) < level
}

// independentSplit reports whether the literals split into two groups
// whose truth values look independent over the bindings.
func independentSplit(st *evaluator.Stats, n int, alpha float64) bool {
	all := 1<<n - 1
	// Group A always holds literal 0, so each split is tried once.
	for a := 1; a < all; a += 2 {
		var t table
		for pat := range 1 << n {
			t[b2i(pat&a != 0)][b2i(pat&(all&^a) != 0)] += float64(st.Patterns[pat])
		}
		if independence(t) >= alpha {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// subProperty returns the disjunction of the literals of p in mask, under
// the quantifiers it still needs.
func subProperty(p *grammar.Property, mask int) *grammar.Property {
	q := &grammar.Property{}
	used := map[string]bool{}
	for i, l := range p.Matrix {
		if mask&(1<<i) == 0 {
			continue
		}
		q.Matrix = append(q.Matrix, l)
		for x := range grammar.Paths(&grammar.Property{Matrix: []*grammar.Literal{l}}) {
			used[x.Var] = true
		}
	}
	// An iterator needs the variable its domain starts from.
	for i := len(p.Quants) - 1; i >= 0; i-- {
		if d := p.Quants[i].Domain; d != nil && used[p.Quants[i].Vars[0]] {
			used[d.Var] = true
		}
	}
	for _, qu := range p.Quants {
		vars := slices.DeleteFunc(slices.Clone(qu.Vars), func(v string) bool { return !used[v] })
		if len(vars) > 0 {
			q.Quants = append(q.Quants, &grammar.Quantifier{Kind: qu.Kind, Vars: vars, Domain: qu.Domain})
		}
	}
	return q
}

// symmetricText returns the smallest canonical text of p over the orders
// of the variables of each node quantifier: distinct node variables are
// interchangeable, so properties that differ only in their naming are
// the same property.
func symmetricText(p *grammar.Property) string {
	best := ""
	var try func(i int)
	try = func(i int) {
		if i == len(p.Quants) {
			if t := p.Text(); best == "" || t < best {
				best = t
			}
			return
		}
		q := p.Quants[i]
		if q.Domain != nil || len(q.Vars) < 2 {
			try(i + 1)
			return
		}
		orig := q.Vars
		for _, perm := range permutations(orig) {
			q.Vars = perm
			try(i + 1)
		}
		q.Vars = orig
	}
	q := &grammar.Property{Matrix: p.Matrix}
	for _, qu := range p.Quants {
		c := *qu
		q.Quants = append(q.Quants, &c)
	}
	p = q
	try(0)
	return best
}

// permutations returns every order of vs; vs has at most a few elements.
func permutations(vs []string) [][]string {
	if len(vs) <= 1 {
		return [][]string{slices.Clone(vs)}
	}
	var out [][]string
	for i, v := range vs {
		rest := append(slices.Clone(vs[:i]), vs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{v}, p...))
		}
	}
	return out
}
