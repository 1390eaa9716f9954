package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/cluster"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/progress"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/reporter"
)

// inferOptions are augur infer's arguments and flags.
type inferOptions struct {
	spec, trace string
	format      string
	evaluator   string
	quiet       bool
	po          pipeline.Options // but Evaluator, Timeline and Progress

	// Sharded evaluation into partial stats.
	sharded  bool // a sharding flag was given
	selector cluster.Selector
	stats    string

	stdout, stderr io.Writer
}

func (o *inferOptions) addFlags(cmd *cobra.Command) {
	f, po := cmd.Flags(), &o.po
	f.StringVar(&o.format, "format", "text", "output format: "+strings.Join(reporter.Formats, ", "))
	cliflag.IntP(f, &po.Top, "top", "", 0, 0, "entries per list (default: the spec's report.size)")
	f.StringVar(&o.evaluator, "evaluator", "fast", "evaluator: fast or reference")
	cliflag.Workers(f, &po.Workers)
	f.BoolVar(&po.NoFilter, "no-filter", false, "evaluate every property on every snapshot (no pruning)")
	outputFlag(f, &po.Output, "output", "o", outFile, "write the report to this file instead of stdout")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
	f.StringVar(&po.Baseline, "baseline", "", "a trace of a run believed good: almost-invariants that fail there too are ranked last")
	f.StringVar(&po.OnlyTag, "only-tag", "", "evaluate only the snapshots carrying this tag (e.g. steady: no message in flight)")
	f.BoolVar(&po.All, "all", false, "list every anomaly, also those violated at too many moments to stand out")
}

// pipelineOptions returns the pipeline options o asks for.
func (o *inferOptions) pipelineOptions() (pipeline.Options, error) {
	if !slices.Contains(reporter.Formats, o.format) {
		return pipeline.Options{}, fmt.Errorf("unknown format %q (want %s)", o.format, strings.Join(reporter.Formats, ", "))
	}
	kind, err := evaluator.ParseKind(o.evaluator)
	if err != nil {
		return pipeline.Options{}, err
	}
	po := o.po
	po.Evaluator, po.Timeline = kind, o.format == "html"
	if !o.quiet {
		po.Progress = progress.New(o.stderr)
	}
	return po, nil
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
	outputFlag(f, &o.stats, "stats", "", outFile, "write the (partial) stats to this Arrow file instead of a report; no filtering (merge with augur merge, report with augur report)")
	return cmd
}

// runInfer writes the report of o.spec over o.trace, or with --stats the
// partial stats of one shard.
func runInfer(ctx context.Context, o *inferOptions) error {
	if o.stats != "" || o.sharded {
		if o.po.Baseline != "" {
			return fmt.Errorf("--baseline does not apply to shards: use it with augur report")
		}
		return runShard(ctx, o)
	}
	po, err := o.pipelineOptions()
	if err != nil {
		return err
	}
	rep, err := pipeline.Infer(ctx, o.spec, o.trace, po)
	if err != nil {
		return err
	}
	return rep.WriteFile(o.format, o.po.Output, o.stdout)
}

// runShard evaluates one shard of the trace, without filtering, and
// writes its partial stats.
func runShard(ctx context.Context, o *inferOptions) error {
	if o.stats == "" {
		return fmt.Errorf("sharded evaluation writes partial stats: give --stats PART.arrow")
	}
	if o.po.Output != "" {
		return fmt.Errorf("--output is for reports; with --stats, infer writes stats (make the report with augur report)")
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
