package reporter

import (
	"slices"

	"github.com/augur-dev/augur/grammar"
)

// subProperty returns the disjunction of the literals of p in mask, under
// the quantifiers it still needs.
func subProperty(p *grammar.Property, mask int) *grammar.Property {
	q := &grammar.Property{}
	var used []string // few: a property has a handful of variables
	for i, l := range p.Matrix {
		if mask&(1<<i) == 0 {
			continue
		}
		q.Matrix = append(q.Matrix, l)
		for x := range grammar.Paths(&grammar.Property{Matrix: []*grammar.Literal{l}}) {
			used = append(used, x.Var)
		}
	}
	// An iterator needs the variable its domain starts from.
	for i := len(p.Quants) - 1; i >= 0; i-- {
		if d := p.Quants[i].Domain; d != nil && slices.Contains(used, p.Quants[i].Vars[0]) {
			used = append(used, d.Var)
		}
	}
	for _, qu := range p.Quants {
		vars := slices.DeleteFunc(slices.Clone(qu.Vars), func(v string) bool { return !slices.Contains(used, v) })
		if len(vars) > 0 {
			q.Quants = append(q.Quants, &grammar.Quantifier{Kind: qu.Kind, Vars: vars, Domain: qu.Domain})
		}
	}
	return q
}
