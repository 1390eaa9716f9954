package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/filter"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/reporter"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
	"github.com/augur-dev/augur/trace"
)

// Options configure [Learn]. The zero value learns the invariants with
// the fast evaluator on every CPU, at DefaultMinSupport.
type Options struct {
	Evaluator evaluator.Kind
	Workers   int // goroutines evaluating snapshots; 0: the number of CPUs

	// MinSupport is the least share of each run's snapshots at which a
	// property must be non-vacuous (have a binding) to be learned; 0
	// means DefaultMinSupport. A property vacuous through most of a run
	// was tested on few of its states.
	MinSupport float64

	// Almost, if positive, also learns the almost-invariants: the
	// properties violated in at most this share of each run's
	// non-vacuous snapshots (and in some snapshot of some run).
	Almost float64

	// Iterate names containers of the spec whose elements the pool also
	// quantifies over, besides those of its generate.iterate: the spec is
	// the reporter's too, whose ranks a larger pool would move, while a
	// guard may want what only an iterator says (that two acceptors'
	// votes agree). The checks file names the spec unchanged.
	Iterate []string

	// Progress, if set, is told how far evaluation is.
	Progress pipeline.Progress
}

// DefaultMinSupport is the least share of a run's snapshots at which a
// learned property is non-vacuous, unless Options.MinSupport says
// otherwise.
const DefaultMinSupport = 0.1

// Result is what Learn learned.
type Result struct {
	Spec   *specs.Spec
	Runs   []string // the traces learned from, in order
	Checks []*Check // invariants first, simplest first, then the almost-invariants

	// What was generated and dropped on the way, in order.
	Generated int // properties of the pool
	Held      int // held in every run with enough support
	BySpec    int // of those, true by the spec alone
	Implied   int // implied by a kept simpler one, or or-effects
	Grouped   int // almost-invariants failing at a kept one's moments
}

// Check is a learned property and its provenance.
type Check struct {
	Property *grammar.Property // canonical
	Text, ID string
	// Almost is set for an almost-invariant, violated in some run.
	Almost bool
	// Support is the least share, over the runs, of a run's snapshots at
	// which the property was non-vacuous.
	Support float64
	// HoldingRate is its least holding rate over the runs; Violating the
	// greatest share of a run's non-vacuous snapshots violating it.
	HoldingRate, Violating float64
}

// provenance is what the runs so far say of a property.
type provenance struct {
	support, rate, violating float64
}

// Learn learns the checks of the spec at specPath from the runs at
// traces, believed good. See the package documentation for the rules.
func Learn(ctx context.Context, specPath string, traces []string, o Options) (*Result, error) {
	if len(traces) == 0 {
		return nil, errors.New("learn: no run to learn from")
	}
	if o.MinSupport == 0 {
		o.MinSupport = DefaultMinSupport
	}
	if !(o.MinSupport > 0 && o.MinSupport <= 1 && o.Almost >= 0 && o.Almost < 1) { // NaN too
		return nil, fmt.Errorf("learn: the least support (%g) is a share in (0, 1] and the almost-invariants' violating share (%g) one in [0, 1)", o.MinSupport, o.Almost)
	}
	p, err := pipeline.OpenIterating(ctx, specPath, traces[0], o.Iterate)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	l := &learner{p: p, o: o}
	if err := l.selectHeld(ctx, traces); err != nil {
		return nil, err
	}
	r := &Result{Spec: p.Spec, Runs: traces, Generated: p.Generated, Held: len(l.props)}
	trivial, err := TrueBySpec(p.Spec, p.Constants, l.props)
	if err != nil {
		return nil, err
	}
	l.keep(func(i int) bool { return !trivial[i] })
	r.BySpec = r.Held - len(l.props)
	if len(l.props) == 0 {
		return r, nil
	}
	rep, err := l.minimize(ctx, traces)
	if err != nil {
		return nil, err
	}
	r.Implied, r.Grouped = rep.Candidates.OrEffect, rep.Candidates.Grouped+rep.Candidates.Equivalent
	prov := make(map[string]provenance, len(l.props))
	for i, pr := range l.props {
		prov[pr.Text()] = l.prov[i]
	}
	for _, es := range [][]*reporter.Entry{rep.Invariants, rep.AlmostInvariants} {
		for _, e := range es {
			pv := prov[e.Text]
			r.Checks = append(r.Checks, &Check{Property: e.Property(), Text: e.Text, ID: e.ID, Almost: e.Violations > 0,
				Support: pv.support, HoldingRate: pv.rate, Violating: pv.violating})
		}
	}
	return r, nil
}

// learner holds the properties still kept, and what the runs say of
// each, in the order of the pool.
type learner struct {
	p     *pipeline.Pipeline
	o     Options
	props []*grammar.Property
	prov  []provenance
}

// keep keeps the properties at the indices for which ok holds.
func (l *learner) keep(ok func(i int) bool) {
	n := 0
	for i := range l.props {
		if ok(i) {
			l.props[n], l.prov[n] = l.props[i], l.prov[i]
			n++
		}
	}
	l.props, l.prov = l.props[:n], l.prov[:n]
}

// selectHeld evaluates the pool over each run in turn, only what the
// runs before it kept, and keeps what holds there with enough support.
func (l *learner) selectHeld(ctx context.Context, traces []string) error {
	prog := l.p.Program
	l.props = make([]*grammar.Property, len(prog.Props))
	l.prov = make([]provenance, len(prog.Props))
	for i, pr := range prog.Props {
		l.props[i] = pr.Property
		l.prov[i] = provenance{support: 1, rate: 1}
	}
	// Pruning is exact for invariants: a property violated once is out
	// for good. An almost-invariant is pruned below the spec's hold ratio
	// at the latest, as augur infer prunes it.
	ratio := 1.0
	if l.o.Almost > 0 {
		ratio = min(1-l.o.Almost, l.p.Spec.Filter.HoldRatio)
	}
	for k, path := range traces {
		if k > 0 {
			var err error
			if prog, err = evaluator.Compile(l.p.Spec, l.props); err != nil {
				return err
			}
		}
		opts := l.evalOptions()
		opts.Pruner = &filter.Filter{HoldRatio: ratio, Interval: l.p.Spec.Filter.Every}
		res, err := l.run(ctx, path, prog, opts, fmt.Sprintf("run %d of %d: evaluating %d properties", k+1, len(traces), len(prog.Props)))
		if err != nil {
			return err
		}
		for i := range l.props {
			st := &res.Stats[i]
			pv := &l.prov[i]
			if st.Pruned || res.Snapshots == 0 {
				pv.support = 0
				continue
			}
			pv.support = min(pv.support, float64(st.Support)/float64(res.Snapshots))
			pv.rate = min(pv.rate, evaluator.RoundRate(st.HoldingRate()))
			if st.Support > 0 {
				pv.violating = max(pv.violating, float64(st.ViolatingSnapshots)/float64(st.Support))
			}
		}
		l.keep(func(i int) bool {
			pv := l.prov[i]
			return pv.support >= l.o.MinSupport && (pv.violating == 0 || pv.violating <= l.o.Almost)
		})
		if len(l.props) == 0 {
			break
		}
	}
	return nil
}

// minimize evaluates the kept properties over every run again, with the
// literal patterns the or-effect tests read and every violating moment
// of the almost-invariants, and builds the reporter's report of the
// stats merged: its invariants and the representatives of its anomalies
// are the minimized checks.
func (l *learner) minimize(ctx context.Context, traces []string) (*reporter.Report, error) {
	prog, err := evaluator.Compile(l.p.Spec, l.props)
	if err != nil {
		return nil, err
	}
	maxMoments := reporter.DefaultThresholds.FullMoments
	merged := &evaluator.Result{Stats: make([]evaluator.Stats, len(prog.Props)), Patterns: true, Tags: map[string]int64{}}
	for k, path := range traces {
		opts := l.evalOptions()
		opts.NoPatterns, opts.MaxMoments = false, maxMoments
		res, err := l.run(ctx, path, prog, opts, fmt.Sprintf("run %d of %d: counting the patterns of %d properties", k+1, len(traces), len(prog.Props)))
		if err != nil {
			return nil, err
		}
		// The runs' snapshot IDs overlap: each run's moments move to a
		// range of their own, so that grouping compares moments of one
		// run only.
		offset := uint64(k) << 40
		for i := range merged.Stats {
			st := res.Stats[i]
			for j := range st.Moments {
				st.Moments[j] += offset
			}
			merged.Stats[i].Merge(&st, 0, len(traces)*maxMoments)
		}
		merged.Snapshots += res.Snapshots
		for tag, n := range res.Tags {
			merged.Tags[tag] += n
		}
	}
	ropts := reporter.Options{
		HoldRatio:  1,
		MinSupport: reporter.AnySupport, // each run's support is checked above
		Alpha:      l.p.Spec.Report.Alpha,
		Size:       reporter.AllEntries,
		All:        true,
	}
	if l.o.Almost > 0 {
		// Every property left holds as Almost asks in every run.
		ropts.HoldRatio = reporter.AnyRate
	}
	return reporter.Build(reporter.Input{System: l.p.Spec.System, Generated: l.p.Generated, Program: prog, Result: merged}, ropts)
}

// evalOptions returns the evaluator options of every pass: no witnesses,
// no patterns, unless a pass asks for them.
func (l *learner) evalOptions() evaluator.Options {
	return evaluator.Options{Kind: l.o.Evaluator, Workers: l.o.Workers, NoPatterns: true, MaxWitnesses: evaluator.NoWitnesses, MaxMoments: 1}
}

// run evaluates prog over the run at path, which the spec must fit,
// telling progress how far it is under the label what.
func (l *learner) run(ctx context.Context, path string, prog *evaluator.Program, opts evaluator.Options, what string) (*evaluator.Result, error) {
	tr, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	if err := spectrace.Check(l.p.Spec, tr.Schema); err != nil {
		return nil, fmt.Errorf("spec does not fit trace %s: %w", path, err)
	}
	if pr := l.o.Progress; pr != nil {
		pr.Start(what, tr.NumSnapshots())
		defer pr.Stop()
		opts.Progress = pr.Update
	}
	return evaluator.Run(ctx, tr, prog, opts)
}

// File returns the checks as a checks file to be written at out, naming
// the spec at specPath (SpecPath), each check's source its provenance.
func (r *Result) File(specPath, out string) *checker.File {
	f := &checker.File{Spec: SpecPath(specPath, out)}
	for _, c := range r.Checks {
		f.Checks = append(f.Checks, checker.Check{Name: c.ID, Property: c.Text, HoldingRate: c.HoldingRate, Source: c.source(len(r.Runs))})
	}
	return f
}

// SpecPath returns how a checks file written at out names the spec at
// spec: relative to out's directory, or as given when it cannot be.
func SpecPath(spec, out string) string {
	abs, err := filepath.Abs(spec)
	if err != nil {
		return spec
	}
	dir, err := filepath.Abs(filepath.Dir(out))
	if err != nil {
		return spec
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return spec
	}
	return filepath.ToSlash(rel)
}

// source says where c comes from: the runs, its least support and how
// often it was violated.
func (c *Check) source(runs int) string {
	kind := "invariant"
	if c.Almost {
		kind = fmt.Sprintf("almost-invariant, violated in at most %.2g%% of a run's non-vacuous snapshots", 100*c.Violating)
	}
	return fmt.Sprintf("learned from %d runs: %s, non-vacuous in at least %s of each run's snapshots", runs, kind, percent(c.Support))
}

// percent renders a share as a percentage, rounded down so that "at
// least" stays true.
func percent(share float64) string {
	return fmt.Sprintf("%g%%", math.Floor(1000*share)/10)
}

// Drop removes the checks named in names, and returns how many it
// removed.
func (r *Result) Drop(names map[string]bool) int {
	n := len(r.Checks)
	r.Checks = slices.DeleteFunc(r.Checks, func(c *Check) bool { return names[c.ID] })
	return n - len(r.Checks)
}
