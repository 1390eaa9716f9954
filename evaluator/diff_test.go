package evaluator_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/evaluator/evaltest"
	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

// This file checks the fast evaluator against the reference on random
// specs, traces and properties: every field of every Stats must be equal,
// score sums exactly (evaluator.Score).

// sameStats runs both evaluators and reports the first difference.
func sameStats(t testing.TB, tr *trace.Trace, prog *evaluator.Program, opts evaluator.Options) {
	t.Helper()
	opts.Kind = evaluator.Reference
	want, err := evaluator.Run(context.Background(), tr, prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Kind = evaluator.Fast
	got, err := evaluator.Run(context.Background(), tr, prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d properties, %d snapshots, %d pruned", len(prog.Props), want.Snapshots, want.Pruned)
	if got.Snapshots != want.Snapshots || got.Pruned != want.Pruned {
		t.Fatalf("fast: %d snapshots, %d pruned; reference: %d, %d", got.Snapshots, got.Pruned, want.Snapshots, want.Pruned)
	}
	for i := range want.Stats {
		if !reflect.DeepEqual(got.Stats[i], want.Stats[i]) {
			t.Fatalf("%s:\nfast      %+v\nreference %+v", prog.Props[i].Text, got.Stats[i], want.Stats[i])
		}
	}
	// Without patterns, the fast evaluator's first pass counts holding
	// bindings alone; every other field stays the same.
	opts.NoPatterns = true
	got, err = evaluator.Run(context.Background(), tr, prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Patterns {
		t.Fatal("NoPatterns: result says it counted patterns")
	}
	for i := range want.Stats {
		w := want.Stats[i]
		w.Patterns = [len(w.Patterns)]int64{}
		if !reflect.DeepEqual(got.Stats[i], w) {
			t.Fatalf("%s without patterns:\nfast      %+v\nreference %+v", prog.Props[i].Text, got.Stats[i], w)
		}
	}
	sameFullMoments(t, tr, prog, opts, want)
}

// sameFullMoments checks that the fast evaluator, keeping the full
// moments of the properties (Options.FullMoments) and fewer in their
// Stats, keeps the first moments that want, a run of the reference, has
// in its Stats.
func sameFullMoments(t testing.TB, tr *trace.Trace, prog *evaluator.Program, opts evaluator.Options, want *evaluator.Result) {
	t.Helper()
	const full = 3 // at most any test's Options.MaxMoments
	opts.FullMoments, opts.MaxMoments = full, 1
	for _, kind := range []evaluator.Kind{evaluator.Fast} {
		opts.Kind = kind
		got, err := evaluator.Run(context.Background(), tr, prog, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want.Stats {
			w := &want.Stats[i]
			ms, ok := got.FullMoments(i, full)
			if ok == w.Pruned {
				t.Fatalf("%s, %s: full moments kept %v, pruned %v", kind, prog.Props[i].Text, ok, w.Pruned)
			}
			if ok && !slices.Equal(ms, w.Moments[:min(full, len(w.Moments))]) {
				t.Fatalf("%s, %s: full moments %v, want the first %d of %v", kind, prog.Props[i].Text, ms, full, w.Moments)
			}
			_, ok = got.FullMoments(i, full+1)
			if all := !w.Pruned && w.ViolatingSnapshots <= full; ok != all {
				t.Fatalf("%s, %s: %d full moments kept %v with %d violating snapshots", kind, prog.Props[i].Text, full+1, ok, w.ViolatingSnapshots)
			}
		}
	}
}

func runRandomCase(t testing.TB, seed uint64, nprops, snapshots int) {
	c := evaltest.NewCase(seed, nprops)
	spec, err := specs.Parse("random.yaml", []byte(c.Spec))
	if err != nil {
		t.Fatalf("spec:\n%s\n%v", c.Spec, err)
	}
	tr := c.Trace(t, seed, snapshots)
	prog := c.Compile(t, spec)
	sameStats(t, tr, prog, evaluator.Options{Workers: 1, MaxWitnesses: 2, MaxMoments: 5})
}

// TestFastMatchesReference compares the evaluators on random specs,
// traces and hand-shaped properties.
func TestFastMatchesReference(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 10
	}
	for seed := range uint64(n) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runRandomCase(t, seed, 150, 40) })
	}
}

// TestFastMatchesReferenceGenerated compares the evaluators on the
// property pools the generator makes for random specs.
func TestFastMatchesReferenceGenerated(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := evaltest.NewCase(seed, 0)
			c.Tame = true
			spec, err := specs.Parse("random.yaml", []byte(c.Spec))
			if err != nil {
				t.Fatal(err)
			}
			tr := c.Trace(t, seed, 60)
			consts, err := generator.MineConstants(tr, spec)
			if err != nil {
				t.Fatal(err)
			}
			pool, err := generator.Generate(spec, consts)
			if err != nil {
				t.Fatal(err)
			}
			prog, err := evaluator.Compile(spec, pool.Props)
			if err != nil {
				t.Fatal(err)
			}
			if len(prog.Props) > 2500 {
				prog.Props = prog.Props[:2500]
			}
			sameStats(t, tr, prog, evaluator.Options{Workers: 2})
		})
	}
}

// FuzzFastMatchesReference compares the evaluators on the random case of
// a seed.
func FuzzFastMatchesReference(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(40), uint8(30))
	}
	f.Fuzz(func(t *testing.T, seed uint64, nprops, snapshots uint8) {
		runRandomCase(t, seed, 1+int(nprops)%80, int(snapshots)%60)
	})
}

// TestFastMatchesReferencePruned compares the evaluators when a pruner
// drops properties between chunks, so that the active set changes under
// the fast evaluator's scopes.
func TestFastMatchesReferencePruned(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := evaltest.NewCase(100+seed, 120)
			spec, err := specs.Parse("random.yaml", []byte(c.Spec))
			if err != nil {
				t.Fatal(err)
			}
			tr := c.Trace(t, seed, 700)
			prog := c.Compile(t, spec)
			sameStats(t, tr, prog, evaluator.Options{Workers: 2, Pruner: keepAbove{every: 300, rate: 0.6}})
		})
	}
}

// TestFastManyNodes compares the evaluators on snapshots of more than 64
// nodes, beyond the fast evaluator's bitmask of changed nodes, and on 300
// nodes with the two-node scopes' 89,700 bindings evaluated in blocks, as
// a large cluster's are.
func TestFastManyNodes(t *testing.T) {
	for _, c := range []struct {
		seed                         uint64
		nodes, snapshots, scopeBytes int
	}{{11, 70, 6, 0}, {13, 300, 3, 64 << 10}} {
		t.Run(fmt.Sprintf("nodes=%d", c.nodes), func(t *testing.T) {
			if c.scopeBytes > 0 {
				defer evaluator.SetScopeBytes(c.scopeBytes)()
			}
			rc := evaltest.NewCase(c.seed, 40)
			rc.Nodes = c.nodes
			spec, err := specs.Parse("random.yaml", []byte(rc.Spec))
			if err != nil {
				t.Fatal(err)
			}
			tr := rc.Trace(t, c.seed, c.snapshots)
			rc.Props = twoNodeProps(rc.Props)
			sameStats(t, tr, rc.Compile(t, spec), evaluator.Options{Workers: 1})
		})
	}
}

// twoNodeProps returns the properties of at most two nodes without
// exists: at most nodes×(nodes-1) bindings, none evaluated binding by
// binding.
func twoNodeProps(props []string) []string {
	var small []string
	for _, p := range props {
		if !strings.Contains(p, "n2") && !strings.Contains(p, "exists") {
			small = append(small, p)
		}
	}
	return small
}

// TestFastMatchesReferenceHighChurn compares the evaluators where most
// nodes change at every snapshot: random cases of 12 nodes, two in three
// of which change between two snapshots, and periodic snapshots of a
// busy 16-node cluster (speed.WritePeriodic: 66% of the nodes change)
// with a sample of the pool of three-literal disjunctions that augur
// bench --literals 3 times, pruned between chunks.
func TestFastMatchesReferenceHighChurn(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprintf("random/%d", seed), func(t *testing.T) {
			rc := evaltest.NewCase(300+seed, 80)
			rc.Nodes = 12
			spec, err := specs.Parse("random.yaml", []byte(rc.Spec))
			if err != nil {
				t.Fatal(err)
			}
			tr := rc.Trace(t, seed, 30)
			rc.Props = twoNodeProps(rc.Props)
			sameStats(t, tr, rc.Compile(t, spec), evaluator.Options{Workers: 2, MaxWitnesses: 2, MaxMoments: 5})
		})
	}
	t.Run("periodic", func(t *testing.T) {
		spec, tr := periodicTrace(t, 150, 16)
		sameStats(t, tr, samplePool(t, spec, tr, 1200), evaluator.Options{Workers: 2, Pruner: keepAbove{every: 50, rate: 0.9}})
	})
}

// TestFastBatches compares the evaluators when the fast one counts its
// scopes of up to 256 bindings in batches of several sizes (1 and 3
// snapshots: batches that end at every snapshot or between; 64, full
// batches over a chunk of 200 snapshots) or none (0), at high churn and
// low, with tagged snapshots (the random cases) and with few moments
// kept, so that runs of one snapshot end in line.
func TestFastBatches(t *testing.T) {
	type tcase struct {
		name string
		tr   *trace.Trace
		prog *evaluator.Program
		opts evaluator.Options
	}
	var cases []tcase
	for seed := range uint64(3) {
		rc := evaltest.NewCase(400+seed, 80)
		rc.Nodes = 12
		spec, err := specs.Parse("random.yaml", []byte(rc.Spec))
		if err != nil {
			t.Fatal(err)
		}
		tr := rc.Trace(t, seed, 200)
		rc.Props = twoNodeProps(rc.Props)
		cases = append(cases, tcase{fmt.Sprintf("random/%d", seed), tr, rc.Compile(t, spec), evaluator.Options{Workers: 2, MaxWitnesses: 2, MaxMoments: 3}})
	}
	for _, churn := range []int{16, 2} {
		spec, tr := periodicTrace(t, 200, churn)
		// One witness and three moments: a property has its witness
		// before its moments, so that its runs that end keep moments.
		cases = append(cases, tcase{fmt.Sprintf("periodic/churn=%d", churn), tr, samplePool(t, spec, tr, 600), evaluator.Options{Workers: 1, MaxWitnesses: 1, MaxMoments: 3}})
	}
	for _, slots := range []int{0, 1, 3, 64} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("slots=%d/%s", slots, c.name), func(t *testing.T) {
				defer evaluator.SetBatchSlots(slots)()
				sameStats(t, c.tr, c.prog, c.opts)
			})
		}
	}
}

// TestFastBatchRule compares the evaluators on a trace whose churn
// changes: stretches where every node changes at every snapshot, where
// the fast engine counts its two-node scope in batches (batchDirty),
// between stretches where one node changes at every eighth snapshot,
// where it counts snapshot by snapshot. At the default rule it switches
// both ways; never batching (0) and batching wherever an atom changed (a
// large value) must agree as well.
func TestFastBatchRule(t *testing.T) {
	tr := churnStretches(t, 10, 1200, 300)
	var atoms = []string{"n0.x <= n1.x", "n0.y == n1.y", "n0.x == n1.y", "n0.state == n1.state", "n0.x < 2", "n1.y != 1", "n0.y > n1.x"}
	var props []string
	for i := range atoms {
		for j := i + 1; j < len(atoms); j++ {
			props = append(props, fmt.Sprintf("forall n0, n1 in nodes: %s or %s", atoms[i], atoms[j]))
			for k := j + 1; k < len(atoms); k++ {
				props = append(props, fmt.Sprintf("forall n0, n1 in nodes: %s or %s or %s", atoms[i], atoms[j], atoms[k]))
			}
		}
	}
	prog := compileTiny(t, props...)
	for _, slots := range []int{8, 64} {
		for _, dirty := range []int64{6, 0, 1 << 40} {
			t.Run(fmt.Sprintf("slots=%d/dirty=%d", slots, dirty), func(t *testing.T) {
				defer evaluator.SetBatchSlots(slots)()
				defer evaluator.SetBatchDirty(dirty)()
				var toSparse, toBatch atomic.Int64
				defer evaluator.OnBatchRule(func(sparse bool) {
					if sparse {
						toSparse.Add(1)
					} else {
						toBatch.Add(1)
					}
				})()
				sameStats(t, tr, prog, evaluator.Options{Workers: 2, MaxWitnesses: 2, MaxMoments: 3})
				t.Logf("switched to counting snapshot by snapshot %d times, to batches %d", toSparse.Load(), toBatch.Load())
				if dirty == 6 && (toSparse.Load() == 0 || toBatch.Load() == 0) {
					t.Errorf("the rule switched %d times to counting snapshot by snapshot and %d to batches; want both", toSparse.Load(), toBatch.Load())
				}
			})
		}
	}
}

// churnStretches is a trace of tinySpec over n nodes always up, in
// stretches of the given length: in the first and every other, every
// node takes a new state at every snapshot; in the others, one node at
// every eighth snapshot. A fifth of the snapshots are tagged.
func churnStretches(t testing.TB, n, snapshots, stretch int) *trace.Trace {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 0))
	b := tracetest.New(t, tinySchema, trace.Options{BatchRows: 5})
	rows := make([]uint32, n)
	for i := range snapshots {
		dense := i/stretch%2 == 0
		for k := range rows {
			if dense || i%8 == 0 && k == i/8%n {
				name := fmt.Sprintf("n%d", k)
				vars := make([]any, len(tinySchema))
				vars[0], vars[1], vars[2], vars[3] = name, int64(r.IntN(4)), int64(r.IntN(3)), []string{"follower", "leader"}[r.IntN(2)]
				rows[k] = b.State(name, uint64(i), vars...)
			}
		}
		s := trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: slices.Clone(rows)}
		if r.IntN(5) == 0 {
			s.Tags = []string{"bug:x"}
		}
		b.Snapshot(s)
	}
	return b.Open()
}

// TestFastBlocks compares the evaluators when the fast one evaluates
// its scopes in blocks of a few bindings, as it does when the bitsets of
// every binding would not fit in its memory.
func TestFastBlocks(t *testing.T) {
	for _, bytes := range []int{1, 40, 300} {
		for seed := range uint64(12) {
			t.Run(fmt.Sprintf("bytes=%d/%d", bytes, seed), func(t *testing.T) {
				defer evaluator.SetScopeBytes(bytes)()
				runRandomCase(t, seed, 150, 40)
			})
		}
	}
}

// TestFastMemo checks that memoizing predicates changes nothing in the
// fast evaluator's results, failures included (which the reference,
// evaluating fewer atoms, does not match: it stops at a binding's first
// literal that holds).
func TestFastMemo(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := evaltest.NewCase(seed, 150)
			spec, err := specs.Parse("random.yaml", []byte(c.Spec))
			if err != nil {
				t.Fatal(err)
			}
			tr := c.Trace(t, seed, 60)
			prog := c.Compile(t, spec)
			opts := evaluator.Options{Kind: evaluator.Fast, Workers: 2}
			want, err := evaluator.Run(context.Background(), tr, prog, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer evaluator.SetMemoSize(0)()
			got, err := evaluator.Run(context.Background(), tr, prog, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("results differ without the memo:\nwith    %+v\nwithout %+v", want.Failures, got.Failures)
			}
		})
	}
}

// TestMovingSpans checks that the results of both evaluators do not
// depend on how Run cuts the properties between engines from one chunk to
// the next: a property that changes engine starts a new run.
func TestMovingSpans(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := evaltest.NewCase(200+seed, 120)
			spec, err := specs.Parse("random.yaml", []byte(c.Spec))
			if err != nil {
				t.Fatal(err)
			}
			tr := c.Trace(t, seed, 700)
			prog := c.Compile(t, spec)
			opts := evaluator.Options{Kind: evaluator.Fast, Workers: 1, Pruner: keepAbove{every: 60, rate: 0.6}}
			want, err := evaluator.Run(context.Background(), tr, prog, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer evaluator.MoveSpans(seed)()
			for _, kind := range []evaluator.Kind{evaluator.Fast, evaluator.Reference} {
				opts.Kind, opts.Workers = kind, 3
				got, err := evaluator.Run(context.Background(), tr, prog, opts)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want.Stats {
					if !reflect.DeepEqual(got.Stats[i], want.Stats[i]) {
						t.Fatalf("%s, %s with moving spans:\ngot  %+v\nwant %+v", kind, prog.Props[i].Text, got.Stats[i], want.Stats[i])
					}
				}
			}
		})
	}
}

// TestFastWorkers checks that the fast evaluator's results do not depend
// on the number of workers.
func TestFastWorkers(t *testing.T) {
	c := evaltest.NewCase(7, 150)
	spec, err := specs.Parse("random.yaml", []byte(c.Spec))
	if err != nil {
		t.Fatal(err)
	}
	tr := c.Trace(t, 7, 1100) // 5 blocks, 3 chunks of the pruner
	prog := c.Compile(t, spec)
	for _, pruner := range []evaluator.Pruner{nil, keepAbove{every: 500, rate: 0.7}} {
		opts := evaluator.Options{Kind: evaluator.Fast, Workers: 1, Pruner: pruner}
		want, err := evaluator.Run(context.Background(), tr, prog, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 3, 5} {
			opts.Workers = workers
			got, err := evaluator.Run(context.Background(), tr, prog, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("pruner %v, %d workers: results differ from 1 worker", pruner, workers)
			}
		}
	}
}

// TestDecodeWindows checks that the states a run decodes once for every
// engine (decoder) are those each would have decoded: cut into windows
// of one member (a snapshot each) or of a few (windows that end part way
// through a chunk), decoded in two or three parts that start anywhere,
// each evaluator gives the stats and the failures it gives with one
// worker and windows as long as the chunks, and the fast evaluator the
// reference's stats, to the field. (The evaluators call predicates on
// different arguments, and so may count different failing ones.)
func TestDecodeWindows(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := evaltest.NewCase(500+seed, 60)
			spec, err := specs.Parse("random.yaml", []byte(c.Spec))
			if err != nil {
				t.Fatal(err)
			}
			tr := c.Trace(t, seed, 50)
			prog := c.Compile(t, spec)
			run := func(kind evaluator.Kind, workers int) *evaluator.Result {
				t.Helper()
				res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: kind, Workers: workers, MaxWitnesses: 2, MaxMoments: 5})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			ref := run(evaluator.Reference, 1)
			for _, kind := range []evaluator.Kind{evaluator.Reference, evaluator.Fast} {
				want := run(kind, 1)
				for _, members := range []int{1, 7} {
					restore := evaluator.SetWindowMembers(members)
					for _, workers := range []int{2, 3} {
						got := run(kind, workers)
						if !reflect.DeepEqual(got.Failures, want.Failures) {
							t.Errorf("%s, %d workers, windows of %d members: failures\n%+v\nwant\n%+v", kind, workers, members, got.Failures, want.Failures)
						}
						for i := range ref.Stats {
							if !reflect.DeepEqual(got.Stats[i], ref.Stats[i]) {
								t.Fatalf("%s, %d workers, windows of %d members: %s:\ngot  %+v\nwant %+v", kind, workers, members, prog.Props[i].Text, got.Stats[i], ref.Stats[i])
							}
						}
					}
					restore()
				}
			}
		})
	}
}

// TestSelect checks that a program of some of a program's properties
// (Program.Select), sharing their compiled form, evaluates each as the
// whole program does, on both evaluators, with and without patterns, and
// after a run of the whole program has used the same compiled properties.
func TestSelect(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := evaltest.NewCase(200+seed, 120)
			spec, err := specs.Parse("random.yaml", []byte(c.Spec))
			if err != nil {
				t.Fatal(err)
			}
			tr := c.Trace(t, seed, 40)
			prog := c.Compile(t, spec)
			var at []int // every third property, last first
			for i := len(prog.Props) - 1; i >= 0; i -= 3 {
				at = append(at, i)
			}
			sel := prog.Select(at)
			if len(sel.Props) != len(at) || sel.Spec != prog.Spec {
				t.Fatalf("Select of %d properties: %d, spec %p (want %p)", len(at), len(sel.Props), sel.Spec, prog.Spec)
			}
			for _, kind := range kinds {
				for _, noPatterns := range []bool{false, true} {
					opts := evaluator.Options{Kind: kind, Workers: 2, MaxWitnesses: 2, MaxMoments: 5, NoPatterns: noPatterns}
					whole, err := evaluator.Run(context.Background(), tr, prog, opts)
					if err != nil {
						t.Fatal(err)
					}
					part, err := evaluator.Run(context.Background(), tr, sel, opts)
					if err != nil {
						t.Fatal(err)
					}
					for n, i := range at {
						if sel.Props[n] != prog.Props[i] {
							t.Fatalf("property %d of the selection is not property %d of the program", n, i)
						}
						if !reflect.DeepEqual(part.Stats[n], whole.Stats[i]) {
							t.Fatalf("%v, no patterns %v: %s:\nselected %+v\nwhole    %+v", kind, noPatterns, prog.Props[i].Text, part.Stats[n], whole.Stats[i])
						}
					}
				}
			}
		})
	}
}
