package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/filter"
	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/internal/safefile"
	"github.com/augur-dev/augur/reporter"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

type inferOptions struct {
	format    string
	top       int
	evaluator string
	workers   int
	noFilter  bool
	output    string
	quiet     bool
	baseline  string
	shard     shardFlags
}

func (o *inferOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "text", "output format: "+strings.Join(reporter.Formats, ", "))
	f.IntVar(&o.top, "top", 0, "entries per list (default: the spec's report.size)")
	f.StringVar(&o.evaluator, "evaluator", "fast", "evaluator: fast or reference")
	f.IntVar(&o.workers, "workers", 0, "goroutines evaluating snapshots (default: number of CPUs)")
	f.BoolVar(&o.noFilter, "no-filter", false, "evaluate every property on every snapshot (no pruning)")
	f.StringVarP(&o.output, "output", "o", "", "write the report to this file instead of stdout")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
	f.StringVar(&o.baseline, "baseline", "", "a trace of a run believed good: almost-invariants that fail there too are ranked last")
}

func newInferCmd() *cobra.Command {
	var o inferOptions
	cmd := &cobra.Command{
		Use:   "infer SPEC TRACE",
		Short: "Generate properties from a spec and rank them over a trace",
		Long: `Infer generates the properties a spec describes, evaluates their holding
rates over every snapshot of the trace, and reports the almost-invariants
(properties that hold nearly always but not always) and invariants.

With --baseline, the same properties are also evaluated over the trace of
a run believed good (yesterday's build, a run without the change under
test); the almost-invariants that fail there too are most likely how the
system normally behaves, and are ranked after the others.`,
		Example: `  augur infer spec.yaml run.trace
  augur infer spec.yaml run.trace --baseline good.trace
  augur infer spec.yaml run.trace --top 20 --no-filter
  augur infer spec.yaml run.trace --format json -o report.json
  augur infer spec.yaml run.trace --shard 0/4 --stats part0.arrow`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.shard.stats != "" || o.shard.any(cmd) {
				if o.baseline != "" {
					return fmt.Errorf("--baseline does not apply to shards: use it with augur report")
				}
				return inferShard(cmd.Context(), args[0], args[1], &o, cmd.ErrOrStderr())
			}
			rep, err := infer(cmd.Context(), args[0], args[1], &o, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			return writeReport(cmd.OutOrStdout(), rep, &o)
		},
	}
	o.addFlags(cmd)
	o.shard.addFlags(cmd)
	return cmd
}

// pipeline is what infer and report share: the spec, the trace and the
// compiled property pool generated from them.
type pipeline struct {
	spec      *specs.Spec
	tr        *trace.Trace
	generated int
	prog      *evaluator.Program
}

// prepare loads the spec and trace and generates and compiles the
// property pool, which depends only on them. The caller closes p.tr.
func prepare(specPath, tracePath string) (_ *pipeline, err error) {
	spec, tr, err := openFitting(specPath, tracePath)
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
	return &pipeline{spec: spec, tr: tr, generated: len(pool.Props), prog: prog}, nil
}

// openFitting loads the spec and opens the trace, and checks that the
// spec fits the trace's variables. The caller closes the trace.
func openFitting(specPath, tracePath string) (*specs.Spec, *trace.Trace, error) {
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

// buildReport builds the report of res, the result of evaluating p, with
// base counting where properties fail in o.baseline (nil without one).
func buildReport(p *pipeline, res *evaluator.Result, base func([]*grammar.Property) ([]int64, error), specPath, tracePath string, o *inferOptions) (*reporter.Report, error) {
	ropts := reporter.OptionsFrom(p.spec)
	if o.top > 0 {
		ropts.Size = o.top
	}
	system := p.spec.System
	if system == "" {
		system = p.tr.Manifest.System
	}
	return reporter.Build(reporter.Input{
		System:    system,
		Spec:      specRef(specPath, o.output),
		Trace:     tracePath,
		Generated: p.generated,
		Program:   p.prog,
		Result:    res,
		Baseline:  base,

		BaselineTrace: o.baseline,
	}, ropts)
}

// infer runs the whole pipeline: spec and trace, constants, generation,
// evaluation with filtering, and the report.
func infer(ctx context.Context, specPath, tracePath string, o *inferOptions, stderr io.Writer) (*reporter.Report, error) {
	if !validFormat(o.format) {
		return nil, fmt.Errorf("unknown format %q (want %s)", o.format, strings.Join(reporter.Formats, ", "))
	}
	kind, err := evaluator.ParseKind(o.evaluator)
	if err != nil {
		return nil, err
	}
	p, err := prepare(specPath, tracePath)
	if err != nil {
		return nil, err
	}
	defer p.tr.Close()
	opts := evaluator.Options{Kind: kind, Workers: o.workers}
	if !o.noFilter {
		opts.Pruner = filter.New(p.spec.Filter)
	}
	res, err := evaluate(ctx, p.tr, p.prog, opts, "evaluating", o.quiet, stderr)
	if err != nil {
		return nil, err
	}
	var base func([]*grammar.Property) ([]int64, error)
	if o.baseline != "" {
		base = func(props []*grammar.Property) ([]int64, error) {
			return failuresIn(ctx, o.baseline, p.spec, props, o.workers)
		}
	}
	rep, err := buildReport(p, res, base, specPath, tracePath, o)
	if err != nil {
		return nil, err
	}
	if o.format == "html" {
		if rep.Timeline, err = timeline(ctx, p, rep, o.workers); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// evaluate runs prog over tr (or opts.Shard of it) with a progress bar
// labelled what.
func evaluate(ctx context.Context, tr *trace.Trace, prog *evaluator.Program, opts evaluator.Options, what string, quiet bool, stderr io.Writer) (*evaluator.Result, error) {
	bar := newProgress(stderr, what, opts.Shard.Size(tr.NumSnapshots()), quiet)
	opts.Progress = bar.update
	res, err := evaluator.Run(ctx, tr, prog, opts)
	bar.stop()
	return res, err
}

// failuresIn counts, for each of props, the snapshots of the trace at
// path where it fails.
func failuresIn(ctx context.Context, path string, spec *specs.Spec, props []*grammar.Property, workers int) ([]int64, error) {
	tr, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	if err := spec.Check(tr.Schema); err != nil {
		return nil, fmt.Errorf("spec does not fit baseline %s: %w", path, err)
	}
	res, err := evaluateProps(ctx, spec, tr, props, evaluator.Options{Workers: workers, MaxWitnesses: -1})
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

func validFormat(f string) bool {
	for _, g := range reporter.Formats {
		if f == g {
			return true
		}
	}
	return false
}

// writeReport writes the report to o.output, replacing it atomically, or
// to stdout.
func writeReport(stdout io.Writer, rep *reporter.Report, o *inferOptions) error {
	if o.output == "" {
		return rep.Write(stdout, o.format)
	}
	return safefile.Write(o.output, 0o644, true, func(w io.Writer) error { return rep.Write(w, o.format) })
}
