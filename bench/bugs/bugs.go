// Package bugs scores augur's reports on the testbeds' injected bugs: for
// each seed it runs every testbed with each of its bugs and without any,
// infers the report of each run (plain, and with the bug-free run of the
// same seed as baseline), and measures it against the run's ground-truth
// tags (augur bench testbeds).
//
// A reported almost-invariant is relevant to a bug when most of its
// violating snapshots carry the bug's tag ([reporter.Relevant]). A bug
// run counts only when the bug manifests, that is when some snapshot
// carries its tag. Recall is the share of those runs with a relevant
// almost-invariant among the first [TopK] reported; precision, averaged
// over them, the share of what is reported (at most TopK) that is
// relevant. With the bug-free run as baseline, the report's section of
// the baseline's invariants broken here counts as well: a relevant entry
// among its first TopK is recalled, and the first relevant rank is the
// better of the two sections'. A bug-free run counts the
// almost-invariants it reports that fail in steady state. A bug run is
// visible when some anomaly of its whole report, listed or not, is
// relevant (with the baseline, or some broken invariant); the runs that
// are not cap recall whatever the ranking. The targets, with the
// baseline: recall [TargetRecall] and a first relevant entry within
// [TopFirst] in [TargetFirst] of the visible runs, visible
// [TargetVisible] of the runs where the bug manifests, and no bug-free
// run over [MaxBugFreeSteady]. Precision is reported, not a target: rare
// legitimate transients are real almost-invariants.
//
// The development seeds are 1 to 10: choose statistics and thresholds on
// these. The held-out seeds are 41 to 50 ([HeldOutSeeds]): report them,
// never tune on them.
package bugs

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/augur-dev/augur/cluster"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/filter"
	"github.com/augur-dev/augur/internal/safefile"
	"github.com/augur-dev/augur/internal/shutdown"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/reporter"
	"github.com/augur-dev/augur/specs/spectrace"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
)

// The targets (DESIGN §11), with the bug-free run of the same seed as
// baseline: over the runs where the bug is visible, a relevant entry
// within the top TopK in at least TargetRecall of them and the first
// relevant one within the top TopFirst in at least TargetFirst; visible
// in at least TargetVisible of the runs where the bug manifests; and no
// bug-free run reporting more than MaxBugFreeSteady almost-invariants
// that fail in steady state.
const (
	TopK             = 10
	TopFirst         = 3
	TargetRecall     = 0.9
	TargetFirst      = 0.75
	TargetVisible    = 0.9
	MaxBugFreeSteady = 5
)

// Seed ranges: tune on DevSeeds, report HeldOutSeeds.
var (
	DevSeeds     = seedRange(1, 10)
	HeldOutSeeds = seedRange(41, 50)
)

func seedRange(lo, hi uint64) []uint64 {
	var s []uint64
	for x := lo; x <= hi; x++ {
		s = append(s, x)
	}
	return s
}

// maxSeeds bounds the seeds of one run.
const maxSeeds = 1000

// ParseSeeds returns the seeds named by s: "dev", "heldout" or a range
// "A-B".
func ParseSeeds(s string) ([]uint64, error) {
	switch s {
	case "dev":
		return DevSeeds, nil
	case "heldout":
		return HeldOutSeeds, nil
	}
	a, b, ok := strings.Cut(s, "-")
	lo, err1 := strconv.ParseUint(a, 10, 64)
	hi, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || lo < 1 || hi < lo {
		return nil, fmt.Errorf("seeds %q: want dev, heldout or a range A-B of positive seeds", s)
	}
	if hi-lo >= maxSeeds {
		return nil, fmt.Errorf("seeds %q: more than %d", s, maxSeeds)
	}
	return seedRange(lo, hi), nil
}

// Options configure Run.
type Options struct {
	Seeds    []uint64
	Testbeds []string // names of the testbeds to run; all when empty
	Steps    int      // snapshots per run; 0 means 20,000
	Workers  int      // goroutines evaluating snapshots; 0: every CPU
	// Keep, if set, is a directory where each run's spec, trace and JSON
	// reports stay, named TESTBED-BUG-SEED (BUG "none" for a bug-free run).
	Keep string
	// Reuse, with Keep, also keeps each evaluated run's stats there
	// (TESTBED-BUG-SEED.stats.arrow, as augur infer --stats writes them)
	// and builds a run's reports from its kept stats, without evaluating,
	// when they were computed from the same spec, the same trace and the
	// same property pool: a run is recorded again (under a second; runs
	// are deterministic), so a change of a testbed or a spec changes the
	// trace's or the spec's hash and the run is evaluated afresh. Rebuilding
	// the reports of kept runs with the current reporter is then cheap.
	Reuse bool
	// InitSpec, if set, infers each run's reports with the spec augur spec
	// init writes from the run's own trace ([spectrace.InitFile]),
	// unedited, kept as TESTBED-BUG-SEED.init.yaml, instead of the
	// testbed's hand-written spec: how far a new user's first report gets.
	// Relevance is read from the snapshots' tags, whatever the spec.
	InitSpec bool
	// Progress, if set, is called after each run.
	Progress func(done, total int)
}

// DefaultSteps is the length of a run, as the testbeds' bugs are
// documented to manifest in.
const DefaultSteps = 20_000

// Result is the outcome of one run.
type Result struct {
	Testbed string `json:"testbed"`
	Bug     string `json:"bug,omitempty"` // "" for a bug-free run
	Seed    uint64 `json:"seed"`
	// Tagged counts the snapshots tagged with the bug: 0 when it did not
	// manifest, and the run is not scored.
	Tagged int `json:"tagged"`
	// Plain scores augur infer's report, Baseline the report with the
	// bug-free run of the same seed as baseline (bug runs only).
	Plain    Score  `json:"plain"`
	Baseline *Score `json:"baseline,omitempty"`
	// Visible reports whether some anomaly of the run's whole report,
	// every one of any rank and however often violated (augur infer
	// --all), is relevant: the bug shows in the snapshots as the pool can
	// say it, and only ranking or cutting can miss it. A run where it is
	// false caps recall whatever the reporter does.
	Visible bool `json:"visible"`
	// BaselineVisible is Visible, or some invariant of the baseline that
	// this run breaks (the whole section) is relevant.
	BaselineVisible bool `json:"baseline_visible,omitempty"`
}

// Manifested reports whether the run is scored: a bug-free run, or a
// bug run where the bug manifested.
func (r *Result) Manifested() bool { return r.Bug == "" || r.Tagged > 0 }

// Score is how one report fares.
type Score struct {
	Reported int `json:"reported"` // almost-invariants reported, at most TopK
	Relevant int `json:"relevant"` // of those, relevant to the bug
	First    int `json:"first"`    // rank of the first relevant one among all, 0 if none
	// Steady counts the reported almost-invariants (at most TopK) that
	// fail in steady state.
	Steady int `json:"steady"`
	// BrokenRelevant counts the relevant entries among the first TopK
	// of the section of the baseline's invariants broken here, and
	// BrokenFirst is the rank of the first relevant one, 0 if none.
	BrokenRelevant int `json:"broken_relevant,omitempty"`
	BrokenFirst    int `json:"broken_first,omitempty"`
}

// Recalled reports whether a relevant entry is within the top TopK of
// either section.
func (s Score) Recalled() bool { return s.Relevant > 0 || s.BrokenRelevant > 0 }

// FirstAny returns the better rank of the first relevant entry of the
// two sections, 0 if neither has one.
func (s Score) FirstAny() int {
	switch {
	case s.First == 0:
		return s.BrokenFirst
	case s.BrokenFirst == 0:
		return s.First
	}
	return min(s.First, s.BrokenFirst)
}

// Precision is the share of what is reported that is relevant, 0 when
// nothing is.
func (s Score) Precision() float64 {
	if s.Reported == 0 {
		return 0
	}
	return float64(s.Relevant) / float64(s.Reported)
}

// score scores the top TopK almost-invariants of rep on tag ("" for a
// bug-free run).
func score(rep *reporter.Report, tag string) Score {
	var s Score
	for i, e := range rep.AlmostInvariants {
		rel := tag != "" && reporter.Relevant(e, tag)
		if rel && s.First == 0 {
			s.First = i + 1
		}
		if i >= TopK {
			continue
		}
		s.Reported++
		if rel {
			s.Relevant++
		}
		if e.SteadyViolatingSnapshots > 0 {
			s.Steady++
		}
	}
	if tag != "" {
		for i, e := range rep.BrokenInvariants {
			if !reporter.Relevant(e, tag) {
				continue
			}
			if s.BrokenFirst == 0 {
				s.BrokenFirst = i + 1
			}
			if i < TopK {
				s.BrokenRelevant++
			}
		}
	}
	return s
}

// Summary is the outcome of Run.
type Summary struct {
	Seeds   []uint64      `json:"seeds"`
	Runs    []*Result     `json:"runs"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Reused counts the runs reported from kept stats (Options.Reuse),
	// not evaluated.
	Reused int `json:"reused"`
	// InitSpec reports whether the runs used the specs augur spec init
	// wrote (Options.InitSpec).
	InitSpec bool `json:"init_spec,omitempty"`
}

// Run runs, for each seed and each testbed, the bug-free run and a run
// with each bug, one after another (evaluation already uses every
// core), with the testbed's default nodes and faults.
func Run(ctx context.Context, o Options) (*Summary, error) {
	tbs := catalog.All
	if len(o.Testbeds) > 0 {
		tbs = nil
		for _, name := range o.Testbeds {
			tb, err := catalog.Lookup(name)
			if err != nil {
				return nil, err
			}
			tbs = append(tbs, tb)
		}
	}
	if o.Steps == 0 {
		o.Steps = DefaultSteps
	}
	if o.Reuse && o.Keep == "" {
		return nil, fmt.Errorf("reusing stats needs a directory to keep them in")
	}
	dir := o.Keep
	if dir == "" {
		tmp, remove, err := shutdown.TempDir("augur-bugs-")
		if err != nil {
			return nil, err
		}
		defer remove()
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	total := 0
	for _, tb := range tbs {
		total += len(o.Seeds) * (1 + len(tb.Bugs))
	}
	sum := &Summary{Seeds: o.Seeds, InitSpec: o.InitSpec}
	start := time.Now()
	add := func(r run) {
		sum.Runs = append(sum.Runs, r.Result)
		if r.reused {
			sum.Reused++
		}
		if o.Progress != nil {
			o.Progress(len(sum.Runs), total)
		}
	}
	for _, tb := range tbs {
		for _, seed := range o.Seeds {
			good, err := runOne(ctx, dir, tb, "", seed, "", o)
			if err != nil {
				return nil, err
			}
			add(good)
			for _, bug := range tb.Bugs {
				r, err := runOne(ctx, dir, tb, bug, seed, good.trace, o)
				if err != nil {
					return nil, err
				}
				add(r)
			}
			if o.Keep == "" {
				os.RemoveAll(good.trace)
			}
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

type run struct {
	*Result
	trace  string
	reused bool // reported from kept stats
}

// runOne records testbed tb with bug at seed in dir, and scores its
// reports: plain, and with baseline as baseline when it is not "".
func runOne(ctx context.Context, dir string, tb testbeds.Testbed, bug string, seed uint64, baseline string, o Options) (run, error) {
	if err := ctx.Err(); err != nil {
		return run{}, err
	}
	name := fmt.Sprintf("%s-%s-%d", tb.Name, cmp.Or(bug, "none"), seed)
	fail := func(err error) (run, error) { return run{}, fmt.Errorf("%s: %w", name, err) }
	spec, tr, st, err := catalog.Record(ctx, dir, name, tb, testbeds.Config{Steps: o.Steps, Seed: seed, Bug: bug})
	if err != nil {
		return fail(err)
	}
	r := run{Result: &Result{Testbed: tb.Name, Bug: bug, Seed: seed}, trace: tr}
	tag := ""
	if bug != "" {
		tag = "bug:" + bug
		r.Tagged = st.Tagged[tag]
		defer func() {
			if o.Keep == "" {
				os.RemoveAll(tr)
			}
		}()
		if r.Tagged == 0 {
			return r, nil
		}
	}
	if o.InitSpec {
		spec = filepath.Join(dir, name+".init.yaml")
		if err := spectrace.InitFile(ctx, tr, spec, nil); err != nil {
			return fail(err)
		}
	}
	p, err := pipeline.OpenContext(ctx, spec, tr)
	if err != nil {
		return fail(err)
	}
	defer p.Close()
	var res *evaluator.Result
	if o.Reuse {
		res, r.reused, err = evaluateOnce(ctx, p, spec, filepath.Join(dir, name+".stats.arrow"), o.Workers)
	} else {
		res, err = evaluate(ctx, p, o.Workers)
	}
	if err != nil {
		return fail(err)
	}
	// report builds the report with opts, whole, scores it (the first
	// TopK of each section as augur infer would list them) and keeps it
	// when asked to.
	report := func(opts pipeline.Options, file string) (Score, *reporter.Report, error) {
		opts.Workers, opts.Top = o.Workers, math.MaxInt32
		rep, err := p.Report(ctx, res, opts)
		if err != nil {
			return Score{}, nil, err
		}
		sc := score(rep, tag)
		if o.Keep != "" {
			listed := *rep
			size := cmp.Or(p.Spec.Report.Size, TopK)
			for _, l := range []*[]*reporter.Entry{&listed.AlmostInvariants, &listed.Invariants, &listed.BrokenInvariants} {
				*l = (*l)[:min(len(*l), size)]
			}
			err := safefile.Write(filepath.Join(dir, file), 0o644, func(w io.Writer) error { return listed.Write(w, "json") })
			if err != nil {
				return Score{}, nil, err
			}
		}
		return sc, rep, nil
	}
	relevant := func(e *reporter.Entry) bool { return reporter.Relevant(e, tag) }
	if r.Plain, _, err = report(pipeline.Options{}, name+".json"); err != nil {
		return fail(err)
	}
	if tag != "" {
		all, err := p.Report(ctx, res, pipeline.Options{All: true, Top: math.MaxInt32, Workers: o.Workers})
		if err != nil {
			return fail(err)
		}
		r.Visible = slices.ContainsFunc(all.AlmostInvariants, relevant)
	}
	if baseline != "" {
		s, rep, err := report(pipeline.Options{Baselines: []string{baseline}}, name+"-baseline.json")
		if err != nil {
			return fail(err)
		}
		r.Baseline = &s
		r.BaselineVisible = r.Visible || slices.ContainsFunc(rep.BrokenInvariants, relevant)
	}
	return r, nil
}

// evaluate evaluates p's pool over its trace as augur infer does: with
// the spec's filter, literal patterns left to the reporter's second pass.
func evaluate(ctx context.Context, p *pipeline.Pipeline, workers int) (*evaluator.Result, error) {
	return p.Evaluate(ctx, evaluator.Options{Workers: workers, Pruner: filter.New(p.Spec.Filter), NoPatterns: true}, "", nil)
}

// evaluateOnce returns the stats kept at statsPath when they were
// computed from the spec at specPath, p's trace and p's pool, and whether
// it did; otherwise it evaluates and keeps the stats there. Kept stats
// that cannot be read (missing, damaged, of an older format) or that were
// computed from something else are computed again.
func evaluateOnce(ctx context.Context, p *pipeline.Pipeline, specPath, statsPath string, workers int) (*evaluator.Result, bool, error) {
	specHash, err := cluster.SpecHash(specPath)
	if err != nil {
		return nil, false, err
	}
	traceHash := cluster.TraceHash(p.Trace.Manifest)
	if st, err := cluster.Read(statsPath); err == nil && st.Check(specHash, traceHash, p.Program) == nil {
		return st.Result(), true, nil
	}
	res, err := evaluate(ctx, p, workers)
	if err != nil {
		return nil, false, err
	}
	st := cluster.New(p.Program, res, evaluator.Shard{}, evaluator.DefaultWitnesses)
	st.Spec, st.Trace = specHash, traceHash
	if err := cluster.Write(statsPath, st); err != nil {
		return nil, false, fmt.Errorf("keep stats: %w", err)
	}
	return res, false, nil
}
