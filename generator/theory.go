package generator

import (
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// This file holds the theory of non-null values that drops longer
// disjunctions: the constraint each literal states when true and when
// false, and the test (theoryOK) that a disjunction is not true on all
// non-null values and equal to no shorter one. The solver that decides
// the constraints is in solver.go.

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
