package grammar

import "slices"

// Node variables range over distinct nodes, and a node quantifier binds
// them all alike, so renaming the variables of a node quantifier among
// themselves gives the same property: forall n0, n1 in nodes: n0.a <= n1.b
// and forall n0, n1 in nodes: n1.a <= n0.b say the same. Text numbers
// variables in the order the prefix binds them, so each order of a node
// quantifier's variables prints one renaming.

// Renamings calls f with p under each renaming of its node variables:
// the variables of each node quantifier of two or more in each of their
// orders. The property f receives shares p's literals and is valid only
// during the call; p is unchanged. A property has at most a few node
// variables, so there are few renamings (2 for two nodes, 6 for three).
func (p *Property) Renamings(f func(*Property)) {
	q := &Property{Matrix: p.Matrix, Quants: make([]*Quantifier, len(p.Quants))}
	for i, qu := range p.Quants {
		c := *qu
		c.Vars = slices.Clone(qu.Vars)
		q.Quants[i] = &c
	}
	var quant func(i int)
	quant = func(i int) {
		if i == len(q.Quants) {
			f(q)
			return
		}
		if qu := q.Quants[i]; qu.Domain == nil && len(qu.Vars) >= 2 {
			permute(qu.Vars, 0, func() { quant(i + 1) })
		} else {
			quant(i + 1)
		}
	}
	quant(0)
}

// SymmetricText returns the least canonical text of p over its renamings
// (Renamings): two properties have the same symmetric text when they are
// the same up to the naming of their node variables and the order of
// their literals.
func (p *Property) SymmetricText() string {
	best := ""
	p.Renamings(func(q *Property) {
		if t := q.Text(); best == "" || t < best {
			best = t
		}
	})
	return best
}

// permute calls f with vs[from:] in each of its orders, in place, and
// leaves vs as it was.
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
