package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/progress"
	"github.com/augur-dev/augur/learn"
)

// learnOptions are augur learn's arguments and flags.
type learnOptions struct {
	spec   string
	traces []string
	output string
	vet    []string
	quiet  bool
	lo     learn.Options // but Progress

	stdout, stderr io.Writer
}

// newLearnCmd returns augur learn; runF, if not nil, runs instead of
// runLearn.
func newLearnCmd(runF func(*learnOptions) error) *cobra.Command {
	o := &learnOptions{}
	cmd := &cobra.Command{
		Use:   "learn SPEC GOOD.trace… -o CHECKS.yaml",
		Short: "Learn the checks that guard a system from runs believed good",
		Args:  cobra.MinimumNArgs(2),
		RunE: runE(o, runF, runLearn, func(cmd *cobra.Command, args []string) {
			o.spec, o.traces = args[0], args[1:]
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
		}),
	}
	f := cmd.Flags()
	outputFlag(f, &o.output, "output", "o", outFile, "checks file to write")
	f.StringSliceVar(&o.vet, "vet", nil, "runs believed good, held out from learning: drop the checks that would refuse one of their changes")
	f.Float64Var(&o.lo.MinSupport, "min-support", learn.DefaultMinSupport, "least share of each run's snapshots at which a property is non-vacuous")
	f.Float64Var(&o.lo.Almost, "almost", 0, "also learn the properties violated in at most this share of each run's non-vacuous snapshots")
	f.StringSliceVar(&o.lo.Iterate, "iterate", nil, "containers of the spec to quantify over besides those its generate.iterate names (the learned pool only)")
	evaluatorFlag(f, &o.lo.Evaluator)
	cliflag.Workers(f, &o.lo.Workers)
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
	return cmd
}

// runLearn learns the checks, vets them and writes the checks file.
func runLearn(ctx context.Context, o *learnOptions) error {
	if o.output == "" {
		return fmt.Errorf("learn: -o CHECKS.yaml is required")
	}
	if !(o.lo.MinSupport > 0) { // Options' zero is the default; a 0 given is not
		return fmt.Errorf("learn: --min-support %g: want a share in (0, 1]", o.lo.MinSupport)
	}
	lo := o.lo
	// How far evaluation is shows on a terminal only, so that a log keeps
	// the counts alone.
	if pr := progress.OnTerminal(o.stderr); pr != nil && !o.quiet {
		lo.Progress = pr
	}
	r, err := learn.Learn(ctx, o.spec, o.traces, lo)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "%d properties generated; %d hold in all %d runs with enough support; %d of them true by the spec alone, %d implied by a simpler one or or-effects, %d grouped under another; %d checks\n",
		r.Generated, r.Held, len(r.Runs), r.BySpec, r.Implied, r.Grouped, len(r.Checks))
	if len(r.Checks) == 0 {
		return fmt.Errorf("learn: nothing learned: no property holds in every run with enough support")
	}
	f := r.File(o.spec, o.output)
	if len(o.vet) > 0 {
		v, err := learn.Vet(ctx, r.Spec, f, o.vet)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.stdout, "vetted against %d runs (%d changes): %d checks refuse a legitimate change, dropped\n", len(o.vet), v.Changes, len(v.Refused))
		for _, ref := range v.Refused {
			fmt.Fprintf(o.stdout, "  %s: %s: %s, first %s\n", ref.Check, ref.Property, plural(int64(ref.Refusals), "change"), ref.First)
		}
		r.Drop(v.Names())
		if len(r.Checks) == 0 {
			return fmt.Errorf("learn: every check refuses a change of the vetting runs")
		}
		f = r.File(o.spec, o.output)
	}
	if err := f.Write(o.output); err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "%s: %d checks\n", o.output, len(f.Checks))
	return nil
}
