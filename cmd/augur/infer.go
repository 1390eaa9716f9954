package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/augur-dev/augur/cluster"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/progress"
	"github.com/augur-dev/augur/internal/safefile"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/reporter"
)

// inferOptions are augur infer's arguments and flags.
type inferOptions struct {
	spec, trace string
	format      string
	formatSet   bool     // --format was given: every output takes it
	outputs     []string // -o, each in the format of its extension unless --format is given
	quiet       bool
	po          pipeline.Options // but Output, Timeline and Progress

	// Sharded evaluation into partial stats.
	sharded  bool // a sharding flag was given
	selector cluster.Selector
	stats    string

	stdout, stderr io.Writer
}

func (o *inferOptions) addFlags(cmd *cobra.Command) {
	f, po := cmd.Flags(), &o.po
	o.reportFlags(f)
	cliflag.IntP(f, &po.Top, "top", "", 0, 0, "entries per list (default: the spec's report.size)")
	evaluatorFlag(f, &po.Evaluator)
	cliflag.Workers(f, &po.Workers)
	f.BoolVar(&po.NoFilter, "no-filter", false, "evaluate every property on every snapshot (no pruning)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
	f.StringArrayVar(&po.Baselines, "baseline", nil, "a trace of a run believed good: almost-invariants that fail there too are ranked last (repeat it for several runs: one fails there when it fails in any)")
	f.StringVar(&po.OnlyTag, "only-tag", "", "evaluate only the snapshots carrying this tag (e.g. a testbed's steady: no message in flight, no fault in force)")
	f.BoolVar(&po.All, "all", false, "list every anomaly, also those violated at too many moments to stand out")
}

// reportFlags defines the flags that say where a report goes and in
// which formats, for infer, report and demo.
func (o *inferOptions) reportFlags(f *pflag.FlagSet) {
	f.StringVar(&o.format, "format", "text", "output format: "+strings.Join(reporter.Formats, ", ")+" (default: of each -o file, its extension's)")
	outputsFlag(f, &o.outputs, "output", "o", outFile, "write the report to this file instead of stdout; repeat it to write several formats in one run, each chosen by the extension (.txt, .json, .md, .html) unless --format is given")
}

// extFormats are the report formats of file extensions.
var extFormats = map[string]string{
	".txt": "text", ".text": "text", ".json": "json",
	".md": "md", ".markdown": "md", ".html": "html", ".htm": "html",
}

// formatOf returns the format of the report written to output (stdout
// for ""): --format if given, else that of its extension, else text.
func (o *inferOptions) formatOf(output string) string {
	if f, ok := extFormats[strings.ToLower(filepath.Ext(output))]; ok && !o.formatSet {
		return f
	}
	return o.format
}

// pipelineOptions returns the pipeline options o asks for.
func (o *inferOptions) pipelineOptions() (pipeline.Options, error) {
	if !slices.Contains(reporter.Formats, o.format) {
		return pipeline.Options{}, fmt.Errorf("unknown format %q (want %s)", o.format, strings.Join(reporter.Formats, ", "))
	}
	po := o.po
	if len(o.outputs) > 0 {
		po.Output = o.outputs[0]
	}
	po.Timeline = o.formatOf("") == "html" && len(o.outputs) == 0 ||
		slices.ContainsFunc(o.outputs, func(out string) bool { return o.formatOf(out) == "html" })
	// How far evaluation is shows on a terminal only, so that a log
	// keeps the report alone.
	if pr := progress.OnTerminal(o.stderr); pr != nil && !o.quiet {
		po.Progress = pr
	}
	return po, nil
}

// writeReports writes rep to each output in its format, naming the spec
// at specPath relative to the output as the pipeline names it relative
// to the first, or to stdout when there is no output.
func (o *inferOptions) writeReports(rep *reporter.Report, specPath string, more ...safefile.Output) error {
	outputs := more
	for _, out := range o.outputs {
		r := *rep
		if r.Spec != "" {
			r.Spec = pipeline.SpecRef(specPath, out)
		}
		format := o.formatOf(out)
		outputs = append(outputs, safefile.Output{Path: out, Perm: 0o644, Write: func(w io.Writer) error { return r.Write(w, format) }})
	}
	if err := safefile.WriteAll(outputs...); err != nil {
		return err
	}
	if len(o.outputs) == 0 {
		return rep.Write(o.stdout, o.format)
	}
	return nil
}

// newInferCmd returns augur infer; runF, if not nil, runs instead of
// runInfer, for tests of the flags.
func newInferCmd(runF func(*inferOptions) error) *cobra.Command {
	o := &inferOptions{}
	cmd := &cobra.Command{
		Use:   "infer SPEC TRACE",
		Short: "Generate properties from a spec and rank them over a trace",
		Args:  cobra.ExactArgs(2),
		RunE: runE(o, runF, runInfer, func(cmd *cobra.Command, args []string) {
			o.spec, o.trace = args[0], args[1]
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			o.formatSet = cmd.Flags().Changed("format")
			for _, name := range []string{"shard", "shards", "block"} {
				o.sharded = o.sharded || cmd.Flags().Changed(name)
			}
		}),
	}
	o.addFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.selector.Shard, "shard", "", "evaluate shard x of N (x/N, 0 ≤ x < N) and write partial stats to --stats")
	cliflag.IntP(f, &o.selector.Shards, "shards", "", 0, 0, "number of shards N, the index coming from $JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs)")
	cliflag.IntP(f, &o.selector.Block, "block", "", evaluator.DefaultShardBlock, 1, "shard x evaluates the snapshots S with (S / block) mod N == x")
	outputFlag(f, &o.stats, "stats", "", outFile, "write the stats to this Arrow file, evaluated without filtering, beside the reports of -o (or instead of a report without -o), so that augur report makes any format again without evaluating; with a shard flag, the shard's partial stats (merge with augur merge)")
	return cmd
}

// runInfer writes the report of o.spec over o.trace, in every format
// asked for, and with --stats its stats beside; or, with --stats alone or
// a shard flag, the (partial) stats of one shard.
func runInfer(ctx context.Context, o *inferOptions) error {
	if o.sharded || o.stats != "" && len(o.outputs) == 0 {
		if len(o.po.Baselines) > 0 {
			return fmt.Errorf("--baseline does not apply to shards: a report made from merged stats has no baseline section; run augur infer on the whole trace with --baseline")
		}
		return runShard(ctx, o)
	}
	po, err := o.pipelineOptions()
	if err != nil {
		return err
	}
	if o.stats == "" {
		rep, err := pipeline.Infer(ctx, o.spec, o.trace, po)
		if err != nil {
			return err
		}
		return o.writeReports(rep, o.spec)
	}
	rep, st, err := pipeline.InferStats(ctx, o.spec, o.trace, po)
	if err != nil {
		return err
	}
	return o.writeReports(rep, o.spec, safefile.Output{Path: o.stats, Perm: 0o644, Write: func(w io.Writer) error {
		if err := cluster.Encode(w, st); err != nil {
			return fmt.Errorf("write %s: %w", o.stats, err)
		}
		return nil
	}})
}

// runShard evaluates one shard of the trace, without filtering, and
// writes its partial stats.
func runShard(ctx context.Context, o *inferOptions) error {
	if o.stats == "" {
		return fmt.Errorf("sharded evaluation writes partial stats: give --stats PART.arrow")
	}
	if len(o.outputs) > 0 {
		return fmt.Errorf("--output is for reports; a shard writes partial stats (make the report with augur report)")
	}
	sh, err := o.selector.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	po, err := o.pipelineOptions() // of which a shard uses the evaluator, workers, tag and progress
	if err != nil {
		return err
	}
	st, err := pipeline.Shard(ctx, o.spec, o.trace, sh, po)
	if err != nil {
		return err
	}
	return cluster.Write(o.stats, st)
}
