package evaluator

import (
	"math"
	"testing"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/ir"
	"github.com/augur-dev/augur/specs"
)

// TestPlanNotEqual checks that the planner gives x != y and x == y one
// atom, the literal of != negated, and the equivalence it relies on: in
// the semantics the reference evaluates, != is the negation of == for
// every pair of values, null, NaN and mixed numbers included (unlike <,
// which is not the negation of >= when an operand is null).
func TestPlanNotEqual(t *testing.T) {
	vals := []any{nil, int64(0), int64(2), uint64(math.MaxUint64), int64(math.MaxInt64), 2.0, math.Copysign(0, -1),
		math.NaN(), "a", "", true, []any{int64(1)}, []any{uint64(1)}, []any{math.NaN()}, map[string]any{"k": nil}, map[string]any{}}
	for _, x := range vals {
		for _, y := range vals {
			if ne, eq := ir.Holds(grammar.OpNe, x, y, equal, less), ir.Holds(grammar.OpEq, x, y, equal, less); ne == eq {
				t.Errorf("%#v != %#v is %v, and == is %v", x, y, ne, eq)
			}
		}
	}

	spec, err := specs.Parse("s.yaml", []byte("types: {Num: int64, Name: string}\nvariables: {id: Name, x: Num, y: Num}\n"))
	if err != nil {
		t.Fatal(err)
	}
	prog := compileSources(t, spec,
		`forall n0, n1 in nodes: n0.x != n1.y or n1.x <= 3`,
		`forall n0, n1 in nodes: n0.x == n1.y or n1.x <= 3`,
		`forall n0, n1 in nodes: n0.id != "a" or n1.x != n0.x`,
		`forall n0, n1 in nodes: n0.id == "a" or n1.x == n0.x`,
	)
	pl := newPlan(prog)
	if len(pl.scopes) != 1 || len(pl.fallback) > 0 {
		t.Fatalf("%d scopes, %d properties left to the reference; want one scope", len(pl.scopes), len(pl.fallback))
	}
	sc := pl.scopes[0]
	if len(sc.atoms) != 4 {
		t.Errorf("%d atoms, want 4: != and == share theirs", len(sc.atoms))
	}
	for _, a := range append(sc.atoms, pl.rowAtoms...) {
		if a.kind == ir.Compare && a.op == grammar.OpNe {
			t.Errorf("an atom of the plan is a !=: %+v", a)
		}
	}
	// Each property with != is that after it with ==, the literals of !=
	// negated.
	for k, negated := range [][]bool{{true, false}, {true, true}} {
		ne, eq := &sc.props[2*k], &sc.props[2*k+1]
		for l := range ne.lits {
			if ne.lits[l] != eq.lits[l] || (ne.xor[l] != eq.xor[l]) != negated[l] {
				t.Errorf("%s and %s: literal %d has atoms %d and %d, xor %#x and %#x", prog.Props[ne.index].Text, prog.Props[eq.index].Text,
					l, ne.lits[l], eq.lits[l], ne.xor[l], eq.xor[l])
			}
		}
	}
}
