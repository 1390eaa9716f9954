package grammar

import "testing"

func TestString(t *testing.T) {
	p, err := Parse(`forall x in nodes: exists e in x.log: not (e.a >= 1.0) or q(e, "s") or empty(x.b)`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		node interface{ String() string }
		want string
	}{
		{p, `forall x in nodes: exists e in x.log: not 1.0 <= e.a or q(e, "s") or empty(x.b)`},
		{p.Quants[0], "forall x in nodes"},
		{p.Quants[1], "exists e in x.log"},
		{p.Matrix[0], "not 1.0 <= e.a"},
		{p.Matrix[0].Atom, "1.0 <= e.a"},
		{p.Matrix[1].Atom, `q(e, "s")`},
		{p.Matrix[2].Atom, "empty(x.b)"},
		{OpNe, "!="},
		{Op(9), "Op(9)"},
		{Exists, "exists"},
		{QuantInvalid, "QuantKind(0)"},
		{ConstUint, "uint"},
		{&Const{}, "ConstKind(0)"},
		{&Literal{}, "<nil>"},
		{&Compare{Op: OpEq, X: &Path{Var: "a"}}, "a == <nil>"},
	}
	for _, tt := range tests {
		if got := tt.node.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
