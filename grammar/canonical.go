package grammar

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Canonical returns a normalised copy of p:
//
//   - node variables are renamed n0, n1, … and iterator variables
//     e0, e1, … in the order the prefix binds them;
//   - not (a == b) becomes a != b, and not (a != b) becomes a == b;
//   - the operands of == and != are ordered: a constant goes right, two
//     paths are ordered by their text (so n0.state == "leader" reads as
//     written, and n0.id == n1.id never also appears as n1.id == n0.id);
//   - the literals are sorted by their text, without duplicates.
//
// Quantifiers are neither merged nor reordered. The copy keeps the
// positions and source of p, so errors found in it point into p's
// source. Canonical(Canonical(p)) prints the same as Canonical(p).
func Canonical(p *Property) *Property {
	c, _ := canonical(p)
	return c
}

// canonical returns Canonical(p) and the text of each of its literals.
func canonical(p *Property) (*Property, []string) {
	names := make(map[string]string)
	var nodes, iters int
	for _, q := range p.Quants {
		for _, v := range q.Vars {
			if q.Domain == nil {
				names[v] = "n" + strconv.Itoa(nodes)
				nodes++
			} else {
				names[v] = "e" + strconv.Itoa(iters)
				iters++
			}
		}
	}
	rename := func(x Operand) Operand { return renameOperand(x, names) }

	c := &Property{src: p.src, base: p.base}
	for _, q := range p.Quants {
		cq := &Quantifier{Kind: q.Kind, Span: q.Span}
		for _, v := range q.Vars {
			cq.Vars = append(cq.Vars, names[v])
		}
		if q.Domain != nil {
			cq.Domain = renameOperand(q.Domain, names).(*Path)
		}
		c.Quants = append(c.Quants, cq)
	}

	type keyed struct {
		text string
		lit  *Literal
	}
	lits := make([]keyed, len(p.Matrix))
	for i, l := range p.Matrix {
		cl := canonicalLiteral(l, rename)
		lits[i] = keyed{cl.String(), cl}
	}
	slices.SortStableFunc(lits, func(a, b keyed) int { return cmp.Compare(a.text, b.text) })
	lits = slices.CompactFunc(lits, func(a, b keyed) bool { return a.text == b.text })
	texts := make([]string, len(lits))
	for i, k := range lits {
		c.Matrix = append(c.Matrix, k.lit)
		texts[i] = k.text
	}
	return c, texts
}

// canonicalLiteral returns a copy of l with its operands renamed, a
// negated == or != turned into the other, and the operands of == and !=
// ordered.
func canonicalLiteral(l *Literal, rename func(Operand) Operand) *Literal {
	cl := &Literal{Neg: l.Neg, Atom: mapOperands(l.Atom, rename), Span: l.Span}
	c, ok := cl.Atom.(*Compare)
	if !ok || (c.Op != OpEq && c.Op != OpNe) {
		return cl
	}
	if cl.Neg {
		cl.Neg = false
		if c.Op == OpEq {
			c.Op = OpNe
		} else {
			c.Op = OpEq
		}
	}
	if operandLess(c.Y, c.X) {
		c.X, c.Y = c.Y, c.X
	}
	return cl
}

// operandLess orders the operands of == and !=: paths before constants,
// then by text.
func operandLess(a, b Operand) bool {
	_, ac := a.(*Const)
	_, bc := b.(*Const)
	if ac != bc {
		return bc
	}
	return a.String() < b.String()
}

// renameOperand returns a copy of x with its variable renamed by names.
// Variables not in names keep their name.
func renameOperand(x Operand, names map[string]string) Operand {
	switch x := x.(type) {
	case *Path:
		v, ok := names[x.Var]
		if !ok {
			v = x.Var
		}
		return &Path{Var: v, Fields: slices.Clone(x.Fields), Span: x.Span}
	case *Const:
		c := *x
		return &c
	}
	return x
}

// Text returns the canonical text of p, Canonical(p).String(). Two
// properties with the same text are the same property.
//
// It prints the canonical literals straight into one buffer, without the
// canonical copy of p: reporters and compilers call it for every
// property of a pool, and sub-disjunctions of each.
func (p *Property) Text() string {
	t := texters.Get().(*texter)
	defer texters.Put(t)
	t.buf, t.names, t.nodes, t.its = t.buf[:0], t.names[:0], 0, 0
	var spans [8]textSpan
	for _, q := range p.Quants {
		for _, v := range q.Vars {
			t.bind(v, q.Domain != nil)
		}
	}
	for _, q := range p.Quants {
		t.buf = append(t.buf, q.Kind.String()...)
		t.buf = append(t.buf, ' ')
		for i, v := range q.Vars {
			if i > 0 {
				t.buf = append(t.buf, ", "...)
			}
			t.buf = append(t.buf, t.name(v)...)
		}
		t.buf = append(t.buf, " in "...)
		if q.Domain == nil {
			t.buf = append(t.buf, "nodes"...)
		} else {
			t.operand(q.Domain)
		}
		t.buf = append(t.buf, ": "...)
	}
	prefix := len(t.buf)
	lits := spans[:0]
	for _, l := range p.Matrix {
		start := len(t.buf)
		t.literal(l)
		lits = append(lits, textSpan{start, len(t.buf)})
	}
	text := func(s textSpan) []byte { return t.buf[s.lo:s.hi] }
	slices.SortStableFunc(lits, func(a, b textSpan) int { return bytes.Compare(text(a), text(b)) })
	lits = slices.CompactFunc(lits, func(a, b textSpan) bool { return bytes.Equal(text(a), text(b)) })
	n := prefix
	for _, s := range lits {
		n += len(" or ") + s.hi - s.lo
	}
	var b strings.Builder
	b.Grow(n)
	b.Write(t.buf[:prefix])
	for i, s := range lits {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.Write(text(s))
	}
	return b.String()
}

// A texter prints the canonical literals of one property for Text.
// Texters are reused, so that Text allocates only the text.
type texter struct {
	buf        []byte
	names      []varName // in binding order; a later binding of a name wins
	nodes, its int
}

var texters = sync.Pool{New: func() any { return new(texter) }}

type varName struct{ v, name string }

type textSpan struct{ lo, hi int }

var (
	nodeNames = [...]string{"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"}
	iterNames = [...]string{"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7"}
)

// bind names v as canonical does: n0, n1, … for node variables, e0, e1,
// … for iterator variables.
func (t *texter) bind(v string, iter bool) {
	var name string
	switch {
	case !iter && t.nodes < len(nodeNames):
		name = nodeNames[t.nodes]
	case !iter:
		name = "n" + strconv.Itoa(t.nodes)
	case t.its < len(iterNames):
		name = iterNames[t.its]
	default:
		name = "e" + strconv.Itoa(t.its)
	}
	if iter {
		t.its++
	} else {
		t.nodes++
	}
	t.names = append(t.names, varName{v, name})
}

// name returns the canonical name of v, or v if no quantifier binds it.
func (t *texter) name(v string) string {
	for i := len(t.names) - 1; i >= 0; i-- {
		if t.names[i].v == v {
			return t.names[i].name
		}
	}
	return v
}

// literal prints canonicalLiteral(l).String().
func (t *texter) literal(l *Literal) {
	c, ok := l.Atom.(*Compare)
	if !ok || (c.Op != OpEq && c.Op != OpNe) {
		if l.Neg {
			t.buf = append(t.buf, "not "...)
		}
		t.atom(l.Atom)
		return
	}
	op := c.Op
	if l.Neg {
		if op == OpEq {
			op = OpNe
		} else {
			op = OpEq
		}
	}
	// Print both operands, then the literal after them in canonical
	// order (operandLess), then move it over them.
	start := len(t.buf)
	t.operand(c.X)
	mid := len(t.buf)
	t.operand(c.Y)
	end := len(t.buf)
	x, y := t.buf[start:mid], t.buf[mid:end]
	_, xc := c.X.(*Const)
	_, yc := c.Y.(*Const)
	if xc != yc && xc || xc == yc && bytes.Compare(y, x) < 0 {
		x, y = y, x
	}
	t.buf = append(t.buf, x...)
	t.buf = append(t.buf, ' ')
	t.buf = append(t.buf, op.String()...)
	t.buf = append(t.buf, ' ')
	t.buf = append(t.buf, y...)
	t.buf = t.buf[:start+copy(t.buf[start:], t.buf[end:])]
}

// atom prints a with its variables renamed, as writeAtom does.
func (t *texter) atom(a Atom) {
	switch a := a.(type) {
	case *Compare:
		t.binary(a.X, a.Op.String(), a.Y)
	case *In:
		t.binary(a.X, "in", a.S)
	case *Subset:
		t.binary(a.X, "subset", a.Y)
	case *Empty:
		t.call("empty", a.S)
	case *IsSet:
		t.call("set", a.X)
	case *Truth:
		t.operand(a.X)
	case *Call:
		t.call(a.Name, a.Args...)
	default:
		t.buf = append(t.buf, "<nil>"...)
	}
}

func (t *texter) binary(x Operand, op string, y Operand) {
	t.operand(x)
	t.buf = append(t.buf, ' ')
	t.buf = append(t.buf, op...)
	t.buf = append(t.buf, ' ')
	t.operand(y)
}

func (t *texter) call(name string, args ...Operand) {
	t.buf = append(t.buf, name...)
	t.buf = append(t.buf, '(')
	for i, x := range args {
		if i > 0 {
			t.buf = append(t.buf, ", "...)
		}
		t.operand(x)
	}
	t.buf = append(t.buf, ')')
}

// operand prints x with its variable renamed, as writeOperand does.
func (t *texter) operand(x Operand) {
	switch x := x.(type) {
	case *Path:
		t.buf = append(t.buf, t.name(x.Var)...)
		for _, f := range x.Fields {
			t.buf = append(t.buf, '.')
			t.buf = append(t.buf, f...)
		}
	case *Const:
		t.buf = appendConst(t.buf, x)
	default:
		t.buf = append(t.buf, "<nil>"...)
	}
}

// ID returns the first 12 hex digits of the SHA-256 of p.Text().
func (p *Property) ID() string { return TextID(p.Text()) }

// TextID returns the ID of the properties whose text is text.
func TextID(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:6])
}

// Equal reports whether a and b have the same syntax tree, ignoring
// positions. Unlike equal texts, it tells apart properties that differ
// only in variable names or literal order.
func Equal(a, b *Property) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.EqualFunc(a.Quants, b.Quants, equalQuantifier) &&
		slices.EqualFunc(a.Matrix, b.Matrix, equalLiteral)
}

func equalQuantifier(a, b *Quantifier) bool {
	return a.Kind == b.Kind && slices.Equal(a.Vars, b.Vars) &&
		(a.Domain == nil) == (b.Domain == nil) &&
		(a.Domain == nil || equalOperand(a.Domain, b.Domain))
}

func equalLiteral(a, b *Literal) bool {
	return a.Neg == b.Neg && equalAtom(a.Atom, b.Atom)
}

func equalAtom(a, b Atom) bool {
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	switch a := a.(type) {
	case *Compare:
		if a.Op != b.(*Compare).Op {
			return false
		}
	case *Call:
		if a.Name != b.(*Call).Name {
			return false
		}
	}
	return slices.EqualFunc(operands(a), operands(b), equalOperand)
}

func equalOperand(a, b Operand) bool {
	switch a := a.(type) {
	case *Path:
		b, ok := b.(*Path)
		return ok && a.Var == b.Var && slices.Equal(a.Fields, b.Fields)
	case *Const:
		b, ok := b.(*Const)
		return ok && equalConst(a, b)
	}
	return a == nil && b == nil
}

// equalConst compares the value fields that a's kind uses. Floats are
// compared bit for bit, so 0.0 and -0.0 differ as their texts do.
func equalConst(a, b *Const) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case ConstString:
		return a.Str == b.Str
	case ConstInt:
		return a.Int == b.Int
	case ConstUint:
		return a.Uint == b.Uint
	case ConstFloat:
		return math.Float64bits(a.Float) == math.Float64bits(b.Float)
	case ConstBool:
		return a.Bool == b.Bool
	}
	return true
}
