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

	"github.com/augur-dev/augur/bench/avoid"
	"github.com/augur-dev/augur/bench/bugs"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/progress"
	"github.com/augur-dev/augur/learn"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
)

// learnOptions are augur learn's arguments and flags.
type learnOptions struct {
	spec   string
	traces []string
	output string
	vet    []string
	quiet  bool
	// stalls names the testbed (NAME or NAME/BUG) whose guarded runs of
	// stallSeeds, stallSteps snapshots each, must not stall.
	stalls, stallSeeds string
	stallSteps         int
	lo                 learn.Options // but Progress

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
	f.StringVar(&o.stalls, "stalls", "", "NAME or NAME/BUG: guard runs of testbed NAME (with BUG) and replace each check that stalls them by its strongest learned weakening that does not")
	f.StringVar(&o.stallSeeds, "stall-seeds", "dev", "the seeds of --stalls: dev (1 to 10) or a range A-B of development seeds")
	cliflag.IntP(f, &o.stallSteps, "stall-steps", "", avoid.DefaultSteps, 1, "snapshots per run of --stalls")
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
	var st *stallTarget
	if o.stalls != "" {
		var err error
		if st, err = newStallTarget(o.stalls, o.stallSeeds); err != nil {
			return err
		}
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
	if st != nil {
		if err := vetStalls(ctx, o, r, st); err != nil {
			return err
		}
		f = r.File(o.spec, o.output)
	}
	if err := f.Write(o.output); err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "%s: %d checks\n", o.output, len(f.Checks))
	return nil
}

// stallTarget is the system --stalls guards: a testbed, with a bug or
// none, and the seeds of its runs.
type stallTarget struct {
	tb    testbeds.Testbed
	bug   string
	seeds []uint64
}

// newStallTarget parses --stalls NAME[/BUG] and --stall-seeds.
func newStallTarget(stalls, seeds string) (*stallTarget, error) {
	name, bug, _ := strings.Cut(stalls, "/")
	tb, err := catalog.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("--stalls: %w", err)
	}
	if bug != "" && !slices.Contains(tb.Bugs, bug) {
		return nil, fmt.Errorf("--stalls: %s has no bug %q (it has %s)", name, bug, strings.Join(tb.Bugs, ", "))
	}
	st := &stallTarget{tb: tb, bug: bug}
	if st.seeds, err = bugs.ParseSeeds(seeds); err != nil {
		return nil, fmt.Errorf("--stall-seeds: %w", err)
	}
	return st, nil
}

// vetStalls replaces the checks of r that stall guarded runs of the
// testbed st (learn.VetStalls) and says which.
func vetStalls(ctx context.Context, o *learnOptions, r *learn.Result, st *stallTarget) error {
	tb, bug, seeds := st.tb, st.bug, st.seeds
	if tb.Name != r.Spec.System {
		return fmt.Errorf("--stalls: the checks are learned for %s, not testbed %s", r.Spec.System, tb.Name)
	}
	dir, err := os.MkdirTemp("", "augur-learn-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	trace := filepath.Join(dir, "run.trace")
	run := func(ctx context.Context, checks string, seed uint64) (learn.Outcome, error) {
		cfg := testbeds.Config{Nodes: tb.Nodes, Steps: o.stallSteps, Seed: seed, Faults: tb.Faults, Bug: bug,
			ResetAfter: testbeds.ResetAtViolation, Guard: checks, Overwrite: true}
		stats, err := tb.Run(ctx, cfg, trace)
		if err != nil {
			return learn.Outcome{}, fmt.Errorf("%s seed %d: %w", o.stalls, seed, err)
		}
		return learn.Outcome{Progress: stats.Progress, Steps: stats.Steps, BlockedBy: stats.BlockedBy}, nil
	}
	lo := o.lo
	lo.Progress = nil
	fmt.Fprintf(o.stdout, "guarding %d runs of %s (seeds %s) with the checks:\n", len(seeds), o.stalls, o.stallSeeds)
	us, err := learn.VetStalls(ctx, r, o.spec, learn.Stalls{Seeds: seeds, Run: run, Weaken: lo, Done: func(u learn.Unstalled) {
		what := fmt.Sprintf("dropped (none of %s kept from stalling)", plural(int64(u.Tried), "weakening"))
		if u.By != nil {
			what = fmt.Sprintf("replaced by %s (%.0f%% of its watch kept, %d tried)", u.By.Text, 100*u.By.Watched, u.Tried)
		}
		fmt.Fprintf(o.stdout, "  round %d: %s: %s: stalled %s, refusing %s; %s\n", u.Round, u.Check, u.Property,
			plural(int64(u.Stalled), "run"), plural(int64(u.Refused), "change"), what)
	}})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "%d checks stalled the guarded runs\n", len(us))
	if len(r.Checks) == 0 {
		return fmt.Errorf("learn: every check stalls the guarded runs of %s", o.stalls)
	}
	return nil
}
