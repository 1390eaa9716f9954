package generator

import (
	"slices"
	"strings"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// Candidate reports whether the rules of generation, the cap of its
// class aside, keep one of forms: properties over spec equal to one
// another (the renamings of their node variables, say), each canonical.
// Generate keeps a candidate unless its class holds more than
// max_per_class; Candidate tells a property the cap left out from one
// the rules drop, without enumerating the class.
func Candidate(spec *specs.Spec, consts Constants, forms []*grammar.Property) (bool, error) {
	nodes, its, cs, err := scopeParts(spec, consts)
	if err != nil {
		return false, err
	}
	scopes := map[[2]int]*scope{} // by node variables and iterator (-1 for none)
	for _, p := range forms {
		k, it, ok := scopeOf(p, its)
		if !ok || len(p.Matrix) > MaxLiterals {
			continue
		}
		key := [2]int{k, it}
		s := scopes[key]
		if s == nil {
			var iter *iterator
			if it >= 0 {
				iter = &its[it]
			}
			s = newScope(spec, k, nodes, iter, cs)
			scopes[key] = s
		}
		if idx, ok := s.indexes(p); ok && s.check(idx) {
			return true, nil
		}
	}
	return false, nil
}

// Focus counts the state variables and fields p reads: the distinct
// paths of its literals without their variable (n0.term and n1.term count
// once), an iterator's element paths named after its domain. Of a capped
// class, Generate keeps the properties of the fewest loose set(x)
// literals (LooseSets), then of the least focus.
func Focus(p *grammar.Property) int {
	name := pathNamer(p)
	names := make(map[string]bool)
	for path := range grammar.Paths(&grammar.Property{Matrix: p.Matrix}) {
		names[name(path)] = true
	}
	return len(names)
}

// LooseSets counts the set(x) literals of p, but for each not set(x)
// whose path x (with its variable: n0.owned, not n1.owned) some literal
// of p other than a set(y) reads: it guards that literal, which then says
// what holds of x wherever x is set (n0.owned != n1.owned or not
// set(n0.owned)). Of a capped class, Generate keeps the properties of the
// fewest, then of the least Focus.
func LooseSets(p *grammar.Property) int {
	isSet := func(l *grammar.Literal) bool {
		_, ok := l.Atom.(*grammar.IsSet)
		return ok
	}
	read := make(map[string]bool) // the paths of the literals but set(x)
	for _, l := range p.Matrix {
		if !isSet(l) {
			for path := range l.Paths() {
				read[path.String()] = true
			}
		}
	}
	loose := 0
	for _, l := range p.Matrix {
		if !isSet(l) {
			continue
		}
		guard := l.Neg
		for path := range l.Paths() {
			guard = guard && read[path.String()]
		}
		if !guard {
			loose++
		}
	}
	return loose
}

// pathNamer returns the function naming a path of p without its
// variable (n0.term and n1.term alike), an iterator's element paths
// after its domain.
func pathNamer(p *grammar.Property) func(*grammar.Path) string {
	domain := make(map[string]string)
	for _, q := range p.Quants {
		if q.Domain != nil {
			domain[q.Vars[0]] = strings.Join(q.Domain.Fields, ".") + "[]"
		}
	}
	return func(path *grammar.Path) string {
		return domain[path.Var] + "." + strings.Join(path.Fields, ".")
	}
}

// scopeOf returns the node variables of p and the index in its of p's
// iterator, -1 for none; false when p's prefix is not a scope's (an
// iterator over another node than n0, two iterators, a domain that is
// not a declared iterator).
func scopeOf(p *grammar.Property, its []iterator) (int, int, bool) {
	k := len(p.NodeVars())
	switch len(p.Quants) {
	case 1:
		return k, -1, p.Quants[0].Domain == nil
	case 2:
		q := p.Quants[1]
		if p.Quants[0].Domain != nil || q.Domain == nil || len(q.Vars) != 1 || q.Domain.Var != nodeVar(0) {
			return 0, 0, false
		}
		i := slices.IndexFunc(its, func(it iterator) bool { return slices.Equal(it.domain.fields, q.Domain.Fields) })
		return k, i, i >= 0
	}
	return 0, 0, false
}

// indexes returns the increasing indexes in s.lits of the literals of p,
// a canonical property over s's prefix; false when s has no such literal.
func (s *scope) indexes(p *grammar.Property) ([]int32, bool) {
	if prefixText(p.Quants) != s.prefix {
		return nil, false
	}
	idx := make([]int32, 0, len(p.Matrix))
	for _, l := range p.Matrix {
		text := l.String()
		i, ok := slices.BinarySearchFunc(s.lits, text, func(l literal, t string) int { return strings.Compare(l.text, t) })
		if !ok {
			return nil, false
		}
		idx = append(idx, int32(i))
	}
	slices.Sort(idx)
	if len(slices.Compact(slices.Clone(idx))) != len(idx) {
		return nil, false
	}
	return idx, true
}
