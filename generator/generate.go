package generator

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/combin"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// Limits of generation. A spec asking for more is an error.
const (
	// MaxPool bounds the properties of a pool. A property costs the
	// generator about 140 bytes, but its evaluation and report several
	// KB (a pool of 260,256: 2.0 GB at 1,000 snapshots), so that half a
	// million is about what 4 GiB holds. The defaults keep at most
	// 300,000 without an iterator (6 classes of max_per_class 50,000),
	// the testbeds' specs about 53,000; a spec raising max_per_class
	// (to 10^8, on the demo's spec of three literals) built every
	// candidate of a class of millions and ran out of memory in seconds.
	MaxPool = 1 << 19
	// MaxNodes bounds generate.max_nodes: node symmetry is checked over
	// all permutations of the node variables, 24 for 4 nodes.
	MaxNodes = 4
	// MaxLiterals bounds generate.max_literals.
	MaxLiterals = 8
	// MaxIterators is the number of iterator quantifiers in a generated
	// property: one, over a container of the first node variable.
	MaxIterators = 1
	// MaxSetLiterals is the longest disjunction that may hold a set(x)
	// literal. Nullness facts are short; letting set(x) into longer
	// disjunctions multiplies their number without making them more
	// telling.
	MaxSetLiterals = 2
)

// The budget of Generate's per-class enumeration; see budget.
const (
	exactBudget = 1 << 26
	sampleDraws = 1 << 20
)

// A budget bounds the enumeration of one class. A class whose literal
// combinations number at most exact is enumerated exhaustively, so its
// Generated count is exact. A larger class is sampled: about draws
// combinations, chosen by a seeded sequence, from which Generated is
// estimated and the kept properties are chosen. The tests pass a small
// budget to sample small specs.
type budget struct {
	exact, draws float64
}

// A Class groups the properties of one shape: the number of node
// variables, of iterator variables and of literals.
type Class struct {
	Nodes, Iters, Literals int
}

// String returns "nodes=2 iters=0 literals=2".
func (c Class) String() string {
	return fmt.Sprintf("nodes=%d iters=%d literals=%d", c.Nodes, c.Iters, c.Literals)
}

func (c Class) compare(d Class) int {
	return cmp.Or(cmp.Compare(c.Nodes, d.Nodes), cmp.Compare(c.Iters, d.Iters), cmp.Compare(c.Literals, d.Literals))
}

// ClassCount is the number of properties of a class before and after the
// per-class cap.
type ClassCount struct {
	Class     Class
	Generated int  // candidates after pruning, before the cap
	Kept      int  // properties in the pool
	Estimated bool // the class was too large to enumerate: Generated is estimated from a sample
}

// String returns "nodes=2 iters=0 literals=2: generated=1234 kept=1000".
func (cc ClassCount) String() string {
	s := fmt.Sprintf("%s: generated=%d kept=%d", cc.Class, cc.Generated, cc.Kept)
	if cc.Estimated {
		s += " (estimated)"
	}
	return s
}

// Pool is the result of Generate.
type Pool struct {
	// Props are canonical properties ordered by class, then by text.
	// They share syntax nodes (quantifiers, literals) with each other:
	// treat them as read-only.
	Props []*grammar.Property
	// Classes lists the non-empty classes in order of nodes, iterators
	// and literals.
	Classes []ClassCount
}

// Generate builds the property pool of spec, with the constants consts
// (from MineConstants; nil for none beyond the spec's enums). The rules
// are in the package documentation. The result depends only on its
// arguments.
func Generate(spec *specs.Spec, consts Constants) (*Pool, error) {
	return generatePool(spec, consts, budget{exact: exactBudget, draws: sampleDraws})
}

// scopeParts returns what newScope takes of spec besides the node count
// and the iterator: the paths of a node, the iterators, and the
// constants consts prepared for the paths.
func scopeParts(spec *specs.Spec, consts Constants) ([]template, []iterator, map[string]constSet, error) {
	nodes := nodeTemplates(spec)
	if len(nodes) == 0 {
		return nil, nil, nil, fmt.Errorf("generator: %s declares no variables", cmp.Or(spec.File, "the spec"))
	}
	its, err := iterators(spec, nodes)
	if err != nil {
		return nil, nil, nil, err
	}
	cs, err := prepareConstants(nodes, consts)
	if err != nil {
		return nil, nil, nil, err
	}
	return nodes, its, cs, nil
}

// generatePool is Generate with the enumeration budget b.
func generatePool(spec *specs.Spec, consts Constants, b budget) (*Pool, error) {
	g := spec.Generate
	switch {
	case g.MaxNodes < 1 || g.MaxNodes > MaxNodes:
		return nil, fmt.Errorf("generator: max_nodes is %d, want 1 to %d", g.MaxNodes, MaxNodes)
	case g.MaxLiterals < 1 || g.MaxLiterals > MaxLiterals:
		return nil, fmt.Errorf("generator: max_literals is %d, want 1 to %d", g.MaxLiterals, MaxLiterals)
	}
	nodes, its, cs, err := scopeParts(spec, consts)
	if err != nil {
		return nil, err
	}
	if err := checkSize(spec, nodes, its, cs); err != nil {
		return nil, err
	}
	pool := &Pool{}
	for k := 1; k <= g.MaxNodes; k++ {
		groups := [][]*scope{{newScope(spec, k, nodes, nil, cs)}, nil}
		for i := range its {
			groups[1] = append(groups[1], newScope(spec, k, nodes, &its[i], cs))
		}
		for iters, scopes := range groups {
			if len(scopes) == 0 {
				continue
			}
			for m := 1; m <= g.MaxLiterals; m++ {
				c := Class{Nodes: k, Iters: iters, Literals: m}
				room := MaxPool - len(pool.Props)
				cc, props, over := generateClass(c, scopes, g.MaxPerClass, room, b)
				if over {
					return nil, poolError(spec, cc, len(pool.Props))
				}
				if cc.Generated == 0 {
					continue
				}
				pool.Classes = append(pool.Classes, cc)
				pool.Props = append(pool.Props, props...)
			}
		}
	}
	return pool, nil
}

// generateClass enumerates (or, beyond the budget b, samples) the
// candidates of class c over scopes, applies the cap n (0: none) and
// returns the kept properties in text order. It picks no more than
// room+1 whatever n, and reports over, with no properties, when the cap
// would keep more than room: an error of the caller's, known without
// holding the rest.
func generateClass(c Class, scopes []*scope, n, room int, b budget) (ClassCount, []*grammar.Property, bool) {
	capped := n > 0 && n <= room
	if !capped {
		n = room + 1
	}
	cc := ClassCount{Class: c}
	m := c.Literals
	var raw float64
	for _, s := range scopes {
		if len(s.lits) >= m {
			raw += combin.GeneralizedBinomial(float64(len(s.lits)), float64(m))
		}
	}
	if raw == 0 {
		return cc, nil, false
	}
	sl := selector{n: n}
	if raw <= b.exact {
		for si, s := range scopes {
			s.each(m, func(idx []int32) { sl.offer(s, si, idx) })
		}
		cc.Generated = sl.total
	} else {
		cc.Estimated = true
		var est float64
		for si, s := range scopes {
			if len(s.lits) < m {
				continue
			}
			size := combin.GeneralizedBinomial(float64(len(s.lits)), float64(m))
			before := sl.total
			visited := s.sample(m, int(b.draws*size/raw)+1, seed(c, si), func(idx []int32) {
				sl.offer(s, si, idx)
			})
			if visited > 0 {
				est += size * float64(sl.total-before) / float64(visited)
			}
		}
		cc.Generated = int(math.Round(est))
	}
	if !capped && len(sl.heap) > room {
		return cc, nil, true
	}

	type kept struct {
		p    *grammar.Property
		text string
	}
	out := make([]kept, 0, len(sl.heap))
	for i := range sl.heap {
		pk := &sl.heap[i]
		p, text := scopes[pk.scope].property(pk.idx[:m])
		out = append(out, kept{p, text})
	}
	slices.SortFunc(out, func(a, b kept) int { return strings.Compare(a.text, b.text) })
	// Random draws (beyond 62 bits of combinations) may repeat one.
	out = slices.CompactFunc(out, func(a, b kept) bool { return a.text == b.text })
	props := make([]*grammar.Property, len(out))
	for i, k := range out {
		props[i] = k.p
	}
	cc.Kept = len(props)
	return cc, props, false
}

// poolError says that class cc would keep more properties than the room
// MaxPool leaves after the kept properties of the classes before it.
func poolError(spec *specs.Spec, cc ClassCount, kept int) error {
	about := ""
	if cc.Estimated {
		about = "about "
	}
	capped := "no max_per_class"
	if n := spec.Generate.MaxPerClass; n > 0 {
		capped = fmt.Sprintf("max_per_class %d", n)
	}
	return fmt.Errorf("generator: %s: the pool would hold more than the %d properties it may (several KB each to evaluate): class %s has %s%d candidates and %s keeps more than the %d left after the %d of the classes before it; use a lower generate.max_per_class, max_literals or max_nodes",
		cmp.Or(spec.File, "the spec"), MaxPool, cc.Class, about, cc.Generated, capped, MaxPool-kept, kept)
}
