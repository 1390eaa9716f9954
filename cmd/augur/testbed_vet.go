package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/bench/avoid"
	"github.com/augur-dev/augur/bench/bugs"
	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/learn"
	"github.com/augur-dev/augur/testbeds/catalog"
)

// testbedVetOptions are augur testbed vet's arguments and flags.
type testbedVetOptions struct {
	name, checks, output string
	seeds                string
	steps                int
	stdout               io.Writer
}

// newTestbedVetCmd returns augur testbed vet; runF, if not nil, runs
// instead of runTestbedVet.
func newTestbedVetCmd(runF func(*testbedVetOptions) error) *cobra.Command {
	o := &testbedVetOptions{}
	cmd := &cobra.Command{
		Use:   "vet NAME CHECKS -o VETTED.yaml",
		Short: "Drop the checks that refuse a change of a guarded bug-free run",
		Args:  cobra.ExactArgs(2),
		RunE: runE(o, runF, runTestbedVet, func(cmd *cobra.Command, args []string) {
			o.name, o.checks, o.stdout = args[0], args[1], cmd.OutOrStdout()
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.seeds, "seeds", "", "the bug-free seeds to guard, a range A-B of development seeds")
	cliflag.IntP(f, &o.steps, "steps", "", avoid.DefaultSteps, 1, "snapshots per run")
	outputFlag(f, &o.output, "output", "o", outFile, "the checks file to write, the checks that refused nothing")
	return cmd
}

func runTestbedVet(ctx context.Context, o *testbedVetOptions) error {
	if o.output == "" || o.seeds == "" {
		return fmt.Errorf("testbed vet: --seeds A-B and -o VETTED.yaml are required")
	}
	seeds, err := bugs.ParseSeeds(o.seeds)
	if err != nil {
		return err
	}
	tb, err := catalog.Lookup(o.name)
	if err != nil {
		return err
	}
	f, err := checker.Load(o.checks)
	if err != nil {
		return err
	}
	spec := f.Spec
	dropped, err := avoid.Vet(ctx, tb, f, seeds, o.steps)
	if err != nil {
		return err
	}
	for _, d := range dropped {
		fmt.Fprintf(o.stdout, "round %d: %s: %s: refused %s\n", d.Round, d.Check, d.Property, plural(int64(d.Refused), "change"))
	}
	if len(f.Checks) == 0 {
		return fmt.Errorf("testbed vet: every check refuses a change of a bug-free run")
	}
	f.Spec = learn.SpecPath(spec, o.output)
	if err := f.Write(o.output); err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "%s: %d checks (%d dropped)\n", o.output, len(f.Checks), len(dropped))
	return nil
}
