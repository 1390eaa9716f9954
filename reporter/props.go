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

// symmetricText returns the smallest canonical text of p over the orders
// of the variables of each node quantifier: distinct node variables are
// interchangeable, so properties that differ only in their naming are
// the same property.
func symmetricText(p *grammar.Property) string {
	q := &grammar.Property{Matrix: p.Matrix, Quants: make([]*grammar.Quantifier, len(p.Quants))}
	for i, qu := range p.Quants {
		c := *qu
		c.Vars = slices.Clone(qu.Vars)
		q.Quants[i] = &c
	}
	best := ""
	var try func(i int)
	try = func(i int) {
		if i == len(q.Quants) {
			if t := q.Text(); best == "" || t < best {
				best = t
			}
			return
		}
		if qu := q.Quants[i]; qu.Domain == nil && len(qu.Vars) >= 2 {
			permute(qu.Vars, 0, func() { try(i + 1) })
		} else {
			try(i + 1)
		}
	}
	try(0)
	return best
}

// permute calls f with vs[from:] in each of its orders, in place, and
// leaves vs as it was; vs has at most a few elements.
func permute(vs []string, from int, f func()) {
	if from >= len(vs)-1 {
		f()
		return
	}
	for i := from; i < len(vs); i++ {
		vs[from], vs[i] = vs[i], vs[from]
		permute(vs, from+1, f)
		vs[from], vs[i] = vs[i], vs[from]
	}
}
