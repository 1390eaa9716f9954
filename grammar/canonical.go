package grammar

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
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
func (p *Property) Text() string {
	c, texts := canonical(p)
	var b strings.Builder
	for _, q := range c.Quants {
		writeQuantifier(&b, q)
		b.WriteString(": ")
	}
	for i, t := range texts {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString(t)
	}
	return b.String()
}

// ID returns the first 12 hex digits of the SHA-256 of p.Text().
func (p *Property) ID() string {
	sum := sha256.Sum256([]byte(p.Text()))
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
