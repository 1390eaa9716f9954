package evaluator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/evaluator/evaltest"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/ir"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

// TestTypedStatesSameStats runs both engines on random cases with the
// states' lists decoded typed, as they are, and as []any: every Stats is
// the same, and its witnesses the same once their lists are boxed (their
// JSON, as reports write it, byte for byte).
func TestTypedStatesSameStats(t *testing.T) {
	n := 24
	if testing.Short() {
		n = 6
	}
	for seed := range uint64(n) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := evaltest.NewCase(200+seed, 150)
			spec, err := specs.Parse("random.yaml", []byte(c.Spec))
			if err != nil {
				t.Fatal(err)
			}
			tr := c.Trace(t, seed, 40)
			prog := c.Compile(t, spec)
			for _, kind := range []evaluator.Kind{evaluator.Fast, evaluator.Reference} {
				opts := evaluator.Options{Kind: kind, Workers: 2, MaxWitnesses: 3, MaxMoments: 5}
				run := func(boxedStates bool) *evaluator.Result {
					defer evaluator.SetBoxedStates(boxedStates)()
					res, err := evaluator.Run(context.Background(), tr, prog, opts)
					if err != nil {
						t.Fatal(err)
					}
					return res
				}
				want, got := run(true), run(false)
				for i := range want.Stats {
					w, g := want.Stats[i], got.Stats[i]
					ww, gw := w.Witnesses(), g.Witnesses()
					wj, err := json.Marshal(ww)
					if err != nil {
						t.Fatal(err)
					}
					gj, err := json.Marshal(gw)
					if err != nil {
						t.Fatal(err)
					}
					if string(wj) != string(gj) {
						t.Fatalf("%s, %s: witnesses\ntyped %s\nboxed %s", kind, prog.Props[i].Text, gj, wj)
					}
					for _, ws := range [][]evaluator.Witness{ww, gw} {
						for _, x := range ws {
							for k, v := range x.Values {
								x.Values[k] = evaluator.Boxed(v)
							}
							for k, v := range x.Binding {
								x.Binding[k] = evaluator.Boxed(v)
							}
						}
					}
					if !reflect.DeepEqual(gw, ww) {
						t.Fatalf("%s, %s: witnesses\ntyped %+v\nboxed %+v", kind, prog.Props[i].Text, gw, ww)
					}
					w.SetWitnesses(nil) // compared above, boxed
					g.SetWitnesses(nil)
					if !reflect.DeepEqual(g, w) {
						t.Fatalf("%s, %s:\ntyped %+v\nboxed %+v", kind, prog.Props[i].Text, g, w)
					}
				}
				if !reflect.DeepEqual(got.Failures, want.Failures) {
					t.Fatalf("%s: failures\ntyped %+v\nboxed %+v", kind, got.Failures, want.Failures)
				}
			}
		})
	}
}

// TestExpressionsTakeBoxedLists checks that derived variables and
// predicates take a typed list as the []any they took before typed
// lists: expr-lang's sort, for one, sorts a []any and returns an
// []int64 as an empty list.
func TestExpressionsTakeBoxedLists(t *testing.T) {
	spec, err := specs.Parse("boxed.yaml", []byte(`system: boxed
types: {Num: int64}
variables:
  nums: list<Num>
derived:
  least: {type: Num, expr: "sort(nums)[0]"}
predicates:
  - name: sorts
    params: [{a: list<Num>}]
    expr: "len(sort(a)) == len(a)"
`))
	if err != nil {
		t.Fatal(err)
	}
	b := tracetest.New(t, trace.Schema{{Name: "nums", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}, trace.Options{})
	b.Snapshot(trace.Snapshot{ID: 1, TS: 1, Members: []uint32{b.State("n1", 1, []int64{1000, 3, 7})}})
	tr := b.Open()
	var props []*grammar.Property
	for _, s := range []string{"forall n0 in nodes: n0.least == 3", "forall n0 in nodes: sorts(n0.nums)"} {
		p, err := grammar.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		props = append(props, p)
	}
	prog, err := evaluator.Compile(spec, props)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []evaluator.Kind{evaluator.Fast, evaluator.Reference} {
		res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: kind, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range res.Stats {
			if st.Perfect != 1 {
				t.Errorf("%s: %s does not hold (failures %+v)", kind, prog.Props[i].Text, res.Failures)
			}
		}
	}
}

// hugeTrace returns the spec and a trace of three snapshots of two
// nodes, n1 with the list big as nums and x its 8th element, n2 with a
// list of big's 4th and 8th elements and x the 4th.
func hugeTrace(t *testing.T, big []int64) (*specs.Spec, *trace.Trace) {
	spec, err := specs.Parse("huge.yaml", []byte(`system: huge
types: {Num: int64}
variables:
  x: Num
  nums: list<Num>
`))
	if err != nil {
		t.Fatal(err)
	}
	schema := trace.Schema{{Name: "x", Type: arrow.PrimitiveTypes.Int64}, {Name: "nums", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}
	b := tracetest.New(t, schema, trace.Options{})
	rows := []uint32{b.State("n1", 1, big[7], big), b.State("n2", 1, big[3], []int64{big[3], big[7]})}
	for s := range uint64(3) {
		b.Snapshot(trace.Snapshot{ID: s, TS: s, Members: rows})
	}
	return spec, b.Open()
}

// TestRunHugeListMemory evaluates, with the fast engine, a trace whose
// one state holds a list of 2^20 int64 (8 MiB), under atoms that need its
// members (in, subset), its id (==) and its length. The run allocates
// about twice the list: the record batch it is read from, which the
// decoded list shares, and its members sorted (before typed lists, the
// list was decoded to a []any of boxed numbers and the interner numbered
// every element: 5 times as much). Each more worker adds a sorted copy,
// its engine's own.
func TestRunHugeListMemory(t *testing.T) {
	const n = 1 << 20
	big := make([]int64, n)
	for i := range big {
		big[i] = int64(i*7919%n) - 1<<40 // unsorted, and none boxed without an allocation
	}
	spec, tr := hugeTrace(t, big)
	prog := compileSpec(t, spec,
		"forall n0, n1 in nodes: n0.x in n1.nums",
		"forall n0, n1 in nodes: n0.nums subset n1.nums",
		"forall n0, n1 in nodes: n0.nums == n1.nums",
		"forall n0 in nodes: not empty(n0.nums)",
	)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: evaluator.Fast, Workers: 1})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("evaluating a list of %d int64 (%d MiB) allocated %d KiB", n, 8*n>>20, got>>10)
	if limit := uint64(2*8*n + 4<<20); got > limit {
		t.Errorf("evaluating a list of %d MiB allocated %d KiB, more than %d KiB", 8*n>>20, got>>10, limit>>10)
	}
	// Each x is in the other's list, n2's list is a subset of n1's, not
	// equal to it.
	want := []int64{2, 1, 0, 2}
	for i, st := range res.Stats {
		if h := st.Bindings - st.Violations; h != 3*want[i] {
			t.Errorf("%s: holds at %d bindings in 3 snapshots, want %d", prog.Props[i].Text, h, 3*want[i])
		}
	}
}

// TestWitnessHugeList checks that the witnesses of both engines keep the
// head of a huge list, saying its length, not the list (issue 31: 20 of
// them, each holding a 2M-integer list, took 6.5 GB in augur check
// --format json).
func TestWitnessHugeList(t *testing.T) {
	const n = 1 << 20
	big := make([]int64, n)
	for i := range big {
		big[i] = int64(i)
	}
	spec, tr := hugeTrace(t, big)
	prog := compileSpec(t, spec, "forall n0 in nodes: empty(n0.nums)")
	for _, kind := range kinds {
		res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: kind, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		wits := res.Stats[0].Witnesses()
		if len(wits) != 3 {
			t.Fatalf("%s: %d witnesses, want 3", kind, len(wits))
		}
		for _, w := range wits {
			data, err := json.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]int{"/values/n0.nums": n}; !reflect.DeepEqual(w.Cut, want) || len(data) > 2*ir.MaxValueJSON {
				t.Errorf("%s: witness of %d bytes of JSON, cut %v; want at most %d, cut %v", kind, len(data), w.Cut, 2*ir.MaxValueJSON, want)
			}
		}
	}
}
