package grammar

import "iter"

// Paths returns an iterator over the paths of p: first the domains of
// the quantifiers, outermost first, then the operands of the matrix
// from left to right.
func Paths(p *Property) iter.Seq[*Path] {
	return func(yield func(*Path) bool) {
		for _, q := range p.Quants {
			if q.Domain != nil && !yield(q.Domain) {
				return
			}
		}
		for _, l := range p.Matrix {
			for path := range l.Paths() {
				if !yield(path) {
					return
				}
			}
		}
	}
}

// Paths returns an iterator over the paths among the operands of l's
// atom, from left to right.
func (l *Literal) Paths() iter.Seq[*Path] {
	return func(yield func(*Path) bool) {
		for _, x := range operands(l.Atom) {
			if path, ok := x.(*Path); ok && !yield(path) {
				return
			}
		}
	}
}

// NodeVars returns the variables bound to live nodes, in prefix order.
func (p *Property) NodeVars() []string { return p.vars(false) }

// IterVars returns the variables bound to container elements, in
// prefix order.
func (p *Property) IterVars() []string { return p.vars(true) }

func (p *Property) vars(iterators bool) []string {
	var vars []string
	for _, q := range p.Quants {
		if (q.Domain != nil) == iterators {
			vars = append(vars, q.Vars...)
		}
	}
	return vars
}

// operands returns the operands of a, from left to right.
func operands(a Atom) []Operand {
	switch a := a.(type) {
	case *Compare:
		return []Operand{a.X, a.Y}
	case *In:
		return []Operand{a.X, a.S}
	case *Subset:
		return []Operand{a.X, a.Y}
	case *Empty:
		return []Operand{a.S}
	case *IsSet:
		return []Operand{a.X}
	case *Truth:
		return []Operand{a.X}
	case *Call:
		return a.Args
	}
	return nil
}

// MapOperands returns a copy of l with f applied to the operands of its
// atom.
func (l *Literal) MapOperands(f func(Operand) Operand) *Literal {
	return &Literal{Neg: l.Neg, Atom: mapOperands(l.Atom, f), Span: l.Span}
}

// mapOperands returns a copy of a with f applied to its operands.
func mapOperands(a Atom, f func(Operand) Operand) Atom {
	switch a := a.(type) {
	case *Compare:
		return &Compare{Op: a.Op, X: f(a.X), Y: f(a.Y), Span: a.Span}
	case *In:
		return &In{X: f(a.X), S: f(a.S), Span: a.Span}
	case *Subset:
		return &Subset{X: f(a.X), Y: f(a.Y), Span: a.Span}
	case *Empty:
		return &Empty{S: f(a.S), Span: a.Span}
	case *IsSet:
		return &IsSet{X: f(a.X), Span: a.Span}
	case *Truth:
		return &Truth{X: f(a.X), Span: a.Span}
	case *Call:
		args := make([]Operand, len(a.Args))
		for i, x := range a.Args {
			args[i] = f(x)
		}
		return &Call{Name: a.Name, Args: args, Span: a.Span}
	}
	return a
}
