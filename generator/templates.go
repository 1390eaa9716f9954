package generator

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// atomKind is the template an atom was instantiated from.
type atomKind uint8

const (
	atomInvalid atomKind = iota
	atomEq               // a == b, two paths
	atomLt               // a < b
	atomLe               // a <= b
	atomConst            // x == c, a path and a constant
	atomIn               // x in S
	atomSubset           // S subset T
	atomEmpty            // empty(S)
	atomSet              // set(x)
	atomTruth            // bare bool x
	atomCall             // a user predicate
)

// compare reports whether k compares two paths with ==, < or <=.
func (k atomKind) compare() bool { return k == atomEq || k == atomLt || k == atomLe }

// An atom is a template instantiated on paths of a scope.
type atom struct {
	kind atomKind
	args []int          // operands, as indexes into the scope's paths
	c    *grammar.Const // atomConst: the constant
	pred string         // atomCall: the predicate
	// atomConst on an enum: how many values the enum has, so that a
	// disjunction never lists constants that cover all but one of them.
	enum int
}

// constSet is the constants of one node path, ready for use in atoms.
type constSet struct {
	consts []*grammar.Const
	enum   int // number of declared values, for an enum; 0 otherwise
}

// prepareConstants turns mined constants into grammar constants, checking
// them against the node paths' types, and adds the declared values of
// every enum path that consts does not cover.
//
// Bool paths get no constants: x == true and x == false are x and not x
// on non-null values. An enum of one value gets none either (x == c is
// set(x) on it), and an enum of two values only its first, since x == b
// is x != a on non-null values.
func prepareConstants(nodes []template, consts Constants) (map[string]constSet, error) {
	byText := make(map[string]*template, len(nodes))
	for i := range nodes {
		byText[nodes[i].text] = &nodes[i]
	}
	out := make(map[string]constSet)
	for _, key := range slices.Sorted(maps.Keys(consts)) {
		t, ok := byText[key]
		if !ok {
			return nil, fmt.Errorf("generator: constants for %q: no such path", key)
		}
		var cs constSet
		for _, v := range consts[key] {
			c, err := constOf(v, t.typ)
			if err != nil {
				return nil, fmt.Errorf("generator: constants for %q: %w", key, err)
			}
			if c != nil {
				cs.consts = append(cs.consts, c)
			}
		}
		out[key] = cs
	}
	for _, t := range nodes {
		if _, ok := out[t.text]; !ok && t.typ.Kind == specs.String && t.typ.Enum != nil {
			cs := constSet{}
			for _, v := range slices.Sorted(slices.Values(t.typ.Enum)) {
				cs.consts = append(cs.consts, &grammar.Const{Kind: grammar.ConstString, Str: v})
			}
			out[t.text] = cs
		}
	}
	for _, t := range nodes {
		cs, ok := out[t.text]
		if !ok || t.typ.Enum == nil {
			continue
		}
		slices.SortFunc(cs.consts, func(a, b *grammar.Const) int { return strings.Compare(a.Str, b.Str) })
		cs.consts = slices.CompactFunc(cs.consts, func(a, b *grammar.Const) bool { return a.Str == b.Str })
		cs.enum = len(t.typ.Enum)
		switch cs.enum {
		case 1:
			cs.consts = nil
		case 2:
			cs.consts = cs.consts[:min(1, len(cs.consts))]
		}
		out[t.text] = cs
	}
	return out, nil
}

// constOf converts a mined value for a path of type t into a constant. It
// returns nil, nil for a Bool path, which needs no constants.
func constOf(v any, t *specs.Type) (*grammar.Const, error) {
	bad := func() error { return fmt.Errorf("value %v (%T) does not fit %s", v, v, t) }
	switch t.Kind {
	case specs.Bool:
		if _, ok := v.(bool); !ok {
			return nil, bad()
		}
		return nil, nil
	case specs.String:
		s, ok := v.(string)
		if !ok || (t.Enum != nil && !slices.Contains(t.Enum, s)) {
			return nil, bad()
		}
		return &grammar.Const{Kind: grammar.ConstString, Str: s}, nil
	case specs.Int:
		i, ok := toInt64(v)
		if !ok {
			return nil, bad()
		}
		return &grammar.Const{Kind: grammar.ConstInt, Int: i}, nil
	case specs.Uint:
		u, ok := toUint64(v)
		if !ok {
			return nil, bad()
		}
		return uintConst(u), nil
	}
	return nil, fmt.Errorf("no constants for a %s", t)
}

// uintConst returns the constant u as the parser would read it back: an
// int unless it exceeds math.MaxInt64.
func uintConst(u uint64) *grammar.Const {
	if u > math.MaxInt64 {
		return &grammar.Const{Kind: grammar.ConstUint, Uint: u}
	}
	return &grammar.Const{Kind: grammar.ConstInt, Int: int64(u)}
}

// atoms instantiates the built-in templates and the user predicates of spec
// on the paths ps of a scope. Atoms that are trivially true or false are
// never built: a path compared with itself, S subset S, and in a scope
// with an iterator e0 over the path dom, e0 in dom (always true) and
// empty(dom) (always false where e0 is bound). dom and elem are the
// indexes of the iterator's domain and element in ps, or -1.
func atoms(ps []path, spec *specs.Spec, consts map[string]constSet, dom, elem int) []atom {
	var as []atom
	add := func(k atomKind, args ...int) { as = append(as, atom{kind: k, args: args}) }
	for i, p := range ps {
		for j := i + 1; j < len(ps); j++ {
			q := ps[j]
			if !specs.Comparable(p.typ, q.typ) {
				continue
			}
			add(atomEq, i, j)
			switch {
			case p.typ.Container():
				add(atomSubset, i, j)
				add(atomSubset, j, i)
			case p.typ.Ordered() && p.typ.Kind != specs.String:
				// Strings are ordered in the language, but their
				// lexicographic order is rarely a property of a
				// system (node ids, states): generating it is noise.
				add(atomLt, i, j)
				add(atomLt, j, i)
				add(atomLe, i, j)
				add(atomLe, j, i)
			}
		}
	}
	for i, s := range ps {
		if !s.typ.Container() {
			continue
		}
		if i != dom {
			add(atomEmpty, i)
		}
		et := elemType(s.typ)
		for j, x := range ps {
			if j != i && !(i == dom && j == elem) && specs.Comparable(x.typ, et) {
				add(atomIn, j, i)
			}
		}
	}
	for i, p := range ps {
		if p.typ.Container() {
			continue
		}
		add(atomSet, i)
		if p.typ.Kind == specs.Bool {
			add(atomTruth, i)
		}
		if p.node == "" {
			continue
		}
		cs := consts[p.node]
		for _, c := range cs.consts {
			as = append(as, atom{kind: atomConst, args: []int{i}, c: c, enum: cs.enum})
		}
	}
	for _, pr := range spec.Predicates {
		for _, args := range tuples(ps, pr.Params) {
			as = append(as, atom{kind: atomCall, args: args, pred: pr.Name})
		}
	}
	return as
}

// tuples returns every tuple of distinct paths whose types fit params, in
// lexicographic order of path indexes.
func tuples(ps []path, params []specs.Param) [][]int {
	cands := make([][]int, len(params))
	for i, pa := range params {
		for j, p := range ps {
			if specs.Comparable(pa.Type, p.typ) {
				cands[i] = append(cands[i], j)
			}
		}
		if len(cands[i]) == 0 {
			return nil
		}
	}
	var out [][]int
	cur := make([]int, len(params))
	var rec func(d int)
	rec = func(d int) {
		if d == len(params) {
			out = append(out, slices.Clone(cur))
			return
		}
		for _, j := range cands[d] {
			if slices.Contains(cur[:d], j) {
				continue
			}
			cur[d] = j
			rec(d + 1)
		}
	}
	rec(0)
	return out
}

// negatable reports whether the generator uses the negation of atoms of
// kind k. It does not negate < and <=: not a < b is b <= a on non-null
// values, which is generated anyway.
func (k atomKind) negatable() bool { return k != atomLt && k != atomLe }

// literal builds the syntax of atom a, negated if neg, over the paths ps.
// The result is not yet canonical: == and != operands are unordered.
func (a *atom) literal(ps []path, neg bool) *grammar.Literal {
	op := func(i int) grammar.Operand { return ps[a.args[i]].op }
	var at grammar.Atom
	switch a.kind {
	case atomEq, atomConst:
		var y grammar.Operand = a.c
		if a.kind == atomEq {
			y = op(1)
		}
		cmpOp := grammar.OpEq
		if neg {
			cmpOp, neg = grammar.OpNe, false
		}
		at = &grammar.Compare{Op: cmpOp, X: op(0), Y: y}
	case atomLt:
		at = &grammar.Compare{Op: grammar.OpLt, X: op(0), Y: op(1)}
	case atomLe:
		at = &grammar.Compare{Op: grammar.OpLe, X: op(0), Y: op(1)}
	case atomIn:
		at = &grammar.In{X: op(0), S: op(1)}
	case atomSubset:
		at = &grammar.Subset{X: op(0), Y: op(1)}
	case atomEmpty:
		at = &grammar.Empty{S: op(0)}
	case atomSet:
		at = &grammar.IsSet{X: op(0)}
	case atomTruth:
		at = &grammar.Truth{X: op(0)}
	case atomCall:
		args := make([]grammar.Operand, len(a.args))
		for i := range a.args {
			args[i] = op(i)
		}
		at = &grammar.Call{Name: a.pred, Args: args}
	default:
		panic("generator: invalid atom")
	}
	return &grammar.Literal{Neg: neg, Atom: at}
}
