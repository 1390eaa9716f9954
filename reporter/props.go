package reporter

import (
	"slices"

	"github.com/augur-dev/augur/grammar"
)

// subProperty returns the disjunction of the literals of p in mask, under
// the quantifiers it still needs.
func subProperty(p *grammar.Property, mask int) *grammar.Property {
	q := &grammar.Property{}
	used := map[string]bool{}
	for i, l := range p.Matrix {
		if mask&(1<<i) == 0 {
			continue
		}
		q.Matrix = append(q.Matrix, l)
		for x := range grammar.Paths(&grammar.Property{Matrix: []*grammar.Literal{l}}) {
			used[x.Var] = true
		}
	}
	// An iterator needs the variable its domain starts from.
	for i := len(p.Quants) - 1; i >= 0; i-- {
		if d := p.Quants[i].Domain; d != nil && used[p.Quants[i].Vars[0]] {
			used[d.Var] = true
		}
	}
	for _, qu := range p.Quants {
		vars := slices.DeleteFunc(slices.Clone(qu.Vars), func(v string) bool { return !used[v] })
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
	best := ""
	var try func(i int)
	try = func(i int) {
		if i == len(p.Quants) {
			if t := p.Text(); best == "" || t < best {
				best = t
			}
			return
		}
		q := p.Quants[i]
		if q.Domain != nil || len(q.Vars) < 2 {
			try(i + 1)
			return
		}
		orig := q.Vars
		for _, perm := range permutations(orig) {
			q.Vars = perm
			try(i + 1)
		}
		q.Vars = orig
	}
	q := &grammar.Property{Matrix: p.Matrix}
	for _, qu := range p.Quants {
		c := *qu
		q.Quants = append(q.Quants, &c)
	}
	p = q
	try(0)
	return best
}

// permutations returns every order of vs; vs has at most a few elements.
func permutations(vs []string) [][]string {
	if len(vs) <= 1 {
		return [][]string{slices.Clone(vs)}
	}
	var out [][]string
	for i, v := range vs {
		rest := append(slices.Clone(vs[:i]), vs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{v}, p...))
		}
	}
	return out
}
