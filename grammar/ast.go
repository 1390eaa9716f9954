package grammar

import (
	"strconv"

	"github.com/augur-dev/augur/diag"
)

// Property is a quantifier prefix followed by a disjunction of literals.
type Property struct {
	Quants []*Quantifier // the prefix, outermost first
	Matrix []*Literal    // the disjunction; len >= 1

	src  string        // source text, for Position
	base diag.Position // position of src[0]; Line is 0 if p was not parsed
}

// Node is implemented by every syntax node below Property.
type Node interface {
	Pos() Pos // first byte of the node
	End() Pos // first byte after the node
}

// Span is the source extent [Start, Stop) of a node. Nodes embed it
// for their Pos and End methods; nodes built by hand may leave it zero.
type Span struct {
	Start, Stop Pos
}

// Pos returns the offset of the node's first byte.
func (s Span) Pos() Pos { return s.Start }

// End returns the offset just after the node.
func (s Span) End() Pos { return s.Stop }

// QuantKind is the kind of a quantifier.
type QuantKind uint8

// Quantifier kinds.
const (
	QuantInvalid QuantKind = iota
	Forall
	Exists
)

var quantKindText = [...]string{Forall: "forall", Exists: "exists"}

// String returns "forall" or "exists".
func (k QuantKind) String() string { return enumString(quantKindText[:], int(k), "QuantKind") }

// Quantifier binds Vars to distinct live nodes if Domain is nil, or
// otherwise its single variable to each element of the container Domain.
type Quantifier struct {
	Kind   QuantKind
	Vars   []string
	Domain *Path
	Span
}

// Literal is an atom or, if Neg is set, its negation.
type Literal struct {
	Neg  bool
	Atom Atom
	Span
}

// Atom is an atomic formula: *Compare, *In, *Subset, *Empty, *IsSet,
// *Truth or *Call.
type Atom interface {
	Node
	String() string
	atomNode()
}

// Op is a comparison operator. The parser turns a > b into b < a and
// a >= b into b <= a.
type Op uint8

// Comparison operators.
const (
	OpInvalid Op = iota
	OpEq         // ==
	OpNe         // !=
	OpLt         // <
	OpLe         // <=
)

var opText = [...]string{OpEq: "==", OpNe: "!=", OpLt: "<", OpLe: "<="}

// String returns the operator as written, such as "<=".
func (o Op) String() string { return enumString(opText[:], int(o), "Op") }

type (
	// Compare is X Op Y.
	Compare struct {
		Op   Op
		X, Y Operand
		Span
	}

	// In is X in S: X is an element of the container S.
	In struct {
		X, S Operand
		Span
	}

	// Subset is X subset Y.
	Subset struct {
		X, Y Operand
		Span
	}

	// Empty is empty(S): the container S has no element.
	Empty struct {
		S Operand
		Span
	}

	// IsSet is set(X): X is not null.
	IsSet struct {
		X Operand
		Span
	}

	// Truth is a bare boolean operand.
	Truth struct {
		X Operand
		Span
	}

	// Call is a user predicate Name(Args...).
	Call struct {
		Name string
		Args []Operand
		Span
	}
)

func (*Compare) atomNode() {}
func (*In) atomNode()      {}
func (*Subset) atomNode()  {}
func (*Empty) atomNode()   {}
func (*IsSet) atomNode()   {}
func (*Truth) atomNode()   {}
func (*Call) atomNode()    {}

// Operand is a *Path or a *Const.
type Operand interface {
	Node
	String() string
	operandNode()
}

// Path is a bound variable followed by zero or more fields: e0.a.b.
type Path struct {
	Var    string
	Fields []string
	Span
}

// ConstKind is the kind of a constant.
type ConstKind uint8

// Constant kinds.
const (
	ConstInvalid ConstKind = iota
	ConstString
	ConstInt
	ConstUint // only for values above math.MaxInt64
	ConstFloat
	ConstBool
)

var constKindText = [...]string{
	ConstString: "string",
	ConstInt:    "int",
	ConstUint:   "uint",
	ConstFloat:  "float",
	ConstBool:   "bool",
}

// String returns the kind in lower case, such as "int".
func (k ConstKind) String() string { return enumString(constKindText[:], int(k), "ConstKind") }

// Const is a constant. Kind says which value field holds it.
type Const struct {
	Kind  ConstKind
	Str   string
	Int   int64
	Uint  uint64
	Float float64
	Bool  bool
	Span
}

func (*Path) operandNode()  {}
func (*Const) operandNode() {}

// enumString returns names[v], or type(v) when v has no name.
func enumString(names []string, v int, typ string) string {
	if 0 <= v && v < len(names) && names[v] != "" {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(v) + ")"
}
