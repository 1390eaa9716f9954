package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
)

func newSpecCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "spec",
		Short: "Write and validate specs",
	}
	cmd.AddCommand(newSpecInitCmd(nil), newSpecCheckCmd(nil))
	return cmd
}

// specInitOptions are augur spec init's arguments and flags.
type specInitOptions struct {
	trace  string
	output string
	stdout io.Writer
}

// newSpecInitCmd returns augur spec init; runF, if not nil, runs instead
// of runSpecInit.
func newSpecInitCmd(runF func(*specInitOptions) error) *cobra.Command {
	o := &specInitOptions{}
	cmd := &cobra.Command{
		Use:   "init TRACE",
		Short: "Write a starter spec for a trace",
		Args:  cobra.ExactArgs(1),
		RunE: runE(o, runF, runSpecInit, func(cmd *cobra.Command, args []string) {
			o.trace, o.stdout = args[0], cmd.OutOrStdout()
		}),
	}
	outputFlag(cmd.Flags(), &o.output, "output", "o", outFile, "write the spec to this file instead of stdout")
	deprecateForce(cmd.Flags())
	return cmd
}

func runSpecInit(ctx context.Context, o *specInitOptions) error {
	return spectrace.InitFile(ctx, o.trace, o.output, o.stdout)
}

// specCheckOptions are augur spec check's arguments.
type specCheckOptions struct {
	spec, trace string // trace is optional
	stdout      io.Writer
}

// newSpecCheckCmd returns augur spec check; runF, if not nil, runs
// instead of runSpecCheck.
func newSpecCheckCmd(runF func(*specCheckOptions) error) *cobra.Command {
	o := &specCheckOptions{}
	return &cobra.Command{
		Use:   "check SPEC [TRACE]",
		Short: "Validate a spec, and that it fits a trace",
		Args:  cobra.RangeArgs(1, 2),
		RunE: runE(o, runF, runSpecCheck, func(cmd *cobra.Command, args []string) {
			o.spec, o.stdout = args[0], cmd.OutOrStdout()
			if len(args) == 2 {
				o.trace = args[1]
			}
		}),
	}
}

func runSpecCheck(_ context.Context, o *specCheckOptions) error {
	var spec *specs.Spec
	if o.trace != "" {
		s, tr, err := pipeline.OpenFitting(o.spec, o.trace)
		if err != nil {
			return err
		}
		tr.Close()
		spec = s
	} else {
		s, err := specs.Load(o.spec)
		if err != nil {
			return err
		}
		spec = s
	}
	if len(spec.Vars) == 0 && len(spec.Derived) == 0 {
		// Loadable, but infer would refuse it: there is nothing to
		// generate properties over.
		return fmt.Errorf("%s declares no variables; declare the state variables to infer over (augur spec init writes them from a trace)", o.spec)
	}
	fmt.Fprintf(o.stdout, "%s: ok (%d variables, %d derived, %d predicates)\n",
		o.spec, len(spec.Vars), len(spec.Derived), len(spec.Predicates))
	return nil
}
