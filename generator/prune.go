package generator

import (
	"slices"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// This file holds the rules that drop uninformative disjunctions: pairs
// of literals that are redundant together (redundant, used for the
// pairwise compatibility bitsets) and, for longer disjunctions, a small
// decision procedure over the comparisons, memberships and inclusions of
// their literals (scope.theoryOK). Both reason on non-null values, as
// DESIGN §5 asks: a disjunction that is true, or equal to a shorter one,
// whenever its operands are set is dropped.

// A sign is an atom or its negation, for reasoning about implications.
type sign struct {
	a   *atom
	neg bool
}

func (s sign) not() sign { return sign{s.a, !s.neg} }

// redundant reports whether a disjunction holding both x and y says
// nothing that a shorter one does not: on non-null values, x or y is
// true, or equals x or y alone.
//
// Three rules:
//   - two comparisons of the same two paths (==, !=, <, <=, either way
//     round): on non-null values their disjunction is always one
//     comparison or true;
//   - two constants of one path, one of them negated (x != a or x != b is
//     true, x == a or x != b is x != b), or any two of an enum of three
//     values (x == a or x == b is x != c);
//   - one literal implies the other (x or y is then the weaker one), or
//     the negation of one implies the other (x or y is true); the
//     implications known are listed at implies.
func redundant(x, y sign) bool {
	a, b := x.a, y.a
	if a == b {
		return true
	}
	if a.kind.compare() && b.kind.compare() && samePair(a.args, b.args) {
		return true
	}
	if a.kind == atomConst && b.kind == atomConst && a.args[0] == b.args[0] {
		if x.neg || y.neg || a.enum > 0 && a.enum-2 < 2 {
			return true
		}
	}
	return implies(x, y) || implies(y, x) || implies(x.not(), y)
}

func samePair(a, b []int) bool {
	return a[0] == b[0] && a[1] == b[1] || a[0] == b[1] && a[1] == b[0]
}

// implies reports whether x implies y by one of the rules at impliesBase
// or by its contrapositive.
func implies(x, y sign) bool {
	return impliesBase(x, y) || impliesBase(y.not(), x.not())
}

// impliesBase knows these implications, from the null semantics of
// DESIGN §4 (<, <= and in are false on null, a null container is empty):
//
//	a < b, a <= b      ⇒ set(a), set(b)
//	x in S, x == c, x  ⇒ set(x)
//	x in S             ⇒ not empty(S)
//	empty(S)           ⇒ S subset T
func impliesBase(x, y sign) bool {
	a, b := x.a, y.a
	if x.neg {
		return false
	}
	switch {
	case b.kind == atomSet && !y.neg:
		switch a.kind {
		case atomLt, atomLe:
			return a.args[0] == b.args[0] || a.args[1] == b.args[0]
		case atomIn, atomConst, atomTruth:
			return a.args[0] == b.args[0]
		}
	case a.kind == atomIn && b.kind == atomEmpty && y.neg:
		return a.args[1] == b.args[0]
	case a.kind == atomEmpty && b.kind == atomSubset && !y.neg:
		return a.args[0] == b.args[0]
	}
	return false
}

// conKind is the kind of a constraint of the theory of non-null values.
type conKind uint8

const (
	conNone   conKind = iota // an opaque literal: set(x), a predicate
	conEq                    // a == b
	conNe                    // a != b
	conLt                    // a < b
	conLe                    // a <= b
	conIn                    // a in b
	conNin                   // not a in b
	conSub                   // a subset b
	conNsub                  // not a subset b
	conEmpty                 // empty(a)
	conNempty                // not empty(a)
)

// A constraint is what a literal says about its terms when it is true (or
// false). Terms are the paths of the scope, then its constants.
type constraint struct {
	kind conKind
	a, b int32
}

// constraintOf returns the constraint atom a states when it has the
// truth value truth, on non-null values.
func (s *scope) constraintOf(a *atom, truth bool) constraint {
	pick := func(t, f conKind) conKind {
		if truth {
			return t
		}
		return f
	}
	arg := func(i int) int32 { return int32(a.args[i]) }
	switch a.kind {
	case atomEq:
		return constraint{pick(conEq, conNe), arg(0), arg(1)}
	case atomLt:
		if truth {
			return constraint{conLt, arg(0), arg(1)}
		}
		return constraint{conLe, arg(1), arg(0)}
	case atomLe:
		if truth {
			return constraint{conLe, arg(0), arg(1)}
		}
		return constraint{conLt, arg(1), arg(0)}
	case atomConst:
		return constraint{pick(conEq, conNe), arg(0), s.constTerm(a.c)}
	case atomTruth:
		return constraint{conEq, arg(0), s.constTerm(&grammar.Const{Kind: grammar.ConstBool, Bool: truth})}
	case atomIn:
		return constraint{pick(conIn, conNin), arg(0), arg(1)}
	case atomSubset:
		return constraint{pick(conSub, conNsub), arg(0), arg(1)}
	case atomEmpty:
		return constraint{pick(conEmpty, conNempty), arg(0), arg(0)}
	}
	return constraint{}
}

// constTerm returns the term of constant c, registering it.
func (s *scope) constTerm(c *grammar.Const) int32 {
	key := c.Kind.String() + ":" + c.String()
	if t, ok := s.constIDs[key]; ok {
		return t
	}
	t := int32(len(s.paths) + len(s.constVals))
	s.constIDs[key] = t
	var v any
	switch c.Kind {
	case grammar.ConstString:
		v = c.Str
	case grammar.ConstInt:
		v = c.Int
	case grammar.ConstUint:
		v = c.Uint
	case grammar.ConstBool:
		v = c.Bool
	case grammar.ConstFloat:
		v = c.Float
	}
	s.constVals = append(s.constVals, v)
	return t
}

// constOrder reports how constants u and v (terms) compare: -1, 0 or 1,
// and false when they are not ordered with each other.
func (s *scope) constOrder(u, v int32) (int, bool) {
	a, b := s.constVals[int(u)-len(s.paths)], s.constVals[int(v)-len(s.paths)]
	switch a := a.(type) {
	case string:
		if b, ok := b.(string); ok {
			return cmpOrdered(a, b), true
		}
	case int64:
		switch b := b.(type) {
		case int64:
			return cmpOrdered(a, b), true
		case uint64: // a ConstUint is above math.MaxInt64
			return -1, true
		}
	case uint64:
		switch b := b.(type) {
		case uint64:
			return cmpOrdered(a, b), true
		case int64:
			return 1, true
		}
	case float64:
		if b, ok := b.(float64); ok {
			return cmpOrdered(a, b), true
		}
	}
	return 0, false
}

func cmpOrdered[T int64 | uint64 | float64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// buildTheory computes the constraints of each literal, true and false,
// the term bits used to find connected literals, and the domains of the
// finite types (bool, enums).
func (s *scope) buildTheory() {
	s.constIDs = make(map[string]int32)
	s.domains = make([][]int32, len(s.paths))
	for i, p := range s.paths {
		switch {
		case p.typ.Kind == specs.Bool:
			s.domains[i] = []int32{
				s.constTerm(&grammar.Const{Kind: grammar.ConstBool, Bool: false}),
				s.constTerm(&grammar.Const{Kind: grammar.ConstBool, Bool: true}),
			}
		case p.typ.Kind == specs.String && p.typ.Enum != nil:
			for _, v := range p.typ.Enum {
				s.domains[i] = append(s.domains[i], s.constTerm(&grammar.Const{Kind: grammar.ConstString, Str: v}))
			}
		}
	}
	// Under an iterator, e0 is an element of its domain: a fact every
	// check assumes, which links the literals on e0 with those on the
	// domain.
	var link uint64
	if s.elem >= 0 {
		s.background = []constraint{{conIn, int32(s.elem), int32(s.dom)}}
		link = 1<<(s.elem%63) | 1<<(s.dom%63)
	}
	s.cons = make([][2]constraint, len(s.lits))
	s.termBits = make([]uint64, len(s.lits))
	for i, l := range s.lits {
		c := s.constraintOf(l.sign.a, !l.sign.neg)
		if c.kind == conNone {
			continue
		}
		s.cons[i] = [2]constraint{c, s.constraintOf(l.sign.a, l.sign.neg)}
		var b uint64
		for _, t := range [2]int32{c.a, c.b} {
			if int(t) >= len(s.paths) {
				b |= 1 << 63 // constants are all related
			} else {
				b |= 1 << (t % 63)
			}
		}
		if b&link != 0 {
			b |= link
		}
		s.termBits[i] = b
	}
}

// theoryOK reports whether the disjunction idx survives the decision
// procedure: it is not true on all non-null values, and none of its
// literals is implied by the others' being false (which would make the
// disjunction equal to the one without that literal). Only theory
// literals connected by shared terms can make a disjunction fail, so the
// procedure runs only when minGroup or more of them are connected: pairs
// are checked once, into the compatibility bitsets (minGroup 2), longer
// disjunctions with minGroup 3.
func (s *scope) theoryOK(idx []int32, minGroup int) bool {
	var buf [MaxLiterals]int32
	th := buf[:0]
	for _, i := range idx {
		if s.termBits[i] != 0 {
			th = append(th, i)
		}
	}
	if len(th) < minGroup || !s.connected(th, minGroup) {
		return true
	}
	var buf2 [MaxLiterals + 1]constraint
	cs := buf2[:len(th)+len(s.background)]
	for j, i := range th {
		cs[j] = s.cons[i][1]
	}
	copy(cs[len(th):], s.background)
	if !s.satisfiable(cs) {
		return false // true whenever its operands are set
	}
	for j, i := range th {
		cs[j] = s.cons[i][0]
		sat := s.satisfiable(cs)
		cs[j] = s.cons[i][1]
		if !sat {
			return false // literal i is never the only true one
		}
	}
	return true
}

// connected reports whether min or more of the literals th share terms
// transitively.
func (s *scope) connected(th []int32, min int) bool {
	var comp [MaxLiterals]uint64 // term bits of each component
	var size [MaxLiterals]int
	n := 0
	for _, i := range th {
		b := s.termBits[i]
		sz := 1
		// Merge every component b touches into a new one.
		for c := 0; c < n; {
			if comp[c]&b != 0 {
				b |= comp[c]
				sz += size[c]
				n--
				comp[c], size[c] = comp[n], size[n]
				continue
			}
			c++
		}
		if sz >= min {
			return true
		}
		comp[n], size[n] = b, sz
		n++
	}
	return false
}

// maxTerms bounds the terms of one satisfiability check; a larger one is
// taken as satisfiable, which only keeps a disjunction.
const maxTerms = 64

// A solver decides the satisfiability of a conjunction of constraints on
// non-null values: equalities by union-find, orders by the transitive
// closure of < and <= (a cycle through < is a contradiction, a cycle of
// <= an equality), distinct constants, the finite domains of bools and
// enums, and membership and inclusion (x in S and S subset T give x in T;
// an empty container has no element and is a subset of everything).
type solver struct {
	s      *scope
	n      int
	term   [maxTerms]int32
	parent [maxTerms]int8
}

func (v *solver) id(t int32) int {
	for i := range v.n {
		if v.term[i] == t {
			return i
		}
	}
	if v.n == maxTerms {
		return -1
	}
	v.term[v.n] = t
	v.parent[v.n] = int8(v.n)
	v.n++
	return v.n - 1
}

func (v *solver) find(i int) int {
	for int(v.parent[i]) != i {
		v.parent[i] = v.parent[v.parent[i]]
		i = int(v.parent[i])
	}
	return i
}

func (v *solver) union(i, j int) { v.parent[v.find(i)] = int8(v.find(j)) }

func (v *solver) isConst(i int) bool { return int(v.term[i]) >= len(v.s.paths) }

// satisfiable reports whether the constraints cs can all hold at once.
func (s *scope) satisfiable(cs []constraint) bool {
	v := solver{s: s}
	type local struct {
		kind conKind
		a, b int
	}
	var lc [MaxLiterals + 1]local
	for j, c := range cs {
		a, b := v.id(c.a), v.id(c.b)
		if a < 0 || b < 0 {
			return true
		}
		lc[j] = local{c.kind, a, b}
	}
	ls := lc[:len(cs)]
	for _, c := range ls {
		if c.kind == conEq {
			v.union(c.a, c.b)
		}
	}

	// Orders: edges between classes, and between the constants present.
	var reach [maxTerms]uint64 // reach[i]: classes i is <= to
	var involved uint64
	type edge struct{ u, w int }
	var strict [MaxLiterals + maxTerms]edge
	ns := 0
	addEdge := func(u, w int, isStrict bool) {
		u, w = v.find(u), v.find(w)
		reach[u] |= 1 << w
		involved |= 1<<u | 1<<w
		if isStrict {
			strict[ns] = edge{u, w}
			ns++
		}
	}
	for _, c := range ls {
		switch c.kind {
		case conLt:
			addEdge(c.a, c.b, true)
		case conLe:
			addEdge(c.a, c.b, false)
		}
	}
	if involved != 0 {
		for i := range v.n {
			if !v.isConst(i) {
				continue
			}
			for j := range v.n {
				if j != i && v.isConst(j) {
					if o, ok := s.constOrder(v.term[i], v.term[j]); ok && o < 0 && ns < len(strict) {
						addEdge(i, j, true)
					}
				}
			}
		}
		for k := range v.n {
			if involved&(1<<k) == 0 {
				continue
			}
			for i := range v.n {
				if reach[i]&(1<<k) != 0 {
					reach[i] |= reach[k]
				}
			}
		}
		for _, e := range strict[:ns] {
			if e.u == e.w || reach[e.w]&(1<<e.u) != 0 {
				return false
			}
		}
		for i := range v.n {
			for j := i + 1; j < v.n; j++ {
				if reach[i]&(1<<j) != 0 && reach[j]&(1<<i) != 0 {
					v.union(i, j)
				}
			}
		}
	}

	// Distinct values.
	for i := range v.n {
		if !v.isConst(i) {
			continue
		}
		for j := i + 1; j < v.n; j++ {
			if v.isConst(j) && v.find(i) == v.find(j) {
				return false
			}
		}
	}
	hasNe := false
	for _, c := range ls {
		if c.kind == conNe {
			if v.find(c.a) == v.find(c.b) {
				return false
			}
			hasNe = true
		}
	}
	if hasNe {
		var ne [MaxLiterals + 1][2]int
		n := 0
		for _, c := range ls {
			if c.kind == conNe {
				ne[n] = [2]int{c.a, c.b}
				n++
			}
		}
		if !v.colorable(ne[:n]) {
			return false
		}
	}

	// Containers.
	var sub [maxTerms]uint64 // sub[i]: classes class i is a subset of
	var empty uint64
	for i := range v.n {
		sub[i] = 1 << i
	}
	containers := false
	for _, c := range ls {
		switch c.kind {
		case conSub:
			sub[v.find(c.a)] |= 1 << v.find(c.b)
			containers = true
		case conEmpty:
			empty |= 1 << v.find(c.a)
			containers = true
		case conIn, conNin, conNsub, conNempty:
			containers = true
		case conNe:
			containers = containers || !v.isConst(c.a) && s.paths[v.term[c.a]].typ.Container()
		}
	}
	if !containers {
		return true
	}
	for k := range v.n {
		for i := range v.n {
			if sub[i]&(1<<k) != 0 {
				sub[i] |= sub[k]
			}
		}
	}
	isEmpty := func(c int) bool { return sub[c]&empty != 0 }
	for _, c := range ls {
		a, b := v.find(c.a), v.find(c.b)
		switch c.kind {
		case conNe:
			// Two empty containers are equal; two sets each a subset of
			// the other too.
			if !v.isConst(c.a) && s.paths[v.term[c.a]].typ.Container() {
				if isEmpty(a) && isEmpty(b) {
					return false
				}
				if s.paths[v.term[c.a]].typ.Kind == specs.Set && sub[a]&(1<<b) != 0 && sub[b]&(1<<a) != 0 {
					return false
				}
			}
		case conNempty:
			if isEmpty(a) {
				return false
			}
		case conNsub:
			if sub[a]&(1<<b) != 0 || isEmpty(a) {
				return false
			}
		case conIn:
			if isEmpty(b) {
				return false
			}
			for _, d := range ls {
				if d.kind == conNin && v.find(d.a) == a && sub[b]&(1<<v.find(d.b)) != 0 {
					return false
				}
			}
		}
	}
	return true
}

// colorable reports whether the classes of terms of finite types (bools,
// enums) can take values of their domains that respect the disequalities
// ne: x != "a" and x != "b" cannot both hold on an enum of a and b.
func (v *solver) colorable(ne [][2]int) bool {
	s := v.s
	// The classes with a finite domain, and the values they may take.
	var classes []int
	var domains [][]int32
	for i := range v.n {
		t := v.term[i]
		if int(t) >= len(s.paths) || s.domains[t] == nil {
			continue
		}
		c := v.find(i)
		if !slices.Contains(classes, c) {
			classes = append(classes, c)
			domains = append(domains, s.domains[t])
		}
	}
	if len(classes) == 0 {
		return true
	}
	// A class holding a constant has that value.
	fixed := make([]int32, len(classes))
	for k, c := range classes {
		fixed[k] = -1
		for i := range v.n {
			if v.isConst(i) && v.find(i) == c {
				fixed[k] = v.term[i]
			}
		}
	}
	value := make([]int32, len(classes))
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(classes) {
			return true
		}
		for _, d := range domains[k] {
			if fixed[k] >= 0 && d != fixed[k] {
				continue
			}
			ok := true
			for _, p := range ne {
				a, b := v.find(p[0]), v.find(p[1])
				var other int
				switch classes[k] {
				case a:
					other = b
				case b:
					other = a
				default:
					continue
				}
				// The other side is a constant term, or a class already set.
				for i := range v.n {
					if v.find(i) == other && v.isConst(i) && v.term[i] == d {
						ok = false
					}
				}
				for j := range k {
					if classes[j] == other && value[j] == d {
						ok = false
					}
				}
			}
			if ok {
				value[k] = d
				if try(k + 1) {
					return true
				}
			}
		}
		return false
	}
	return try(0)
}
