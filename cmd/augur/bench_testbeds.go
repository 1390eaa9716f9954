package main

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/bench/bugs"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/clobber"
	"github.com/augur-dev/augur/internal/progress"
)

// benchTestbedsOptions are augur bench testbeds' flags.
type benchTestbedsOptions struct {
	seeds          string
	testbeds       []string
	steps          int
	format         string
	workers        int
	keep           string
	reuse          string
	spec           string
	stdout, stderr io.Writer
}

// newBenchTestbedsCmd returns augur bench testbeds; runF, if not nil,
// runs instead of runBenchTestbeds.
func newBenchTestbedsCmd(runF func(*benchTestbedsOptions) error) *cobra.Command {
	o := &benchTestbedsOptions{}
	cmd := &cobra.Command{
		Use:   "testbeds",
		Short: "Score the reporter on the testbeds' injected bugs",
		Args:  cobra.NoArgs,
		RunE: runE(o, runF, runBenchTestbeds, func(cmd *cobra.Command, args []string) {
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.seeds, "seeds", "dev", "seeds: dev (1 to 10), heldout (41 to 50) or a range A-B")
	f.StringSliceVar(&o.testbeds, "testbeds", nil, "the testbeds to run (default: all)")
	cliflag.IntP(f, &o.steps, "steps", "", bugs.DefaultSteps, 1, "snapshots per run")
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	cliflag.Workers(f, &o.workers)
	outputFlag(f, &o.keep, "keep", "", outDir, "keep each run's spec, trace and JSON reports in DIR")
	specFlag(f, &o.spec)
	outputFlag(f, &o.reuse, "reuse", "", outDir, "as --keep, and keep each run's stats in DIR: a later run with --reuse DIR reports from them without evaluating when spec and trace are unchanged")
	return cmd
}

// runBenchTestbeds runs the benchmark and returns errViolations when
// plain augur infer is below target.
func runBenchTestbeds(ctx context.Context, o *benchTestbedsOptions) error {
	if o.format != "text" && o.format != "json" {
		return fmt.Errorf("unknown format %q (want text or json)", o.format)
	}
	if o.keep != "" && o.reuse != "" {
		return fmt.Errorf("--keep and --reuse both keep the runs: give one")
	}
	keep := cmp.Or(o.reuse, o.keep)
	if err := clobber.CheckDir(keep); err != nil {
		return err
	}
	seeds, err := bugs.ParseSeeds(o.seeds)
	if err != nil {
		return err
	}
	initSpec, err := parseSpecChoice(o.spec)
	if err != nil {
		return err
	}
	// The runs take minutes: how far they are shows on a terminal only,
	// so that a log keeps the table alone.
	pr := progress.OnTerminal(o.stderr)
	pr.Start("runs", 0)
	sum, err := bugs.Run(ctx, bugs.Options{
		Seeds: seeds, Testbeds: o.testbeds, Steps: o.steps, Workers: o.workers, Keep: keep, Reuse: o.reuse != "",
		InitSpec: initSpec,
		Progress: pr.Update,
	})
	pr.Stop()
	if err != nil {
		return err
	}
	return writeScored(o.stdout, o.format, sum)
}
