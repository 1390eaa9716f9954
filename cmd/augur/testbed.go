package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
)

func newTestbedCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testbed",
		Short: "Run distributed systems under fault injection and record their traces",
		Long: `Testbed runs a distributed system in one process under a seeded,
deterministic scheduler that injects faults (message loss, delay and
reordering, duplication, partitions, crashes and restarts), and records a
global snapshot after every event. Snapshots with no message in flight are
tagged "steady"; snapshots where the testbed's ground-truth safety checks
fail are tagged "bug:NAME", the injected bug. The same seed always yields
the same trace.

A broken safety property usually stays broken, so a run is a sequence of
episodes: --reset-after snapshots after a ground-truth check first fails,
the system is torn down and a fresh one boots (with an unrecorded warm-up).
The bug tags then mark where a bug shows and its aftermath, not the rest
of the run.

With --guard CHECKS, every change of a node's state passes CrystalBall's
immediate safety check first (see augur testbed run --help).`,
	}
	cmd.AddCommand(newTestbedListCmd(), newTestbedRunCmd(nil))
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
		Long: `Run runs testbed NAME and writes its trace (see augur testbed).

--guard CHECKS runs it with CrystalBall's immediate safety check: before
a node's state changes, the checks are evaluated with the new state, and
a change that adds a failing binding of a check is refused, as the
handler's effect would be in CrystalBall. On Chord, Paxos and RandTree
(state machines that can be copied) the node's state goes back to what it
was before the handler, and the messages the handler sent are dropped.
On etcd raft, whose RawNode cannot be copied, a step whose Ready would
break a check is taken back by discarding the Ready (nothing persisted,
applied or sent) and rebuilding the node from its disk, as a follower
that lost its volatile state; entries the store would apply against a
check are not applied. The run prints how many changes were checked and
refused, and by which check; compare its bug tags with an unguarded run of
the same seed to see how many inconsistencies the check alone prevents
(the two runs part ways at the first refusal).

--steer CHECKS runs it with CrystalBall's execution steering (Chord,
Paxos and RandTree, whose state can be copied): every --predict-every
steps, consequence prediction explores up to --budget states from a copy
of the run (messages delivered, dropped or duplicated, timers, crashes
and restarts, to depth 4), the violating paths of the last prediction
replayed first. A state violates when it adds failing bindings to those
of the run's own state. The first delivery or timer of a violating path
(after the faults that may come first, and with no crash after it) is
kept from happening until the next prediction: the message is dropped,
or every message of its sender to its receiver is refused, or the node's
timer does not fire, when a prediction from the state with the filter
finds no violation that the first did not, and not the one cut. The
immediate safety check with the same checks is the fallback (unless
--guard names others, or --no-fallback). The run prints the predictions
made, the error paths replayed, the filters installed and refused, the
events filtered and the guard's blocks.`,
		Example: `  augur testbed run etcdraft --bug lost-vote -o run.trace
  augur testbed run chord --bug pred-self --seed 3 -o run.trace
  augur testbed run randtree --nodes 9 --steps 5000 -o good.trace
  augur testbed run etcdraft --faults drop=0.05,crash=0 --reset-after -1 -o run.trace
  augur testbed run randtree --bug stale-child --seed 1 -o r.trace
  augur infer specs/randtree.yaml r.trace --format json -o r.json
  augur promote r.json --select 2,3 -o checks.yaml
  augur testbed run randtree --bug stale-child --seed 2 --guard checks.yaml -o guarded.trace`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name, o.nodesGiven, o.stderr = args[0], cmd.Flags().Changed("nodes"), cmd.ErrOrStderr()
			if runF != nil {
				return runF(o)
			}
			return runTestbed(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	intFlagP(f, &o.cfg.Nodes, "nodes", "", 0, 1, "number of nodes (default: the testbed's, see augur testbed list)")
	intFlagP(f, &o.cfg.Steps, "steps", "", 20000, 1, "snapshots to record, one per scheduler event (warm-ups are not recorded)")
	f.Uint64Var(&o.cfg.Seed, "seed", 1, "seed of the run")
	f.StringVar(&o.faults, "faults", "", "faults over the testbed's defaults: name=value,… (drop, dup, reorder, maxdelay, partition, heal, crash, crashat, down) or none")
	intFlagP(f, &o.cfg.ResetAfter, "reset-after", "", testbeds.DefaultResetAfter, -1, "snapshots recorded after a ground-truth violation before a fresh system boots (-1: never)")
	f.StringVar(&o.cfg.Bug, "bug", "", "the bug to inject (see augur testbed list)")
	f.StringVar(&o.cfg.Guard, "guard", "", "a checks file every change of a node's state must pass (CrystalBall's immediate safety check)")
	f.StringVar(&o.cfg.Steer, "steer", "", "a checks file that steers the run (CrystalBall's execution steering; Chord, Paxos, RandTree)")
	intFlagP(f, &o.cfg.PredictEvery, "predict-every", "", 0, 0, fmt.Sprintf("with --steer: steps between predictions (0: %d)", testbeds.DefaultPredictEvery))
	f.BoolVar(&o.cfg.SteerAlone, "no-fallback", false, "with --steer: no immediate safety check as the prediction's fallback")
	intFlagP(f, &o.cfg.SteerStates, "budget", "", 0, 0, fmt.Sprintf("with --steer: states a prediction explores, a count rather than a time so that the run repeats from its seed (0: %d)", testbeds.DefaultSteerStates))
	f.StringVarP(&o.out, "output", "o", "", "the trace to write")
	deprecateForce(f)
	return cmd
}

func runTestbed(ctx context.Context, o *testbedRunOptions) error {
	cfg := o.cfg
	if !o.nodesGiven {
		cfg.Nodes = 0 // the testbed's
	}
	st, err := catalog.Run(ctx, o.name, o.out, cfg, o.faults)
	if err != nil {
		return err
	}
	catalog.WriteStats(o.stderr, o.out, cfg, st)
	return nil
}
