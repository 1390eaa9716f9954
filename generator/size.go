package generator

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/augur-dev/augur/specs"
)

// MaxScopeLiterals bounds the literals of the scopes of one node count
// (the scope without an iterator and one per generate.iterate entry,
// which Generate holds at once). A literal costs the scope about 550
// bytes (its syntax, text, theory and bitsets) and 10 µs to build, so
// the bound holds the tables to about 290 MB and 5 s, a quarter of the
// 1 GiB a run of infer should fit in; the pool drawn from them is
// bounded apart, by max_per_class. The literals grow as the square of
// the paths of one type (1,000 int64 derived variables: 3 million for
// one node variable, 12 million for two, which ran out of memory) and
// as the paths to the power of a predicate's parameters. The specs of
// the testbeds have at most 890; 10,000 state variables of types of
// their own, as spec init declares them, about 140,000.
const MaxScopeLiterals = 1 << 19

// checkSize counts the literals of the scopes of each node count up to
// spec's max_nodes, from the paths' types and the constants cs, and
// refuses the spec before any is built when a count exceeds
// MaxScopeLiterals, saying where the literals come from and how to have
// fewer. With cs nil it counts no constants, so the count is a lower
// bound: MineConstants checks that before it evaluates every derived
// variable on every state of the trace.
func checkSize(spec *specs.Spec, nodes []template, its []iterator, cs map[string]constSet) error {
	for k := 1; k <= min(spec.Generate.MaxNodes, MaxNodes); k++ {
		n := scopeSize{lower: cs == nil}
		n.add(countLiterals(scopePaths(k, nodes, nil), spec, cs, -1, -1))
		for i := range its {
			dom, elem := findTemplate(nodes, its[i].domain.text), k*len(nodes)
			n.add(countLiterals(scopePaths(k, nodes, &its[i]), spec, cs, dom, elem))
		}
		if n.total() > MaxScopeLiterals {
			return n.err(spec, k, len(its))
		}
	}
	return nil
}

// checkSizeUnmined is checkSize before constants are mined: a lower
// bound of the literals, from the spec alone. A spec whose iterate list
// is wrong passes, for Generate to say what is wrong with it.
func checkSizeUnmined(spec *specs.Spec) error {
	nodes := nodeTemplates(spec)
	its, err := iterators(spec, nodes)
	if err != nil {
		return nil
	}
	return checkSize(spec, nodes, its, nil)
}

// A scopeSize counts the literals of one or more scopes by where they
// come from.
type scopeSize struct {
	compare float64 // ==, <, <=, subset and in between paths of one type
	calls   float64 // user predicates
	other   float64 // empty, set, bare bools and constants
	// The type whose paths give the most comparison literals, and those.
	top      *specs.Type
	topPaths int
	topLits  float64
	lower    bool // no constants counted: the literals are at least these
}

func (n *scopeSize) total() float64 { return n.compare + n.calls + n.other }

// add adds the counts of o, keeping the larger top.
func (n *scopeSize) add(o scopeSize) {
	n.compare += o.compare
	n.calls += o.calls
	n.other += o.other
	if o.topLits > n.topLits {
		n.top, n.topPaths, n.topLits = o.top, o.topPaths, o.topLits
	}
}

// err says that the scopes of k node variables, with iterators over its
// containers, hold n literals, more than MaxScopeLiterals.
func (n *scopeSize) err(spec *specs.Spec, k, its int) error {
	// A fix is suggested for each source of a tenth of the literals or more.
	big := func(x float64) bool { return x >= n.total()/10 }
	var parts, fixes []string
	if n.compare > 0 {
		parts = append(parts, fmt.Sprintf("%.0f comparisons of paths of one type (%.0f of the %d paths of type %s)", n.compare, n.topLits, n.topPaths, n.top.Describe()))
	}
	if big(n.compare) {
		fixes = append(fixes, "fewer variables and derived variables of one type (declare types of their own under types: for those not worth comparing)")
	}
	if n.calls > 0 {
		parts = append(parts, fmt.Sprintf("%.0f calls of the %d predicates", n.calls, len(spec.Predicates)))
	}
	if big(n.calls) {
		fixes = append(fixes, "fewer predicates, or parameters of types fewer paths have")
	}
	parts = append(parts, fmt.Sprintf("%.0f others", n.other))
	if big(n.other) {
		fixes = append(fixes, "fewer variables, or a lower generate.constants.max_distinct")
	}
	if its > 0 {
		fixes = append(fixes, "a shorter generate.iterate")
	}
	if k > 1 {
		fixes = append(fixes, fmt.Sprintf("generate.max_nodes %d", k-1))
	}
	vars := "variables"
	if k == 1 {
		vars = "variable"
	}
	have := "have"
	if n.lower {
		have = "have, before any constant, at least"
	}
	return fmt.Errorf("generator: %s: the properties of %d node %s %s %.0f literals to combine, more than the %d the generator holds (about 550 bytes each): %s; use %s",
		cmp.Or(spec.File, "the spec"), k, vars, have, n.total(), MaxScopeLiterals, strings.Join(parts, ", "), strings.Join(fixes, ", or "))
}

// countLiterals returns the number of literals newScope builds over the
// paths ps, with the same arguments as atoms, without building any: the
// atoms of each template, and the negations of those that are negated.
func countLiterals(ps []path, spec *specs.Spec, consts map[string]constSet, dom, elem int) scopeSize {
	var g typeGroups
	group := make([]int, len(ps))
	for i, p := range ps {
		group[i] = g.insert(p.typ)
	}
	var n scopeSize
	perGroup := make([]float64, len(g.reps))
	for gi, t := range g.reps {
		c := float64(g.size[gi])
		pair := 2.0 // a == b and a != b
		switch {
		case t.Container():
			pair += 4 // S subset T, T subset S and their negations
		case t.Ordered() && t.Kind != specs.String:
			pair += 4 // a < b, b < a, a <= b, b <= a
		}
		perGroup[gi] = c * (c - 1) / 2 * pair
	}
	for i, p := range ps {
		if !p.typ.Container() {
			n.other += 2 // set(x), not set(x)
			if p.typ.Kind == specs.Bool {
				n.other += 2 // x, not x
			}
			if p.node != "" {
				n.other += 2 * float64(len(consts[p.node].consts))
			}
			continue
		}
		if i != dom {
			n.other += 2 // empty(S), not empty(S)
		}
		if eg := g.find(elemType(p.typ)); eg >= 0 {
			in := g.size[eg]
			if group[i] == eg {
				in-- // x in S takes x other than S
			}
			if i == dom && elem >= 0 && group[elem] == eg {
				in-- // e0 in its domain is always true
			}
			perGroup[eg] += 2 * float64(in)
		}
	}
	for gi, lits := range perGroup {
		n.compare += lits
		if lits > n.topLits {
			n.top, n.topPaths, n.topLits = g.reps[gi], g.size[gi], lits
		}
	}
	for _, pr := range spec.Predicates {
		n.calls += 2 * float64(tupleCount(&g, pr.Params))
	}
	return n
}

// tupleCount returns the number of tuples of distinct paths whose types
// fit params, as tuples lists them, from the sizes of the groups: the
// parameters of one group take distinct paths of it, those of different
// groups paths that differ anyway.
func tupleCount(g *typeGroups, params []specs.Param) float64 {
	taken := make(map[int]int)
	n := 1.0
	for _, pa := range params {
		gi := g.find(pa.Type)
		if gi < 0 {
			return 0
		}
		n *= float64(g.size[gi] - taken[gi])
		taken[gi]++
		if n <= 0 {
			return 0
		}
	}
	return n
}

// typeGroups partitions types into the classes of specs.Comparable (an
// equivalence on non-nil types), counting the members of each.
// Comparable types share their name and kind, so a class is looked for
// only among those.
type typeGroups struct {
	reps  []*specs.Type // a member of each class
	size  []int
	byKey map[typeKey][]int
}

type typeKey struct {
	name string
	kind specs.Kind
}

// find returns the class of t, or -1 if it has none.
func (g *typeGroups) find(t *specs.Type) int {
	if t == nil {
		return -1
	}
	for _, gi := range g.byKey[typeKey{t.Name, t.Kind}] {
		if specs.Comparable(g.reps[gi], t) {
			return gi
		}
	}
	return -1
}

// insert counts t in its class, which it starts if it has none, and
// returns the class.
func (g *typeGroups) insert(t *specs.Type) int {
	gi := g.find(t)
	if gi < 0 {
		if g.byKey == nil {
			g.byKey = make(map[typeKey][]int)
		}
		gi = len(g.reps)
		key := typeKey{t.Name, t.Kind}
		g.byKey[key] = append(g.byKey[key], gi)
		g.reps = append(g.reps, t)
		g.size = append(g.size, 0)
	}
	g.size[gi]++
	return gi
}
