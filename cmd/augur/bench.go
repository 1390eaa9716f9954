package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/internal/clobber"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
	"github.com/augur-dev/augur/testbeds/etcdraft"
	"github.com/augur-dev/augur/testbeds/replog"
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
	literals   int // 2: the testbed's spec; 3: scaleSpec
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
	stdout := o.stdout
	var kinds []evaluator.Kind
	for _, name := range o.evaluators {
		k, err := evaluator.ParseKind(name)
		if err != nil {
			return err
		}
		kinds = append(kinds, k)
	}
	for _, w := range o.workers {
		if w < 1 {
			return fmt.Errorf("--workers %d: want at least 1", w)
		}
	}
	if o.literals > 3 {
		return fmt.Errorf("--literals %d: want 2 or 3", o.literals)
	}
	if o.workload != "etcdraft" && o.workload != "predicate" {
		return fmt.Errorf("--workload %s: want etcdraft or predicate", o.workload)
	}
	dir, cleanup, err := clobber.WorkDir(o.keep, "augur-bench-")
	if err != nil {
		return err
	}
	defer cleanup()
	if o.workload == "predicate" {
		return runBenchPredicate(ctx, o, kinds, dir)
	}
	start := time.Now()
	w, specPath, tracePath, err := benchWorkload(ctx, dir, o)
	if err != nil {
		return err
	}
	defer w.Close()
	shape := ""
	if o.churn > 1 {
		shape += fmt.Sprintf(", %d events a snapshot", o.churn)
	}
	if o.literals > 2 {
		shape += fmt.Sprintf(", up to %d literals", o.literals)
	}
	fmt.Fprintf(stdout, "workload: etcd raft testbed, %d nodes, %d snapshots, %d states, %d properties, seed %d%s (prepared in %s)\n",
		o.nodes, w.Trace.NumSnapshots(), w.Trace.NumStates(), len(w.Program.Props), o.seed, shape, round(time.Since(start)))
	timings, err := pipeline.TimeEndToEnd(ctx, specPath, tracePath, o.props, kinds, o.workers)
	if err != nil {
		return err
	}
	times, err := printTimings(stdout, w, timings)
	if err != nil || times[evaluator.Reference] == nil || times[evaluator.Fast] == nil {
		return err
	}
	var ratios []string
	for _, workers := range o.workers {
		ref, fast := times[evaluator.Reference][workers], times[evaluator.Fast][workers]
		ratios = append(ratios, fmt.Sprintf("%.1f× evaluating, %.1f× end to end at %s",
			ref.Time.Seconds()/fast.Time.Seconds(), ref.EndToEnd.Seconds()/fast.EndToEnd.Seconds(), plural(int64(workers), "worker")))
	}
	fmt.Fprintf(stdout, "fast/reference: %s; results and reports identical\n", strings.Join(ratios, ", "))
	return nil
}

// timeWorkload times w with each evaluator and worker count, prints a
// table of the times and throughputs, and returns the times.
func timeWorkload(ctx context.Context, stdout io.Writer, w *pipeline.Pipeline, kinds []evaluator.Kind, workers []int) (map[evaluator.Kind]map[int]time.Duration, error) {
	timings, err := w.Time(ctx, kinds, workers)
	if err != nil {
		return nil, err
	}
	byKind, err := printTimings(stdout, w, timings)
	times := map[evaluator.Kind]map[int]time.Duration{}
	for k, ts := range byKind {
		times[k] = map[int]time.Duration{}
		for workers, t := range ts {
			times[k][workers] = t.Time
		}
	}
	return times, err
}

// printTimings prints a table of the timings of w's pool, evaluation
// times and throughputs, and end to end times if measured, and returns
// them by evaluator and worker count.
func printTimings(stdout io.Writer, w *pipeline.Pipeline, timings []pipeline.Timing) (map[evaluator.Kind]map[int]pipeline.Timing, error) {
	evals := float64(w.Trace.NumSnapshots()) * float64(len(w.Program.Props))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	endToEnd := len(timings) > 0 && timings[0].EndToEnd > 0
	if endToEnd {
		fmt.Fprintln(tw, "evaluator\tworkers\tevaluating\tsnapshot×props/s\tper worker\tend to end\t")
	} else {
		fmt.Fprintln(tw, "evaluator\tworkers\ttime\tsnapshot×props/s\tper worker\t")
	}
	times := map[evaluator.Kind]map[int]pipeline.Timing{}
	for _, t := range timings {
		if times[t.Kind] == nil {
			times[t.Kind] = map[int]pipeline.Timing{}
		}
		times[t.Kind][t.Workers] = t
		rate := evals / t.Time.Seconds()
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t", t.Kind, t.Workers, round(t.Time), si(rate), si(rate/float64(t.Workers)))
		if endToEnd {
			fmt.Fprintf(tw, "%s\t", round(t.EndToEnd))
		}
		fmt.Fprintln(tw)
	}
	return times, tw.Flush()
}

// runBenchPredicate times the replicated-log workload with its predicate
// and without, and prints how much longer the predicate's pool takes.
func runBenchPredicate(ctx context.Context, o *benchOptions, kinds []evaluator.Kind, dir string) error {
	start := time.Now()
	withPred, plain, tracePath, err := replog.Write(ctx, dir, o.nodes, o.snapshots, o.seed)
	if err != nil {
		return err
	}
	var times [2]map[evaluator.Kind]map[int]time.Duration
	for i, spec := range []string{withPred, plain} {
		if i > 0 {
			start = time.Now()
		}
		w, err := pipeline.Open(spec, tracePath)
		if err != nil {
			return err
		}
		defer w.Close()
		if err := w.Sample(o.props); err != nil {
			return err
		}
		what := "with the predicate agree"
		if i == 1 {
			what = "without it"
		}
		fmt.Fprintf(o.stdout, "workload: replicated log %s, %d nodes, %d snapshots, %d states, %d properties, seed %d (prepared in %s)\n",
			what, o.nodes, w.Trace.NumSnapshots(), w.Trace.NumStates(), len(w.Program.Props), o.seed, round(time.Since(start)))
		if times[i], err = timeWorkload(ctx, o.stdout, w, kinds, o.workers); err != nil {
			return err
		}
	}
	var ratios []string
	for _, k := range kinds {
		for _, workers := range o.workers {
			ratios = append(ratios, fmt.Sprintf("%.1f× %s at %s", times[0][k][workers].Seconds()/times[1][k][workers].Seconds(), k, plural(int64(workers), "worker")))
		}
	}
	fmt.Fprintf(o.stdout, "with the predicate/without: %s\n", strings.Join(ratios, ", "))
	return nil
}

// benchWorkload records a run of the etcd raft testbed into dir with
// the spec beside it, and prepares o.props properties of the pool its
// spec generates, taken evenly from it.
func benchWorkload(ctx context.Context, dir string, o *benchOptions) (p *pipeline.Pipeline, specPath, tracePath string, err error) {
	specPath, tracePath, _, err = catalog.Record(dir, "bench", etcdraft.Testbed, testbeds.Config{Nodes: o.nodes, Steps: o.snapshots * o.churn, Seed: o.seed, Stop: ctx.Done()})
	if err != nil {
		return nil, "", "", err
	}
	if o.churn > 1 {
		if err := thin(tracePath, o.churn); err != nil {
			return nil, "", "", err
		}
	}
	if o.literals == 3 {
		if err := os.WriteFile(specPath, []byte(scaleSpec), 0o644); err != nil {
			return nil, "", "", err
		}
	}
	if p, err = pipeline.Open(specPath, tracePath); err != nil {
		return nil, "", "", err
	}
	if err := p.Sample(o.props); err != nil {
		p.Close()
		return nil, "", "", err
	}
	return p, specPath, tracePath, nil
}

// si formats a rate with a metric prefix: "1.53M".
func si(x float64) string {
	for _, p := range []struct {
		v float64
		s string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if x >= p.v {
			return strings.TrimSuffix(fmt.Sprintf("%.3g", x/p.v), ".0") + p.s
		}
	}
	return fmt.Sprintf("%.3g", x)
}

func round(d time.Duration) time.Duration {
	switch {
	case d > 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d > time.Second:
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(100 * time.Microsecond)
}
