package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/pipeline"
)

// checkOptions are augur check's arguments and flags.
type checkOptions struct {
	opts   pipeline.CheckOptions
	stdout io.Writer
}

// newCheckCmd returns augur check; runF, if not nil, runs instead of
// runCheck.
func newCheckCmd(runF func(*checkOptions) error) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check CHECKS TRACE",
		Short: "Check every snapshot of a trace against a checks file",
		Args:  cobra.ExactArgs(2),
		RunE: runE(o, runF, runCheck, func(cmd *cobra.Command, args []string) {
			o.opts.Checks, o.opts.Trace, o.stdout = args[0], args[1], cmd.OutOrStdout()
			if o.opts.MaxWitnesses == 0 {
				o.opts.MaxWitnesses = pipeline.NoWitnesses // --max-witnesses 0: none
			}
		}),
	}
	fl, co := cmd.Flags(), &o.opts
	fl.StringVar(&co.Spec, "spec", "", "spec the checks are written against")
	fl.StringVar(&co.Format, "format", "text", "output format: text or json")
	cliflag.IntP(fl, &co.MaxWitnesses, "max-witnesses", "", pipeline.DefaultCheckWitnesses, 0, "violating snapshots shown per check, with their first violating binding (all are counted)")
	cliflag.Workers(fl, &co.Workers)
	return cmd
}

// runCheck prints the violations of the checks in the trace, and
// returns errViolations when there are any.
func runCheck(ctx context.Context, o *checkOptions) error {
	violated, err := pipeline.CheckFiles(ctx, o.stdout, o.opts)
	if err == nil && violated {
		err = errViolations
	}
	return err
}
