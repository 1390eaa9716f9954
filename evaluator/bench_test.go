package evaluator_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/augur-dev/augur/bench/speed"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/etcdraft"
	"github.com/augur-dev/augur/trace"
)

// BenchmarkReference evaluates a handful of one- and two-node properties
// over 1,000 snapshots of three nodes.
//
//	go test -run - -bench Reference -benchmem ./evaluator
func BenchmarkReference(b *testing.B) {
	var snaps []snap
	for i := range 1000 {
		s := snap{}
		for n, name := range []string{"a", "b", "c"} {
			s[name] = st{"x": int64((i*7 + n*3) % 5), "y": int64(i % 3), "state": []string{"follower", "leader"}[(i+n)%2]}
		}
		snaps = append(snaps, s)
	}
	tr := writeTiny(b, snaps)
	var props []*grammar.Property
	for _, src := range []string{
		`forall n0, n1 in nodes: n0.x != n1.x or n0.y == n1.y`,
		`forall n0 in nodes: n0.x < 4`,
		`forall n0, n1 in nodes: n0.state != "leader" or n1.state != "leader"`,
		`forall n0 in nodes: n0.x <= n0.y or n0.state == "leader"`,
	} {
		p, err := grammar.Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		props = append(props, p)
	}
	prog, err := evaluator.Compile(mustSpec(b), props)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*tr.NumSnapshots()*len(props))/b.Elapsed().Seconds(), "snapshot×props/s")
}

// workload is a run of the etcd raft testbed and a sample of the pool its
// spec generates, ready to evaluate.
type workload struct {
	Trace   *trace.Trace
	Program *evaluator.Program
}

// benchWorkload records nodes×snapshots of the etcd raft testbed (seed 1)
// and compiles props properties of its spec's pool, taken evenly from it.
func benchWorkload(b *testing.B, nodes, snapshots, props int) *workload {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "bench.trace")
	tb := etcdraft.Testbed
	cfg := testbeds.Config{Nodes: nodes, Steps: snapshots, Seed: 1, Faults: tb.Faults, ResetAfter: testbeds.DefaultResetAfter}
	if _, err := tb.Run(b.Context(), cfg, dir); err != nil {
		b.Fatal(err)
	}
	text, err := specs.Testbed(tb.Name)
	if err != nil {
		b.Fatal(err)
	}
	spec, err := specs.Parse(tb.Name+".yaml", text)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := trace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tr.Close() })
	return &workload{Trace: tr, Program: samplePool(b, spec, tr, props)}
}

// samplePool compiles n properties of the pool spec generates for tr,
// taken evenly from it; all of them if n is 0.
func samplePool(tb testing.TB, spec *specs.Spec, tr *trace.Trace, n int) *evaluator.Program {
	tb.Helper()
	consts, err := generator.MineConstants(tr, spec)
	if err != nil {
		tb.Fatal(err)
	}
	pool, err := generator.Generate(spec, consts)
	if err != nil {
		tb.Fatal(err)
	}
	sample := pool.Props
	if n > 0 && len(sample) > n {
		sample = make([]*grammar.Property, n)
		for i := range sample {
			sample[i] = pool.Props[i*len(pool.Props)/n]
		}
	}
	prog, err := evaluator.Compile(spec, sample)
	if err != nil {
		tb.Fatal(err)
	}
	return prog
}

func runBench(b *testing.B, w *workload, opts evaluator.Options) time.Duration {
	start := time.Now()
	if _, err := evaluator.Run(context.Background(), w.Trace, w.Program, opts); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkEvaluators evaluates a testbed workload, unfiltered, with
// each evaluator and 1 or 2 workers.
//
//	go test -run - -bench Evaluators -benchmem ./evaluator
func BenchmarkEvaluators(b *testing.B) {
	for _, size := range []struct{ nodes, snapshots, props int }{{5, 2000, 4000}, {16, 1000, 4000}} {
		w := benchWorkload(b, size.nodes, size.snapshots, size.props)
		for _, kind := range []evaluator.Kind{evaluator.Reference, evaluator.Fast} {
			for _, workers := range []int{1, 2} {
				name := fmt.Sprintf("nodes=%d/%s/workers=%d", size.nodes, kind, workers)
				b.Run(name, func(b *testing.B) {
					if kind == evaluator.Reference && size.nodes > 5 && workers == 1 {
						b.Skip("slow; see nodes=5")
					}
					b.ReportAllocs()
					for b.Loop() {
						runBench(b, w, evaluator.Options{Kind: kind, Workers: workers})
					}
					evals := float64(b.N) * float64(w.Trace.NumSnapshots()) * float64(len(w.Program.Props))
					b.ReportMetric(evals/b.Elapsed().Seconds(), "snapshot×props/s")
				})
			}
		}
	}
}

// BenchmarkFastVsReference runs both evaluators, one worker each, on the
// same workload in every iteration and reports how much faster fast is,
// with the throughput of each.
//
//	go test -run - -bench FastVsReference -benchtime 3x ./evaluator
func BenchmarkFastVsReference(b *testing.B) {
	for _, size := range []struct{ nodes, snapshots, props int }{{5, 1000, 4000}, {16, 200, 2000}} {
		w := benchWorkload(b, size.nodes, size.snapshots, size.props)
		b.Run(fmt.Sprintf("nodes=%d", size.nodes), func(b *testing.B) {
			var ref, fast time.Duration
			for b.Loop() {
				ref += runBench(b, w, evaluator.Options{Kind: evaluator.Reference, Workers: 1})
				fast += runBench(b, w, evaluator.Options{Kind: evaluator.Fast, Workers: 1})
			}
			evals := float64(b.N) * float64(w.Trace.NumSnapshots()) * float64(len(w.Program.Props))
			b.ReportMetric(ref.Seconds()/fast.Seconds(), "ratio")
			b.ReportMetric(evals/fast.Seconds(), "fast-snapshot×props/s")
			b.ReportMetric(evals/ref.Seconds(), "ref-snapshot×props/s")
		})
	}
}

// churnWorkload is props properties, taken evenly from the pool of
// speed.ScaleSpec (two-node disjunctions of up to three literals), over
// periodicTrace.
func churnWorkload(b *testing.B, snapshots, churn, props int) *workload {
	b.Helper()
	spec, tr := periodicTrace(b, snapshots, churn)
	return &workload{Trace: tr, Program: samplePool(b, spec, tr, props)}
}

// periodicTrace returns speed.ScaleSpec and periodic snapshots of a busy
// 16-node cluster with churn events between two (speed.WritePeriodic):
// at churn 16, 66% of the nodes and 89% of the two-node bindings change
// per snapshot; at churn 1, 6% and 12%.
func periodicTrace(tb testing.TB, snapshots, churn int) (*specs.Spec, *trace.Trace) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "periodic.trace")
	if err := speed.WritePeriodic(tb.Context(), dir, 16, snapshots, churn, 1); err != nil {
		tb.Fatal(err)
	}
	spec, err := specs.Parse("scale.yaml", []byte(speed.ScaleSpec))
	if err != nil {
		tb.Fatal(err)
	}
	tr, err := trace.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { tr.Close() })
	return spec, tr
}

// BenchmarkChurn evaluates the pool of speed.ScaleSpec over periodic
// snapshots at high churn (16 events a snapshot) and low (1), with the
// fast evaluator and, on fewer properties, the reference in the same
// run for the ratio.
//
//	go test -run - -bench Churn -benchtime 3x ./evaluator
func BenchmarkChurn(b *testing.B) {
	for _, churn := range []int{16, 1} {
		b.Run(fmt.Sprintf("churn=%d/fast", churn), func(b *testing.B) {
			w := churnWorkload(b, 2000, churn, 0)
			b.ReportAllocs()
			for b.Loop() {
				runBench(b, w, evaluator.Options{Workers: 1, NoPatterns: true})
			}
			evals := float64(b.N) * float64(w.Trace.NumSnapshots()) * float64(len(w.Program.Props))
			b.ReportMetric(evals/b.Elapsed().Seconds(), "snapshot×props/s")
		})
		b.Run(fmt.Sprintf("churn=%d/ratio", churn), func(b *testing.B) {
			w := churnWorkload(b, 200, churn, 2000)
			var ref, fast time.Duration
			for b.Loop() {
				ref += runBench(b, w, evaluator.Options{Kind: evaluator.Reference, Workers: 1, NoPatterns: true})
				fast += runBench(b, w, evaluator.Options{Kind: evaluator.Fast, Workers: 1, NoPatterns: true})
			}
			b.ReportMetric(ref.Seconds()/fast.Seconds(), "ratio")
		})
	}
}

// manyNodes is n nodes of distinct x over snaps snapshots, in which one
// node's x moves each snapshot.
func manyNodes(tb testing.TB, n, snapshots int) *trace.Trace {
	tb.Helper()
	var snaps []snap
	for i := range snapshots {
		s := snap{}
		for k := range n {
			x := int64(k)
			if k == i%n {
				x = int64(n + i)
			}
			s[fmt.Sprintf("n%04d", k)] = st{"x": x, "y": int64(k % 7)}
		}
		snaps = append(snaps, s)
	}
	return writeTiny(tb, snaps)
}

// BenchmarkManyBindings evaluates a three-node property over 120 nodes
// (1.7 million bindings a snapshot, beyond what the fast evaluator keeps
// in one block) with each evaluator: the loops over bindings, where Run
// looks at its context.
//
//	go test -run - -bench ManyBindings -count 6 ./evaluator
func BenchmarkManyBindings(b *testing.B) {
	tr := manyNodes(b, 120, 3)
	prog := compileTiny(b, "forall n0, n1, n2 in nodes: n0.x != n1.x or n1.y <= n2.y")
	for _, kind := range []evaluator.Kind{evaluator.Reference, evaluator.Fast} {
		b.Run(kind.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: kind, Workers: 1}); err != nil {
					b.Fatal(err)
				}
			}
			bindings := float64(b.N) * float64(tr.NumSnapshots()) * 120 * 119 * 118
			b.ReportMetric(bindings/b.Elapsed().Seconds(), "bindings/s")
		})
	}
}
