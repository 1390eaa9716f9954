package ir

import (
	"fmt"
	"strings"
	"testing"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

const testSpec = `
variables:
  x: int64
  ok: bool
  log: "list<{term: int64}>"
  peers: set<string>
derived:
  next: {type: int64, expr: "x + 1"}
predicates:
  - name: before
    params: [{a: int64}, {b: int64}]
    expr: a < b
`

// TestBuild checks the compiled form of properties, dumped as the
// quantifiers, the literals and the paths of the matrix. A path prints as
// n<slot>:<variable> for a node's state variable (the derived next is
// variable 4) or e<slot> for an element, then its fields.
func TestBuild(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{
			"forall n0, n1 in nodes: n0.x == n1.x",
			"forall[0 1] bound=2 | compare(== n0:0, n1:0) | n0:0 n1:0",
		},
		{
			"forall n0 in nodes: n0.x < 3 or not n0.ok or set(n0.next)",
			"forall[0] bound=1 | compare(< n0:0, int(3)) !truth(n0:1) set(n0:4) | n0:0 n0:1 n0:4",
		},
		{
			"forall n0 in nodes: forall e0 in n0.log: e0.term <= n0.x",
			"forall[0] forall[1 in n0:2] bound=2 | compare(<= e1.term, n0:0) | e1.term n0:0",
		},
		{
			"forall n0 in nodes: exists n1 in nodes: empty(n0.peers) or n0.peers subset n1.peers",
			"forall[0] exists[1] bound=1 | empty(n0:3) subset(n0:3, n1:3) | n0:3 n1:3",
		},
		{
			`forall n0, n1 in nodes: "x" in n0.peers or before(n0.x, n1.x)`,
			"forall[0 1] bound=2 | in(string(x), n0:3) call before(n0:0, n1:0) | n0:3 n0:0 n1:0",
		},
	}
	for _, tt := range tests {
		if got := dump(build(t, tt.src)); got != tt.want {
			t.Errorf("Build(%s)\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// build parses src and builds it against testSpec, keeping the constants
// as they are parsed.
func build(t *testing.T, src string) Prop[any] {
	t.Helper()
	spec, err := specs.Parse("test.yaml", []byte(testSpec))
	if err != nil {
		t.Fatal(err)
	}
	p, err := grammar.Parse(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return Build(spec, p, func(c *grammar.Const) any { return c }, nil)
}

func dump(p Prop[any]) string {
	var b strings.Builder
	for i, q := range p.Quants {
		kind := "forall"
		if q.Exists {
			kind = "exists"
		}
		if i != 0 {
			b.WriteByte(' ')
		}
		slots := strings.Trim(fmt.Sprint(q.Slots), "[]")
		if q.Domain != nil {
			slots += " in " + dumpPath(q.Domain)
		}
		fmt.Fprintf(&b, "%s[%s]", kind, slots)
	}
	fmt.Fprintf(&b, " bound=%d |", p.Bound())
	for _, l := range p.Lits {
		b.WriteByte(' ')
		if l.Neg {
			b.WriteByte('!')
		}
		a := l.Atom
		b.WriteString(a.Kind.String())
		if a.Pred != nil {
			b.WriteString(" " + a.Pred.Name)
		}
		b.WriteByte('(')
		if a.Kind == Compare {
			b.WriteString(a.Op.String() + " ")
		}
		for i, o := range a.Args {
			if i != 0 {
				b.WriteString(", ")
			}
			if o.Path != nil {
				b.WriteString(dumpPath(o.Path))
			} else {
				c := o.Const.(*grammar.Const)
				fmt.Fprintf(&b, "%s(%s)", c.Kind, strings.Trim(c.String(), `"`))
			}
		}
		b.WriteByte(')')
	}
	b.WriteString(" |")
	for _, x := range p.Paths {
		b.WriteString(" " + dumpPath(x))
	}
	return b.String()
}

func dumpPath(x *Path) string {
	s := fmt.Sprintf("e%d", x.Slot)
	if x.Node {
		s = fmt.Sprintf("n%d:%d", x.Slot, x.Variable)
	}
	for _, f := range x.Fields {
		s += "." + f
	}
	return s
}

// TestBuildSharesPaths checks that the paths of the matrix written alike
// are one *Path, and that a domain path is not one of them.
func TestBuildSharesPaths(t *testing.T) {
	ip := build(t, "forall n0 in nodes: forall e0 in n0.log: e0.term < n0.x or n0.log == n0.log")
	log := ip.Lits[1].Atom.Args
	if log[0].Path != log[1].Path {
		t.Errorf("n0.log twice in the matrix: two paths")
	}
	if d := ip.Quants[1].Domain; d == log[0].Path || d.Text != "n0.log" {
		t.Errorf("domain path %+v is the matrix's n0.log", d)
	}
	if len(ip.Paths) != 3 {
		t.Errorf("%d paths of the matrix, want 3 (e0.term, n0.x, n0.log)", len(ip.Paths))
	}
}

func TestHolds(t *testing.T) {
	equal := func(x, y int) bool { return x == y }
	less := func(x, y int, orEqual bool) bool { return x < y || orEqual && x == y }
	tests := []struct {
		op   grammar.Op
		x, y int
		want bool
	}{
		{grammar.OpEq, 1, 1, true},
		{grammar.OpEq, 1, 2, false},
		{grammar.OpNe, 1, 1, false},
		{grammar.OpNe, 1, 2, true},
		{grammar.OpLt, 1, 2, true},
		{grammar.OpLt, 2, 2, false},
		{grammar.OpLt, 3, 2, false},
		{grammar.OpLe, 1, 2, true},
		{grammar.OpLe, 2, 2, true},
		{grammar.OpLe, 3, 2, false},
	}
	for _, tt := range tests {
		if got := Holds(tt.op, tt.x, tt.y, equal, less); got != tt.want {
			t.Errorf("Holds(%d %s %d) = %v, want %v", tt.x, tt.op, tt.y, got, tt.want)
		}
	}
	// Values neither equal nor ordered, as NaN is: only != holds.
	unequal := func(x, y int) bool { return false }
	unordered := func(x, y int, orEqual bool) bool { return false }
	for _, op := range []grammar.Op{grammar.OpEq, grammar.OpNe, grammar.OpLt, grammar.OpLe} {
		if got := Holds(op, 0, 0, unequal, unordered); got != (op == grammar.OpNe) {
			t.Errorf("Holds(%s) on unordered unequal values = %v", op, got)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Compare: "compare", IsSet: "set", Call: "call", Invalid: "Kind(0)", Call + 1: "Kind(8)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", uint8(k), got, want)
		}
	}
}

// TestBuildShared checks that properties built with one Shared compile
// as each does alone, and share what they write alike: a path only at
// the same slot and in the matrix or a domain alike, quantifiers only
// written alike.
func TestBuildShared(t *testing.T) {
	spec, err := specs.Parse("test.yaml", []byte(testSpec))
	if err != nil {
		t.Fatal(err)
	}
	srcs := []string{
		"forall n0, n1 in nodes: n0.x == n1.x",
		"forall n0, n1 in nodes: n0.x < n1.next or not n1.ok",
		"forall n0 in nodes: forall e0 in n0.log: e0.term <= n0.x",
		"forall n0, n1 in nodes: forall e0 in n0.log: e0.term <= n1.x or n0.log == n1.log",
		"forall n0 in nodes: exists n1 in nodes: n1.x > n0.x",
		"forall n0 in nodes: forall e0 in n0.log: e0.term < n0.next",
	}
	var sh Shared
	props := make([]Prop[any], len(srcs))
	for i, src := range srcs {
		p, err := grammar.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		props[i] = Build(spec, p, func(c *grammar.Const) any { return c }, &sh)
		if got, want := dump(props[i]), dump(build(t, src)); got != want {
			t.Errorf("%s built shared\n got %s\nwant %s", src, got, want)
		}
	}
	lit := func(p, l, arg int) *Path { return props[p].Lits[l].Atom.Args[arg].Path }
	for _, tt := range []struct {
		name string
		a, b *Path
		same bool
	}{
		{"n0.x of two properties", lit(0, 0, 0), lit(1, 0, 0), true},
		{"n1.x and n1.next", lit(0, 0, 1), lit(1, 0, 1), false},
		{"e0.term at slot 1, twice", lit(2, 0, 0), lit(5, 0, 0), true},
		{"e0.term at slots 1 and 2", lit(2, 0, 0), lit(3, 0, 0), false},
		{"n0.log in a domain and in the matrix", props[3].Quants[1].Domain, lit(3, 1, 0), false},
		{"n0.log in two domains", props[2].Quants[1].Domain, props[3].Quants[1].Domain, true},
		{"n0.x under forall and exists", lit(0, 0, 0), lit(4, 0, 0), true}, // n1.x > n0.x parses as n0.x < n1.x
	} {
		if same := tt.a == tt.b; same != tt.same {
			t.Errorf("%s: one path %v, want %v (%+v, %+v)", tt.name, same, tt.same, tt.a, tt.b)
		}
	}
	same := func(a, b []Quant) bool { return &a[0] == &b[0] }
	if !same(props[0].Quants, props[1].Quants) || !same(props[2].Quants, props[5].Quants) {
		t.Error("quantifiers written alike are not shared")
	}
	if same(props[0].Quants, props[3].Quants) || same(props[2].Quants, props[4].Quants) {
		t.Error("quantifiers written differently are shared")
	}
}
