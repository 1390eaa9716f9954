package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/progress"
	"github.com/augur-dev/augur/pipeline"
)

// explainOptions are augur explain's arguments and flags.
type explainOptions struct {
	spec, trace string
	properties  []string
	format      string
	quiet       bool
	po          pipeline.Options // but Progress

	stdout, stderr io.Writer
}

// newExplainCmd returns augur explain; runF, if not nil, runs instead of
// runExplain, for tests of the flags.
func newExplainCmd(runF func(*explainOptions) error) *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain SPEC TRACE PROPERTY...",
		Short: "Say why a property is where it is in the report, or absent",
		Args:  cobra.MinimumNArgs(3),
		RunE: runE(o, runF, runExplain, func(cmd *cobra.Command, args []string) {
			o.spec, o.trace, o.properties = args[0], args[1], args[2:]
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
		}),
	}
	f, po := cmd.Flags(), &o.po
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	cliflag.IntP(f, &po.Top, "top", "", 0, 0, "entries per list of the report the rank is in (default: the spec's report.size)")
	evaluatorFlag(f, &po.Evaluator)
	cliflag.Workers(f, &po.Workers)
	f.BoolVar(&po.NoFilter, "no-filter", false, "evaluate every property on every snapshot (no pruning)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
	f.StringArrayVar(&po.Baselines, "baseline", nil, "a trace of a run believed good, as for augur infer (repeatable)")
	f.StringVar(&po.OnlyTag, "only-tag", "", "evaluate only the snapshots carrying this tag, as for augur infer")
	return cmd
}

// runExplain writes the explanations of o.properties in the report of
// o.spec over o.trace, from one run: in text, one after another, a blank
// line between; in JSON, the explanation of one property as an object,
// of several as an array of them.
func runExplain(ctx context.Context, o *explainOptions) error {
	if o.format != "text" && o.format != "json" {
		return fmt.Errorf("unknown format %q (want text or json)", o.format)
	}
	xs, err := pipeline.ExplainAll(ctx, o.spec, o.trace, o.properties, o.pipelineOptions())
	if err != nil {
		return err
	}
	if o.format == "json" {
		if len(xs) == 1 {
			return xs[0].WriteJSON(o.stdout)
		}
		return pipeline.WriteExplanationsJSON(o.stdout, xs)
	}
	for i, x := range xs {
		if i > 0 {
			if _, err := io.WriteString(o.stdout, "\n"); err != nil {
				return err
			}
		}
		if err := x.WriteText(o.stdout); err != nil {
			return err
		}
	}
	return nil
}

// pipelineOptions returns the pipeline options o asks for. How far
// evaluation is shows on a terminal only, so that a log keeps the
// explanation alone.
func (o *explainOptions) pipelineOptions() pipeline.Options {
	po := o.po
	if pr := progress.OnTerminal(o.stderr); pr != nil && !o.quiet {
		po.Progress = pr
	}
	return po
}
