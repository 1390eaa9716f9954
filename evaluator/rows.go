package evaluator

import (
	"maps"
	"slices"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/internal/bitset"
	"github.com/augur-dev/augur/ir"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// This file is the fast evaluator's first stage, rows and interning: the
// members of a snapshot become prepared rows, kept while the snapshots
// keep them, and what changed since the previous snapshot is found. The
// atoms are evaluated here on rows and at bindings, one at a time (the
// kernels of kernel.go take many bindings in one loop).

// rowStage is the engine's state for rows and interning: the prepared
// rows of the current and the previous snapshot, and what changed from
// one to the other.
type rowStage struct {
	in          *interner
	consts      []cell
	cache, next map[uint32]*frow // prepared rows, of the previous and the current snapshot

	rows, prev []*frow  // live nodes of the current and the previous snapshot
	steady     bool     // prev is the previous snapshot evaluated, of at most 64 nodes
	moved      uint64   // positions whose row changed since the previous snapshot; all ones if unknown
	colMoved   []uint64 // by column: positions whose cell changed
	dup        bool     // a row appears twice among the members
	oldPos     []int32  // by live node: its position in prev, or -1 if its row is new (evalRemapped)
	oldPosAt   uint64   // the gen oldPos is of

	// retired holds the prepared rows that left the snapshots, from
	// retired[head] on, oldest first, until prepare takes them again.
	retired []*frow
	head    int
}

// reuseAge is the number of snapshots after the last that held a row
// until prepare may take it again: its snapshot's rows are kept for
// the witnesses of a batch (recentSnaps) that long.
const reuseAge = recentLen

// maxRetired bounds the rows kept for prepare to take again; beyond it,
// a row that leaves the snapshots is left to the garbage collector.
const maxRetired = 1 << 14

// atomStage is what evaluating atoms keeps: the operands of a predicate
// call and the memo of its results, and the columns unboxed for the
// kernels.
type atomStage struct {
	args []any   // predicate arguments
	argc []*cell // their cells
	memo map[callKey]callResult
	vecs []colVec // by plan column: its cells unboxed for the atom kernels (vec)
}

// internBudget bounds the interned values an engine keeps, by the length
// of their encodings (a string or a container is kept by reference, the
// value itself, not a copy of its encoding); past it
// the engine forgets its interned values and prepared rows at the start of
// a task. The rows of one snapshot are all it needs to keep; at 4 MiB the
// live heap of the 860,000-snapshot scale run stays flat, while 64 MiB
// took 120 MiB more of resident memory for nothing.
const internBudget = 4 << 20

func (e *fast) prepareConsts() {
	e.consts = e.consts[:0]
	for _, v := range e.pl.consts {
		e.consts = append(e.consts, e.in.cell(v, needID|needMem|needExact))
	}
}

// frow is a prepared state row.
type frow struct {
	ns    *nodeState
	cells []cell   // by plan column
	doms  []fdom   // by plan domain
	truth []uint64 // by plan row atom

	last    uint64 // the fast.gen of the last snapshot among whose rows it is
	retired bool   // among rowStage.retired
}

// fdom holds the members of a container an iterator ranges over.
type fdom struct {
	vals  []any    // elements of a list or set, sorted keys of a map
	keys  []any    // the sorted keys of a map or the elements of a typed list, which vals is then
	cells [][]cell // by element path, then member
}

// load prepares the members of s, decoded in states if it is not nil,
// reusing the rows of the previous snapshot, and finds what changed
// since.
func (e *fast) load(s *trace.Snapshot, states []*nodeState) error {
	e.prev, e.rows = e.rows, e.prev[:0]
	e.ref.snap = s.ID
	clear(e.next)
	e.dup = false
	for j, row := range s.Members {
		r, ok := e.next[row]
		if ok {
			e.dup = true
		} else if r, ok = e.cache[row]; !ok {
			var ns *nodeState
			if states != nil {
				ns = states[j]
			} else {
				st, err := e.ref.states.State(row)
				if err != nil {
					return err
				}
				ns = e.ref.decode(st, row)
			}
			r = e.prepare(ns)
		}
		r.last = e.gen
		e.next[row] = r
		e.rows = append(e.rows, r)
	}
	e.cache, e.next = e.next, e.cache
	for _, r := range e.prev {
		if r.last != e.gen {
			e.retire(r)
		}
	}

	steady := e.steady && len(e.rows) == len(e.prev)
	e.steady = len(e.rows) <= 64
	if !steady {
		e.moved = ^uint64(0)
		return nil
	}
	e.moved = 0
	clear(e.colMoved)
	for p, r := range e.rows {
		old := e.prev[p]
		if r == old {
			continue
		}
		e.moved |= 1 << p
		for c := range e.colMoved {
			if !sameCell(&r.cells[c], &old.cells[c]) {
				e.colMoved[c] |= 1 << p
			}
		}
	}
	return nil
}

// sameCell reports whether every atom gives the same result on a and b,
// cells of one column: their values are the same, not only equal (-0 and
// 0 are equal, but a predicate may tell them apart).
func sameCell(a, b *cell) bool {
	if a.kind != b.kind || a.bits != b.bits || a.id != b.id || a.flags != b.flags {
		return false
	}
	switch a.kind {
	case kString:
		return a.v.(string) == b.v.(string)
	case kList, kMap:
		// The same id is the same value up to the representation of
		// numbers, which only floats can vary.
		return a.flags&fFloat == 0
	case kOther:
		return false
	}
	return true
}

// retire keeps r, a row that left the snapshots, for prepare to take
// again once no snapshot kept for the witnesses holds it.
func (e *fast) retire(r *frow) {
	if r.retired {
		return
	}
	// The witnesses of a batch read a retired row's values, never the
	// members of its containers: these go, so that the members of a
	// huge list that changes at every snapshot are not kept for
	// recentLen snapshots (the interner holds them weakly).
	for c := range r.cells {
		r.cells[c].set, r.cells[c].mem = nil, nil
	}
	if len(e.retired)-e.head >= maxRetired {
		return
	}
	r.retired = true
	if e.head > 0 && len(e.retired) == cap(e.retired) {
		// Move the rows still kept to the front rather than grow.
		n := copy(e.retired, e.retired[e.head:])
		clear(e.retired[n:])
		e.retired, e.head = e.retired[:n], 0
	}
	e.retired = append(e.retired, r)
}

// reuse returns the oldest retired row if it may be prepared again, or
// nil.
func (e *fast) reuse() *frow {
	if e.head == len(e.retired) || e.gen-e.retired[e.head].last <= reuseAge {
		return nil
	}
	r := e.retired[e.head]
	e.retired[e.head] = nil
	if e.head++; e.head == len(e.retired) {
		e.retired, e.head = e.retired[:0], 0
	}
	r.retired = false
	return r
}

// prepare computes the cells, iterator members and single-node atoms of
// a decoded state. It takes a retired row if there is one old enough:
// when most nodes change at every snapshot, most rows live for a few
// snapshots, and allocating each took a twentieth of the CPU time of
// augur bench --workload periodic --churn 16, most of it to clear the
// fresh memory.
func (e *fast) prepare(ns *nodeState) *frow {
	pl := e.pl
	r := e.reuse()
	if r == nil {
		r = &frow{
			cells: make([]cell, len(pl.cols)),
			doms:  make([]fdom, len(pl.doms)),
			truth: make([]uint64, bitset.Words(len(pl.rowAtoms))),
		}
	} else {
		clear(r.truth)
	}
	r.ns = ns
	for c := range pl.cols {
		col := &pl.cols[c]
		r.cells[c] = e.in.cell(fieldsOf(ns.vals[col.variable], col.fields), col.needs)
	}
	for d := range pl.doms {
		dom := &pl.doms[d]
		fd := &r.doms[d]
		fd.vals = nil
		switch v := r.cells[dom.col].v.(type) {
		case []any:
			fd.vals = v
		case []int64, []uint64, []float64, []string:
			// Each element has a cell, of 64 bytes: its value boxed is
			// not what makes iterating a huge list costly.
			n, _ := listLen(v)
			fd.keys = fd.keys[:0]
			for i := range n {
				fd.keys = append(fd.keys, listAt(v, i))
			}
			fd.vals = fd.keys
		case map[string]any:
			fd.keys = fd.keys[:0]
			for _, k := range slices.Sorted(maps.Keys(v)) {
				fd.keys = append(fd.keys, k)
			}
			fd.vals = fd.keys
		}
		if fd.cells == nil {
			fd.cells = make([][]cell, len(dom.elems))
		}
		for k := range dom.elems {
			pe := &dom.elems[k]
			cs := fd.cells[k][:0]
			for _, v := range fd.vals {
				cs = append(cs, e.in.cell(fieldsOf(v, pe.fields), pe.needs))
			}
			clear(cs[len(cs):cap(cs)]) // the values of the row before
			fd.cells[k] = cs
		}
	}
	for k := range pl.rowAtoms {
		if e.rowAtom(&pl.rowAtoms[k], r) {
			bitset.Set(r.truth, k)
		}
	}
	return r
}

// rowAtom evaluates a single-node atom on a row.
func (e *fast) rowAtom(a *fatom, r *frow) bool {
	get := func(o *fop) *cell {
		if o.src == opNode {
			return &r.cells[o.col]
		}
		return &e.consts[o.col]
	}
	if a.kind == ir.Call {
		e.argc = e.argc[:0]
		for k := range a.args {
			e.argc = append(e.argc, get(&a.args[k]))
		}
		return e.call(a)
	}
	x, y := get(&a.args[0]), (*cell)(nil)
	if len(a.args) > 1 {
		y = get(&a.args[1])
	}
	return test(e.in, a, x, y)
}

// callKey identifies a predicate's evaluation: the predicate, and the
// exact ids of its arguments.
type callKey struct {
	pred *specs.Predicate
	args [maxMemoArgs]int32
}

// maxMemoArgs is the number of arguments up to which a predicate's results
// are memoized.
const maxMemoArgs = 4

// callResult is a memoized evaluation of a predicate.
type callResult struct {
	ok  bool
	err error
}

// memoSize bounds the evaluations an engine memoizes; past it, it forgets
// them all and starts again.
var memoSize = 1 << 18

// call evaluates the predicate of a on the cells e.argc; a failure is
// false, and counted. A predicate is a function of its arguments' values,
// so its results are memoized by their exact ids, across bindings and
// snapshots: most argument tuples recur (nodes agree, and keep their
// states), and an evaluation in expr's machine costs a hundred times a
// lookup.
func (e *fast) call(a *fatom) bool {
	key, memo := callKey{pred: a.pred}, memoSize > 0 && len(e.argc) <= maxMemoArgs
	for k, c := range e.argc {
		if !memo || c.xid == 0 {
			memo = false
			break
		}
		key.args[k] = c.xid
	}
	if memo {
		if r, ok := e.memo[key]; ok {
			if r.err != nil {
				e.setArgs()
				e.ref.fails.add(r.err, e.ref.snap, input{args: e.args})
			}
			return r.ok
		}
	}
	e.setArgs()
	ok, err := a.pred.Eval(e.args)
	e.ref.predicateDone(a.pred, err, input{args: e.args})
	if memo {
		if len(e.memo) >= memoSize {
			clear(e.memo)
		}
		e.memo[key] = callResult{ok, err}
	}
	return ok
}

// setArgs sets e.args to the values of the cells e.argc.
func (e *fast) setArgs() {
	e.args = e.args[:0]
	for _, c := range e.argc {
		e.args = append(e.args, boxed(c.v))
	}
}

// test evaluates an atom other than a call on its operands, interned by
// in.
func test(in *interner, a *fatom, x, y *cell) bool {
	switch a.kind {
	case ir.Compare:
		switch a.op {
		case grammar.OpEq: // and !=, its negation (planner.add)
			return cellEqual(x, y)
		case grammar.OpLt:
			return cellLess(x, y, false)
		case grammar.OpLe:
			return cellLess(x, y, true)
		}
	case ir.In:
		return cellContains(y, x)
	case ir.Subset:
		return cellSubset(in, x, y)
	case ir.Empty:
		return x.size == 0
	case ir.IsSet:
		return x.kind != kNull
	case ir.Truth:
		return x.kind == kBool && x.bits == 1
	}
	panic("evaluator: bad atom")
}

// cellAt returns the cell of an operand at a binding.
func (e *fast) cellAt(o *fop, bnd []int32) *cell {
	switch o.src {
	case opNode:
		return &e.rows[bnd[o.slot]].cells[o.col]
	case opElem:
		return &e.rows[bnd[o.owner]].doms[o.dom].cells[o.col][bnd[o.slot]]
	}
	return &e.consts[o.col]
}

// atomAt evaluates an atom that reads more than one node at a binding.
func (e *fast) atomAt(a *fatom, bnd []int32) bool {
	if a.kind == ir.Call {
		e.argc = e.argc[:0]
		for k := range a.args {
			e.argc = append(e.argc, e.cellAt(&a.args[k], bnd))
		}
		return e.call(a)
	}
	x, y := e.cellAt(&a.args[0], bnd), (*cell)(nil)
	if len(a.args) > 1 {
		y = e.cellAt(&a.args[1], bnd)
	}
	return test(e.in, a, x, y)
}
