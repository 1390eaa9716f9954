package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/augur-dev/augur/bench/speed"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/internal/cliflag"
)

// benchOptions are augur bench's flags.
type benchOptions struct {
	opts       speed.Options // but Kinds
	evaluators []string
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
		RunE: runE(o, runF, runBench, func(cmd *cobra.Command, args []string) {
			o.stdout = cmd.OutOrStdout()
			if o.opts.Props == 0 {
				o.opts.Props = speed.AllProps // --props 0: all
			}
		}),
	}
	f := cmd.Flags()
	so := &o.opts
	cliflag.IntP(f, &so.Nodes, "nodes", "", speed.DefaultNodes, 1, "nodes of the etcd raft cluster")
	cliflag.IntP(f, &so.Snapshots, "snapshots", "", speed.DefaultSnapshots, 1, "snapshots of the trace")
	f.Uint64Var(&so.Seed, "seed", 1, "seed of the run")
	cliflag.IntP(f, &so.Props, "props", "", speed.DefaultProps, 0, "properties evaluated, spread evenly over the generated pool (0: all)")
	f.IntSliceVar(&so.Workers, "workers", []int{1}, "worker counts to time each evaluator with")
	f.StringSliceVar(&o.evaluators, "evaluators", []string{"reference", "fast"}, "evaluators to time")
	outputFlag(f, &so.Keep, "keep", "", outDir, "write the spec and the trace into this directory and keep them")
	cliflag.IntP(f, &so.Literals, "literals", "", 2, 2, "2: the testbed's spec; 3: seven variables, disjunctions of up to three literals")
	cliflag.IntP(f, &so.Churn, "churn", "", 1, 1, "events of the run per snapshot")
	f.StringVar(&so.Workload, "workload", "etcdraft", "etcdraft; periodic: periodic snapshots of a busy raft-like cluster, most nodes changed between two (with --churn 16); or predicate: a replicated log whose spec has a three-argument predicate, timed with it and without")
	cmd.AddCommand(newBenchQualityCmd(nil), newBenchTestbedsCmd(nil), newBenchSteerCmd(nil))
	return cmd
}

// specFlag declares the --spec flag of the quality benchmarks.
func specFlag(f *pflag.FlagSet, spec *string) {
	f.StringVar(spec, "spec", "written", "the spec of each run: written (the hand-written one) or init (what augur spec init writes from the run's trace, unedited)")
}

// parseSpecChoice reports whether --spec asks for augur spec init's
// specs.
func parseSpecChoice(s string) (bool, error) {
	switch s {
	case "written":
		return false, nil
	case "init":
		return true, nil
	}
	return false, fmt.Errorf("--spec %q: want written or init", s)
}

func runBench(ctx context.Context, o *benchOptions) error {
	opts := o.opts
	for _, name := range o.evaluators {
		k, err := evaluator.ParseKind(name)
		if err != nil {
			return err
		}
		opts.Kinds = append(opts.Kinds, k)
	}
	return speed.Run(ctx, o.stdout, opts)
}
