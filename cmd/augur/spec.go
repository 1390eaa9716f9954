package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/safefile"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

func newSpecCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "spec",
		Short: "Write and validate specs",
	}
	cmd.AddCommand(newSpecInitCmd(), newSpecCheckCmd())
	return cmd
}

func newSpecInitCmd() *cobra.Command {
	var (
		out   string
		force bool
	)
	cmd := &cobra.Command{
		Use:   "init TRACE",
		Short: "Write a starter spec for a trace",
		Long: `Init writes a starter spec from the trace's variables: physical types as
semantic types, and strings with few distinct values as enums. Edit it: give
values that may be compared the same semantic type (NodeID, Term, …), pick the
containers to iterate, and add derived variables and predicates.`,
		Example: `  augur spec init run.trace > spec.yaml
  augur spec init run.trace -o spec.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			tr, err := trace.Open(args[0])
			if err != nil {
				return err
			}
			defer tr.Close()
			var b bytes.Buffer
			if err := specs.Init(tr, &b); err != nil {
				return err
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(b.Bytes())
				return err
			}
			err = safefile.Write(out, 0o644, force, func(w io.Writer) error {
				_, err := w.Write(b.Bytes())
				return err
			})
			if errors.Is(err, safefile.ErrExists) {
				return fmt.Errorf("%w (use --force to replace it)", err)
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the spec to this file instead of stdout")
	cmd.Flags().BoolVarP(&force, "force", "f", false, "replace an existing spec file")
	return cmd
}

func newSpecCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check SPEC [TRACE]",
		Short: "Validate a spec, and that it fits a trace",
		Example: `  augur spec check spec.yaml
  augur spec check spec.yaml run.trace`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var (
				spec *specs.Spec
				err  error
			)
			if len(args) == 2 {
				var tr *trace.Trace
				if spec, tr, err = pipeline.OpenFitting(args[0], args[1]); err != nil {
					return err
				}
				tr.Close()
			} else if spec, err = specs.Load(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (%d variables, %d derived, %d predicates)\n",
				args[0], len(spec.Vars), len(spec.Derived), len(spec.Predicates))
			return nil
		},
	}
}
