package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/trace"
)

// checkOptions are augur check's arguments and flags.
type checkOptions struct {
	checks, trace string
	spec, format  string
	maxWitnesses  int
	workers       int
	stdout        io.Writer
}

// newCheckCmd returns augur check; runF, if not nil, runs instead of
// runCheck.
func newCheckCmd(runF func(*checkOptions) error) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check CHECKS TRACE",
		Short: "Check every snapshot of a trace against a checks file",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.checks, o.trace, o.stdout = args[0], args[1], cmd.OutOrStdout()
			if runF != nil {
				return runF(o)
			}
			return runCheck(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.spec, "spec", "", "spec the checks are written against")
	fl.StringVar(&o.format, "format", "text", "output format: text or json")
	intFlagP(fl, &o.maxWitnesses, "max-witnesses", "", 20, 0, "violating snapshots shown per check, with their first violating binding (all are counted)")
	intFlagP(fl, &o.workers, "workers", "", 0, 0, "goroutines evaluating snapshots (default: number of CPUs)")
	return cmd
}

// runCheck prints the violations of o.checks in o.trace, and returns
// errViolations when there are any.
func runCheck(ctx context.Context, o *checkOptions) error {
	if o.format != "text" && o.format != "json" {
		return fmt.Errorf("unknown format %q (want text or json)", o.format)
	}
	maxWitnesses := o.maxWitnesses
	if maxWitnesses == 0 {
		maxWitnesses = -1 // none shown; every violation is still counted
	}
	f, err := checker.Load(o.checks)
	if err != nil {
		return err
	}
	tr, err := trace.Open(o.trace)
	if err != nil {
		return err
	}
	defer tr.Close()
	specPath := o.spec
	if specPath == "" {
		specPath = f.Spec
	}
	spec, err := checker.SpecFor(specPath, tr)
	if err != nil {
		return err
	}
	results, err := checker.Run(ctx, tr, spec, f, maxWitnesses, o.workers)
	if err != nil {
		return err
	}
	if o.format == "json" {
		err = checker.WriteJSON(o.stdout, results)
	} else {
		err = checker.WriteText(o.stdout, o.trace, tr.NumSnapshots(), results)
	}
	if err != nil {
		return err
	}
	for i := range results {
		if results[i].Failed() {
			return errViolations
		}
	}
	return nil
}
