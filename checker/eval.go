package checker

import "github.com/augur-dev/augur/ir"

// eval evaluates checks binding by binding on the live nodes of a
// snapshot, as the evaluator's reference engine does on a trace's, and
// in the same order, so that the first failing binding is the witness
// augur check would print. It keeps its scratch between calls and
// allocates only to build a witness.
type eval struct {
	nodes []*State // live nodes, sorted by node
	at    []int    // by slot: the position in nodes of a node slot's node
	elem  []*value // by slot: an iterator slot's element
	keys  []value  // by slot: the key a map iterator is at
	args  []any    // predicate arguments

	// guard is the position of the node Guard checks, or -1: when set,
	// only the bindings that assign it to a node slot are enumerated.
	guard int
	with  int // node slots of the current binding that hold it

	id, ts    uint64 // the snapshot's, for witnesses
	nb, nfail int    // bindings, and failing ones, of the current check
	wit       Witness
}

func (e *eval) reset(slots int) {
	if len(e.at) < slots {
		e.at = make([]int, slots)
		e.elem = make([]*value, slots)
		e.keys = make([]value, slots)
	}
}

// check evaluates p at every binding of its prefix (with guard set, at
// those that hold the guarded node) and reports whether one failed.
func (e *eval) check(p *prop) bool {
	e.nb, e.nfail, e.with = 0, 0, 0
	if len(e.nodes) == 0 {
		return false // vacuous, exists included
	}
	e.bindings(p, 0, 0)
	return e.nfail > 0
}

// bindings enumerates the bindings of p's prefix from quantifier i,
// slot k of its node group, and evaluates p at each.
func (e *eval) bindings(p *prop, i, k int) {
	if i == p.Prefix {
		e.nb++
		if !e.holds(p, i) {
			e.nfail++
			if e.nfail == 1 {
				e.wit = e.witness(p)
			}
		}
		return
	}
	q := &p.Quants[i]
	if q.Domain != nil {
		d := e.read(q.Domain)
		for j := range size(d) {
			e.member(q.Slots[0], d, j)
			e.bindings(p, i+1, 0)
		}
		return
	}
	if k == len(q.Slots) {
		e.bindings(p, i+1, 0)
		return
	}
	slot := q.Slots[k]
	if e.guard >= 0 && e.with == 0 && slot == p.last {
		// The last node slot, and the guarded node is in none before.
		if !e.taken(q.Slots[:k], e.guard) {
			e.at[slot] = e.guard
			e.with++
			e.bindings(p, i, k+1)
			e.with--
		}
		return
	}
	for n := range e.nodes {
		if e.taken(q.Slots[:k], n) {
			continue
		}
		e.at[slot] = n
		if n == e.guard {
			e.with++
		}
		e.bindings(p, i, k+1)
		if n == e.guard {
			e.with--
		}
	}
}

// member binds iterator slot to member j of container d: an element of
// a list or set, a key of a map (in key order).
func (e *eval) member(slot int, d *value, j int) {
	if d.kind == kMap {
		e.keys[slot] = value{kind: kString, str: d.elems[j].key}
		e.elem[slot] = &e.keys[slot]
		return
	}
	e.elem[slot] = &d.elems[j]
}

// taken reports whether node n is in one of the slots of a node group
// before the one being assigned: the nodes of a group are distinct.
func (e *eval) taken(slots []int, n int) bool {
	for _, s := range slots {
		if e.at[s] == n {
			return true
		}
	}
	return false
}

// holds evaluates quantifiers i… and the disjunction at the current
// binding.
func (e *eval) holds(p *prop, i int) bool {
	if i == len(p.Quants) {
		for j := range p.Lits {
			if l := &p.Lits[j]; e.atom(&l.Atom) != l.Neg {
				return true
			}
		}
		return false
	}
	return e.quant(p, i, 0)
}

// quant evaluates quantifier i from slot k of its node group: forall
// stops at the first assignment where the rest fails, exists at the
// first where it holds.
func (e *eval) quant(p *prop, i, k int) bool {
	q := &p.Quants[i]
	if q.Domain != nil {
		d := e.read(q.Domain)
		for j := range size(d) {
			e.member(q.Slots[0], d, j)
			if v := e.holds(p, i+1); v == q.Exists {
				return v
			}
		}
		return !q.Exists
	}
	if k == len(q.Slots) {
		return e.holds(p, i+1)
	}
	slot := q.Slots[k]
	for n := range e.nodes {
		if e.taken(q.Slots[:k], n) {
			continue
		}
		e.at[slot] = n
		if v := e.quant(p, i, k+1); v == q.Exists {
			return v
		}
	}
	return !q.Exists
}

func (e *eval) atom(a *ir.Atom[value]) bool {
	switch a.Kind {
	case ir.Compare:
		return ir.Holds(a.Op, e.operand(&a.Args[0]), e.operand(&a.Args[1]), equal, less)
	case ir.In:
		return contains(e.operand(&a.Args[1]), e.operand(&a.Args[0]))
	case ir.Subset:
		return subset(e.operand(&a.Args[0]), e.operand(&a.Args[1]))
	case ir.Empty:
		return size(e.operand(&a.Args[0])) == 0
	case ir.IsSet:
		return e.operand(&a.Args[0]).kind != kNull
	case ir.Truth:
		return e.operand(&a.Args[0]).isTrue()
	case ir.Call:
		// expr-lang takes Go values: this boxes, and allocates.
		for j := range a.Args {
			e.args = append(e.args, toAny(e.operand(&a.Args[j])))
		}
		ok, err := a.Pred.Eval(e.args)
		clear(e.args)
		e.args = e.args[:0]
		return ok && err == nil
	}
	panic("checker: bad atom")
}

func (e *eval) operand(o *ir.Operand[value]) *value {
	if o.Path == nil {
		return &o.Const
	}
	return e.read(o.Path)
}

// read follows a path from its slot; a missing field or a null on the
// way gives null.
func (e *eval) read(x *ir.Path) *value {
	var v *value
	if x.Node {
		v = &e.nodes[e.at[x.Slot]].vals[x.Variable]
	} else {
		v = e.elem[x.Slot]
	}
	return v.field(x.Fields)
}

// witness records the current binding of p and the values of the paths
// of its matrix there, as the evaluator's witnesses do: a container is
// converted only as far as the witness keeps it.
func (e *eval) witness(p *prop) Witness {
	w := ir.NewWitness(e.id, e.ts)
	bound := p.Bound()
	for slot, name := range p.Vars[:bound] {
		if p.node[slot] {
			w.Bind(name, e.nodes[e.at[slot]].node)
		} else {
			w.Bind(name, witnessValue(e.elem[slot]))
		}
	}
	for _, x := range p.Paths {
		if x.Slot < bound {
			w.SetValue(x.Text, witnessValue(e.read(x)))
		}
	}
	return w
}
