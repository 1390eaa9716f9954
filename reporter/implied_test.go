package reporter

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/augur-dev/augur/grammar"
)

func TestImpliers(t *testing.T) {
	for _, tt := range []struct {
		prop string
		want []string // among the texts of the impliers' sub-disjunctions
		not  []string // and not among them
	}{{
		prop: "forall n0, n1 in nodes: forall e0 in n0.routes: e0.via in n1.up or n0.up != n1.up",
		want: []string{"forall n0 in nodes: forall e0 in n0.routes: e0.via in n0.up"},
	}, {
		prop: "forall n0, n1 in nodes: n0.commit <= n1.last or n1.last <= n0.last",
		want: []string{"forall n0 in nodes: n0.commit <= n0.last"},
		not:  []string{"forall n0 in nodes: n0.commit < n0.last"}, // implies it too, but is not the weakest
	}, {
		// Both strict: where both fail, n0.last <= n1.last <= n0.commit,
		// which only n0.commit < n0.last rules out.
		prop: "forall n0, n1 in nodes: n0.commit < n1.last or n1.last < n0.last",
		want: []string{"forall n0 in nodes: n0.commit < n0.last"},
		not:  []string{"forall n0 in nodes: n0.commit <= n0.last"},
	}, {
		// One strict: where both fail, n0.last < n1.last <= n0.commit.
		prop: "forall n0, n1 in nodes: n0.commit < n1.last or n1.last <= n0.last",
		want: []string{"forall n0 in nodes: n0.commit <= n0.last"},
	}, {
		prop: "forall n0, n1 in nodes: forall e0 in n0.routes: e0.via in n1.up or not n0.up subset n1.up",
		want: []string{"forall n0 in nodes: forall e0 in n0.routes: e0.via in n0.up"},
	}, {
		prop: "forall n0, n1 in nodes: n0.a subset n1.c or not n0.b subset n1.c or n0.x == n1.x",
		want: []string{"forall n0, n1 in nodes: n0.a subset n0.b or n0.x == n1.x", "forall n0 in nodes: n0.a subset n0.b"},
	}, {
		// Equal values read the other way too, and the rest comes along.
		prop: "forall n0, n1 in nodes: n0.t != n1.t or n0.a <= n1.t or n0.s == \"up\"",
		want: []string{`forall n0 in nodes: n0.a <= n0.t or n0.s == "up"`, "forall n0, n1 in nodes: n0.a <= n1.t"},
	}, {
		// Nothing to reason on: no implier beyond the sub-disjunctions.
		prop: "forall n0, n1 in nodes: n0.a <= n1.b or n0.s == \"up\"",
		not:  []string{"forall n0 in nodes: n0.a <= n0.b"},
	}} {
		t.Run(tt.prop, func(t *testing.T) {
			p, err := grammar.Parse(tt.prop)
			if err != nil {
				t.Fatal(err)
			}
			got := impliedTexts(p)
			for _, w := range tt.want {
				q, err := grammar.Parse(w)
				if err != nil {
					t.Fatal(err)
				}
				if !got[q.SymmetricText()] {
					t.Errorf("%s is not among the impliers' sub-disjunctions %v", w, slices.Sorted(maps.Keys(got)))
				}
			}
			for _, w := range tt.not {
				q, err := grammar.Parse(w)
				if err != nil {
					t.Fatal(err)
				}
				if got[q.SymmetricText()] {
					t.Errorf("%s is among the impliers' sub-disjunctions", w)
				}
			}
		})
	}
}

// TestImpliersSound checks every implier of random disjunctions against
// the obvious oracle: over random values of their paths (integers of a
// small range, so that values are often equal, and sets of them), the
// implier never holds where the property fails.
func TestImpliersSound(t *testing.T) {
	ints := []string{"n0.a", "n0.b", "n1.a", "n1.b", "e0.v"}
	sets := []string{"n0.s", "n0.t", "n1.s", "n1.t"}
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	literal := func() string {
		neg := []string{"", "not "}[rng.IntN(2)]
		switch rng.IntN(4) {
		case 0:
			return pick(ints) + []string{" < ", " <= ", " != ", " == "}[rng.IntN(4)] + pick(ints)
		case 1:
			return neg + pick(ints) + " in " + pick(sets)
		case 2:
			return neg + pick(sets) + " subset " + pick(sets)
		}
		return pick(sets) + " != " + pick(sets)
	}
	checked := 0
	for range 1000 {
		text := "forall n0, n1 in nodes: forall e0 in n0.s: " + literal()
		for range 1 + rng.IntN(3) {
			text += " or " + literal()
		}
		p, err := grammar.Parse(text)
		if err != nil {
			continue // a literal the grammar refuses, such as x <= x
		}
		for _, d := range impliers(p) {
			for range 100 {
				v := map[string]any{}
				for _, x := range ints {
					v[x] = rng.IntN(3)
				}
				for _, x := range sets {
					v[x] = rng.IntN(8) // a set of 0, 1, 2 as bits
				}
				if holds(t, d.Matrix, v) && !holds(t, p.Matrix, v) {
					t.Fatalf("%s implies %s, but at %v it holds and that fails", d.Text(), p.Text(), v)
				}
				checked++
			}
		}
	}
	if checked < 5000 {
		t.Errorf("%d valuations checked: the cases find too few impliers", checked)
	}
}

// holds evaluates a disjunction of the literals TestImpliersSound makes:
// integers, and sets of them as bits.
func holds(t *testing.T, lits []*grammar.Literal, v map[string]any) bool {
	val := func(x grammar.Operand) int { return v[x.String()].(int) }
	for _, l := range lits {
		var b bool
		switch a := l.Atom.(type) {
		case *grammar.Compare:
			x, y := val(a.X), val(a.Y)
			b = map[grammar.Op]bool{grammar.OpLt: x < y, grammar.OpLe: x <= y, grammar.OpEq: x == y, grammar.OpNe: x != y}[a.Op]
		case *grammar.In:
			b = val(a.S)&(1<<val(a.X)) != 0
		case *grammar.Subset:
			b = val(a.X)&^val(a.Y) == 0
		default:
			t.Fatalf("literal %s", l.Atom)
		}
		if b != l.Neg {
			return true
		}
	}
	return false
}
