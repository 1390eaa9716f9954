// Package ir is the form properties are compiled to for evaluation
// binding by binding: the evaluator's engines and the checker read it.
//
// [Check] type-checks a property against a spec, with errors placed in
// its source; [Typed] also returns its canonical form. A [Witness] is a
// violating binding, as both report it. The checker takes all of these
// from here rather than from package evaluator, which reads traces.
//
// [Build] numbers the variables of a property as the slots of a binding,
// in quantifier order, resolves its paths against the spec and reduces
// each atom to a [Kind] and its operands. An engine keeps constants in
// its own representation of values, so a [Prop] is generic in it.
package ir

import (
	"slices"
	"strconv"
	"strings"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// Prop is a compiled property whose constants are of type C.
type Prop[C any] struct {
	Prefix int          // leading forall quantifiers: they define the bindings
	Quants []Quant      // all quantifiers, outermost first
	Vars   []string     // variables by slot
	Lits   []Literal[C] // the disjunction
	Paths  []*Path      // distinct paths of the matrix, in order of appearance, for witnesses
}

// Bound returns how many variables a binding of p assigns: those of its
// leading forall quantifiers, which hold the slots below it.
func (p *Prop[C]) Bound() int {
	n := 0
	for _, q := range p.Quants[:p.Prefix] {
		n += len(q.Slots)
	}
	return n
}

// Quant is a quantifier over binding slots.
type Quant struct {
	Exists bool
	Slots  []int // slots of the variables
	Domain *Path // nil: distinct live nodes
}

// Literal is an atom or, if Neg is set, its negation.
type Literal[C any] struct {
	Neg  bool
	Atom Atom[C]
}

// Atom is an atomic formula: its kind and its operands, in the order
// the kind gives.
type Atom[C any] struct {
	Kind Kind
	Op   grammar.Op // Compare
	Args []Operand[C]
	Pred *specs.Predicate // Call
}

// Kind is the kind of an atom: one for each atom type of package grammar.
type Kind uint8

// Atom kinds, each with the operands of its atom in order.
const (
	Invalid Kind = iota
	Compare      // X Op Y: X, Y
	In           // X in S: X, S
	Subset       // X subset Y: X, Y
	Empty        // empty(S): S
	IsSet        // set(X): X
	Truth        // X: X
	Call         // Name(Args...): Args
)

var kindText = [...]string{
	Compare: "compare",
	In:      "in",
	Subset:  "subset",
	Empty:   "empty",
	IsSet:   "set",
	Truth:   "truth",
	Call:    "call",
}

// String returns the kind in lower case, such as "subset".
func (k Kind) String() string {
	if int(k) < len(kindText) && kindText[k] != "" {
		return kindText[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Operand is a path, or the constant Const when Path is nil.
type Operand[C any] struct {
	Path  *Path
	Const C
}

// Path reads a value from a binding: the state of the node in Slot (Node
// set) or the element in Slot, then Fields. A missing field or a null on
// the way gives null.
type Path struct {
	Slot     int
	Node     bool
	Variable int      // Node: the state variable, indexed among the spec's variables then its derived variables
	Fields   []string // after the variable, for a node
	Text     string   // as written, such as n0.log.term
}

// Build compiles p, which must be canonical and type-check against spec,
// as evaluator.Compile checks, and converts its constants with konst.
// Paths of the matrix that are written alike are one *Path. With sh not
// nil, the property shares what it writes alike with the others built
// with sh (see [Shared]).
func Build[C any](spec *specs.Spec, p *grammar.Property, konst func(*grammar.Const) C, sh *Shared) Prop[C] {
	if sh == nil {
		sh = &Shared{} // the property's own
	}
	ip := Prop[C]{Prefix: len(p.Quants)}
	slots := map[string]int{}
	nodes := map[string]bool{}
	path := func(x *grammar.Path, domain bool) *Path {
		text := x.String()
		key := pathKey{text: text, slot: slots[x.Var], node: nodes[x.Var], domain: domain}
		if px, ok := sh.paths[key]; ok {
			return px
		}
		px := &Path{Slot: key.slot, Node: key.node, Fields: x.Fields, Text: text}
		if px.Node {
			px.Variable = variable(spec, x.Fields[0])
			px.Fields = x.Fields[1:]
		}
		if sh.paths == nil {
			sh.paths = map[pathKey]*Path{}
		}
		sh.paths[key] = px
		return px
	}
	for i, q := range p.Quants {
		if q.Kind == grammar.Exists && ip.Prefix == len(p.Quants) {
			ip.Prefix = i
		}
		iq := Quant{Exists: q.Kind == grammar.Exists}
		if q.Domain != nil {
			// Domain paths are not witnesses' values, nor the matrix's.
			iq.Domain = path(q.Domain, true)
		}
		for _, v := range q.Vars {
			slots[v] = len(ip.Vars)
			nodes[v] = q.Domain == nil
			iq.Slots = append(iq.Slots, len(ip.Vars))
			ip.Vars = append(ip.Vars, v)
		}
		ip.Quants = append(ip.Quants, iq)
	}
	ip.Quants, ip.Vars = sh.quantifiers(p, ip.Quants, ip.Vars)
	operands := func(os ...grammar.Operand) []Operand[C] {
		out := make([]Operand[C], len(os))
		for i, o := range os {
			switch o := o.(type) {
			case *grammar.Path:
				px := path(o, false)
				if !slices.Contains(ip.Paths, px) {
					ip.Paths = append(ip.Paths, px)
				}
				out[i].Path = px
			case *grammar.Const:
				out[i].Const = konst(o)
			}
		}
		return out
	}
	ip.Lits = make([]Literal[C], 0, len(p.Matrix))
	for _, l := range p.Matrix {
		var a Atom[C]
		switch x := l.Atom.(type) {
		case *grammar.Compare:
			a = Atom[C]{Kind: Compare, Op: x.Op, Args: operands(x.X, x.Y)}
		case *grammar.In:
			a = Atom[C]{Kind: In, Args: operands(x.X, x.S)}
		case *grammar.Subset:
			a = Atom[C]{Kind: Subset, Args: operands(x.X, x.Y)}
		case *grammar.Empty:
			a = Atom[C]{Kind: Empty, Args: operands(x.S)}
		case *grammar.IsSet:
			a = Atom[C]{Kind: IsSet, Args: operands(x.X)}
		case *grammar.Truth:
			a = Atom[C]{Kind: Truth, Args: operands(x.X)}
		case *grammar.Call:
			a = Atom[C]{Kind: Call, Args: operands(x.Args...), Pred: spec.Predicate(x.Name)}
		}
		ip.Lits = append(ip.Lits, Literal[C]{Neg: l.Neg, Atom: a})
	}
	return ip
}

// A Shared lets the properties built with it share the paths and the
// quantifiers they write alike, which none changes. A pool's properties
// read a few dozen paths at the same slots and open with a handful of
// quantifier prefixes, and each held its own: its paths were the largest
// part of a compiled pool (36 MB of the 146 MB of the 153k properties of
// the etcdraft testbed's spec with three literals). The zero Shared is
// ready to use; it is not safe for concurrent use.
type Shared struct {
	paths  map[pathKey]*Path
	quants map[string]quantifiers
}

// A pathKey is what makes two paths one: the same text read from the
// same slot, a node's or an element's, in a domain or in the matrix.
type pathKey struct {
	text   string
	slot   int
	node   bool
	domain bool
}

// quantifiers are the quantifiers of a property and its variables by
// slot, as Prop has them.
type quantifiers struct {
	quants []Quant
	vars   []string
}

// quantifiers returns the quantifiers qs and variables vars of p as built,
// or those of a property built before with quantifiers written alike,
// which are the same: slots are numbered in quantifier order, and domain
// paths are shared.
func (sh *Shared) quantifiers(p *grammar.Property, qs []Quant, vars []string) ([]Quant, []string) {
	var b strings.Builder
	for _, q := range p.Quants {
		b.WriteString(q.String())
		b.WriteByte(';')
	}
	key := b.String()
	if q, ok := sh.quants[key]; ok {
		return q.quants, q.vars
	}
	if sh.quants == nil {
		sh.quants = map[string]quantifiers{}
	}
	sh.quants[key] = quantifiers{qs, vars}
	return qs, vars
}

// Holds reports whether x op y holds, op being ==, !=, < or <=, for an
// engine's values of type V whose equality is equal and whose order is
// less (less or equal if orEqual): the comparisons of the language are
// these two and their negation.
func Holds[V any](op grammar.Op, x, y V, equal func(x, y V) bool, less func(x, y V, orEqual bool) bool) bool {
	if op == grammar.OpLt || op == grammar.OpLe {
		return less(x, y, op == grammar.OpLe)
	}
	return equal(x, y) == (op == grammar.OpEq)
}

// variable returns the index of a state variable among the spec's
// variables, then its derived variables, as decoded states hold them.
func variable(spec *specs.Spec, name string) int {
	for i, v := range spec.Vars {
		if v.Name == name {
			return i
		}
	}
	for i, d := range spec.Derived {
		if d.Name == name {
			return len(spec.Vars) + i
		}
	}
	panic("ir: unresolved variable " + name) // the property does not type-check
}
