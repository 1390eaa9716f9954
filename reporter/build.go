package reporter

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"gonum.org/v1/gonum/stat/distuv"
)

// Version is the version of the JSON report. Version 2: an entry's
// warnings are {code, message} objects, as the report's are.
const Version = 2

// Options are the settings of the reporter a spec chooses. A zero field
// takes its default, a spec's (DefaultOptions); none is an explicit value
// (AnyRate, AnySupport, AllEntries).
type Options struct {
	HoldRatio  float64 // least holding rate of an almost-invariant; AnyRate for none
	MinSupport int64   // least number of non-vacuous snapshots; AnySupport for none
	Alpha      float64 // significance level of the or-effect tests, in (0, 1)
	Size       int     // entries per list; AllEntries for all
	// All lists every anomaly, also those violated through so large a
	// share of the run that they do not stand out (temporal rate below
	// HoldRatio), grouped as they are otherwise.
	All bool
	// SteadyTag is the tag of the snapshots in steady state (no message
	// in flight). When set, anomalies seen there rank before those seen
	// only in transients. Every entry counts its steady violating
	// snapshots either way, by SteadyTag or else by "steady" when the
	// trace has such snapshots. It is not on by default: an anomaly
	// violated at one steady snapshot would outrank every transient one,
	// however rare, and what a trace tags steady varies (the toy run's
	// bug fell from rank 3 to 116 of 188 that way).
	SteadyTag string

	Thresholds Thresholds // zero fields take DefaultThresholds
}

// DefaultOptions are the options of a spec that sets none: the zero
// fields of Options take these.
var DefaultOptions = Options{HoldRatio: 0.95, MinSupport: 30, Alpha: 0.01, Size: 10}

// The explicit "none" values of Options' fields.
const (
	AnyRate    = -1 // HoldRatio: no least holding rate
	AnySupport = -1 // MinSupport: no least support
	AllEntries = -1 // Size: every entry, uncut
)

// withDefaults returns o with each zero field set to its default.
func (o Options) withDefaults() Options {
	d := DefaultOptions
	o.HoldRatio = cmp.Or(o.HoldRatio, d.HoldRatio)
	o.MinSupport = cmp.Or(o.MinSupport, d.MinSupport)
	o.Alpha = cmp.Or(o.Alpha, d.Alpha)
	o.Size = cmp.Or(o.Size, d.Size)
	return o
}

// OptionsFrom returns the options a spec asks for.
func OptionsFrom(s *specs.Spec) Options {
	return Options{
		HoldRatio:  s.Filter.HoldRatio,
		MinSupport: int64(s.Report.MinSupport),
		Alpha:      s.Report.Alpha,
		Size:       s.Report.Size,
		SteadyTag:  s.Report.SteadyTag,
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

	// Baseline, if set, evaluates props over runs believed good, the
	// traces BaselineTraces, and returns the stats of each property in
	// each run (by run, then by property), with its first violating
	// snapshots (Thresholds.FullMoments of them, or all): the
	// almost-invariants that fail there too are ranked after the others,
	// those failing far more often here first.
	Baseline       func(props []*grammar.Property) ([][]evaluator.Stats, error)
	BaselineTraces []string

	// Moments, if set, evaluates props again and returns the first max
	// violating snapshots of each, in order: the second pass for the
	// candidates whose violating snapshots the evaluator did not all keep,
	// so that anomalies are grouped by whole sets.
	Moments func(props []*grammar.Property, max int) ([][]uint64, error)

	// Broken, if set, is the evaluation over this run of the invariants
	// of the baseline (never violated there, enough support): those that
	// fail here form the report's section of broken invariants, whatever
	// their violation rate. Its stats keep full moments.
	Broken *Evaluation

	// Start, if not nil, is the id of the run's first snapshot: an
	// anomaly whose one episode begins there fails only while the run
	// starts up (Entry.StartUp).
	Start *uint64

	// Explain lists properties of Program, by index, whose fate Build
	// records in Report.Fates, in order: what augur explain tells.
	Explain []int
}

// An Evaluation is a compiled set of properties and its stats over a
// trace.
type Evaluation struct {
	Program *evaluator.Program
	Result  *evaluator.Result
}

// Report is a ranked report. Its JSON form is stable: fields are added,
// never renamed, within a Version.
type Report struct {
	Version  int    `json:"version"`
	System   string `json:"system"`
	Spec     string `json:"spec,omitempty"`
	Trace    string `json:"trace,omitempty"`
	Baseline string `json:"baseline,omitempty"` // trace of a run believed good, the first of Baselines
	// Baselines are the traces of the runs believed good when there are
	// more than one: a property fails there when it fails in any.
	Baselines        []string   `json:"baselines,omitempty"`
	SteadyTag        string     `json:"steady_tag,omitempty"`
	Snapshots        int        `json:"snapshots"`
	Properties       Counts     `json:"properties"`
	Candidates       Candidates `json:"candidates"`
	AlmostInvariants []*Entry   `json:"almost_invariants"`
	Invariants       []*Entry   `json:"invariants"`
	// RareValues are the anomalies whose property states only that a
	// value is rare (Entry.RareValue), such as n0.state != "candidate":
	// every protocol passes through states it seldom takes, a candidate,
	// a leaving node, an empty log, and no bug need break such a
	// property, while a bug breaks a relation, between two variables or
	// one variable of two nodes. They are listed apart, ranked as the
	// almost-invariants are, after them.
	RareValues []*Entry `json:"rare_values"`
	// BrokenInvariants are the invariants of the baseline that this run
	// breaks, simplest first, whatever their violation rate: a bug whose
	// damage lasts breaks an invariant at most snapshots and is never
	// rare. Present only with a baseline.
	BrokenInvariants []*Entry `json:"broken_invariants,omitempty"`
	// Warnings are what a reader of the report must know that is not an
	// entry, such as a derived variable that failed at run time (the
	// properties over it are still reported, over null): codes
	// "derived-failed", "predicate-failed", "derived-always-failed",
	// "predicate-always-failed" and, from the pipeline, "class-capped".
	Warnings []diag.Warning `json:"warnings,omitempty"`

	// Fates are the fates of Input.Explain's properties, in order.
	Fates []*Fate `json:"-"`

	// Timeline, if set, is drawn by the HTML report.
	Timeline *Timeline `json:"-"`
}

// failureWarnings turns the expression failures of a run into warnings.
func failureWarnings(fs []evaluator.ExprFailures) []diag.Warning {
	var ws []diag.Warning
	for _, f := range fs {
		ws = append(ws, diag.Warning{Code: diag.Code(f.Code()), Msg: f.Warning()})
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
	OrEffect         int `json:"or_effect"`   // dropped as or-effects
	Equivalent       int `json:"equivalent"`  // folded into an equivalence set
	Anomalies        int `json:"anomalies"`   // groups of almost-invariants failing at the same moments
	Grouped          int `json:"grouped"`     // almost-invariants listed under a simpler one of their anomaly
	InBaseline       int `json:"in_baseline"` // almost-invariants standing out that fail in the baseline too
	// MoreThanBaseline counts those of InBaseline that fail far more
	// often here (Entry.MoreThanBaseline): they rank first of them, but
	// for those listed with a refinement (ListedWith).
	MoreThanBaseline int `json:"more_than_baseline"`
	// ListedWith counts those of MoreThanBaseline listed with a
	// refinement that does not fail there (Entry.ListedWith), among the
	// entries that do not.
	ListedWith int `json:"listed_with,omitempty"`
	// During counts the anomalies listed after the others because they
	// fail during the episodes of another (Entry.During).
	During int `json:"during,omitempty"`
	// StartUp counts the anomalies listed after the others because they
	// fail only while the run starts up (Entry.StartUp).
	StartUp int `json:"start_up,omitempty"`
	// RareValues counts the anomalies whose property states only that a
	// value is rare (Entry.RareValue), those not standing out included;
	// AlmostInvariants counts the others.
	RareValues int `json:"rare_values,omitempty"`
	// Listed and ListedRareValues count the entries of the two lists
	// before they are cut to Options.Size: the anomalies that stand out
	// (all of them with Options.All), which --top as large lists.
	Listed           int `json:"listed"`
	ListedRareValues int `json:"listed_rare_values,omitempty"`
	// NotStandingOut counts the anomalies left out of the report because
	// they were violated through a large share of the run: their
	// temporal rate is below the hold ratio.
	NotStandingOut int `json:"not_standing_out"`
	// BrokenInvariants counts the invariants of the baseline that this
	// run breaks, in BrokenAnomalies groups failing at the same moments.
	BrokenInvariants int `json:"broken_invariants,omitempty"`
	BrokenAnomalies  int `json:"broken_anomalies,omitempty"`
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
	// SteadyViolatingSnapshots counts the violating snapshots in steady
	// state (Report.SteadyTag; all of them when there is no steady tag).
	SteadyViolatingSnapshots int64 `json:"steady_violating_snapshots"`
	// ViolatingEpisodes counts the runs of consecutive violating snapshots
	// (by snapshot id): one lasting violation is one episode.
	ViolatingEpisodes int64 `json:"violating_episodes"`
	// ViolationEvents counts the violation episodes, an episode lasting
	// longer than Thresholds.EpisodeSpan snapshots counting one per span
	// begun: the events that rank the anomalies and decide whether they
	// stand out.
	ViolationEvents int64 `json:"violation_events"`
	// Score ranks the almost-invariants: a lower confidence bound on the
	// share of non-vacuous snapshots where no violation event begins.
	Score float64 `json:"score"`
	// Equivalents fail at the same snapshots, as often: folded into this
	// one, the simplest.
	Equivalents []string `json:"equivalents"`
	// AlsoFailsHere lists the other properties of this one's anomaly: they
	// fail at (almost) only this one's moments, and are weaker or longer.
	AlsoFailsHere []string `json:"also_fails_here"`
	// ExplainedBy lists the longer properties whose other literals hold
	// where this one fails, far beyond chance: its violations may be
	// expected.
	ExplainedBy []string `json:"explained_by,omitempty"`
	// During is the text of the anomaly listed above this one, at most as
	// complex, near whose episodes this one's lie, and whose episodes lie
	// near this one's, far more often than chance: this one ranks after
	// the anomalies that fail at moments of their own.
	During string `json:"during,omitempty"`
	// StartUp says that the property fails in one episode, from the
	// run's first snapshot (Input.Start): in the states the system
	// started in, set up before it ran, and never once it had moved on.
	// Such entries are listed after the others.
	StartUp bool `json:"start_up,omitempty"`
	// RareValue says that the property states only that a value is rare:
	// one variable against a constant, or one variable alone, such as
	// n0.state != "candidate" or not empty(n0.log). Such entries are
	// listed in Report.RareValues.
	RareValue bool `json:"rare_value,omitempty"`
	// Refines is the text of a simpler property of which this one is a
	// syntactic weakening (this one = it or R), kept because R explains
	// its violations, and which ranked below this one: this one fails
	// only where it does, and it is listed just before this one.
	Refines string `json:"refines,omitempty"`
	// RefinedBy is, for the simpler property of such a pair, the text of
	// the refinement listed just after it: this one was moved up above
	// its own score to be listed there.
	RefinedBy string `json:"refined_by,omitempty"`
	// BaselineViolatingSnapshots counts the snapshots of the baseline
	// where the property fails, and BaselineViolationEvents its
	// violation events there (as ViolationEvents counts them here).
	BaselineViolatingSnapshots int64 `json:"baseline_violating_snapshots,omitempty"`
	BaselineViolationEvents    int64 `json:"baseline_violation_events,omitempty"`
	// BaselineSupport counts the property's non-vacuous snapshots in the
	// baseline, over all its runs: the rate there, beside Support here,
	// that MoreThanBaseline compares.
	BaselineSupport int64 `json:"baseline_support,omitempty"`
	// MoreThanBaseline says that the property fails in the baseline too
	// but far more often here (Thresholds.BaselineLevel): it ranks after
	// the properties that do not fail there, and before the others that
	// do, unless it is listed with a refinement (ListedWith).
	MoreThanBaseline bool `json:"more_than_baseline,omitempty"`
	// ListedWith is, for one of those, the text of a refinement of it
	// (this one or R) that never fails in the baseline, with which it is
	// listed among the entries that do not fail there: just before it,
	// after any others listed with it (unseenRefinements).
	ListedWith string              `json:"listed_with,omitempty"`
	Witnesses  []evaluator.Witness `json:"witnesses"` // first violating snapshots; built for the entries of the lists and fates only
	// Warnings are caveats about this entry, such as an or-effect that
	// could not be tested (WarnOrEffectUntested).
	Warnings []diag.Warning `json:"warnings,omitempty"`

	prop    *evaluator.Prop
	stats   *evaluator.Stats
	sym     string // text up to the order of node variables (symText), once asked
	drop    bool
	orTests []OrEffectTest // the or-effect tests made of it
}

// Build builds the report. It fails only when in.Baseline or in.Moments
// does.
func Build(in Input, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	th := opts.Thresholds.withDefaults()
	res := in.Result
	r := &Report{
		Version:   Version,
		System:    in.System,
		Spec:      in.Spec,
		Trace:     in.Trace,
		SteadyTag: steadyTag(opts.SteadyTag, res.Tags),
		Snapshots: res.Snapshots,
		Properties: Counts{
			Generated: in.Generated,
			Evaluated: len(in.Program.Props),
			Pruned:    res.Pruned,
		},
		AlmostInvariants: []*Entry{},
		Invariants:       []*Entry{},
		RareValues:       []*Entry{},
		Warnings:         failureWarnings(res.Failures),
	}
	if len(in.BaselineTraces) > 0 {
		r.Baseline = in.BaselineTraces[0]
	}
	if len(in.BaselineTraces) > 1 {
		r.Baselines = in.BaselineTraces
	}
	trail := newTrail(in.Program, in.Explain)
	var cands []*Entry
	for i, p := range in.Program.Props {
		st := &res.Stats[i]
		if !IsCandidate(st, opts.HoldRatio, opts.MinSupport) {
			if _, asked := trail.byProp[i]; asked { // worded for augur explain only
				trail.notCandidate(i, p, st, NotCandidate(st, opts.HoldRatio, opts.MinSupport))
			}
			continue
		}
		e := newEntry(p, st, r.SteadyTag, th)
		trail.candidate(i, e)
		cands = append(cands, e)
	}
	sortByRate(cands)
	r.Candidates.OrEffect = orEffect(cands, opts.Alpha, th.MinOddsRatio, opts.HoldRatio)
	var almost []*Entry
	for _, e := range cands {
		switch {
		case e.drop:
		case e.Violations > 0:
			almost = append(almost, e)
		default:
			r.Invariants = append(r.Invariants, e)
		}
	}
	moments, err := fullMoments(almost, in.Moments, th.FullMoments)
	if err != nil {
		return nil, err
	}
	setsLast(r.Invariants)
	z := rankQuantiles(in.Program, th.RankLevel)
	for _, e := range r.Invariants {
		e.Score = roundRate(score(e.Support, 0, z(e.prop.Property)), th.RatePrecision)
	}
	anomalies := anomaliesOf(almost, moments, th, z, opts.HoldRatio)
	r.Candidates.Anomalies = len(anomalies)
	for _, a := range anomalies {
		r.Candidates.Equivalent += a.fold(moments)
		r.Candidates.Grouped += len(a.rep.AlsoFailsHere)
		r.AlmostInvariants = append(r.AlmostInvariants, a.rep)
		trail.anomaly(a, moments)
	}
	slices.SortStableFunc(r.AlmostInvariants, byScore)
	r.Candidates.RareValues = markRareValues(r.AlmostInvariants)
	duringLast(r.AlmostInvariants, moments, res.Snapshots, th.Grouping, opts.HoldRatio, th.DuringLevel)
	if in.Start != nil {
		startUpLast(r.AlmostInvariants, moments, *in.Start)
	}
	var tier map[string]int
	if in.Baseline != nil {
		if tier, err = baselineTiers(r.AlmostInvariants, in.Baseline, th); err != nil {
			return nil, err
		}
	}
	refinedFirst(r.AlmostInvariants, opts.HoldRatio, tier)
	if opts.SteadyTag != "" {
		steadyFirst(r.AlmostInvariants)
	}
	r.Candidates.AlmostInvariants = len(r.AlmostInvariants) - r.Candidates.RareValues
	if in.Baseline != nil {
		baselineLast(r.AlmostInvariants, tier, opts.HoldRatio)
	}
	refinesAdjacent(r.AlmostInvariants)
	trail.ranked(r.AlmostInvariants) // as --all ranks them
	if !opts.All {
		r.AlmostInvariants, r.Candidates.NotStandingOut = listed(r.AlmostInvariants, opts.HoldRatio)
	}
	for _, e := range r.AlmostInvariants {
		if e.During != "" {
			r.Candidates.During++
		}
		if e.StartUp {
			r.Candidates.StartUp++
		}
	}
	r.AlmostInvariants, r.RareValues = splitRareValues(r.AlmostInvariants)
	r.Candidates.Listed, r.Candidates.ListedRareValues = len(r.AlmostInvariants), len(r.RareValues)
	for _, e := range r.AlmostInvariants { // the rare values apart, as the line beside the list says
		if e.BaselineViolatingSnapshots > 0 {
			r.Candidates.InBaseline++
		}
		if e.MoreThanBaseline {
			r.Candidates.MoreThanBaseline++
		}
		if e.ListedWith != "" {
			r.Candidates.ListedWith++
		}
	}
	var broken []*anomaly
	if in.Broken != nil {
		broken, r.BrokenInvariants = brokenInvariants(in.Broken, opts, th, z, &r.Candidates)
	}
	r.Candidates.Invariants = len(r.Invariants)
	trail.places(r.AlmostInvariants, r.RareValues)
	r.AlmostInvariants = cut(r.AlmostInvariants, opts.Size)
	r.RareValues = cut(r.RareValues, opts.Size)
	r.Invariants = cut(r.Invariants, opts.Size)
	r.BrokenInvariants = cut(r.BrokenInvariants, opts.Size)
	trail.broken(broken, r.BrokenInvariants)
	r.Fates = trail.fates(r, opts)
	showWitnesses(r)
	return r, nil
}

// showWitnesses builds the witnesses of the entries r shows: those of its
// lists and its fates. The others, most of the candidates, never need
// theirs built (evaluator.Stats.Witnesses).
func showWitnesses(r *Report) {
	for _, es := range [][]*Entry{r.AlmostInvariants, r.RareValues, r.Invariants, r.BrokenInvariants} {
		for _, e := range es {
			e.buildWitnesses()
		}
	}
	for _, f := range r.Fates {
		for _, e := range []*Entry{f.Entry, f.Anomaly, f.Broken, f.BrokenRep} {
			e.buildWitnesses()
		}
	}
}

// buildWitnesses builds the witnesses of e, if not yet built, from its
// stats. e may be nil.
func (e *Entry) buildWitnesses() {
	if e == nil || e.stats == nil || len(e.Witnesses) > 0 {
		return
	}
	if ws := e.stats.Witnesses(); ws != nil {
		e.Witnesses = ws
	}
}

// NotCandidate says why a property with stats st is not a candidate of a
// report with the given hold ratio and least support, or returns "" when
// it is one: pruned by the filter, too little support, or a holding rate
// below the hold ratio. It is the one rule of candidacy: the filter, the
// pipeline's extra passes and the reporter all ask it.
func NotCandidate(st *evaluator.Stats, holdRatio float64, minSupport int64) string {
	switch {
	case IsCandidate(st, holdRatio, minSupport):
		return ""
	case st.Pruned:
		return fmt.Sprintf("pruned by the filter after %d snapshots, at holding rate %.5f, below the hold ratio %g", st.PrunedAfter, st.HoldingRate(), holdRatio)
	case st.Support < minSupport:
		return fmt.Sprintf("support %d: non-vacuous in fewer than min_support = %d snapshots", st.Support, minSupport)
	default:
		return fmt.Sprintf("holding rate %.5f below the hold ratio %g", st.HoldingRate(), holdRatio)
	}
}

// IsCandidate reports whether a property with stats st is a candidate
// (NotCandidate returns ""), without wording why not: most of a pool is
// not, and the reporter asks for every property.
func IsCandidate(st *evaluator.Stats, holdRatio float64, minSupport int64) bool {
	return !st.Pruned && st.Support >= minSupport && st.HoldsAtLeast(holdRatio)
}

// anomaliesOf counts the violation events of the almost-invariants es,
// scores them and groups them into anomalies, keeping those that stand
// out at holdRatio out of those that do not (groupAnomalies).
func anomaliesOf(es []*Entry, moments map[*Entry][]uint64, th Thresholds, z func(*grammar.Property) float64, holdRatio float64) []*anomaly {
	for _, e := range es {
		e.ViolatingEpisodes = episodes(moments[e], e.ViolatingSnapshots)
		e.ViolationEvents = events(moments[e], e.ViolatingSnapshots, th.span(e.Support))
		e.Score = roundRate(score(e.Support, e.ViolationEvents, z(e.prop.Property)), th.RatePrecision)
	}
	return groupAnomalies(es, func(e *Entry) []uint64 { return moments[e] }, th.Grouping, holdRatio)
}

// brokenInvariants returns the invariants of the baseline that ev, their
// evaluation over this run, shows broken here with enough support, in
// groups failing at the same moments, and their representatives in
// brokenOrder. It counts them in c.
func brokenInvariants(ev *Evaluation, opts Options, th Thresholds, z func(*grammar.Property) float64, c *Candidates) ([]*anomaly, []*Entry) {
	var es []*Entry
	moments := map[*Entry][]uint64{}
	for i, p := range ev.Program.Props {
		st := &ev.Result.Stats[i]
		if st.Violations == 0 || st.Support < opts.MinSupport {
			continue
		}
		e := newEntry(p, st, steadyTag(opts.SteadyTag, ev.Result.Tags), th)
		moments[e] = st.Moments
		es = append(es, e)
	}
	c.BrokenInvariants = len(es)
	as := anomaliesOf(es, moments, th, z, 0) // listed whatever their rate
	c.BrokenAnomalies = len(as)
	out := make([]*Entry, len(as))
	for i, a := range as {
		a.fold(moments)
		out[i] = a.rep
	}
	brokenOrder(out)
	return as, out
}

// brokenOrder orders the representatives of broken invariants simplest
// first, whatever their violation rate: relations before rare values
// (rareValue: one variable against a constant relates nothing, as the
// almost-invariants list them apart); then fewer node variables and
// iterators; then fewer distinct variables read, before fewer literals
// (reads): "no two primaries in one epoch", two variables in three
// literals, is simpler to a person than a two-literal relation of three
// counters, and a bug's lasting damage breaks many of those; then fewer
// literals and per-literal node links; then fewer relations (literals
// comparing two variables, not one against a constant): "no two
// primaries in one epoch" relates once, in n0.epoch != n1.epoch, where a
// lasting bug's three-literal relations of two counters relate three
// times; then the most violating snapshots first (the damage that lasts
// longest), then by text.
func brokenOrder(es []*Entry) {
	type simplicity struct {
		rare bool
		shape
		vars, links, relations int
	}
	simple := make(map[*Entry]simplicity, len(es))
	for _, e := range es {
		p := e.prop.Property
		v, l := reads(p)
		simple[e] = simplicity{rareValue(p), shapeOf(p), v, l, relations(p)}
	}
	slices.SortStableFunc(es, func(a, b *Entry) int {
		sa, sb := simple[a], simple[b]
		return cmp.Or(
			cmp.Compare(b2i(sa.rare), b2i(sb.rare)),
			cmp.Compare(sa.nodes, sb.nodes),
			cmp.Compare(sa.iters, sb.iters),
			cmp.Compare(sa.vars, sb.vars),
			cmp.Compare(sa.literals, sb.literals),
			cmp.Compare(sa.links, sb.links),
			cmp.Compare(sa.relations, sb.relations),
			-cmp.Compare(a.ViolatingSnapshots, b.ViolatingSnapshots),
			cmp.Compare(a.Text, b.Text),
		)
	})
}

// Property returns the reported property.
func (e *Entry) Property() *grammar.Property { return e.prop.Property }

func newEntry(p *evaluator.Prop, st *evaluator.Stats, steadyTag string, th Thresholds) *Entry {
	tags := maps.Clone(st.Tags)
	if tags == nil {
		tags = map[string]int64{}
	}
	steady := st.ViolatingSnapshots
	if steadyTag != "" {
		steady = tags[steadyTag]
	}
	return &Entry{
		ID:                       p.ID,
		Text:                     p.Text,
		HoldingRate:              roundRate(st.HoldingRate(), th.RatePrecision),
		TemporalRate:             st.TemporalRate(),
		Violations:               st.Violations,
		Bindings:                 st.Bindings,
		Support:                  st.Support,
		ViolatingSnapshots:       st.ViolatingSnapshots,
		ViolatingTags:            tags,
		SteadyViolatingSnapshots: steady,
		Equivalents:              []string{},
		AlsoFailsHere:            []string{},
		Witnesses:                []evaluator.Witness{}, // built if shown (showWitnesses)
		Warnings:                 entryWarnings(p),
		prop:                     p,
		stats:                    st,
	}
}

// rankQuantiles returns, for a property, the standard-normal quantile of
// the confidence bound that ranks it (score): at level, Bonferroni-
// corrected for the number of properties of its shape in prog's pool.
func rankQuantiles(prog *evaluator.Program, level float64) func(*grammar.Property) float64 {
	count := map[shape]int{}
	for _, p := range prog.Props {
		count[shapeOf(p.Property)]++
	}
	z := map[shape]float64{}
	for sh, n := range count {
		z[sh] = distuv.UnitNormal.Quantile(1 - level/float64(n))
	}
	return func(p *grammar.Property) float64 {
		sh := shapeOf(p)
		if q, ok := z[sh]; ok {
			return q
		}
		return distuv.UnitNormal.Quantile(1 - level) // not of the pool: one property tried
	}
}

// roundRate rounds a rate to precision, so that the last bits of a sum
// of per-snapshot scores, each rounded to a multiple of 2^-64, change no
// comparison, rank or printed figure.
func roundRate(h, precision float64) float64 {
	scale := 1 / precision
	return math.Round(h*scale) / scale
}

// sortByRate orders candidates by holding rate, then simpler first:
// fewer literals, fewer quantified variables, then text. It is the order
// in which the or-effect test looks for sub-disjunctions. Each
// candidate's keys are worked out once, not at each comparison.
func sortByRate(cands []*Entry) {
	type keyed struct {
		e          *Entry
		lits, vars int
	}
	ks := make([]keyed, len(cands))
	for i, e := range cands {
		ks[i] = keyed{e, e.prop.Literals(), numVars(e.prop.Property)}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(
			-cmp.Compare(a.e.HoldingRate, b.e.HoldingRate),
			cmp.Compare(a.lits, b.lits),
			cmp.Compare(a.vars, b.vars),
			cmp.Compare(a.e.Text, b.e.Text),
		)
	})
	for i, k := range ks {
		cands[i] = k.e
	}
}

// setsLast moves the invariants that only say a variable is always set
// (set(n0.x)) after the others, keeping each group's order: one holds
// for every variable a trace never leaves null, and says more of the
// schema than of the protocol.
func setsLast(es []*Entry) {
	slices.SortStableFunc(es, func(a, b *Entry) int {
		return cmp.Compare(b2i(onlySet(a.prop.Property)), b2i(onlySet(b.prop.Property)))
	})
}

// onlySet reports whether p says only that a variable is set.
func onlySet(p *grammar.Property) bool {
	if len(p.Matrix) != 1 || p.Matrix[0].Neg {
		return false
	}
	_, ok := p.Matrix[0].Atom.(*grammar.IsSet)
	return ok
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

// baselineTiers counts where the almost-invariants es fail in the
// baseline and returns the tier of each, by text: 0 for what never fails
// there, 1 for what fails there too but far more often here
// (MoreThanBaseline), 2 for the rest. What fails in a run believed good
// as well is, most likely, how the system normally behaves (a transient
// of its protocol), not a bug; less likely when it fails here far more
// often: a bug may strike a dozen times a property that a protocol's
// transient breaks once in the good run. baselineLast lists the tiers in
// order, after refinedFirst has paired entries within each.
func baselineTiers(es []*Entry, baseline func([]*grammar.Property) ([][]evaluator.Stats, error), th Thresholds) (map[string]int, error) {
	props := make([]*grammar.Property, len(es))
	for i, e := range es {
		props[i] = e.prop.Property
	}
	runs, err := baseline(props)
	if err != nil {
		return nil, err
	}
	tier := make(map[string]int, len(es))
	for i, e := range es {
		// Several runs count as one of their total length: events are
		// counted in each, where its snapshots follow one another.
		var support int64
		for _, stats := range runs {
			st := &stats[i]
			support += st.Support
			e.BaselineViolatingSnapshots += st.ViolatingSnapshots
			if st.ViolatingSnapshots > 0 {
				e.BaselineViolationEvents += th.ViolationEvents(st)
			}
		}
		e.BaselineSupport = support
		if e.BaselineViolatingSnapshots > 0 {
			e.MoreThanBaseline = BaselinePValue(e.ViolationEvents, e.Support, e.BaselineViolationEvents, support) < th.BaselineLevel
			tier[e.Text] = 2 - b2i(e.MoreThanBaseline)
		}
	}
	return tier, nil
}

// baselineLast lists the entries es of each tier (baselineTiers) after
// those of the tiers before it, keeping each tier in rank order: those
// failing here far more often after what never fails there, since a
// bug's indirect effects (more elections, more retries) make transients
// more frequent too. One that fails here far more often is listed with
// its refinement when that one never fails there (unseenRefinements), as
// refinedFirst lists them within a tier. An anomaly listed during the
// episodes of one that moves after it is no longer said to be: its line
// would name an anomaly below it.
func baselineLast(es []*Entry, tier map[string]int, holdRatio float64) {
	with := unseenRefinements(es, tier, holdRatio)
	for q := range with {
		tier[q.Text] = 0
	}
	for _, e := range es {
		if e.During != "" && tier[e.During] > tier[e.Text] {
			e.During = ""
		}
	}
	slices.SortStableFunc(es, func(a, b *Entry) int {
		return cmp.Compare(tier[a.Text], tier[b.Text])
	})
	listWith(es, with)
}

// BaselinePValue is the p-value of the test that k violation events
// among n non-vacuous snapshots are far more than kb among nb, the
// baseline's (MoreThanBaseline when below Thresholds.BaselineLevel):
// were the two runs' rates the same, the probability that at least k of
// the k+kb events would fall in this run (the one-sided conditional
// binomial test of two Poisson rates). Only rates are compared, so runs
// of any lengths compare alike. It is 1 when there is nothing to test:
// no event here, or no snapshot on either side.
func BaselinePValue(k, n, kb, nb int64) float64 {
	if k == 0 || n <= 0 || nb <= 0 {
		return 1
	}
	b := distuv.Binomial{N: float64(k + kb), P: float64(n) / float64(n+nb)}
	return b.Survival(float64(k) - 1)
}
