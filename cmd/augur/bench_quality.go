package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/bench/planted"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/clobber"
	"github.com/augur-dev/augur/internal/progress"
)

// benchQualityOptions are augur bench quality's flags.
type benchQualityOptions struct {
	seeds          string
	systems        int
	length         string
	families       string
	format         string
	workers        int
	keep           string
	spec           string
	baseline       bool
	goodRuns       int
	stdout, stderr io.Writer
}

// newBenchQualityCmd returns augur bench quality; runF, if not nil, runs
// instead of runBenchQuality.
func newBenchQualityCmd(runF func(*benchQualityOptions) error) *cobra.Command {
	o := &benchQualityOptions{}
	cmd := &cobra.Command{
		Use:   "quality",
		Short: "Score the reporter on generated systems with planted almost-invariants",
		Args:  cobra.NoArgs,
		RunE: runE(o, runF, runBenchQuality, func(cmd *cobra.Command, args []string) {
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.seeds, "seeds", "dev", "seeds: dev (from 1), heldout (from 1,000,001) or a range A-B")
	cliflag.IntP(f, &o.systems, "systems", "", 50, 1, "seeds to take from dev or heldout, of which --family keeps its families'")
	f.StringVar(&o.length, "length", "short", "trace lengths: short (2,000 to 5,000 snapshots) or long (20,000 to 50,000)")
	f.StringVar(&o.families, "family", "log,pb,mesh,overlay", "comma-separated families whose seeds run: log, pb, mesh, overlay")
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	cliflag.Workers(f, &o.workers)
	specFlag(f, &o.spec)
	f.BoolVar(&o.baseline, "baseline", false, "infer each report with the system's good run as the baseline: the same system run again with other random choices and nothing planted; a planted property then counts within the top planted+2 of the almost-invariants or of the baseline's invariants it breaks, and its violation events here and in the good runs are put to the report's rate test (told apart, or alike)")
	cliflag.IntP(f, &o.goodRuns, "good-runs", "", 1, 1, "with --baseline, the good runs of each system to record and use as the baseline, each with its own random choices")
	outputFlag(f, &o.keep, "keep", "", outDir, "keep each system's spec, trace and JSON report in DIR/SEED")
	return cmd
}

// runBenchQuality runs the benchmark and returns errViolations when it
// is below target.
func runBenchQuality(ctx context.Context, o *benchQualityOptions) error {
	if o.format != "text" && o.format != "json" {
		return fmt.Errorf("unknown format %q (want text or json)", o.format)
	}
	if err := clobber.CheckDir(o.keep); err != nil {
		return err
	}
	seeds, err := planted.ParseSeeds(o.seeds, o.systems)
	if err != nil {
		return err
	}
	length, err := planted.ParseLength(o.length)
	if err != nil {
		return err
	}
	fams, err := planted.ParseFamilies(o.families)
	if err != nil {
		return err
	}
	initSpec, err := parseSpecChoice(o.spec)
	if err != nil {
		return err
	}
	if o.goodRuns != 1 && !o.baseline {
		return errors.New("--good-runs without --baseline: the good runs are the baseline")
	}
	if seeds = planted.FilterFamilies(seeds, fams); len(seeds) == 0 {
		return fmt.Errorf("no seed of %s among seeds %s", o.families, o.seeds)
	}
	opts := planted.RunOptions{Generate: planted.Options{Length: length}, Families: fams, Workers: o.workers, Keep: o.keep, InitSpec: initSpec}
	if o.baseline {
		opts.GoodRuns = o.goodRuns
	}
	// How far the systems are shows on a terminal only, so that a log
	// keeps the table alone.
	pr := progress.OnTerminal(o.stderr)
	pr.Start("systems", len(seeds))
	opts.Progress = func(done, total int, _ *planted.Result) { pr.Update(done, total) }
	sum, err := planted.Run(ctx, seeds, opts)
	pr.Stop()
	if err != nil {
		return err
	}
	return writeScored(o.stdout, o.format, sum)
}

// scored is the summary of a quality benchmark: text for people, JSON for
// machines, and whether it meets its targets.
type scored interface {
	WriteText(io.Writer) error
	WriteJSON(io.Writer) error
	Pass() bool
}

// writeScored writes s in format (text or json) and returns errViolations
// when s is below target, so that the command exits 1.
func writeScored(w io.Writer, format string, s scored) error {
	var err error
	if format == "json" {
		err = s.WriteJSON(w)
	} else {
		err = s.WriteText(w)
	}
	if err == nil && !s.Pass() {
		err = errViolations
	}
	return err
}
