package checker

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/specs"
)

// A State is one node's state prepared for checking: the values of the
// variables the checks read, and of the derived variables, in the
// checker's own form. It is made by [Checker.Prepare] or inside a
// [Snapshot] by [Snapshot.Set]. A prepared State does not change and
// does not refer to the value it was made from; it may be shared by
// several snapshots of its checker, on several goroutines.
type State struct {
	c    *Checker
	node string
	// vals holds the variables by index: the spec's variables, then its
	// derived variables; null where no check reads it.
	vals []value
	// arena holds the members of the containers in vals, and theirs.
	arena []value
}

// Node returns the node whose state it is.
func (st *State) Node() string { return st.node }

// link points the containers of st at their members in the arena, after
// the arena has grown.
func (st *State) link() {
	for i := range st.vals {
		st.vals[i].link(st.arena)
	}
	for i := range st.arena {
		st.arena[i].link(st.arena)
	}
}

func (v *value) link(arena []value) {
	if v.kind == kList || v.kind == kMap {
		off, n := int(v.bits), len(v.elems)
		v.elems = arena[off : off+n : off+n]
	}
}

// sortEntries sorts the entries of every map by key. A container's
// members lie after it in the arena, so one pass in order sorts each map
// once, wherever sorting its parent moved it.
func (st *State) sortEntries() {
	for i := range st.vals {
		st.vals[i].sortEntries()
	}
	for i := range st.arena {
		st.arena[i].sortEntries()
	}
}

func (v *value) sortEntries() {
	if v.kind == kMap {
		slices.SortFunc(v.elems, func(a, b value) int { return strings.Compare(a.key, b.key) })
	}
}

// typePlan says which fields of a Go struct type hold the variables the
// checks read.
type typePlan struct {
	cols []int // columns of the type's collector schema, to visit in order
	vars []int // the variable each column holds
	err  error
}

// planFor returns the plan for the states of type t, building it on
// first use.
func (c *Checker) planFor(t reflect.Type) *typePlan {
	if p, ok := c.types.Load(t); ok {
		return p.(*typePlan)
	}
	p, _ := c.types.LoadOrStore(t, c.buildPlan(t))
	return p.(*typePlan)
}

func (c *Checker) buildPlan(t reflect.Type) *typePlan {
	schema, err := collector.SchemaOf(t)
	if err != nil {
		return &typePlan{err: err}
	}
	// The struct must hold the variables the checks read, with types that
	// fit the spec's, as a trace's columns must.
	read := &specs.Spec{}
	p := &typePlan{}
	for i, v := range c.spec.Vars {
		if !c.read[i] || v.Name == "node" {
			continue
		}
		read.Vars = append(read.Vars, v)
		p.cols = append(p.cols, schema.Index(v.Name))
		p.vars = append(p.vars, i)
	}
	if err := read.CheckColumns(schema); err != nil {
		return &typePlan{err: fmt.Errorf("%s does not fit spec %s: %w", t, c.spec.File, err)}
	}
	return p
}

// builder prepares states. It receives values from collector.VisitState
// or from decoded states, and writes them into a State: a container's
// members go to the arena, reserved when the container starts.
type builder struct {
	st     *State
	roots  []int   // the variable each top-level value fills
	root   int     // the next of roots
	frames []frame // containers being filled, innermost last
	key    string  // the key of the next map entry
	env    map[string]any
}

// frame is a container being filled: arena positions next to end.
type frame struct{ next, end int }

func (b *builder) put(v value) {
	if len(b.frames) == 0 {
		b.st.vals[b.roots[b.root]] = v
		b.root++
		return
	}
	f := &b.frames[len(b.frames)-1]
	v.key, b.key = b.key, ""
	b.st.arena[f.next] = v
	f.next++
	if f.next == f.end {
		b.frames = b.frames[:len(b.frames)-1]
	}
}

// open puts a container of n members and reserves their places.
func (b *builder) open(k kind, n int) {
	st := b.st
	off := len(st.arena)
	st.arena = slices.Grow(st.arena, n)[:off+n]
	clear(st.arena[off:])
	// elems has the right length; State.link points it at the arena.
	b.put(value{kind: k, bits: uint64(off), elems: st.arena[off : off+n]})
	if n > 0 {
		b.frames = append(b.frames, frame{next: off, end: off + n})
	}
}

// The methods of collector.Visitor.

func (b *builder) Null()           { b.put(value{}) }
func (b *builder) Bool(v bool)     { b.put(value{kind: kBool, bits: b2u(v)}) }
func (b *builder) Int(v int64)     { b.put(value{kind: kInt, bits: uint64(v)}) }
func (b *builder) Uint(v uint64)   { b.put(value{kind: kUint, bits: v}) }
func (b *builder) Float(v float64) { b.put(value{kind: kFloat, bits: math.Float64bits(v)}) }
func (b *builder) String(v string) { b.put(value{kind: kString, str: v}) }
func (b *builder) List(n int)      { b.open(kList, n) }
func (b *builder) Map(n int)       { b.open(kMap, n) }
func (b *builder) Key(k string)    { b.key = k }

func b2u(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// decoded puts x, a value in the representation of package trace.
func (b *builder) decoded(x any) error {
	switch x := x.(type) {
	case nil:
		b.Null()
	case bool:
		b.Bool(x)
	case int64:
		b.Int(x)
	case uint64:
		b.Uint(x)
	case float64:
		b.Float(x)
	case string:
		b.String(x)
	case []any:
		b.List(len(x))
		for _, e := range x {
			if err := b.decoded(e); err != nil {
				return err
			}
		}
	case map[string]any:
		b.Map(len(x))
		for k, e := range x {
			b.Key(k)
			if err := b.decoded(e); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%T is not a value of a trace (nil, bool, int64, uint64, float64, string, []any or map[string]any)", x)
	}
	return nil
}

// prepare makes st the state of node given by state: a struct or a
// pointer to one, as passed to collector.Node.Expose, or a decoded state
// (map[string]any, variable names to values in the representation of
// package trace). On error st is left in an undefined state.
func (b *builder) prepare(c *Checker, st *State, node string, state any) error {
	st.c, st.node = c, node
	if st.vals == nil {
		st.vals = make([]value, len(c.spec.Vars)+len(c.spec.Derived))
	}
	clear(st.vals)
	clear(st.arena)
	st.arena = st.arena[:0]
	b.st, b.frames, b.key, b.root = st, b.frames[:0], "", 0
	defer func() { b.st = nil }()

	if m, ok := state.(map[string]any); ok {
		for i, v := range c.spec.Vars {
			if !c.read[i] {
				continue
			}
			x, ok := m[v.Name]
			if !ok && v.Name == "node" {
				x = node
			}
			b.roots = append(b.roots[:0], i)
			b.root = 0
			if err := b.decoded(x); err != nil {
				return fmt.Errorf("variable %s: %w", v.Name, err)
			}
		}
	} else {
		p := c.planFor(reflect.TypeOf(state))
		if p.err != nil {
			return p.err
		}
		b.roots = append(b.roots[:0], p.vars...) // p is shared: do not write it
		if err := collector.VisitState(state, p.cols, b); err != nil {
			return err
		}
		if c.nodeVar >= 0 && c.read[c.nodeVar] {
			st.vals[c.nodeVar] = value{kind: kString, str: node}
		}
	}
	st.link()
	st.sortEntries()
	for _, i := range c.enums {
		v := c.spec.Vars[i]
		if err := outsideEnum(&st.vals[i], v.Type); err != nil {
			err.Var = v.Name
			return err
		}
	}
	if c.derived {
		b.derive(c, st)
	}
	for i, v := range c.spec.Vars {
		normalize(&st.vals[i], v.Type)
	}
	return nil
}

// derive computes the derived variables of st from its variables, as
// they were given (sets not yet normalized), as the evaluator does. A
// derived variable whose expression fails is null.
func (b *builder) derive(c *Checker, st *State) {
	if b.env == nil {
		b.env = map[string]any{}
	}
	clear(b.env)
	for i, v := range c.spec.Vars {
		b.env[v.Name] = toAny(&st.vals[i])
	}
	nv := len(c.spec.Vars)
	for i, d := range c.spec.Derived {
		x, err := d.Eval(b.env)
		if err != nil {
			x = nil
		}
		b.env[d.Name] = x
		b.roots = append(b.roots[:0], nv+i)
		b.root = 0
		if err := b.decoded(x); err != nil {
			// Eval returns trace values; anything else is null.
			st.vals[nv+i] = value{}
			b.frames = b.frames[:0]
		}
	}
	st.link()
	st.sortEntries() // those of the variables again, already sorted
	for i, d := range c.spec.Derived {
		normalize(&st.vals[nv+i], d.Type)
	}
}
