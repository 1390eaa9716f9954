package pipeline

import (
	"context"
	"fmt"
	"math/bits"
	"path/filepath"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/filter"
	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/reporter"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// Options configure a run of the pipeline. The zero value evaluates with
// the fast evaluator on every CPU, with filtering, and reports as the spec
// says.
type Options struct {
	Evaluator evaluator.Kind
	Workers   int  // goroutines evaluating snapshots; 0: the number of CPUs
	NoFilter  bool // evaluate every property on every snapshot, pruning nothing
	// OnlyTag, if set, evaluates only the snapshots carrying this tag,
	// such as a testbed's "steady" (no message in flight).
	OnlyTag string

	// Top is the number of entries per list of the report; 0 takes the
	// spec's report.size.
	Top int
	// All lists every anomaly, also those violated at too many moments to
	// stand out (reporter.Thresholds.StandOut).
	All bool
	// Baseline is the trace of a run believed good, or "": the
	// almost-invariants that fail there too are ranked after the others.
	Baseline string
	// Timeline gathers what the HTML report draws: when each reported
	// almost-invariant fails, and where the trace's tags fall.
	Timeline bool
	// Output is where the report will be written, "" for stdout: the
	// report names its spec relative to it, so that promote finds it.
	Output string
	// Progress, if set, is told how far evaluation is.
	Progress Progress
}

// Progress is told how far a long evaluation is: Start once with what is
// being done and the number of snapshots, Update as they are evaluated,
// Stop at the end.
type Progress interface {
	Start(what string, total int)
	Update(done, total int)
	Stop()
}

// Pipeline is a spec, the trace it fits and the compiled property pool
// they generate.
type Pipeline struct {
	Spec      *specs.Spec
	Trace     *trace.Trace
	Generated int // properties generated
	Program   *evaluator.Program

	specPath, tracePath string
}

// Open loads the spec and the trace, checks that the spec fits the
// trace's variables, and generates and compiles the property pool, which
// depends only on them. The caller closes the pipeline.
func Open(specPath, tracePath string) (_ *Pipeline, err error) {
	spec, tr, err := OpenFitting(specPath, tracePath)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			tr.Close()
		}
	}()
	consts, err := generator.MineConstants(tr, spec)
	if err != nil {
		return nil, err
	}
	pool, err := generator.Generate(spec, consts)
	if err != nil {
		return nil, err
	}
	prog, err := evaluator.Compile(spec, pool.Props)
	if err != nil {
		return nil, fmt.Errorf("generated properties do not compile: %w", err)
	}
	return &Pipeline{Spec: spec, Trace: tr, Generated: len(pool.Props), Program: prog, specPath: specPath, tracePath: tracePath}, nil
}

// Generate generates the pool of the spec at specPath, with the constants
// mined from the trace at tracePath unless it is "".
func Generate(specPath, tracePath string) (*generator.Pool, error) {
	if tracePath == "" {
		spec, err := specs.Load(specPath)
		if err != nil {
			return nil, err
		}
		return generator.Generate(spec, generator.Constants{})
	}
	spec, tr, err := OpenFitting(specPath, tracePath)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	consts, err := generator.MineConstants(tr, spec)
	if err != nil {
		return nil, err
	}
	return generator.Generate(spec, consts)
}

// OpenFitting loads the spec and opens the trace, and checks that the
// spec fits the trace's variables. The caller closes the trace.
func OpenFitting(specPath, tracePath string) (*specs.Spec, *trace.Trace, error) {
	spec, err := specs.Load(specPath)
	if err != nil {
		return nil, nil, err
	}
	tr, err := trace.Open(tracePath)
	if err != nil {
		return nil, nil, err
	}
	if err := spec.Check(tr.Schema); err != nil {
		tr.Close()
		return nil, nil, fmt.Errorf("spec does not fit trace %s: %w", tracePath, err)
	}
	return spec, tr, nil
}

// Close closes the trace.
func (p *Pipeline) Close() error { return p.Trace.Close() }

// Infer runs the whole pipeline: spec and trace, constants, generation,
// evaluation with filtering, and the report.
func Infer(ctx context.Context, specPath, tracePath string, o Options) (*reporter.Report, error) {
	p, err := Open(specPath, tracePath)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	// The first pass keeps the full moments of the properties it does
	// not prune, a byte or two each: the reporter's candidates are among
	// them, and need no pass of their own (moments).
	opts := evaluator.Options{Kind: o.Evaluator, Workers: o.Workers, OnlyTag: o.OnlyTag, NoPatterns: true, FullMoments: reporter.DefaultThresholds.FullMoments}
	if !o.NoFilter {
		opts.Pruner = filter.New(p.Spec.Filter)
	}
	res, err := p.Evaluate(ctx, opts, "evaluating", o.Progress)
	if err != nil {
		return nil, err
	}
	return p.Report(ctx, res, o)
}

// Evaluate runs the pool over the trace (or opts.Shard of it), telling
// progress, if set, how far it is under the label what.
func (p *Pipeline) Evaluate(ctx context.Context, opts evaluator.Options, what string, progress Progress) (*evaluator.Result, error) {
	if progress != nil {
		progress.Start(what, opts.Shard.Size(p.Trace.NumSnapshots()))
		defer progress.Stop()
		opts.Progress = progress.Update
	}
	return evaluator.Run(ctx, p.Trace, p.Program, opts)
}

// Report builds the report of res, the result of evaluating p's pool,
// evaluating the reported properties again over o.Baseline and for the
// timeline when o asks for them.
func (p *Pipeline) Report(ctx context.Context, res *evaluator.Result, o Options) (*reporter.Report, error) {
	ropts := reporter.OptionsFrom(p.Spec)
	if o.Top > 0 {
		ropts.Size = o.Top
	}
	ropts.All = o.All
	if !res.Patterns {
		if err := p.patterns(ctx, res, ropts, o); err != nil {
			return nil, err
		}
	}
	system := p.Spec.System
	if system == "" {
		system = p.Trace.Manifest.System
	}
	in := reporter.Input{
		System:        system,
		Spec:          specRef(p.specPath, o.Output),
		Trace:         p.tracePath,
		Generated:     p.Generated,
		Program:       p.Program,
		Result:        res,
		BaselineTrace: o.Baseline,
	}
	if o.Baseline != "" {
		in.Baseline = func(props []*grammar.Property) ([]int64, error) {
			return FailuresIn(ctx, o.Baseline, p.Spec, props, o.Workers, o.OnlyTag)
		}
	}
	in.Moments = func(props []*grammar.Property, max int) ([][]uint64, error) {
		return p.moments(ctx, res, props, max, o)
	}
	rep, err := reporter.Build(in, ropts)
	if err != nil {
		return nil, err
	}
	if o.Timeline {
		if rep.Timeline, err = p.timeline(ctx, rep, o.Workers); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// patterns counts the literal patterns of the candidates in res, a result
// without them: the reporter's second pass, over the few candidates, so
// that the first need not count what only the reporter reads. The
// evaluator's first pass over the whole pool counts holding bindings
// only; the or-effect tests read the patterns of the flat candidates of
// 2 to evaluator.MaxPatternLiterals literals. Properties near the
// holding-rate threshold are counted too, since the reporter compares a
// rounded rate: counting more than needed changes nothing.
//
// The patterns of P = L1 or … or Lk follow, by inclusion and exclusion,
// from the number of bindings at which each subset S of its literals
// holds together, summed over the snapshots: for a proper subset, the
// violations of "not Li or …" over i in S, under P's quantifiers (so over
// P's bindings); for all of them, from P's own holding bindings. Those
// sub-properties are few, since candidates share them (a three-literal
// pool combines the pairs of its two-literal one), and each is a plain
// disjunction counted without patterns: far less work than counting the
// candidates again.
func (p *Pipeline) patterns(ctx context.Context, res *evaluator.Result, ropts reporter.Options, o Options) error {
	type cand struct {
		i    int
		subs []int // by mask of literals, 1 to 2^k-2: index in props
	}
	var (
		cands []cand
		props []*grammar.Property
		index = map[string]int{}
	)
	for i, pr := range p.Program.Props {
		st := &res.Stats[i]
		k := pr.Literals()
		if st.Pruned || st.Support == 0 || st.Support < ropts.MinSupport || !pr.Flat() ||
			k < 2 || k > evaluator.MaxPatternLiterals ||
			st.Violations > 0 && st.HoldingRate() < ropts.HoldRatio-1e-9 {
			continue
		}
		c := cand{i: i, subs: make([]int, 1<<k-1)}
		for mask := 1; mask < 1<<k-1; mask++ {
			q := &grammar.Property{Quants: pr.Property.Quants}
			for l, lit := range pr.Property.Matrix {
				if mask&(1<<l) != 0 {
					q.Matrix = append(q.Matrix, &grammar.Literal{Neg: !lit.Neg, Atom: lit.Atom})
				}
			}
			text := q.Text()
			n, ok := index[text]
			if !ok {
				n = len(props)
				index[text] = n
				props = append(props, q)
			}
			c.subs[mask] = n
		}
		cands = append(cands, c)
	}
	res.Patterns = true
	if len(props) == 0 {
		return nil
	}
	opts := evaluator.Options{Kind: o.Evaluator, Workers: o.Workers, MaxWitnesses: -1, MaxMoments: 1, OnlyTag: o.OnlyTag, NoPatterns: true}
	again, err := p.again(ctx, props, opts, fmt.Sprintf("counting the literal patterns of %d candidates", len(cands)), o.Progress)
	if err != nil {
		return err
	}
	for _, c := range cands {
		st := &res.Stats[c.i]
		k := p.Program.Props[c.i].Literals()
		full := 1<<k - 1
		// x[S] counts the bindings at which every literal of S holds.
		var x [1 << evaluator.MaxPatternLiterals]int64
		x[0] = st.Bindings
		// The bindings where some literal holds, st.Bindings -
		// st.Violations, are the alternating sum of x over the nonempty
		// subsets; all but the full one are known.
		rest := st.Bindings - st.Violations
		for mask := 1; mask < full; mask++ {
			sub := &again.Stats[c.subs[mask]]
			if sub.Support != st.Support || sub.Bindings != st.Bindings {
				return fmt.Errorf("literal patterns of %s: a sub-disjunction has %d bindings in %d snapshots, the property %d in %d",
					p.Program.Props[c.i].Text, sub.Bindings, sub.Support, st.Bindings, st.Support)
			}
			x[mask] = sub.Violations
			if bits.OnesCount(uint(mask))%2 == 1 {
				rest -= x[mask]
			} else {
				rest += x[mask]
			}
		}
		x[full] = rest
		if k%2 == 0 {
			x[full] = -rest
		}
		// From "every literal of S holds" to "exactly the literals of S".
		for l := range k {
			for set := range 1 << k {
				if set&(1<<l) == 0 {
					x[set] -= x[set|1<<l]
				}
			}
		}
		st.Patterns = x
	}
	return nil
}

// moments returns the first max violating snapshots of each of props,
// candidates of p's report: those that res, the first pass, kept
// (evaluator.Options.FullMoments), and for the others the reporter's
// second pass evaluates them again.
func (p *Pipeline) moments(ctx context.Context, res *evaluator.Result, props []*grammar.Property, max int, o Options) ([][]uint64, error) {
	index := make(map[*grammar.Property]int, len(p.Program.Props))
	for i, pr := range p.Program.Props {
		index[pr.Property] = i
	}
	ms := make([][]uint64, len(props))
	var again []*grammar.Property
	var at []int // in props, of again
	for k, pr := range props {
		i, ok := index[pr]
		if ok {
			ms[k], ok = res.FullMoments(i, max)
		}
		if !ok {
			again, at = append(again, pr), append(at, k)
		}
	}
	if len(again) == 0 {
		return ms, nil
	}
	opts := evaluator.Options{Workers: o.Workers, MaxWitnesses: -1, MaxMoments: max, OnlyTag: o.OnlyTag, NoPatterns: true}
	sec, err := p.again(ctx, again, opts, fmt.Sprintf("grouping %d candidates", len(again)), o.Progress)
	if err != nil {
		return nil, err
	}
	for n, k := range at {
		ms[k] = sec.Stats[n].Moments
	}
	return ms, nil
}

// again evaluates props, properties of p's spec, over p's trace, telling
// progress, if set, how far it is under the label what.
func (p *Pipeline) again(ctx context.Context, props []*grammar.Property, opts evaluator.Options, what string, progress Progress) (*evaluator.Result, error) {
	if progress != nil {
		progress.Start(what, p.Trace.NumSnapshots())
		defer progress.Stop()
		opts.Progress = progress.Update
	}
	return evaluateProps(ctx, p.Spec, p.Trace, props, opts)
}

// FailuresIn counts, for each of props, the snapshots of the trace at
// path (those carrying onlyTag, if set) where it fails.
func FailuresIn(ctx context.Context, path string, spec *specs.Spec, props []*grammar.Property, workers int, onlyTag string) ([]int64, error) {
	tr, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	if err := spec.Check(tr.Schema); err != nil {
		return nil, fmt.Errorf("spec does not fit baseline %s: %w", path, err)
	}
	res, err := evaluateProps(ctx, spec, tr, props, evaluator.Options{Workers: workers, MaxWitnesses: -1, MaxMoments: 1, OnlyTag: onlyTag, NoPatterns: true})
	if err != nil {
		return nil, err
	}
	counts := make([]int64, len(props))
	for i := range counts {
		counts[i] = res.Stats[i].ViolatingSnapshots
	}
	return counts, nil
}

// evaluateProps compiles props, properties of spec, and evaluates them
// over tr.
func evaluateProps(ctx context.Context, spec *specs.Spec, tr *trace.Trace, props []*grammar.Property, opts evaluator.Options) (*evaluator.Result, error) {
	prog, err := evaluator.Compile(spec, props)
	if err != nil {
		return nil, err
	}
	return evaluator.Run(ctx, tr, prog, opts)
}

// specRef returns how a report names its spec, so that promote finds it:
// relative to the report's directory when the report goes to a file,
// absolute when it goes to stdout and may end up anywhere.
func specRef(spec, output string) string {
	abs, err := filepath.Abs(spec)
	if err != nil {
		return spec
	}
	if output == "" {
		return abs
	}
	dir, err := filepath.Abs(filepath.Dir(output))
	if err != nil {
		return abs
	}
	if rel, err := filepath.Rel(dir, abs); err == nil {
		return filepath.ToSlash(rel)
	}
	return abs
}

// Sample keeps at most n properties of the pool (0: all), taken evenly
// from it, so that a benchmark can time a pool of a given size.
func (p *Pipeline) Sample(n int) error {
	props := p.Program.Props
	if n <= 0 || len(props) <= n {
		return nil
	}
	kept := make([]*grammar.Property, n)
	for i := range kept {
		kept[i] = props[i*len(props)/n].Property
	}
	prog, err := evaluator.Compile(p.Spec, kept)
	if err != nil {
		return err
	}
	p.Program = prog
	return nil
}
