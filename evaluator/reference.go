package evaluator

import (
	"fmt"
	"maps"
	"slices"

	"github.com/augur-dev/augur/ir"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// reference evaluates properties binding by binding, from the semantics.
type reference struct {
	prog    *Program
	states  *trace.StateReader
	columns []int // spec variable → trace column; -1 for the node column

	cache, next map[uint32]*nodeState // decoded states by row
	nodes       []*nodeState          // live nodes of the current snapshot
	slots       []any                 // current binding
	task        *task

	fails     failures // of derived variables and predicates, merged over the engines by Run
	derivedOK []bool   // derived variables that succeeded once, by index
	predOK    map[*specs.Predicate]bool
	snap      uint64 // ID of the snapshot being evaluated

	steps int   // bindings evaluated since halt last looked at the context
	err   error // the task's context's error, once halt saw it
}

// stopEvery is the number of bindings an engine evaluates between two
// looks at its task's context. One snapshot may have up to MaxBindings
// of them, a minute of work, and a canceled run must stop within a
// second; at 4096 the look costs nothing measurable against the
// bindings (BenchmarkManyBindings) and comes within a millisecond.
const stopEvery = 1 << 12

// halt counts n bindings evaluated and reports whether the run is to
// stop: the task's context was done when halt last looked at it, which
// it does once stopEvery bindings have gone by. The fast engine counts
// its bindings here too. Its common case, a count, inlines.
func (r *reference) halt(n int) bool {
	if r.steps += n; r.steps < stopEvery {
		return false
	}
	return r.look()
}

// look is halt's look at the context; once it is done, every later call
// of halt comes here and reports true.
func (r *reference) look() bool {
	if r.err == nil {
		r.steps = 0
		r.err = r.task.ctx.Err()
	}
	if r.err != nil {
		r.steps = stopEvery
	}
	return r.err != nil
}

// nodeState is a decoded state: the values of the spec's variables, then
// of its derived variables.
type nodeState struct {
	name string
	vals []any
}

func newReference(tr *trace.Trace, prog *Program) (*reference, error) {
	r := &reference{
		prog:   prog,
		states: states(tr),
		cache:  map[uint32]*nodeState{},
		next:   map[uint32]*nodeState{},

		derivedOK: make([]bool, len(prog.Spec.Derived)),
		predOK:    map[*specs.Predicate]bool{},
	}
	for _, v := range prog.Spec.Vars {
		c := tr.Schema.Index(v.Name)
		if c < 0 && v.Name != "node" {
			return nil, fmt.Errorf("trace %s has no variable %s", tr.Dir, v.Name)
		}
		r.columns = append(r.columns, c)
	}
	for _, p := range prog.Props {
		if len(p.ir.Vars) > len(r.slots) {
			r.slots = make([]any, len(p.ir.Vars))
		}
	}
	return r, nil
}

// states returns the reader of tr's states an engine decodes with: a
// typed one, so that a huge list of numbers costs 8 bytes an element, not
// the 24 of a []any (issue 31), unless a test asks for []any.
func states(tr *trace.Trace) *trace.StateReader {
	if boxedStates {
		return tr.States()
	}
	return tr.TypedStates()
}

// boxedStates makes the engines decode lists as []any, for tests to
// compare with the typed lists they decode otherwise.
var boxedStates = false

func (r *reference) close() { r.states.Close() }

func (r *reference) start(t *task) { r.task = t }

func (r *reference) finish() {}

func (r *reference) failures() *failures { return &r.fails }

// load decodes the members of s, reusing the states of the previous
// snapshot, or takes them from states if it is not nil.
func (r *reference) load(s *trace.Snapshot, states []*nodeState) error {
	clear(r.next)
	r.nodes = r.nodes[:0]
	r.snap = s.ID
	for j, row := range s.Members {
		ns, ok := r.cache[row]
		switch {
		case ok:
		case states != nil:
			ns = states[j]
		default:
			st, err := r.states.State(row)
			if err != nil {
				return err
			}
			ns = r.decode(st, row)
		}
		r.next[row] = ns
		r.nodes = append(r.nodes, ns)
	}
	r.cache, r.next = r.next, r.cache
	return nil
}

// predicateDone tallies an evaluation of p on in that returned err.
func (r *reference) predicateDone(p *specs.Predicate, err error, in input) {
	switch {
	case err != nil:
		r.fails.add(err, r.snap, in)
	case !r.predOK[p]:
		r.predOK[p] = true
		r.fails.succeeded("predicate", p.Name)
	}
}

// decode decodes st, the state at row, and computes its derived
// variables; one that fails is null, and counted.
func (r *reference) decode(st *trace.State, row uint32) *nodeState {
	spec := r.prog.Spec
	vals := make([]any, 0, len(spec.Vars)+len(spec.Derived))
	for i, v := range spec.Vars {
		vals = append(vals, normalize(r.raw(st, i), v.Type))
	}
	if len(spec.Derived) == 0 {
		return &nodeState{name: st.Node, vals: vals}
	}
	// The derived variables' expressions read the variables by name, as
	// they are in the trace, lists boxed as expr-lang takes them.
	env := make(map[string]any, len(spec.Vars)+len(spec.Derived))
	for i, v := range spec.Vars {
		env[v.Name] = boxed(r.raw(st, i))
	}
	for i, d := range spec.Derived {
		v, err := d.Eval(env)
		if err != nil {
			r.fails.add(err, r.snap, input{row: row})
		} else if !r.derivedOK[i] {
			r.derivedOK[i] = true
			r.fails.succeeded("derived", d.Name)
		}
		env[d.Name] = v
		vals = append(vals, normalize(env[d.Name], d.Type))
	}
	return &nodeState{name: st.Node, vals: vals}
}

// raw returns the value of the spec's variable i in st, as the trace
// has it: its column's, or the node's name.
func (r *reference) raw(st *trace.State, i int) any {
	if c := r.columns[i]; c >= 0 {
		return st.Vars[c]
	}
	return st.Node
}

// eval evaluates the task's active properties on snapshot s, whose
// members states holds decoded if it is not nil.
func (r *reference) eval(s *trace.Snapshot, states []*nodeState) error {
	if err := r.load(s, states); err != nil {
		return err
	}
	t := r.task
	for i := t.lo; i < t.hi && r.err == nil; i++ {
		if t.active[i] {
			r.evalProp(r.prog.Props[i], s, &t.acc[i], t.wits)
		}
	}
	return r.err
}

// evalProp evaluates p on s into st, keeping at most maxWit witnesses.
// When the task's context is done it stops part way (r.err says so),
// and st is only good to drop.
func (r *reference) evalProp(p *Prop, s *trace.Snapshot, st *Stats, maxWit int) {
	if len(r.nodes) == 0 {
		return // no live node: vacuous for every property, exists included
	}
	var bindings, holds int64
	patterns := r.task.patterns && p.Flat() && len(p.ir.Lits) <= MaxPatternLiterals
	r.each(p, 0, p.ir.Prefix, func() bool {
		bindings++
		var ok bool
		if patterns {
			pat := 0
			for i := range p.ir.Lits {
				if r.literal(&p.ir.Lits[i]) {
					pat |= 1 << i
				}
			}
			st.Patterns[pat]++
			ok = pat != 0
		} else {
			ok = r.holds(p, p.ir.Prefix)
		}
		if ok {
			holds++
		} else if bindings-holds == 1 && st.NumWitnesses() < maxWit {
			// The snapshot's first violating binding witnesses it.
			st.addWitness(s, r.slots[:p.ir.Bound()], maxWit)
		}
		return true
	})
	if bindings == 0 || r.err != nil {
		return
	}
	st.Support++
	st.Bindings += bindings
	st.Violations += bindings - holds
	st.ScoreSum = st.ScoreSum.Add(ScoreOf(holds, bindings))
	if holds == bindings {
		st.Perfect++
		return
	}
	st.ViolatingSnapshots++
	st.addMoment(s.ID, r.task.moments, r.task.full)
	st.countTags(s.Tags, 1)
}

// each enumerates the bindings of quantifiers [i, end) of p, calling fn
// for each until fn returns false or the run is to stop (r.err). It
// reports whether neither happened.
func (r *reference) each(p *Prop, i, end int, fn func() bool) bool {
	if i == end {
		return !r.halt(1) && fn()
	}
	q := &p.ir.Quants[i]
	if q.Domain == nil {
		return r.nodesOf(q.Slots, func() bool { return r.each(p, i+1, end, fn) })
	}
	slot := q.Slots[0]
	switch c := r.read(q.Domain).(type) {
	case []any, []int64, []uint64, []float64, []string:
		n, _ := listLen(c)
		for j := range n {
			r.slots[slot] = listAt(c, j)
			if !r.each(p, i+1, end, fn) {
				return false
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(c)) {
			r.slots[slot] = k
			if !r.each(p, i+1, end, fn) {
				return false
			}
		}
	}
	return true
}

// nodesOf assigns distinct live nodes to the slots of one quantifier
// group, in every order. Distinctness is per group: slots bound by other
// groups do not count.
func (r *reference) nodesOf(group []int, fn func() bool) bool {
	var assign func(k int) bool
	assign = func(k int) bool {
		if k == len(group) {
			return fn()
		}
	next:
		for _, n := range r.nodes {
			for _, prev := range group[:k] {
				if r.slots[prev] == n {
					continue next
				}
			}
			r.slots[group[k]] = n
			if !assign(k + 1) {
				return false
			}
		}
		return true
	}
	return assign(0)
}

// holds evaluates quantifiers i… and the disjunction at the current
// binding.
func (r *reference) holds(p *Prop, i int) bool {
	if i == len(p.ir.Quants) {
		for j := range p.ir.Lits {
			if r.literal(&p.ir.Lits[j]) {
				return true
			}
		}
		return false
	}
	q := &p.ir.Quants[i]
	found := false
	all := r.each(p, i, i+1, func() bool {
		v := r.holds(p, i+1)
		found = found || v
		return q.Exists != v // stop at the first witness or counterexample
	})
	if q.Exists {
		return found
	}
	return all
}

func (r *reference) literal(l *ir.Literal[any]) bool {
	return r.atom(&l.Atom) != l.Neg
}

func (r *reference) atom(a *ir.Atom[any]) bool {
	switch a.Kind {
	case ir.Compare:
		return ir.Holds(a.Op, r.value(a.Args[0]), r.value(a.Args[1]), equal, less)
	case ir.In:
		return contains(r.value(a.Args[1]), r.value(a.Args[0]))
	case ir.Subset:
		return subset(r.value(a.Args[0]), r.value(a.Args[1]))
	case ir.Empty:
		return size(r.value(a.Args[0])) == 0
	case ir.IsSet:
		return r.value(a.Args[0]) != nil
	case ir.Truth:
		return r.value(a.Args[0]) == true
	case ir.Call:
		args := make([]any, len(a.Args))
		for i, o := range a.Args {
			args[i] = boxed(r.value(o))
		}
		ok, err := a.Pred.Eval(args)
		r.predicateDone(a.Pred, err, input{args: args})
		return ok
	}
	panic(fmt.Sprintf("evaluator: bad atom kind %v", a.Kind))
}

func (r *reference) value(o ir.Operand[any]) any {
	if o.Path == nil {
		return o.Const
	}
	return r.read(o.Path)
}

func (r *reference) read(x *ir.Path) any { return readPath(r.slots, x) }

// readPath follows a path from its variable's slot in a binding (a node
// variable holds its *nodeState, an iterator its element); a missing field
// or a null on the way gives null.
func readPath(slots []any, x *ir.Path) any {
	v := slots[x.Slot]
	if x.Node {
		v = v.(*nodeState).vals[x.Variable]
	}
	return fieldsOf(v, x.Fields)
}

// fieldsOf follows fields from v; a missing field or a null on the way
// gives null.
func fieldsOf(v any, fields []string) any {
	for _, f := range fields {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[f]
	}
	return v
}

// witness records the binding slots of p in snapshot s and the values of
// the paths of its matrix there, as much of each as a witness keeps.
func witness(p *Prop, s *trace.Snapshot, slots []any) Witness {
	w := ir.NewWitness(s.ID, s.TS)
	bound := p.ir.Bound()
	for i, name := range p.ir.Vars[:bound] {
		if n, ok := slots[i].(*nodeState); ok {
			w.Bind(name, n.name)
		} else {
			w.Bind(name, slots[i])
		}
	}
	for _, x := range p.ir.Paths {
		if x.Slot < bound {
			w.SetValue(x.Text, readPath(slots, x))
		}
	}
	return w
}
