// Package generator builds the pool of candidate properties of a spec:
// literals × disjunctions × quantifiers, as in the Avenger paper, with
// what cannot be informative dropped at generation time.
//
// [MineConstants] collects the constants of x == c literals from a trace;
// [Generate] builds the [Pool] from a spec and those constants. Both are
// deterministic: the same inputs give the same pool, in the same order.
//
// # Paths
//
// A node variable n has a path n.v for every variable and derived
// variable v of the spec, and n.v.f… for the fields of struct types, up to
// [MaxPathFields] fields. Container-valued paths (lists, sets, maps) are
// operands of in, subset and empty and domains of iterators; the generator
// does not descend into their elements except through an iterator. For a
// container named in generate.iterate, an iterator forall e0 in n0.c binds
// e0 to its elements (to the keys of a map), with paths e0 and e0.f… .
// A property has at most [MaxIterators] iterator, over its first node
// variable (any other choice is a renaming of the node variables).
//
// # Scopes and atoms
//
// A scope is a quantifier prefix: forall n0, …, n(k-1) in nodes for k in
// 1…max_nodes, optionally followed by forall e0 in n0.c. Over the paths of
// a scope the generator instantiates these templates:
//
//	a == b            comparable paths (specs.Comparable), a ≠ b
//	a < b, a <= b     ordered comparable paths, both ways round
//	x in S            S a container whose element (a map: key) type is x's
//	S subset T        containers of the same type, both ways round
//	empty(S)          containers
//	set(x)            paths that are not containers
//	x                 bool paths
//	x == c            node paths with constants: mined ones, else an
//	                  enum's values (never for bools: x and not x say it)
//	p(a, b, …)        user predicates, on every tuple of distinct paths
//	                  whose types fit the parameters
//
// Each atom gives a literal and, except for < and <=, its negation: not
// a < b is b <= a on non-null values, which is generated anyway.
// Atoms that are trivially true or false are not built: a path compared
// with itself, S subset S, e0 in n0.c and empty(n0.c) under an iterator
// over n0.c. An enum of one value gets no constants and one of two values
// only its first (x == b is x != a on non-null values).
//
// # Disjunctions
//
// A property of a scope is a disjunction of 1…max_literals of its
// literals, all distinct, such that:
//
//   - every variable of the prefix is used: each node variable and the
//     iterator occur in some literal (n0 is used by an iterator's domain),
//     otherwise the property belongs to a smaller scope;
//   - no two literals are redundant together on non-null values: two
//     comparisons of the same two paths (their disjunction is a single
//     comparison or true), a constant of a path next to a negated
//     constant of the same path, or a literal implying the other or
//     implied by the other's negation (a < b ⇒ set(a), x in S ⇒ not
//     empty(S), empty(S) ⇒ S subset T, …);
//   - the comparison, membership and inclusion literals, taken together,
//     are not true on all non-null values, and none of them is implied by
//     the others' being false (then the disjunction equals a shorter one):
//     a small decision procedure checks equality, order, distinct
//     constants, the finite domains of bools and enums, and x in S,
//     S subset T and emptiness, knowing that an iterator's e0 is in its
//     domain;
//   - at most V-2 positive constants of a path of an enum of V values
//     (V-1 of them say x != c for the remaining value c);
//   - set(x) only in disjunctions of at most [MaxSetLiterals] literals;
//   - node symmetry: node variables range over distinct nodes, so renaming
//     them gives an equivalent property. Of each class of renamings the
//     generator keeps the one whose literals, in canonical text order,
//     come first lexicographically.
//
// Properties are canonical (grammar.Canonical) by construction, so their
// canonical texts are distinct.
//
// The rules follow the null semantics of the property language: == and
// != are null-safe (null == null), <, <= and in are false when an
// operand is null, and a null container is empty. They also assume that
// a bare bool x is false when x is null, so that x implies set(x).
//
// # Classes and the cap
//
// A class is the number of node variables, of iterators and of literals.
// When a class has more than max_per_class candidates (0 means no cap),
// it keeps max_per_class of them: those with the fewest loose set(x)
// literals (all but a not set(x) beside a literal on the same path x,
// which it guards, as in x != y or not set(x)), then the
// most focused, which mention the fewest distinct state variables and
// fields (n0.term and n1.term count once). Ties are broken
// by a hash of the literal texts, an evenly spread choice that does not
// change when the spec gains an unrelated variable. A class
// whose literal combinations exceed an internal budget is sampled instead
// of enumerated: the kept properties come from a large, evenly spread
// sample of the combinations and Generated is an estimate
// ([ClassCount.Estimated]).
//
// # Size
//
// The literals of the scopes of one node count are counted from the
// paths' types before any is built; a spec with more than
// [MaxScopeLiterals] is an error that says where they come from. A pool
// holds at most [MaxPool] properties, whatever max_per_class: a class
// that would keep more than the classes before it leave is an error,
// known before its properties are built.
package generator
