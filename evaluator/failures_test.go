package evaluator_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// failSpec has a derived variable that fails on a null log and a
// predicate that fails on a null argument.
const failSpec = `
system: tiny
types:
  Num: int64
variables:
  id: string
  x: Num
  log: "list<{term: Num, index: Num}>"
derived:
  last: {type: Num, expr: "log[len(log)-1].index"}
predicates:
  - name: behind
    params: [{a: Num}, {b: Num}]
    expr: "a + 1 < b"
`

// TestFailures checks that the derived variables and predicates that fail
// at run time are counted, by distinct input, the same way by both
// evaluators and for any number of workers, and that one failing on every
// input is marked Always.
func TestFailures(t *testing.T) {
	entry := func(i int64) []any { return []any{map[string]any{"term": int64(1), "index": i}} }
	// Node b has no log in snapshots 1 and 2 (two state rows), and no x in
	// snapshot 2; node c has an empty log in snapshot 3.
	tr := writeTiny(t, []snap{
		{"a": {"x": i64(1), "log": entry(1)}, "b": {"x": i64(5), "log": entry(1)}},
		{"a": {"x": i64(1), "log": entry(1)}, "b": {"x": i64(5)}},
		{"a": {"x": i64(2), "log": entry(2)}, "b": {}},
		{"a": {"x": i64(2), "log": entry(2)}, "c": {"x": i64(4), "log": []any{}}},
	})
	defer tr.Close()
	boom := strings.Replace(failSpec, "derived:\n", "derived:\n  boom: {type: Num, expr: \"x % 0\"}\n", 1)
	spec, err := specs.Parse("fail.yaml", []byte(boom))
	if err != nil {
		t.Fatal(err)
	}
	var props []*grammar.Property
	for _, s := range []string{
		"forall n in nodes: n.last > 0",
		"forall n, m in nodes: n.id == m.id or behind(n.x, m.x) or behind(m.x, n.x) or n.x == m.x",
	} {
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
	want := []evaluator.ExprFailures{
		// Every state row.
		{Kind: "derived", Name: "boom", Inputs: 8, Snapshot: 0, Error: "derived boom: runtime error: integer divide by zero", Always: true},
		// Rows of b in snapshots 1 and 2, of c in 3.
		{Kind: "derived", Name: "last", Inputs: 3, Snapshot: 1, Error: "derived last: invalid argument for len (type <nil>)"},
		// (a.x, null) and (null, a.x) in snapshot 2.
		{Kind: "predicate", Name: "behind", Inputs: 2, Snapshot: 2, Error: "predicate behind: invalid operation: <nil> + int"},
	}
	// The derived variables fail where the states are decoded, once for
	// every engine (decoder): in windows of one snapshot, of a few, or of
	// the whole trace, and in one part or two.
	for _, members := range []int{1, 3, 0} {
		restore := func() {}
		if members > 0 {
			restore = evaluator.SetWindowMembers(members)
		}
		for _, kind := range []evaluator.Kind{evaluator.Reference, evaluator.Fast} {
			for _, workers := range []int{1, 2} {
				res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: kind, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(res.Failures, want) {
					t.Errorf("%s, %d workers, windows of %d members: failures\n%+v\nwant\n%+v", kind, workers, members, res.Failures, want)
				}
			}
		}
		restore()
	}
}

func TestMergeFailures(t *testing.T) {
	a := []evaluator.ExprFailures{{Kind: "derived", Name: "d", Inputs: 2, Snapshot: 9, Error: "late"}}
	b := []evaluator.ExprFailures{
		{Kind: "derived", Name: "d", Inputs: 1, Snapshot: 4, Error: "early"},
		{Kind: "predicate", Name: "p", Inputs: 5, Snapshot: 7, Error: "p"},
	}
	got := evaluator.MergeFailures(a, b)
	want := []evaluator.ExprFailures{
		{Kind: "derived", Name: "d", Inputs: 3, Snapshot: 4, Error: "early"},
		{Kind: "predicate", Name: "p", Inputs: 5, Snapshot: 7, Error: "p"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MergeFailures = %+v, want %+v", got, want)
	}
	// An expression fails always if it did in every shard; a shard
	// without a tally of it only saw it succeed.
	a[0].Always, b[0].Always, b[1].Always = true, true, true
	want[0].Always = true
	if got := evaluator.MergeFailures(a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("MergeFailures of Always = %+v, want %+v", got, want)
	}
}

// BenchmarkFailingPredicate evaluates a predicate that fails at every
// binding (a null argument), the worst case of the failure tally.
func BenchmarkFailingPredicate(b *testing.B) {
	var snaps []snap
	for i := range 200 {
		s := snap{}
		for n := range 8 {
			st := st{"log": []any{}}
			if n != 0 {
				st["x"] = i64(int64(i + n))
			}
			s[fmt.Sprint("n", n)] = st
		}
		snaps = append(snaps, s)
	}
	tr := writeTiny(b, snaps)
	defer tr.Close()
	spec, err := specs.Parse("fail.yaml", []byte(failSpec))
	if err != nil {
		b.Fatal(err)
	}
	p, err := grammar.Parse("forall n, m in nodes: n.id == m.id or behind(n.x, m.x)")
	if err != nil {
		b.Fatal(err)
	}
	prog, err := evaluator.Compile(spec, []*grammar.Property{p})
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range []evaluator.Kind{evaluator.Reference, evaluator.Fast} {
		b.Run(kind.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: kind, Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
