package checker

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// A Checker is a checks file compiled against a spec, for checking live
// snapshots: see [Snapshot]. It is safe for concurrent use.
type Checker struct {
	spec    *specs.Spec
	props   []*prop
	read    []bool   // by variable (the spec's, then derived): some check reads it
	derived bool     // some check reads a derived variable: every variable is read
	nodeVar int      // index of the variable node, which holds the node's name; -1 if none
	slots   int      // the most binding slots of a check
	types   sync.Map // reflect.Type of a struct state → *typePlan
}

// prop is a check compiled for live snapshots, from its canonical form.
type prop struct {
	check  *Check
	text   string   // canonical text
	quants []quant  // outermost first
	prefix int      // leading forall quantifiers: they define the bindings
	bound  int      // slots they bind
	vars   []string // by slot
	node   []bool   // by slot: a node variable
	lits   []literal
	paths  []*path // distinct paths of the matrix, for witnesses
	// global is set when a node quantifier follows the prefix: every
	// binding reads every node.
	global bool
	// last is the slot of the last node variable of the prefix: once
	// Guard reaches it without the guarded node, only that node is left.
	last int
}

type quant struct {
	exists bool
	slots  []int
	domain *path // nil: distinct live nodes
}

// path reads a value from a binding: the state variable of a node slot,
// or the element in an iterator slot, then fields.
type path struct {
	slot     int
	node     bool
	variable int // node paths: index among the spec's variables and derived variables
	fields   []string
	text     string
}

type atomKind uint8

const (
	atomInvalid atomKind = iota
	atomCompare
	atomIn
	atomSubset
	atomEmpty
	atomSet
	atomTruth
	atomCall
)

type literal struct {
	neg  bool
	kind atomKind
	op   grammar.Op
	args []operand
	pred *specs.Predicate
}

// operand is a path, or a constant when path is nil.
type operand struct {
	path  *path
	konst value
}

// Compile compiles the checks of f against spec. Their properties must
// type-check as [Run] requires; the errors are those of
// [evaluator.Compile], placed in the checks file when f was loaded by
// [Load], and naming the check otherwise.
func Compile(spec *specs.Spec, f *File) (*Checker, error) {
	if spec == nil {
		return nil, errors.New("checker: no spec to compile the checks against")
	}
	if len(f.Checks) == 0 {
		return nil, errors.New("checker: no checks")
	}
	nv := len(spec.Vars)
	c := &Checker{spec: spec, read: make([]bool, nv+len(spec.Derived)), nodeVar: -1}
	for i, v := range spec.Vars {
		if v.Name == "node" {
			c.nodeVar = i
		}
	}
	var errs diag.ErrorList
	for i := range f.Checks {
		ch := &f.Checks[i]
		p, loaded := ch.prop, ch.prop != nil
		if !loaded { // built by hand: errors name the check
			var err error
			if p, err = grammar.Parse(ch.Property); err != nil {
				return nil, fmt.Errorf("check %s: %w", ch.Name, err)
			}
		}
		prog, err := evaluator.Compile(spec, []*grammar.Property{p})
		if err != nil {
			if l := (diag.ErrorList)(nil); loaded && errors.As(err, &l) {
				errs = append(errs, l...) // placed in the checks file
				continue
			}
			return nil, fmt.Errorf("check %s: %w", ch.Name, err)
		}
		cp := c.build(ch, prog.Props[0].Property)
		cp.text = prog.Props[0].Text
		c.props = append(c.props, cp)
		c.slots = max(c.slots, len(cp.vars))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	for i := nv; i < len(c.read); i++ {
		c.derived = c.derived || c.read[i]
	}
	if c.derived {
		// A derived variable may read any variable.
		for i := range c.read {
			c.read[i] = true
		}
	}
	return c, nil
}

// Open loads the checks file at path and the spec it names, and
// compiles the checks against it.
func Open(path string) (*Checker, error) {
	f, spec, err := LoadWithSpec(path)
	if err != nil {
		return nil, err
	}
	return Compile(spec, f)
}

// LoadWithSpec loads the checks file at path and the spec it names, which
// it must name.
func LoadWithSpec(path string) (*File, *specs.Spec, error) {
	f, err := Load(path)
	if err != nil {
		return nil, nil, err
	}
	if f.Spec == "" {
		return nil, nil, fmt.Errorf("%s: no spec: checking live states needs the spec the checks are written against (spec: PATH)", path)
	}
	spec, err := specs.Load(f.Spec)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: spec: %w", path, err)
	}
	return f, spec, nil
}

// build compiles a canonical, type-checked property.
func (c *Checker) build(ch *Check, p *grammar.Property) *prop {
	cp := &prop{check: ch, prefix: len(p.Quants), last: -1}
	slots := map[string]int{}
	seen := map[string]*path{}
	mkPath := func(x *grammar.Path) *path {
		text := x.String()
		if px, ok := seen[text]; ok {
			return px
		}
		slot := slots[x.Var]
		px := &path{slot: slot, node: cp.node[slot], fields: x.Fields, text: text}
		if px.node {
			px.variable = c.variable(x.Fields[0])
			px.fields = x.Fields[1:]
			c.read[px.variable] = true
		}
		seen[text] = px
		return px
	}
	for i, q := range p.Quants {
		if q.Kind == grammar.Exists && cp.prefix == len(p.Quants) {
			cp.prefix = i
		}
		cq := quant{exists: q.Kind == grammar.Exists}
		if q.Domain != nil {
			cq.domain = mkPath(q.Domain)
		}
		for _, v := range q.Vars {
			slots[v] = len(cp.vars)
			cq.slots = append(cq.slots, len(cp.vars))
			cp.vars = append(cp.vars, v)
			cp.node = append(cp.node, q.Domain == nil)
		}
		cp.quants = append(cp.quants, cq)
	}
	for i, q := range cp.quants {
		switch {
		case q.domain != nil:
		case i >= cp.prefix:
			cp.global = true
		default:
			cp.last = q.slots[len(q.slots)-1]
		}
		if i < cp.prefix {
			cp.bound += len(q.slots)
		}
	}
	// Domain paths are not witnesses' values; start the list afresh.
	seen = map[string]*path{}
	operands := func(os ...grammar.Operand) []operand {
		out := make([]operand, len(os))
		for i, o := range os {
			switch o := o.(type) {
			case *grammar.Path:
				px := mkPath(o)
				if !containsPath(cp.paths, px) {
					cp.paths = append(cp.paths, px)
				}
				out[i].path = px
			case *grammar.Const:
				out[i].konst = constValue(o)
			}
		}
		return out
	}
	for _, l := range p.Matrix {
		lit := literal{neg: l.Neg}
		switch x := l.Atom.(type) {
		case *grammar.Compare:
			lit.kind, lit.op, lit.args = atomCompare, x.Op, operands(x.X, x.Y)
		case *grammar.In:
			lit.kind, lit.args = atomIn, operands(x.X, x.S)
		case *grammar.Subset:
			lit.kind, lit.args = atomSubset, operands(x.X, x.Y)
		case *grammar.Empty:
			lit.kind, lit.args = atomEmpty, operands(x.S)
		case *grammar.IsSet:
			lit.kind, lit.args = atomSet, operands(x.X)
		case *grammar.Truth:
			lit.kind, lit.args = atomTruth, operands(x.X)
		case *grammar.Call:
			lit.kind, lit.args, lit.pred = atomCall, operands(x.Args...), c.spec.Predicate(x.Name)
		}
		cp.lits = append(cp.lits, lit)
	}
	return cp
}

func containsPath(ps []*path, p *path) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// variable returns the index of a variable among the spec's variables
// and derived variables.
func (c *Checker) variable(name string) int {
	for i, v := range c.spec.Vars {
		if v.Name == name {
			return i
		}
	}
	for i, d := range c.spec.Derived {
		if d.Name == name {
			return len(c.spec.Vars) + i
		}
	}
	// evaluator.Compile resolved every name.
	panic("checker: unresolved variable " + name)
}

func constValue(k *grammar.Const) value {
	switch k.Kind {
	case grammar.ConstString:
		return value{kind: kString, str: k.Str}
	case grammar.ConstInt:
		return value{kind: kInt, bits: uint64(k.Int)}
	case grammar.ConstUint:
		return value{kind: kUint, bits: k.Uint}
	case grammar.ConstFloat:
		return value{kind: kFloat, bits: math.Float64bits(k.Float)}
	case grammar.ConstBool:
		return value{kind: kBool, bits: b2u(k.Bool)}
	}
	return value{}
}

// Checks returns the names of the checks, in order.
func (c *Checker) Checks() []string {
	names := make([]string, len(c.props))
	for i, p := range c.props {
		names[i] = p.check.Name
	}
	return names
}
