// Package speed times the evaluators on seeded testbed workloads, and
// checks that they agree: augur bench. The workloads are a run of the
// etcd raft testbed with its spec or with [ScaleSpec], periodic snapshots
// of a busy raft-like cluster with ScaleSpec's variables, and a
// replicated log whose spec declares a three-argument predicate.
package speed

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/internal/clobber"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
	"github.com/augur-dev/augur/testbeds/etcdraft"
	"github.com/augur-dev/augur/testbeds/replog"
)

// Options configure [Run]; they are augur bench's flags. A field left
// zero takes the default augur bench starts from; all of the pool is
// AllProps.
type Options struct {
	Nodes     int    // nodes of the testbed's cluster; 0 means DefaultNodes
	Snapshots int    // snapshots of the trace; 0 means DefaultSnapshots
	Seed      uint64 // seed of the run
	// Props is the number of properties timed, spread evenly over the
	// pool: 0 means DefaultProps, AllProps (or any negative count) the
	// whole pool.
	Props   int
	Workers []int            // worker counts to time each evaluator with; none means 1
	Kinds   []evaluator.Kind // the evaluators timed; none means reference and fast
	// Workload is etcdraft (""), periodic (periodic snapshots of a busy
	// cluster, where most nodes change between two) or predicate (the
	// replicated log, timed with its predicate and without).
	Workload string
	Literals int    // 2 (or 0): the testbed's spec; 3: ScaleSpec
	Churn    int    // events of the run per snapshot (etcdraft: thinned to one snapshot); 0 means 1
	Keep     string // if not "", the directory the spec and trace are kept in
}

// The defaults of Options.
const (
	DefaultNodes     = 5
	DefaultSnapshots = 1000
	DefaultProps     = 4000
)

// AllProps, as Options.Props, times every property of the pool.
const AllProps = -1

// withDefaults returns o with what it leaves zero set to its default.
func (o Options) withDefaults() Options {
	o.Nodes = cmp.Or(o.Nodes, DefaultNodes)
	o.Snapshots = cmp.Or(o.Snapshots, DefaultSnapshots)
	o.Props = cmp.Or(o.Props, DefaultProps)
	if len(o.Workers) == 0 {
		o.Workers = []int{1}
	}
	if len(o.Kinds) == 0 {
		o.Kinds = []evaluator.Kind{evaluator.Reference, evaluator.Fast}
	}
	o.Workload = cmp.Or(o.Workload, "etcdraft")
	o.Literals = cmp.Or(o.Literals, 2)
	o.Churn = cmp.Or(o.Churn, 1)
	return o
}

// pool is o.Props as pipeline.Sample takes it: 0 for all.
func (o Options) pool() int { return max(o.Props, 0) }

// Run records the workload o asks for, times each evaluator and worker
// count on it (the etcd raft workload also end to end, as augur infer
// --no-filter runs), and writes what it measured to w. It fails when two
// runs disagree.
func Run(ctx context.Context, w io.Writer, o Options) error {
	o = o.withDefaults()
	for _, n := range o.Workers {
		if n < 1 {
			return fmt.Errorf("--workers %d: want at least 1", n)
		}
	}
	// Every workload boots its cluster's nodes at once, before it looks
	// at ctx; etcd raft's boot grows as their cube (testbeds.MaxNodes).
	if o.Nodes < 1 || o.Nodes > testbeds.MaxNodes {
		return fmt.Errorf("--nodes %d: want 1 to %d", o.Nodes, testbeds.MaxNodes)
	}
	if o.Literals > 3 {
		return fmt.Errorf("--literals %d: want 2 or 3", o.Literals)
	}
	if o.Workload != "etcdraft" && o.Workload != "periodic" && o.Workload != "predicate" {
		return fmt.Errorf("--workload %s: want etcdraft, periodic or predicate", o.Workload)
	}
	dir, cleanup, err := clobber.WorkDir(o.Keep, "augur-bench-")
	if err != nil {
		return err
	}
	defer cleanup()
	if o.Workload == "predicate" {
		return runPredicate(ctx, w, o, dir)
	}
	start := time.Now()
	p, specPath, tracePath, err := workload(ctx, dir, o)
	if err != nil {
		return err
	}
	defer p.Close()
	churn, err := MeasureChurn(p.Trace)
	if err != nil {
		return err
	}
	name := "etcd raft testbed"
	if o.Workload == "periodic" {
		name = "periodic snapshots of a raft-like cluster"
	}
	shape := ""
	if o.Churn > 1 {
		shape += fmt.Sprintf(", %d events a snapshot", o.Churn)
	}
	if o.Literals > 2 {
		shape += fmt.Sprintf(", up to %d literals", o.Literals)
	}
	fmt.Fprintf(w, "workload: %s, %d nodes, %d snapshots, %d states, %d properties, seed %d%s (prepared in %s)\n",
		name, o.Nodes, p.Trace.NumSnapshots(), p.Trace.NumStates(), len(p.Program.Props), o.Seed, shape, round(time.Since(start)))
	fmt.Fprintf(w, "churn: %s\n", churn)
	timings, err := pipeline.TimeEndToEnd(ctx, specPath, tracePath, o.pool(), o.Kinds, o.Workers)
	if err != nil {
		return err
	}
	times, err := writeTimings(w, p, timings)
	if err != nil || times[evaluator.Reference] == nil || times[evaluator.Fast] == nil {
		return err
	}
	var ratios []string
	for _, n := range o.Workers {
		ref, fast := times[evaluator.Reference][n], times[evaluator.Fast][n]
		ratios = append(ratios, fmt.Sprintf("%.1f× evaluating, %.1f× end to end at %s",
			ref.Time.Seconds()/fast.Time.Seconds(), ref.EndToEnd.Seconds()/fast.EndToEnd.Seconds(), plural(n, "worker")))
	}
	fmt.Fprintf(w, "fast/reference: %s (%s); results and reports identical\n", strings.Join(ratios, ", "), churn)
	return nil
}

// timeAll times p with each evaluator and worker count, writes a table
// of the times and throughputs to w, and returns the times.
func timeAll(ctx context.Context, w io.Writer, p *pipeline.Pipeline, kinds []evaluator.Kind, workers []int) (map[evaluator.Kind]map[int]time.Duration, error) {
	timings, err := p.Time(ctx, kinds, workers)
	if err != nil {
		return nil, err
	}
	byKind, err := writeTimings(w, p, timings)
	times := map[evaluator.Kind]map[int]time.Duration{}
	for k, ts := range byKind {
		times[k] = map[int]time.Duration{}
		for n, t := range ts {
			times[k][n] = t.Time
		}
	}
	return times, err
}

// writeTimings writes a table of the timings of p's pool to w: the
// evaluation times and throughputs, and the end to end times if
// measured; it returns the timings by evaluator and worker count.
func writeTimings(w io.Writer, p *pipeline.Pipeline, timings []pipeline.Timing) (map[evaluator.Kind]map[int]pipeline.Timing, error) {
	evals := float64(p.Trace.NumSnapshots()) * float64(len(p.Program.Props))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
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

// runPredicate times the replicated-log workload with its predicate and
// without, and writes how much longer the predicate's pool takes.
func runPredicate(ctx context.Context, w io.Writer, o Options, dir string) error {
	start := time.Now()
	withPred, plain, tracePath, err := replog.Write(ctx, dir, o.Nodes, o.Snapshots, o.Seed)
	if err != nil {
		return err
	}
	var times [2]map[evaluator.Kind]map[int]time.Duration
	for i, spec := range []string{withPred, plain} {
		if i > 0 {
			start = time.Now()
		}
		p, err := pipeline.OpenContext(ctx, spec, tracePath)
		if err != nil {
			return err
		}
		defer p.Close()
		if err := p.Sample(o.pool()); err != nil {
			return err
		}
		what := "with the predicate agree"
		if i == 1 {
			what = "without it"
		}
		fmt.Fprintf(w, "workload: replicated log %s, %d nodes, %d snapshots, %d states, %d properties, seed %d (prepared in %s)\n",
			what, o.Nodes, p.Trace.NumSnapshots(), p.Trace.NumStates(), len(p.Program.Props), o.Seed, round(time.Since(start)))
		if times[i], err = timeAll(ctx, w, p, o.Kinds, o.Workers); err != nil {
			return err
		}
	}
	var ratios []string
	for _, k := range o.Kinds {
		for _, n := range o.Workers {
			ratios = append(ratios, fmt.Sprintf("%.1f× %s at %s", times[0][k][n].Seconds()/times[1][k][n].Seconds(), k, plural(n, "worker")))
		}
	}
	fmt.Fprintf(w, "with the predicate/without: %s\n", strings.Join(ratios, ", "))
	return nil
}

// workload writes the trace of o.Workload into dir with the spec beside
// it, returns their paths, and prepares o.Props properties of the pool
// its spec generates, taken evenly from it.
func workload(ctx context.Context, dir string, o Options) (p *pipeline.Pipeline, specPath, tracePath string, err error) {
	if o.Workload == "periodic" {
		specPath, tracePath = filepath.Join(dir, "bench.yaml"), filepath.Join(dir, "bench.trace")
		if err := WritePeriodic(ctx, tracePath, o.Nodes, o.Snapshots, o.Churn, o.Seed); err != nil {
			return nil, "", "", err
		}
		if err := os.WriteFile(specPath, []byte(periodicSpec(o.Literals)), 0o644); err != nil {
			return nil, "", "", err
		}
	} else if specPath, tracePath, err = recordRaft(ctx, dir, o); err != nil {
		return nil, "", "", err
	}
	if p, err = pipeline.OpenContext(ctx, specPath, tracePath); err != nil {
		return nil, "", "", err
	}
	if err := p.Sample(o.pool()); err != nil {
		p.Close()
		return nil, "", "", err
	}
	return p, specPath, tracePath, nil
}

// recordRaft records a run of the etcd raft testbed into dir, thinned to
// o.Churn events a snapshot, with its spec (ScaleSpec for three
// literals) beside it, and returns their paths.
func recordRaft(ctx context.Context, dir string, o Options) (specPath, tracePath string, err error) {
	specPath, tracePath, _, err = catalog.Record(ctx, dir, "bench", etcdraft.Testbed, testbeds.Config{Nodes: o.Nodes, Steps: o.Snapshots * o.Churn, Seed: o.Seed})
	if err != nil {
		return "", "", err
	}
	if o.Churn > 1 {
		if err := Thin(ctx, tracePath, o.Churn); err != nil {
			return "", "", err
		}
	}
	if o.Literals == 3 {
		if err := os.WriteFile(specPath, []byte(ScaleSpec), 0o644); err != nil {
			return "", "", err
		}
	}
	return specPath, tracePath, nil
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

// round rounds a duration to three or four significant digits.
func round(d time.Duration) time.Duration {
	switch {
	case d > 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d > time.Second:
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(100 * time.Microsecond)
}

// plural returns "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
