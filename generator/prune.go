package generator

// This file holds the rule that drops pairs of literals that are
// redundant together; the pairwise compatibility bitsets of a scope are
// built from it. Longer disjunctions also go through the decision
// procedure of theory.go. Both reason on non-null values: a disjunction
// that is true, or equal to a shorter one, whenever its operands are set
// cannot be informative and is dropped.

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

// impliesBase knows these implications, from the null semantics of the
// property language (<, <= and in are false on null, and a null
// container is empty):
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
