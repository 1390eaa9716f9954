package grammar

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/augur-dev/augur/diag"
)

// dump returns a compact form of p that shows the tree: quantifiers
// such as forall{x y} or exists{e in path{x.log}}, then the literals
// joined by " | ".
func dump(p *Property) string {
	var b strings.Builder
	for _, q := range p.Quants {
		fmt.Fprintf(&b, "%s{%s", q.Kind, strings.Join(q.Vars, " "))
		if q.Domain != nil {
			b.WriteString(" in ")
			dumpOperand(&b, q.Domain)
		}
		b.WriteString("} ")
	}
	b.WriteString(dumpMatrix(p))
	return b.String()
}

// dumpMatrix returns the compact form of p's literals.
func dumpMatrix(p *Property) string {
	var b strings.Builder
	for i, l := range p.Matrix {
		if i > 0 {
			b.WriteString(" | ")
		}
		if l.Neg {
			b.WriteString("not ")
		}
		dumpAtom(&b, l.Atom)
	}
	return b.String()
}

var opNames = [...]string{OpEq: "eq", OpNe: "ne", OpLt: "lt", OpLe: "le"}

func dumpAtom(b *strings.Builder, a Atom) {
	var name string
	switch a := a.(type) {
	case *Compare:
		name = opNames[a.Op]
	case *In:
		name = "in"
	case *Subset:
		name = "subset"
	case *Empty:
		name = "empty"
	case *IsSet:
		name = "set"
	case *Truth:
		name = "truth"
	case *Call:
		name = "call:" + a.Name
	}
	b.WriteString(name + "{")
	for i, x := range operands(a) {
		if i > 0 {
			b.WriteByte(' ')
		}
		dumpOperand(b, x)
	}
	b.WriteByte('}')
}

func dumpOperand(b *strings.Builder, x Operand) {
	switch x := x.(type) {
	case *Path:
		fmt.Fprintf(b, "path{%s}", strings.Join(append([]string{x.Var}, x.Fields...), "."))
	case *Const:
		fmt.Fprintf(b, "%s{%s}", x.Kind, constText(x))
	}
}

// prefix binds the variables that matrixTests use.
const prefix = "forall x, y in nodes: forall e in x.log: "

var matrixTests = []struct {
	in, want string
}{
	// Comparisons; > and >= swap their operands.
	{`x == y`, `eq{path{x} path{y}}`},
	{`x != y`, `ne{path{x} path{y}}`},
	{`x < y`, `lt{path{x} path{y}}`},
	{`x <= y`, `le{path{x} path{y}}`},
	{`x > y`, `lt{path{y} path{x}}`},
	{`x >= y`, `le{path{y} path{x}}`},
	{`x.a.b==e.c`, `eq{path{x.a.b} path{e.c}}`},

	// The other atoms.
	{`e in x.log`, `in{path{e} path{x.log}}`},
	{`x.a subset y.a`, `subset{path{x.a} path{y.a}}`},
	{`empty(x.log)`, `empty{path{x.log}}`},
	{`set(e.term)`, `set{path{e.term}}`},
	{`x.up`, `truth{path{x.up}}`},
	{`true`, `truth{bool{true}}`},
	{`leader(x)`, `call:leader{path{x}}`},
	{`p()`, `call:p{}`},
	{`quorum(x, y, 3)`, `call:quorum{path{x} path{y} int{3}}`},

	// Keywords may name fields.
	{`x.set == e.in`, `eq{path{x.set} path{e.in}}`},
	{`x.not.or`, `truth{path{x.not.or}}`},

	// Negation and parentheses.
	{`not x.up`, `not truth{path{x.up}}`},
	{`not (x == y)`, `not eq{path{x} path{y}}`},
	{`not((x < y))`, `not lt{path{x} path{y}}`},
	{`(x.up)`, `truth{path{x.up}}`},
	{`not p(x)`, `not call:p{path{x}}`},

	// Disjunctions.
	{`x.a or x.b or not x.c`, `truth{path{x.a}} | truth{path{x.b}} | not truth{path{x.c}}`},

	// Constants.
	{`x.s == "leader"`, `eq{path{x.s} string{"leader"}}`},
	{`x.s == "a\"b\\c\n\u00e9\x00"`, `eq{path{x.s} string{"a\"b\\c\n\u00e9\x00"}}`},
	{`x.s == "é"`, `eq{path{x.s} string{"\u00e9"}}`},
	{`x.n == 0`, `eq{path{x.n} int{0}}`},
	{`x.n == -42`, `eq{path{x.n} int{-42}}`},
	{`x.n == 007`, `eq{path{x.n} int{7}}`},
	{`x.n == 9223372036854775807`, `eq{path{x.n} int{9223372036854775807}}`},
	{`x.n == -9223372036854775808`, `eq{path{x.n} int{-9223372036854775808}}`},
	{`x.n == 9223372036854775808`, `eq{path{x.n} uint{9223372036854775808}}`},
	{`x.n == 18446744073709551615`, `eq{path{x.n} uint{18446744073709551615}}`},
	{`x.f == 1.5`, `eq{path{x.f} float{1.5}}`},
	{`x.f == 2.0`, `eq{path{x.f} float{2.0}}`},
	{`x.f == -0.0`, `eq{path{x.f} float{-0.0}}`},
	{`x.f == 1e3`, `eq{path{x.f} float{1000.0}}`},
	{`x.f == 2.5E-3`, `eq{path{x.f} float{0.0025}}`},
	{`x.f == 1e+30`, `eq{path{x.f} float{1e+30}}`},
	{`x.f == 1e-400`, `eq{path{x.f} float{0.0}}`},
	{`x.b == false`, `eq{path{x.b} bool{false}}`},

	// Unicode.
	{`x ≠ y`, `ne{path{x} path{y}}`},
	{`x ≤ y`, `le{path{x} path{y}}`},
	{`x ≥ y`, `le{path{y} path{x}}`},
	{`e ∈ x.log ∨ ¬ x.a ⊆ y.a`, `in{path{e} path{x.log}} | not subset{path{x.a} path{y.a}}`},
	{`¬(x∈y)`, `not in{path{x} path{y}}`},
}

func TestParseMatrix(t *testing.T) {
	for _, tt := range matrixTests {
		p, err := Parse(prefix + tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := dumpMatrix(p); got != tt.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

var prefixTests = []struct {
	in, want string
}{
	{`forall x in nodes: x`, `forall{x} truth{path{x}}`},
	{`exists x in nodes: x`, `exists{x} truth{path{x}}`},
	{`forall a,b , c in nodes: a`, `forall{a b c} truth{path{a}}`},
	{`forall x in nodes: forall y in nodes: x == y`, `forall{x} forall{y} eq{path{x} path{y}}`},
	{`forall x in nodes: exists e in x.log: e.ok`, `forall{x} exists{e in path{x.log}} truth{path{e.ok}}`},
	{`forall x in nodes: forall e in x.log: forall f in e.parts: f in x.done`,
		`forall{x} forall{e in path{x.log}} forall{f in path{e.parts}} in{path{f} path{x.done}}`},
	{"∀ x, y ∈ nodes: ∃ e ∈ x.log: e ∈ y.log", `forall{x y} exists{e in path{x.log}} in{path{e} path{y.log}}`},
	{"\tforall\nx\r\nin nodes :x ", `forall{x} truth{path{x}}`},
	{`forall forallx in nodes: forallx.in`, `forall{forallx} truth{path{forallx.in}}`},
	{`forall _x9 in nodes: _x9`, `forall{_x9} truth{path{_x9}}`},
}

func TestParsePrefix(t *testing.T) {
	for _, tt := range prefixTests {
		p, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := dump(p); got != tt.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

var invalidTests = []struct {
	in   string
	code diag.Code
	pos  string // line:column of the first error
}{
	{``, CodeUnexpected, "1:1"},
	{`x == y`, CodeUnexpected, "1:1"},
	{`forall`, CodeUnexpected, "1:7"},
	{`forall x`, CodeUnexpected, "1:9"},
	{`forall x in`, CodeUnexpected, "1:12"},
	{`forall x in nodes`, CodeUnexpected, "1:18"},
	{`forall x in nodes:`, CodeUnexpected, "1:19"},
	{`forall x, in nodes: x`, CodeUnexpected, "1:11"},
	{`forall x.a in nodes: x`, CodeUnexpected, "1:8"},
	{`forall true in nodes: x`, CodeUnexpected, "1:8"},
	{`forall x in nodes: x or`, CodeUnexpected, "1:24"},
	{`forall x in nodes: x y`, CodeUnexpected, "1:22"},
	{`forall x in nodes: x == `, CodeUnexpected, "1:25"},
	{`forall x in nodes: not not x`, CodeUnexpected, "1:24"},
	{`forall x in nodes: not (not x)`, CodeUnexpected, "1:25"},
	{`forall x in nodes: (x or x)`, CodeUnexpected, "1:23"},
	{`forall x in nodes: (x`, CodeUnexpected, "1:22"},
	{`forall x in nodes: x)`, CodeUnexpected, "1:21"},
	{`forall x in nodes: p(x,)`, CodeUnexpected, "1:24"},
	{`forall x in nodes: p(x`, CodeUnexpected, "1:23"},
	{`forall x in nodes: x.p(x)`, CodeUnexpected, "1:20"},
	{`forall x in nodes: empty()`, CodeUnexpected, "1:20"},
	{`forall x in nodes: set(x, x)`, CodeUnexpected, "1:20"},
	{`forall x in nodes: set`, CodeUnexpected, "1:23"},
	{`forall x in nodes: nodes`, CodeUnexpected, "1:20"},
	{`forall x in nodes: x or forall y in nodes: x`, CodeUnexpected, "1:25"},
	{`forall x in nodes: x = 1`, CodeIllegalChar, "1:22"},
	{`forall x in nodes: !x`, CodeIllegalChar, "1:20"},
	{`forall x in nodes: x & y`, CodeIllegalChar, "1:22"},
	{`forall x in nodes: x.`, CodeIllegalChar, "1:21"},
	{`forall x in nodes: - 1`, CodeIllegalChar, "1:20"},
	{"forall x in nodes: x == é", CodeIllegalChar, "1:25"},
	{"forall x in nodes: x == \xff", CodeIllegalChar, "1:25"},
	{"forall x in nodes: x == \"\xff\"", CodeIllegalChar, "1:25"},
	{`forall x in nodes: x == "abc`, CodeUnterminated, "1:25"},
	{"forall x in nodes: x == \"a\nb\"", CodeUnterminated, "1:25"},
	{`forall x in nodes: x == "a\"`, CodeUnterminated, "1:25"},
	{`forall x in nodes: x == "\q"`, CodeBadString, "1:25"},
	{`forall x in nodes: x == "\u12"`, CodeBadString, "1:25"},
	{`forall x in nodes: x == 12ab`, CodeBadNumber, "1:25"},
	{`forall x in nodes: x == 1.2.3`, CodeBadNumber, "1:25"},
	{`forall x in nodes: x == 1.`, CodeBadNumber, "1:25"},
	{`forall x in nodes: x == 1e`, CodeBadNumber, "1:25"},
	{`forall x in nodes: x == 1e+`, CodeBadNumber, "1:25"},
	{`forall x in nodes: x == 1e400`, CodeBadNumber, "1:25"},
	{`forall x in nodes: x == 18446744073709551616`, CodeBadNumber, "1:25"},
	{`forall x in nodes: x == -9223372036854775809`, CodeBadNumber, "1:25"},
	{`forall x in nodes: y`, CodeUnbound, "1:20"},
	{`forall x in nodes: x == y.a`, CodeUnbound, "1:25"},
	{`forall e in e.log: e`, CodeUnbound, "1:13"},
	{`forall x in nodes: forall e in y.log: e`, CodeUnbound, "1:32"},
	{`forall x, x in nodes: x`, CodeDuplicate, "1:11"},
	{`forall x in nodes: forall x in x.log: x`, CodeDuplicate, "1:27"},
	{`forall x in nodes: forall e, f in x.log: e`, CodeIterVars, "1:30"},
	{"forall x in nodes:\n  x == 1 or\n  y", CodeUnbound, "3:3"},
	{"forall x in nodes: " + strings.Repeat("(", MaxDepth+1) + "x" + strings.Repeat(")", MaxDepth+1),
		CodeNestingDepth, "1:120"},
	{"forall x in nodes: x" + strings.Repeat(" or x", MaxLiterals), CodeTooLarge, "1:5140"},
	{nested(MaxVars + 1), CodeNestingDepth, "1:189"},
	{"forall a, b, c, d, e, f, g, h, i in nodes: a", CodeNestingDepth, "1:32"},
	{"forall x in nodes: x == \"" + strings.Repeat("a", MaxSize) + "\"", CodeTooLarge, "1:65537"},
}

func TestParseInvalid(t *testing.T) {
	for _, tt := range invalidTests {
		p, err := Parse(tt.in)
		var list diag.ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Errorf("Parse(%q) = %v, %v; want an diag.ErrorList", short(tt.in), p, err)
			continue
		}
		if p != nil {
			t.Errorf("Parse(%q) returned a property with error %v", short(tt.in), err)
		}
		e := list[0]
		pos := fmt.Sprintf("%d:%d", e.Pos.Line, e.Pos.Column)
		if e.Code != tt.code || pos != tt.pos {
			t.Errorf("Parse(%q): %s: %s (%s); want %s at %s", short(tt.in), pos, e.Msg, e.Code, tt.code, tt.pos)
		}
	}
}

// short abbreviates long test inputs in messages.
func short(s string) string {
	if len(s) > 60 {
		return s[:50] + "…" + strconv.Itoa(len(s)) + " bytes"
	}
	return s
}

func TestParseLimits(t *testing.T) {
	ok := []string{
		"forall x in nodes: " + strings.Repeat("(", MaxDepth) + "x" + strings.Repeat(")", MaxDepth),
		"forall x in nodes: x" + strings.Repeat(" or x", MaxLiterals-1),
		nested(MaxVars),
		"forall x in nodes: x == \"" + strings.Repeat("a", MaxSize-len(`forall x in nodes: x == ""`)) + "\"",
	}
	for _, src := range ok {
		if _, err := Parse(src); err != nil {
			t.Errorf("Parse(%q): %v", short(src), err)
		}
	}
}

func TestParseManyErrors(t *testing.T) {
	_, err := Parse("forall x in nodes: a or b or c or d")
	var list diag.ErrorList
	if !errors.As(err, &list) || len(list) != 4 {
		t.Fatalf("got %v, want 4 unbound variables", err)
	}
	want := "1:20: unbound variable a (and 3 more errors)"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}

	_, err = Parse("forall x in nodes: " + strings.Repeat("y or ", 2*maxErrors) + "x")
	if !errors.As(err, &list) || len(list) != maxErrors {
		t.Errorf("got %d errors, want parsing to stop at %d", len(list), maxErrors)
	}
}

func TestSpans(t *testing.T) {
	src := "forall x in nodes: ∀ e ∈ x.log: not (e.a == \"é\") or p(x, 1) or x.up"
	p, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	nodes := []struct {
		n    Node
		want string
	}{
		{p.Quants[0], "forall x in nodes"},
		{p.Quants[1], "∀ e ∈ x.log"},
		{p.Quants[1].Domain, "x.log"},
		{p.Matrix[0], `not (e.a == "é")`},
		{p.Matrix[0].Atom, `e.a == "é"`},
		{p.Matrix[0].Atom.(*Compare).Y, `"é"`},
		{p.Matrix[1], "p(x, 1)"},
		{p.Matrix[1].Atom.(*Call).Args[1], "1"},
		{p.Matrix[2].Atom, "x.up"},
	}
	for _, tt := range nodes {
		if got := src[tt.n.Pos():tt.n.End()]; got != tt.want {
			t.Errorf("span of %v = %q, want %q", tt.n, got, tt.want)
		}
	}

	// A swapped comparison keeps the extent of its source text.
	p, err = Parse("forall x in nodes: x.a > 1")
	if err != nil {
		t.Fatal(err)
	}
	if a := p.Matrix[0].Atom; a.Pos() != 19 || a.End() != 26 {
		t.Errorf("span of %v = [%d, %d), want [19, 26)", a, a.Pos(), a.End())
	}
}

// nested returns a property of n nested quantifiers, the first over the
// nodes and each other over the peers of the one before.
func nested(n int) string {
	var b strings.Builder
	b.WriteString("forall v0 in nodes: ")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "forall v%d in v%d.peers: ", i, i-1)
	}
	return b.String() + "v0 == v0"
}
