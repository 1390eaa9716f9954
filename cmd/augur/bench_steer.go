package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/bench/avoid"
	"github.com/augur-dev/augur/bench/bugs"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/progress"
	"github.com/augur-dev/augur/testbeds"
)

// benchSteerOptions are augur bench steer's flags.
type benchSteerOptions struct {
	seeds                string
	testbeds             []string
	promoted             []string
	modes                []string
	checks, format       string
	steps, workers       int
	predictEvery, budget int
	stdout, stderr       io.Writer
}

// newBenchSteerCmd returns augur bench steer; runF, if not nil, runs
// instead of runBenchSteer.
func newBenchSteerCmd(runF func(*benchSteerOptions) error) *cobra.Command {
	o := &benchSteerOptions{}
	cmd := &cobra.Command{
		Use:   "steer",
		Short: "Measure how much of the testbeds' bugs execution steering avoids",
		Args:  cobra.NoArgs,
		RunE: runE(o, runF, runBenchSteer, func(cmd *cobra.Command, args []string) {
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.seeds, "seeds", "dev", "seeds: dev (1 to 10), heldout (41 to 50) or a range A-B")
	f.StringSliceVar(&o.testbeds, "testbeds", nil, "the testbeds to run (default: chord, paxos, randtree)")
	f.StringSliceVar(&o.promoted, "promoted", nil, "NAME=FILE or NAME/BUG=FILE: also guard and steer testbed NAME (with BUG) by the checks in FILE (promoted, or learned by augur learn)")
	f.StringSliceVar(&o.modes, "modes", nil, "the modes to run besides plain (default: all that apply): guard, steer, predict, promoted, promoted-guard")
	f.StringVar(&o.checks, "checks", "specs", "the directory of the hand-written checks, NAME.checks.yaml")
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	cliflag.IntP(f, &o.steps, "steps", "", avoid.DefaultSteps, 1, "snapshots per run")
	cliflag.IntP(f, &o.workers, "workers", "", 1, 1, "runs at once")
	cliflag.IntP(f, &o.predictEvery, "predict-every", "", 0, 0, fmt.Sprintf("steps between predictions (0: %d)", testbeds.DefaultPredictEvery))
	cliflag.IntP(f, &o.budget, "budget", "", 0, 0, fmt.Sprintf("states a prediction explores (0: %d)", testbeds.DefaultSteerStates))
	return cmd
}

// runBenchSteer runs the benchmark and returns errViolations when
// steering with the hand-written checks misses a target.
func runBenchSteer(ctx context.Context, o *benchSteerOptions) error {
	if o.format != "text" && o.format != "json" {
		return fmt.Errorf("unknown format %q (want text or json)", o.format)
	}
	seeds, err := bugs.ParseSeeds(o.seeds)
	if err != nil {
		return err
	}
	promoted := map[string]string{}
	for _, p := range o.promoted {
		name, file, ok := strings.Cut(p, "=")
		if !ok || name == "" || file == "" {
			return fmt.Errorf("--promoted %q: want NAME=FILE", p)
		}
		promoted[name] = file
	}
	var modes []avoid.Mode
	for _, s := range o.modes {
		m, err := avoid.ParseMode(s)
		if err != nil {
			return fmt.Errorf("--modes: %w", err)
		}
		modes = append(modes, m)
	}
	// The runs take minutes: how far they are shows on a terminal only,
	// so that a log keeps the table alone.
	pr := progress.OnTerminal(o.stderr)
	pr.Start("runs", 0)
	runs, err := avoid.RunAll(ctx, avoid.Options{Seeds: seeds, Testbeds: o.testbeds, Steps: o.steps, Checks: o.checks,
		Promoted: promoted, Modes: modes, PredictEvery: o.predictEvery, Budget: o.budget, Workers: o.workers, Progress: pr.Update})
	pr.Stop()
	if err != nil {
		return err
	}
	if o.format == "json" {
		return avoid.WriteJSON(o.stdout, runs)
	}
	rows := avoid.Rows(runs)
	if err := avoid.WriteText(o.stdout, rows); err != nil {
		return err
	}
	if !avoid.Met(rows) {
		return errViolations
	}
	return nil
}
