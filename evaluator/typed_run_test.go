package evaluator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/evaluator/evaltest"
	"github.com/augur-dev/augur/grammar"
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
					wj, err := json.Marshal(w.Witnesses)
					if err != nil {
						t.Fatal(err)
					}
					gj, err := json.Marshal(g.Witnesses)
					if err != nil {
						t.Fatal(err)
					}
					if string(wj) != string(gj) {
						t.Fatalf("%s, %s: witnesses\ntyped %s\nboxed %s", kind, prog.Props[i].Text, gj, wj)
					}
					for _, ws := range [][]evaluator.Witness{w.Witnesses, g.Witnesses} {
						for _, x := range ws {
							for k, v := range x.Values {
								x.Values[k] = evaluator.Boxed(v)
							}
							for k, v := range x.Binding {
								x.Binding[k] = evaluator.Boxed(v)
							}
						}
					}
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
