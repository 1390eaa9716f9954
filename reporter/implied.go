package reporter

import (
	"slices"

	"github.com/augur-dev/augur/grammar"
)

// impliedTexts returns the symmetric texts of the sub-disjunctions of
// p's impliers.
func impliedTexts(p *grammar.Property) map[string]bool {
	out := map[string]bool{}
	for _, d := range impliers(p) {
		for mask := 1; mask < 1<<len(d.Matrix); mask++ {
			out[subProperty(d, mask).SymmetricText()] = true
		}
	}
	return out
}

// impliers returns disjunctions D, each under p's quantifiers, that
// imply p in one step of reasoning on equal values, order or containers,
// beyond p's own sub-disjunctions: every sub-disjunction of a D holds
// wherever it does and p with it, so p fails only where it fails, as a
// syntactic weakening does. The steps are sound for any values:
//
//   - equal values: p = x != y or L, for paths x and y, is implied by L
//     with y read as x, and by L with x read as y: where x != y fails,
//     they are one value. forall e0 in n0.routes: e0.via in n1.up or
//     n0.up != n1.up is implied by forall e0 in n0.routes: e0.via in
//     n0.up.
//   - a chain: p = A or B or L is implied by C or L when the negations
//     of A and B together entail the negation of C, by the transitivity
//     of < and <= (n0.commit <= n1.last or n1.last <= n0.last is implied
//     by n0.commit <= n0.last: where both fail, n0.last < n1.last <
//     n0.commit) or of membership and subset (e0.via in n1.up or not
//     n0.up subset n1.up is implied by e0.via in n0.up).
func impliers(p *grammar.Property) []*grammar.Property {
	var out []*grammar.Property
	rest := func(skip ...int) []*grammar.Literal { // p's literals but those at skip
		var lits []*grammar.Literal
		for k, l := range p.Matrix {
			if !slices.Contains(skip, k) {
				lits = append(lits, l)
			}
		}
		return lits
	}
	for i, l := range p.Matrix {
		if x, y, ok := unequal(l); ok && len(p.Matrix) > 1 {
			for _, sub := range [][2]*grammar.Path{{y, x}, {x, y}} {
				d := &grammar.Property{Quants: p.Quants}
				for _, m := range rest(i) {
					d.Matrix = append(d.Matrix, replace(m, sub[0], sub[1]))
				}
				out = append(out, d)
			}
		}
		for j := i + 1; j < len(p.Matrix); j++ {
			for _, c := range entailed(negation(l), negation(p.Matrix[j])) {
				out = append(out, &grammar.Property{Quants: p.Quants, Matrix: append([]*grammar.Literal{c.negate()}, rest(i, j)...)})
			}
		}
	}
	return out
}

// unequal returns the paths of l when l is x != y.
func unequal(l *grammar.Literal) (x, y *grammar.Path, ok bool) {
	c, isCompare := l.Atom.(*grammar.Compare)
	if l.Neg || !isCompare || c.Op != grammar.OpNe {
		return nil, nil, false
	}
	x, okX := c.X.(*grammar.Path)
	y, okY := c.Y.(*grammar.Path)
	return x, y, okX && okY
}

// replace returns l with every operand that is the path from read as to.
func replace(l *grammar.Literal, from, to *grammar.Path) *grammar.Literal {
	f := from.String()
	return l.MapOperands(func(x grammar.Operand) grammar.Operand {
		if p, ok := x.(*grammar.Path); ok && p.String() == f {
			return to
		}
		return x
	})
}

// A fact is a relation between two operands, or its negation: x < y,
// x <= y, x in S, A subset B. The chains reason on facts.
type fact struct {
	rel  relKind
	neg  bool
	x, y grammar.Operand
}

type relKind uint8

const (
	relNone relKind = iota
	relLt           // x < y
	relLe           // x <= y
	relIn           // x in y
	relSub          // x subset y
)

// negation returns the fact that holds where l fails; rel is relNone for
// a literal no chain reasons on. The negation of an order is an order:
// not x < y is y <= x.
func negation(l *grammar.Literal) fact {
	switch a := l.Atom.(type) {
	case *grammar.Compare:
		switch {
		case l.Neg:
		case a.Op == grammar.OpLt:
			return fact{rel: relLe, x: a.Y, y: a.X}
		case a.Op == grammar.OpLe:
			return fact{rel: relLt, x: a.Y, y: a.X}
		}
	case *grammar.In:
		return fact{rel: relIn, neg: !l.Neg, x: a.X, y: a.S}
	case *grammar.Subset:
		return fact{rel: relSub, neg: !l.Neg, x: a.X, y: a.Y}
	}
	return fact{}
}

// negate returns the literal that holds exactly where f fails.
func (f fact) negate() *grammar.Literal {
	switch f.rel {
	case relLt: // not x < y: y <= x
		return &grammar.Literal{Atom: &grammar.Compare{Op: grammar.OpLe, X: f.y, Y: f.x}}
	case relLe: // not x <= y: y < x
		return &grammar.Literal{Atom: &grammar.Compare{Op: grammar.OpLt, X: f.y, Y: f.x}}
	case relIn:
		return &grammar.Literal{Neg: !f.neg, Atom: &grammar.In{X: f.x, S: f.y}}
	}
	return &grammar.Literal{Neg: !f.neg, Atom: &grammar.Subset{X: f.x, Y: f.y}}
}

// entailed returns the facts that a and b together entail by one step
// of transitivity, in either order.
func entailed(a, b fact) []fact {
	if a.rel == relNone || b.rel == relNone {
		return nil
	}
	var out []fact
	for _, ab := range [][2]fact{{a, b}, {b, a}} {
		if f, ok := chain(ab[0], ab[1]); ok {
			out = append(out, f)
		}
	}
	return out
}

// chain returns what f and g entail when f's second operand, or an
// operand they share, links them.
func chain(f, g fact) (fact, bool) {
	same := func(x, y grammar.Operand) bool { return x.String() == y.String() }
	order := func(r relKind) bool { return r == relLt || r == relLe }
	switch {
	case order(f.rel) && order(g.rel) && same(f.y, g.x): // x R y S z: x <= z, x < z if either is <
		r := relLe
		if f.rel == relLt || g.rel == relLt {
			r = relLt
		}
		return fact{rel: r, x: f.x, y: g.y}, true
	case f.rel == relIn && !f.neg && g.rel == relSub && !g.neg && same(f.y, g.x): // x in S, S subset T: x in T
		return fact{rel: relIn, x: f.x, y: g.y}, true
	case f.rel == relSub && !f.neg && g.rel == relSub && !g.neg && same(f.y, g.x): // A subset B subset C
		return fact{rel: relSub, x: f.x, y: g.y}, true
	case f.rel == relIn && f.neg && g.rel == relSub && !g.neg && same(f.y, g.y): // x not in T, S subset T: x not in S
		return fact{rel: relIn, neg: true, x: f.x, y: g.x}, true
	case f.rel == relSub && f.neg && g.rel == relSub && !g.neg && same(f.x, g.x): // not A subset C, A subset B: not B subset C
		return fact{rel: relSub, neg: true, x: g.y, y: f.y}, true
	case f.rel == relSub && f.neg && g.rel == relSub && !g.neg && same(f.y, g.y): // not A subset C, B subset C: not A subset B
		return fact{rel: relSub, neg: true, x: f.x, y: g.x}, true
	case f.rel == relIn && !f.neg && g.rel == relIn && g.neg && same(f.x, g.x): // x in S, x not in T: not S subset T
		return fact{rel: relSub, neg: true, x: f.y, y: g.y}, true
	}
	return fact{}, false
}
