package checker

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/ir"
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
	enums   []int    // the variables read that hold enums, checked in every state
	slots   int      // the most binding slots of a check
	types   sync.Map // reflect.Type of a struct state → *typePlan
}

// prop is a check compiled for live snapshots, from its canonical form.
type prop struct {
	// The property as the evaluator compiles it, with constants in the
	// checker's values.
	ir.Prop[value]

	check *Check
	text  string // canonical text
	node  []bool // by slot: a node variable
	// global is set when a node quantifier follows the prefix: every
	// binding reads every node.
	global bool
	// last is the slot of the last node variable of the prefix: once
	// Guard reaches it without the guarded node, only that node is left.
	last int
}

// Compile compiles the checks of f against spec. Their properties must
// type-check as over a trace; the errors are those of the evaluator's
// Compile, placed in the checks file when f was loaded by
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
		loaded := ch.prop != nil // else built by hand: errors name the check
		p, err := ch.Parsed()
		if err != nil {
			return nil, err
		}
		canon, text, err := ir.Typed(spec, p)
		if err != nil {
			if e := (*diag.Error)(nil); loaded && errors.As(err, &e) {
				errs = append(errs, e) // placed in the checks file
				continue
			}
			return nil, fmt.Errorf("check %s: %w", ch.Name, err)
		}
		cp := c.build(ch, canon)
		cp.text = text
		c.props = append(c.props, cp)
		c.slots = max(c.slots, len(cp.Vars))
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
	for i, v := range spec.Vars {
		if c.read[i] && v.Type.HasEnum() {
			c.enums = append(c.enums, i)
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

// build compiles a canonical, type-checked property and marks the
// variables it reads.
func (c *Checker) build(ch *Check, p *grammar.Property) *prop {
	cp := &prop{Prop: ir.Build(c.spec, p, constValue, nil), check: ch, last: -1}
	for i, q := range cp.Quants {
		for range q.Slots {
			cp.node = append(cp.node, q.Domain == nil)
		}
		switch {
		case q.Domain != nil:
			c.markRead(q.Domain)
		case i >= cp.Prefix:
			cp.global = true
		default:
			cp.last = q.Slots[len(q.Slots)-1]
		}
	}
	for _, x := range cp.Paths {
		c.markRead(x)
	}
	return cp
}

// markRead marks the variable of a node path as read.
func (c *Checker) markRead(x *ir.Path) {
	if x.Node {
		c.read[x.Variable] = true
	}
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
