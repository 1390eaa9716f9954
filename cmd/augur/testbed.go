package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/progress"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
)

func newTestbedCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testbed",
		Short: "Run distributed systems under fault injection and record their traces",
	}
	cmd.AddCommand(newTestbedListCmd(), newTestbedRunCmd(nil), newTestbedVetCmd(nil))
	return cmd
}

func newTestbedListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the testbeds and their injectable bugs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			catalog.WriteList(cmd.OutOrStdout())
			return nil
		},
	}
}

// testbedRunOptions are augur testbed run's arguments and flags.
type testbedRunOptions struct {
	name        string
	cfg         testbeds.Config
	nodesGiven  bool // --nodes was given; else the testbed's default
	faults, out string
	stderr      io.Writer
}

// newTestbedRunCmd returns augur testbed run; runF, if not nil, runs
// instead of runTestbed.
func newTestbedRunCmd(runF func(*testbedRunOptions) error) *cobra.Command {
	o := &testbedRunOptions{}
	cmd := &cobra.Command{
		Use:   "run NAME -o OUT.trace",
		Short: "Run a testbed and write its trace",
		Args:  cobra.ExactArgs(1),
		RunE: runE(o, runF, runTestbed, func(cmd *cobra.Command, args []string) {
			o.name, o.nodesGiven, o.stderr = args[0], cmd.Flags().Changed("nodes"), cmd.ErrOrStderr()
			if o.cfg.ResetAfter == 0 {
				o.cfg.ResetAfter = testbeds.ResetAtViolation // --reset-after 0: none after the violation
			}
		}),
	}
	f := cmd.Flags()
	cliflag.IntP(f, &o.cfg.Nodes, "nodes", "", 0, 1, "number of nodes (default: the testbed's, see augur testbed list)")
	cliflag.IntP(f, &o.cfg.Steps, "steps", "", testbeds.DefaultSteps, 1, "snapshots to record, one per scheduler event (warm-ups are not recorded)")
	f.Uint64Var(&o.cfg.Seed, "seed", 1, "seed of the run")
	f.BoolVar(&o.cfg.RecordWarmup, "record-warmup", false, "record each episode's warm-up too, the boot included (runs to learn checks from)")
	f.StringVar(&o.faults, "faults", "", "faults over the testbed's defaults: name=value,… (drop, dup, reorder, maxdelay, partition, heal, crash, crashat, down) or none")
	cliflag.IntP(f, &o.cfg.ResetAfter, "reset-after", "", testbeds.DefaultResetAfter, -1, "snapshots recorded after a ground-truth violation before a fresh system boots (-1: never)")
	f.StringVar(&o.cfg.Bug, "bug", "", "the bug to inject (see augur testbed list)")
	f.StringVar(&o.cfg.Guard, "guard", "", "a checks file every change of a node's state must pass (CrystalBall's immediate safety check)")
	f.StringVar(&o.cfg.Steer, "steer", "", "a checks file that steers the run (CrystalBall's execution steering; Chord, Paxos, RandTree)")
	cliflag.IntP(f, &o.cfg.PredictEvery, "predict-every", "", 0, 0, fmt.Sprintf("with --steer: steps between predictions (0: %d)", testbeds.DefaultPredictEvery))
	f.BoolVar(&o.cfg.SteerAlone, "no-fallback", false, "with --steer: no immediate safety check as the prediction's fallback")
	cliflag.IntP(f, &o.cfg.SteerStates, "budget", "", 0, 0, fmt.Sprintf("with --steer: states a prediction explores, a count rather than a time so that the run repeats from its seed (0: %d)", testbeds.DefaultSteerStates))
	outputFlag(f, &o.out, "output", "o", outTrace, "the trace to write")
	deprecateForce(f)
	return cmd
}

func runTestbed(ctx context.Context, o *testbedRunOptions) error {
	cfg := o.cfg
	if !o.nodesGiven {
		cfg.Nodes = 0 // the testbed's
	}
	// A long run (steered runs take minutes) shows how far it is, on a
	// terminal only: a log keeps the stats alone.
	pr := progress.OnTerminal(o.stderr)
	if pr != nil {
		pr.Start("recording", cfg.Steps)
		cfg.OnRecord = func(n int) { pr.Update(n, cfg.Steps) }
	}
	st, err := catalog.Run(ctx, o.name, o.out, cfg, o.faults)
	pr.Stop() // before the stats, under the bar
	if err != nil {
		return err
	}
	catalog.WriteStats(o.stderr, o.out, cfg, st)
	return nil
}
