package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/testbeds/speed"
)

// benchOptions are augur bench's flags.
type benchOptions struct {
	nodes      int
	snapshots  int
	seed       uint64
	props      int
	workers    []int
	evaluators []string
	keep       string
	workload   string
	literals   int // 2: the testbed's spec; 3: speed.ScaleSpec
	churn      int // events per snapshot
	stdout     io.Writer
}

// newBenchCmd returns augur bench; runF, if not nil, runs instead of
// runBench.
func newBenchCmd(runF func(*benchOptions) error) *cobra.Command {
	o := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Time the evaluators on a seeded testbed workload",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.stdout = cmd.OutOrStdout()
			if runF != nil {
				return runF(o)
			}
			return runBench(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	intFlagP(f, &o.nodes, "nodes", "", 5, 1, "nodes of the etcd raft cluster")
	intFlagP(f, &o.snapshots, "snapshots", "", 1000, 1, "snapshots of the trace")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the run")
	intFlagP(f, &o.props, "props", "", 4000, 0, "properties evaluated, spread evenly over the generated pool (0: all)")
	f.IntSliceVar(&o.workers, "workers", []int{1}, "worker counts to time each evaluator with")
	f.StringSliceVar(&o.evaluators, "evaluators", []string{"reference", "fast"}, "evaluators to time")
	f.StringVar(&o.keep, "keep", "", "write the spec and the trace into this directory and keep them")
	intFlagP(f, &o.literals, "literals", "", 2, 2, "2: the testbed's spec; 3: seven variables, disjunctions of up to three literals")
	intFlagP(f, &o.churn, "churn", "", 1, 1, "events of the run per snapshot")
	f.StringVar(&o.workload, "workload", "etcdraft", "etcdraft, or predicate: a replicated log whose spec has a three-argument predicate, timed with it and without")
	cmd.AddCommand(newBenchQualityCmd(nil), newBenchTestbedsCmd(nil), newBenchSteerCmd(nil))
	return cmd
}

func runBench(ctx context.Context, o *benchOptions) error {
	var kinds []evaluator.Kind
	for _, name := range o.evaluators {
		k, err := evaluator.ParseKind(name)
		if err != nil {
			return err
		}
		kinds = append(kinds, k)
	}
	return speed.Run(ctx, o.stdout, speed.Options{Nodes: o.nodes, Snapshots: o.snapshots, Seed: o.seed, Props: o.props,
		Workers: o.workers, Kinds: kinds, Workload: o.workload, Literals: o.literals, Churn: o.churn, Keep: o.keep})
}
