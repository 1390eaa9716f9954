// Package specs parses augur specs: the YAML file that declares the state
// variables of a system, their semantic types, derived variables, user
// predicates, and the limits of generation, filtering and reporting.
//
// # Types
//
// Every value has a semantic type. A type is a representation (bool, int64,
// uint64, float64, string, list, set, map or struct) and, for declared
// types, a name. Only values of the same semantic type are compared, so a
// Term is never compared with an Index although both are uint64:
//
//	types:
//	  Term: uint64
//	  Index: uint64
//	  Role: {enum: [follower, candidate, leader]}
//	variables:
//	  term: Term
//	  state: {enum: [follower, candidate, leader]}   # an enum named state
//	  log: "list<{term: Term, index: Index}>"
//
// Type expressions are parsed by [ParseType]. In YAML, quote struct types,
// whose colons would start a mapping, and inside a flow mapping also map
// types, whose commas would end the value: unquoted, the line
// log: list<{term: Term}> is not valid YAML.
//
// # Expressions
//
// Derived variables and predicates are written in expr-lang
// (https://expr-lang.org) rather than a hand-written interpreter: it has no
// dependencies, type-checks against a declared environment and evaluates in
// about 100 ns.
//
//	derived:
//	  lastIndex: {type: Index, expr: "len(log) == 0 ? 0 : log[len(log)-1].index"}
//	predicates:
//	  - name: prefixEqual   # the logs agree up to index upto
//	    params: [{a: "list<{term: Term, index: Index}>"}, {b: "list<{term: Term, index: Index}>"}, {upto: Index}]
//	    expr: "filter(a, .index <= upto) == filter(b, .index <= upto)"
//
// Expressions are compiled once, by [Parse], against the physical types of
// the names they may use: a derived variable sees the state variables and
// the derived variables declared before it; a predicate sees only its
// parameters. Unknown names, misspelt struct fields and most type errors
// are therefore spec errors with a position. Semantic names do not reach
// expressions: inside one, a Term and an Index are both uint64.
//
// Values reach an expression in the trace representation (see package
// trace): structs are maps, so log[0].index works, and null is nil. Many
// operators fail on nil, which makes a derived variable null and a
// predicate false; use ?? to give a null a default, as in len(log ?? []).
//
// # Names
//
// Names of types, variables, fields, parameters and predicates are ASCII
// identifiers other than the words of the property language: forall,
// exists, in, nodes, or, not, subset, empty, set, true and false. The
// variable node denotes the trace's node column.
//
// # Errors
//
// [Parse] and [Spec.Check] report every error they find as a [diag.ErrorList],
// each error at the file, line and column of the offending YAML node, or
// inside a type expression or expression where the scalar allows.
package specs
