package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/filter"
	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/reporter"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
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
	// such as a testbed's "steady" (no message in flight, no fault in force).
	OnlyTag string

	// Top is the number of entries per list of the report; 0 takes the
	// spec's report.size.
	Top int
	// All lists every anomaly, also those violated through so large a
	// share of the run that they do not stand out.
	All bool
	// Baselines are the traces of runs believed good, or none: the
	// almost-invariants that fail in any of them too are ranked after the
	// others, and the invariants of the baseline (never violated in any
	// run) that this run breaks form a section of their own. Several
	// good runs tell a protocol's rare transients from a bug better than
	// one, which may by chance have none of them.
	Baselines []string
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
	Constants generator.Constants // mined from the trace
	Pool      *generator.Pool     // generated from the spec and the constants
	Generated int                 // properties generated, before generate.max_per_class kept some
	Program   *evaluator.Program

	specPath, tracePath string
}

// Open loads the spec and the trace, checks that the spec fits the
// trace's variables, and generates and compiles the property pool, which
// depends only on them. The caller closes the pipeline.
func Open(specPath, tracePath string) (*Pipeline, error) {
	return OpenContext(context.Background(), specPath, tracePath)
}

// OpenContext is Open, returning ctx's error within moments once ctx is
// done: checking the spec's enums looks at ctx, and generating and
// compiling a pool, which take seconds for tens of thousands of
// properties and no context, go on in a goroutine whose result is
// dropped.
func OpenContext(ctx context.Context, specPath, tracePath string) (*Pipeline, error) {
	return OpenIterating(ctx, specPath, tracePath, nil)
}

// OpenIterating is OpenContext with a pool that also iterates over the
// containers named in iterate, beside those of the spec's
// generate.iterate (augur learn --iterate).
func OpenIterating(ctx context.Context, specPath, tracePath string, iterate []string) (_ *Pipeline, err error) {
	spec, tr, err := openFitting(ctx, specPath, tracePath)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			tr.Close()
		}
	}()
	for _, name := range iterate {
		if !slices.Contains(spec.Generate.Iterate, name) {
			spec.Generate.Iterate = append(spec.Generate.Iterate, name)
		}
	}
	consts, err := generator.MineConstants(tr, spec)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type built struct {
		pool *generator.Pool
		prog *evaluator.Program
		err  error
	}
	done := make(chan built, 1)
	go func() {
		pool, err := generator.Generate(spec, consts)
		if err != nil {
			done <- built{err: err}
			return
		}
		prog, err := evaluator.Compile(spec, pool.Props)
		if err != nil {
			err = fmt.Errorf("generated properties do not compile: %w", err)
		}
		done <- built{pool, prog, err}
	}()
	var b built
	select {
	case b = <-done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if b.err != nil {
		return nil, b.err
	}
	return &Pipeline{Spec: spec, Trace: tr, Constants: consts, Pool: b.pool, Generated: generated(b.pool), Program: b.prog, specPath: specPath, tracePath: tracePath}, nil
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
// spec fits the trace's variables and that its enums hold the trace's
// values; a trace given as JSONL, or after the spec, is an error that
// says what to give instead. The caller closes the trace.
func OpenFitting(specPath, tracePath string) (*specs.Spec, *trace.Trace, error) {
	return openFitting(context.Background(), specPath, tracePath)
}

// openFitting is OpenFitting, stopping the check of the enums once ctx
// is done.
func openFitting(ctx context.Context, specPath, tracePath string) (*specs.Spec, *trace.Trace, error) {
	if err := checkInputs(specPath, tracePath); err != nil {
		return nil, nil, err
	}
	spec, err := specs.Load(specPath)
	if err != nil {
		return nil, nil, err
	}
	tr, err := trace.Open(tracePath)
	if err != nil {
		return nil, nil, err
	}
	err = spectrace.Check(spec, tr.Schema)
	if err == nil {
		err = spectrace.CheckEnums(ctx, spec, tr)
	}
	if err != nil {
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
	p, err := OpenContext(ctx, specPath, tracePath)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	// The first pass keeps the full moments of the properties it does
	// not prune, a byte or two each: the reporter's candidates are among
	// them, and need no pass of their own (moments).
	opts := passOptions(o)
	opts.FullMoments = reporter.DefaultThresholds.FullMoments
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
	return p.report(ctx, res, o, nil)
}

// report builds the report of res, recording the fates of the
// properties of p's pool at the indices explain (reporter.Input.Explain).
func (p *Pipeline) report(ctx context.Context, res *evaluator.Result, o Options, explain []int) (*reporter.Report, error) {
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
		System:         system,
		Spec:           SpecRef(p.specPath, o.Output),
		Trace:          p.tracePath,
		Generated:      p.Generated,
		Program:        p.Program,
		Result:         res,
		BaselineTraces: o.Baselines,
		Explain:        explain,
	}
	start, err := firstSnapshot(p.Trace)
	if err != nil {
		return nil, err
	}
	in.Start = start
	if len(o.Baselines) > 0 {
		bases := make([]*trace.Trace, 0, len(o.Baselines))
		defer func() {
			for _, b := range bases {
				b.Close()
			}
		}()
		for _, path := range o.Baselines {
			base, err := p.openBaseline(path)
			if err != nil {
				return nil, err
			}
			bases = append(bases, base)
		}
		in.Baseline = func(props []*grammar.Property) ([][]evaluator.Stats, error) {
			return p.failures(ctx, bases, props, o)
		}
		if in.Broken, err = p.broken(ctx, bases, ropts, o); err != nil {
			return nil, err
		}
	}
	in.Moments = func(props []*grammar.Property, max int) ([][]uint64, error) {
		return p.moments(ctx, res, props, max, o)
	}
	rep, err := reporter.Build(in, ropts)
	if err != nil {
		return nil, err
	}
	rep.Warnings = append(rep.Warnings, capWarnings(p.Pool)...)
	if o.Timeline {
		if rep.Timeline, err = p.timeline(ctx, rep, o); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// firstSnapshot returns the id of t's first snapshot, where the run
// starts up (reporter.Input.Start), or nil when t has none.
func firstSnapshot(t *trace.Trace) (*uint64, error) {
	sr := t.Snapshots()
	if !sr.Next() {
		if err := sr.Err(); err != nil {
			return nil, fmt.Errorf("read the first snapshot: %w", err)
		}
		return nil, nil
	}
	id := sr.Snapshot().ID
	return &id, nil
}

// patterns counts the literal patterns of the candidates in res, a result
// without them: the reporter's second pass, over the few candidates, so
// that the first need not count what only the reporter reads. The
// evaluator's first pass over the whole pool counts holding bindings
// only; the or-effect tests read the patterns of the flat candidates of
// 2 to evaluator.MaxPatternLiterals literals, which follow from the
// violations of their pattern properties (reporter.PatternProperties,
// reporter.Patterns). Those are usually few, since candidates share them
// (a three-literal pool combines the pairs of its two-literal one), and
// each is a plain disjunction counted without patterns: far less work
// than counting the candidates again. When they are many, more than
// countedPatterns per candidate, the pass counts the candidates' patterns
// in the evaluator's loop instead, with no program of its own to compile
// and hold beside the pool's: less memory for more time.
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
		if !pr.Flat() || k < 2 || k > evaluator.MaxPatternLiterals || !reporter.IsCandidate(st, ropts.HoldRatio, ropts.MinSupport) {
			continue
		}
		c := cand{i: i, subs: make([]int, 1<<k-1)}
		for mask, q := range reporter.PatternProperties(pr.Property) {
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
	opts := passOptions(o)
	opts.MaxWitnesses, opts.MaxMoments = evaluator.NoWitnesses, 1
	what := fmt.Sprintf("counting the literal patterns of %d candidates", len(cands))
	if len(props) > countedPatterns*len(cands) {
		at := make([]int, len(cands))
		for n, c := range cands {
			at[n] = c.i
		}
		opts.NoPatterns = false
		counted, err := run(ctx, p.Trace, p.Program.Select(at), opts, what, o.Progress)
		if err != nil {
			return err
		}
		for n, i := range at {
			res.Stats[i].Patterns = counted.Stats[n].Patterns
		}
		return nil
	}
	again, err := p.again(ctx, p.Trace, props, opts, what, o.Progress)
	if err != nil {
		return err
	}
	for _, c := range cands {
		st := &res.Stats[c.i]
		pats, err := reporter.Patterns(p.Program.Props[c.i].Literals(), st, func(mask int) *evaluator.Stats { return &again.Stats[c.subs[mask]] })
		if err != nil {
			return fmt.Errorf("literal patterns of %s: %w", p.Program.Props[c.i].Text, err)
		}
		st.Patterns = pats
	}
	return nil
}

// countedPatterns is the number of pattern properties per candidate
// beyond which the patterns pass counts the candidates' literal patterns
// in the evaluator's loop rather than their pattern properties' holding
// bindings, trading time for memory. Both give the same patterns.
// Counting a candidate takes about three times the CPU of a pattern
// property, compiling included (about 0.29 ms and 0.10 ms of a pass over
// the 20,000 snapshots of an etcd raft trace, from paired runs of augur
// infer on two three-literal pools). But pattern properties need a
// program of their own, compiled and evaluated beside the pool's, while
// the candidates are the pool's own compiled properties: a pool of 100
// correlated derived variables has 161k candidates with 382k pattern
// properties, and counting the candidates took 9% more CPU than deriving
// and 46% less peak memory (961 MiB against 1778 MiB). The usual pools
// have a fourth of a pattern property per candidate or fewer. Tests set
// it to take either way.
var countedPatterns = 2

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
	opts := passOptions(o)
	opts.MaxWitnesses, opts.MaxMoments = evaluator.NoWitnesses, max
	sec, err := p.again(ctx, p.Trace, again, opts, fmt.Sprintf("grouping %d candidates", len(again)), o.Progress)
	if err != nil {
		return nil, err
	}
	for n, k := range at {
		ms[k] = sec.Stats[n].Moments
	}
	return ms, nil
}

// passOptions returns the evaluator options of every pass of a run with
// options o, the first and the reporter's: its evaluator, workers and
// tag, without literal patterns. A pass sets what it keeps on top.
func passOptions(o Options) evaluator.Options {
	return evaluator.Options{Kind: o.Evaluator, Workers: o.Workers, OnlyTag: o.OnlyTag, NoPatterns: true}
}

// again compiles props, properties of p's spec, and evaluates them over
// tr with opts, telling progress, if set, how far it is under the label
// what.
func (p *Pipeline) again(ctx context.Context, tr *trace.Trace, props []*grammar.Property, opts evaluator.Options, what string, progress Progress) (*evaluator.Result, error) {
	prog, err := evaluator.Compile(p.Spec, props)
	if err != nil {
		return nil, err
	}
	return run(ctx, tr, prog, opts, what, progress)
}

// run evaluates prog over tr with opts, telling progress, if set, how
// far it is under the label what.
func run(ctx context.Context, tr *trace.Trace, prog *evaluator.Program, opts evaluator.Options, what string, progress Progress) (*evaluator.Result, error) {
	if progress != nil {
		progress.Start(what, tr.NumSnapshots())
		defer progress.Stop()
		opts.Progress = progress.Update
	}
	return evaluator.Run(ctx, tr, prog, opts)
}

// openBaseline opens the trace of a run believed good, which p's spec
// must fit. The caller closes it.
func (p *Pipeline) openBaseline(path string) (*trace.Trace, error) {
	tr, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	if err := spectrace.Check(p.Spec, tr.Schema); err != nil {
		tr.Close()
		return nil, fmt.Errorf("spec does not fit baseline %s: %w", path, err)
	}
	return tr, nil
}

// failures evaluates props over each baseline run and returns the stats
// of each property there, by run, with its first violating snapshots (as
// many as the reporter keeps of a candidate), from which the reporter
// counts its violation events there.
func (p *Pipeline) failures(ctx context.Context, bases []*trace.Trace, props []*grammar.Property, o Options) ([][]evaluator.Stats, error) {
	opts := passOptions(o)
	opts.MaxWitnesses, opts.MaxMoments = evaluator.NoWitnesses, reporter.DefaultThresholds.FullMoments
	runs := make([][]evaluator.Stats, len(bases))
	for i, base := range bases {
		res, err := p.again(ctx, base, props, opts, fmt.Sprintf("evaluating %d almost-invariants over the baseline%s", len(props), nth(i, len(bases))), o.Progress)
		if err != nil {
			return nil, err
		}
		runs[i] = res.Stats
	}
	return runs, nil
}

// nth names the i-th of n baseline runs in progress messages, "" for
// the only one.
func nth(i, n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf(" (run %d of %d)", i+1, n)
}

// broken evaluates p's pool over each baseline run, pruning what fails
// there unless o.NoFilter, and the baseline's invariants (never violated
// in any run, with enough support summed over the runs) again over p's
// trace, keeping their violating snapshots: the reporter's section of
// broken invariants.
func (p *Pipeline) broken(ctx context.Context, bases []*trace.Trace, ropts reporter.Options, o Options) (*reporter.Evaluation, error) {
	opts := passOptions(o)
	opts.MaxWitnesses, opts.MaxMoments = evaluator.NoWitnesses, 1
	// The pool's properties never violated in the runs so far, with their
	// support there; each run evaluates only those.
	holds := make([]int, len(p.Program.Props))
	for i := range holds {
		holds[i] = i
	}
	support := make([]int64, len(p.Program.Props))
	for k, base := range bases {
		if !o.NoFilter {
			// Only invariants matter here: prune what fails, however
			// rarely. A filter keeps marks by property: one per run.
			opts.Pruner = &filter.Filter{HoldRatio: 1, Interval: p.Spec.Filter.Every}
		}
		good, err := run(ctx, base, p.Program.Select(holds), opts, "finding the baseline's invariants"+nth(k, len(bases)), o.Progress)
		if err != nil {
			return nil, err
		}
		kept := holds[:0]
		for j, i := range holds {
			if st := &good.Stats[j]; !st.Pruned && st.Violations == 0 {
				support[i] += st.Support
				kept = append(kept, i)
			}
		}
		holds = kept
	}
	var invs []*grammar.Property
	for _, i := range holds {
		if support[i] >= ropts.MinSupport {
			invs = append(invs, p.Program.Props[i].Property)
		}
	}
	prog, err := evaluator.Compile(p.Spec, invs)
	if err != nil {
		return nil, err
	}
	opts = passOptions(o)
	opts.MaxMoments = reporter.DefaultThresholds.FullMoments
	res, err := run(ctx, p.Trace, prog, opts, fmt.Sprintf("evaluating the baseline's %d invariants", len(invs)), o.Progress)
	if err != nil {
		return nil, err
	}
	return &reporter.Evaluation{Program: prog, Result: res}, nil
}

// SpecRef returns how a report names its spec, so that promote finds it:
// relative to the report's directory when the report goes to a file,
// absolute when it goes to stdout and may end up anywhere.
func SpecRef(spec, output string) string {
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

// generated returns how many properties pool's classes generated before
// generate.max_per_class kept some of them (estimated for a class too
// large to enumerate).
func generated(pool *generator.Pool) int {
	n := 0
	for _, cc := range pool.Classes {
		n += cc.Generated
	}
	return max(n, len(pool.Props))
}

// capWarnings says, for each class of the pool that max_per_class cut,
// how many of its properties were kept and how many were not evaluated.
func capWarnings(pool *generator.Pool) []diag.Warning {
	var ws []diag.Warning
	for _, cc := range pool.Classes {
		if cc.Kept >= cc.Generated {
			continue
		}
		about := ""
		if cc.Estimated {
			about = "about "
		}
		ws = append(ws, diag.Warning{
			Code: "class-capped",
			Msg: fmt.Sprintf("max_per_class kept %d of %s%d properties of class %s; %s%d were not evaluated (raise max_per_class to evaluate them, or lower max_literals)",
				cc.Kept, about, cc.Generated, cc.Class, about, cc.Generated-cc.Kept),
		})
	}
	return ws
}
