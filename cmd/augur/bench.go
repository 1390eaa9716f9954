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
		Long: `Bench records a seeded run of the etcd raft testbed (one event per
snapshot, under the testbed's default faults), generates the properties of
its spec, and runs the pipeline with each evaluator on the same workload, as augur
infer --no-filter does, so that every evaluator does the same work. It
prints the time evaluating, the throughput in snapshot×property
evaluations per second (and per worker), the time end to end (loading,
generating and compiling the pool, evaluating it, and building the
report), and how much faster fast is than reference at both; it also
checks that the evaluators' results and reports agree.

With --literals 3 the spec is instead one of seven of the testbed's
scalar variables with disjunctions of up to three literals: a pool of
about 49,000 properties, 44,000 of them two-node three-literal
disjunctions. With --churn K the run takes K events per snapshot (it
records K times as many and keeps every K-th snapshot), so that several
nodes change between consecutive snapshots, as in the snapshots of a
deployed system.

With --keep DIR the spec (bench.yaml) and the trace (bench.trace) stay in
DIR, for augur infer or a scale run.

With --workload predicate the workload is instead a seeded replicated log
(logs of up to 40 {term, index} entries) whose spec declares a
three-argument predicate, agree(a, upto, b): the entries of log a up to
index upto agree in term with log b. Its pool is timed, and that of the
same spec without the predicate, and bench prints how much longer the
predicate's takes (the spec files are predicate.yaml and plain.yaml, the
trace log.trace).`,
		Example: `  augur bench
  augur bench --nodes 16 --snapshots 500 --props 2000 --workers 1,2
  augur bench --nodes 16 --snapshots 860000 --evaluators fast --keep /tmp/scale
  augur bench --nodes 8 --snapshots 300 --literals 3 --churn 4 --props 0
  augur bench --workload predicate --snapshots 4000 --props 0 --evaluators fast`,
		Args: cobra.NoArgs,
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
