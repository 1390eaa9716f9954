// Package grammar parses, prints and normalises augur's property
// language.
//
// A property is a prefix of quantifiers followed by a disjunction of
// literals:
//
//	forall n0, n1 in nodes: forall e0 in n1.log: e0 in n0.log or n0.commit < e0.index
//
// [Parse] turns text into a [Property], [Property.String] prints it back,
// and [Canonical] normalises it. The canonical text, [Property.Text], is a
// property's identity; [Property.ID] is a short hash of it.
//
// # Syntax
//
// In EBNF, with tokens in quotes:
//
//	property   = quantifier { quantifier } literal { "or" literal } .
//	quantifier = ( "forall" | "exists" ) name { "," name } "in" ( "nodes" | path ) ":" .
//	literal    = [ "not" ] atom .
//	atom       = "(" atom ")"
//	           | operand [ cmpop operand | "in" operand | "subset" operand ]
//	           | "empty" "(" operand ")" | "set" "(" operand ")"
//	           | name "(" [ operand { "," operand } ] ")" .
//	cmpop      = "==" | "!=" | "<" | "<=" | ">" | ">=" .
//	operand    = path | string | int | float | "true" | "false" .
//	path       = name { "." field } .
//
// A quantifier over nodes binds its variables to distinct live nodes; one
// over a path binds its single variable to each element of that
// container. A path starts with a variable bound by an earlier
// quantifier. The atoms are comparisons, membership (x in S), inclusion
// (S subset T), emptiness (empty(S)), presence (set(x): x is not null), a
// bare boolean operand, and a call of a user predicate.
//
// Names are ASCII identifiers: a letter or underscore, then letters,
// digits and underscores. The keywords are forall, exists, in, nodes, or,
// not, subset, empty, set, true and false; they cannot name a variable
// but may name a field, as in e0.set. A path is one token: no space may
// stand around its dots.
//
// Strings are double-quoted, with Go's escapes. Integers are decimal,
// with an optional minus sign, and must fit an int64, or a uint64 if
// positive. Floats have a fraction, an exponent or both (1.5, 2e-3) and
// must be finite: there is no way to write an infinity or NaN.
//
// The input may use Unicode symbols: ∀ for forall, ∃ for exists, ∈ for
// in, ∨ for or, ¬ for not, ⊆ for subset, and ≠, ≤, ≥. Output is ASCII.
//
// # Normal forms
//
// The parser turns a > b into b < a and a >= b into b <= a, and drops
// parentheses. [Property.String] prints the tree as it is, with single
// spaces and a negation as "not atom"; Parse(p.String()) equals p.
// [Canonical] also renames variables, folds not (a == b) into a != b,
// orders the operands of == and != and sorts the literals.
//
// # Positions and errors
//
// Nodes carry a [Span] of byte offsets into the source.
// [Property.Position] resolves an offset to a file, line and column,
// relative to where [ParseAt] was told the source starts, and
// [Property.Errorf] makes an [Error] there for checks done after parsing.
// Parse reports an [ErrorList] whose errors carry a [Code]. Inputs longer
// than [MaxSize] bytes, with more than [MaxLiterals] literals or more than
// [MaxDepth] nested parentheses are rejected.
package grammar
