package grammar

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// String prints p in the syntax Parse reads, in ASCII with single
// spaces, keeping the order of p's quantifiers and literals.
func (p *Property) String() string {
	var b strings.Builder
	for _, q := range p.Quants {
		writeQuantifier(&b, q)
		b.WriteString(": ")
	}
	for i, l := range p.Matrix {
		if i > 0 {
			b.WriteString(" or ")
		}
		writeLiteral(&b, l)
	}
	return b.String()
}

// String prints the node in the syntax Parse reads.
func (q *Quantifier) String() string { return sprint(writeQuantifier, q) }
func (l *Literal) String() string    { return sprint(writeLiteral, l) }
func (a *Compare) String() string    { return sprint(writeAtom, Atom(a)) }
func (a *In) String() string         { return sprint(writeAtom, Atom(a)) }
func (a *Subset) String() string     { return sprint(writeAtom, Atom(a)) }
func (a *Empty) String() string      { return sprint(writeAtom, Atom(a)) }
func (a *IsSet) String() string      { return sprint(writeAtom, Atom(a)) }
func (a *Truth) String() string      { return sprint(writeAtom, Atom(a)) }
func (a *Call) String() string       { return sprint(writeAtom, Atom(a)) }
func (x *Path) String() string       { return sprint(writeOperand, Operand(x)) }
func (x *Const) String() string      { return sprint(writeOperand, Operand(x)) }

// sprint returns what write prints for v.
func sprint[T any](write func(*strings.Builder, T), v T) string {
	var b strings.Builder
	write(&b, v)
	return b.String()
}

func writeQuantifier(b *strings.Builder, q *Quantifier) {
	b.WriteString(q.Kind.String())
	b.WriteByte(' ')
	b.WriteString(strings.Join(q.Vars, ", "))
	b.WriteString(" in ")
	if q.Domain == nil {
		b.WriteString("nodes")
	} else {
		writeOperand(b, q.Domain)
	}
}

// writeLiteral prints a negation as "not atom": not binds to one atom,
// so it needs no parentheses.
func writeLiteral(b *strings.Builder, l *Literal) {
	if l.Neg {
		b.WriteString("not ")
	}
	writeAtom(b, l.Atom)
}

func writeAtom(b *strings.Builder, a Atom) {
	switch a := a.(type) {
	case *Compare:
		writeBinary(b, a.X, a.Op.String(), a.Y)
	case *In:
		writeBinary(b, a.X, "in", a.S)
	case *Subset:
		writeBinary(b, a.X, "subset", a.Y)
	case *Empty:
		writeCall(b, "empty", a.S)
	case *IsSet:
		writeCall(b, "set", a.X)
	case *Truth:
		writeOperand(b, a.X)
	case *Call:
		writeCall(b, a.Name, a.Args...)
	default:
		b.WriteString("<nil>")
	}
}

func writeBinary(b *strings.Builder, x Operand, op string, y Operand) {
	writeOperand(b, x)
	b.WriteByte(' ')
	b.WriteString(op)
	b.WriteByte(' ')
	writeOperand(b, y)
}

func writeCall(b *strings.Builder, name string, args ...Operand) {
	b.WriteString(name)
	b.WriteByte('(')
	for i, x := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeOperand(b, x)
	}
	b.WriteByte(')')
}

func writeOperand(b *strings.Builder, x Operand) {
	switch x := x.(type) {
	case *Path:
		b.WriteString(x.Var)
		for _, f := range x.Fields {
			b.WriteByte('.')
			b.WriteString(f)
		}
	case *Const:
		b.WriteString(constText(x))
	default:
		b.WriteString("<nil>")
	}
}

// constText prints a constant so that it parses back to the same value.
// Strings are quoted with Go escapes, in ASCII. Floats always show a
// fraction or an exponent, so they do not read back as integers; the
// infinities and NaN, which Parse never returns, print as +Inf, -Inf
// and NaN, which Parse rejects.
func constText(c *Const) string { return string(appendConst(nil, c)) }

// appendConst appends constText(c) to b.
func appendConst(b []byte, c *Const) []byte {
	switch c.Kind {
	case ConstString:
		return strconv.AppendQuoteToASCII(b, c.Str)
	case ConstInt:
		return strconv.AppendInt(b, c.Int, 10)
	case ConstUint:
		return strconv.AppendUint(b, c.Uint, 10)
	case ConstFloat:
		n := len(b)
		b = strconv.AppendFloat(b, c.Float, 'g', -1, 64)
		if bytes.ContainsAny(b[n:], ".e") || math.IsInf(c.Float, 0) || math.IsNaN(c.Float) {
			return b
		}
		return append(b, ".0"...)
	case ConstBool:
		return strconv.AppendBool(b, c.Bool)
	}
	return append(b, c.Kind.String()...)
}
