package evaluator

import (
	"fmt"
	"maps"
	"math/bits"
	"slices"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/internal/bitset"
	"github.com/augur-dev/augur/internal/ir"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// fast evaluates the scopes of a plan. Per snapshot and scope it
// enumerates the bindings once and keeps, for each atom the task's
// properties use, a bitset of the bindings where it holds; a property's
// count is the popcount of the OR of its literals' bitsets.
//
// Consecutive snapshots mostly share their state rows, and the engine
// works on what changed:
//
//   - a state row is prepared once (decoded, derived variables computed,
//     values interned into cells, single-node atoms evaluated) and reused
//     while the snapshots keep it;
//   - in a scope over nodes only, an atom is evaluated again only at the
//     bindings that put a node whose cells it reads changed (for a
//     single-node atom, whose truth changed); other scopes evaluate their
//     atoms again whenever a row changed;
//   - a property is counted again only when the bitset of one of its
//     atoms changed. Until then its counts per snapshot stay the same: a
//     run, added to its stats when it ends, snapshot by snapshot for the
//     spatial score so that the sum is the same float as the reference's.
type fast struct {
	pl          *plan
	ref         *reference // decodes states; evaluates what the plan leaves binding by binding
	in          *interner
	consts      []cell
	cache, next map[uint32]*frow // prepared rows, of the previous and the current snapshot

	rows, prev []*frow    // live nodes of the current and the previous snapshot
	steady     bool       // prev is the previous snapshot evaluated, of at most 64 nodes
	moved      uint64     // positions whose row changed since the previous snapshot; all ones if unknown
	colMoved   []uint64   // by column: positions whose cell changed
	dup        bool       // a row appears twice among the members
	task       *task      // the current task
	idx        int        // the current snapshot's index in the chunk
	tags       [][]string // tags of the chunk's snapshots so far
	ids        []uint64   // their IDs
	tagged     []int32    // the indexes of those that have tags
	scopes     []scopeRun // by plan scope
	fallback   []int      // the task's active properties of plan.fallback
	lo, hi     int        // the span of the last task
	slots      []any      // a binding, for witnesses
	cur        []int32    // a binding being enumerated
	args       []any      // predicate arguments
	argc       []*cell    // their cells
	memo       map[callKey]callResult
	vecs       []colVec // by plan column: its cells unboxed for the atom kernels (vec)
	oldPos     []int32  // by live node: its position in prev, or -1 if its row is new (evalRemapped)
	oldPosAt   uint64   // the gen oldPos is of

	patterns bool   // the task counts Stats.Patterns
	gen      uint64 // counts the snapshots evaluated, across chunks; from 1
}

// frow is a prepared state row.
type frow struct {
	ns    *nodeState
	cells []cell   // by plan column
	doms  []fdom   // by plan domain
	truth []uint64 // by plan row atom
}

// fdom holds the members of a container an iterator ranges over.
type fdom struct {
	vals  []any    // elements of a list or set, sorted keys of a map
	cells [][]cell // by element path, then member
}

// scopeRun is an engine's working state for one scope.
type scopeRun struct {
	props  []int32   // the task's active properties, as indexes in scope.props
	atoms  []int32   // the atoms they use
	used   []bool    // by atom
	users  [][]int32 // by atom: the active properties that use it
	valid  bool      // bits hold the atoms at the previous snapshot evaluated, over the same bindings
	table  *nodeTable
	nb, nw int      // bindings of the current snapshot, and words per bitset
	bind   []int32  // the current bindings, nslots each: node positions and member indexes
	own    []int32  // bindings of an iterator scope
	last   []int32  // its bindings at the previous snapshot
	bits   []uint64 // atom a's bitset at bits[a*nw:]
	// lastMask masks the last four words of a bitset, from word
	// (nw-1)&^3: the bindings in them, none past.
	lastMask [4]uint64
	spare    []uint64 // the bitsets of the previous snapshot, while they are remapped
	from     []int32  // by binding: the binding of the previous snapshot it keeps the values of, or -1 (evalRemapped)
	tmp      []uint64
	all      []uint64 // every binding's bit (every), for everyNb bindings
	everyNb  int
	dirty    []uint64     // by scope property: count it again at this snapshot
	owed     []int32      // properties that fail and may still take witnesses
	tables   []*nodeTable // by number of nodes, up to 64
	big      *nodeTable   // the table of the last number of nodes above 64
	scores   scoreTable   // the scores of the current number of bindings (flush)

	// A scope whose bitsets over every binding would take more than
	// scopeBytes is evaluated in blocks of bindings (see walkBindings).
	blocked bool     // the current snapshot is evaluated in blocks
	total   int      // bindings of the blocks so far
	counts  []pcount // by scope property: its counts over the blocks so far
	fail    []int32  // by scope property, nslots each: its first failing binding

	// By scope property, in the order of scope.props so that counting
	// the dirty ones walks memory forward: its run, what its runs added
	// during the chunk (to its Stats at the end of the chunk), and the
	// patterns of its run when the task counts them.
	runs []prun
	sums []psums
	pats [][1 << MaxPatternLiterals]int64

	// For the patterns of properties of up to three literals (derive):
	// the number of bindings where each atom holds, and where each pair
	// of scope.pairs does, counted at fast.gen onesAt and pairAt. An atom's
	// bitset last changed at gen max(allMod, atomMod[a]).
	ones, pairN             []int64
	onesAt, pairAt, atomMod []uint64
	allMod                  uint64
}

// pcount is a property's counts over some bindings.
type pcount struct {
	holds  int64
	pats   [1 << MaxPatternLiterals]int64
	failed bool // fail holds its first failing binding
}

// nodeTable holds the bindings of a node-only scope for one number of
// nodes.
type nodeTable struct {
	n, nb int
	bind  []int32
	masks []uint64 // at (slot*n + position)*nw: the bindings that put the node at position in slot; nil above 64 nodes
	index []int32  // by tupleKey of the nodes at its slots: a binding, or -1; built when needed (evalRemapped)
}

// maxMasked is the largest number of nodes whose tables keep masks. The
// masks serve to evaluate again only the bindings of the nodes that
// changed, which the engine tracks up to 64 nodes (fast.moved); they take
// slots·n·⌈bindings/64⌉ words, which grows with the cube of n.
const maxMasked = 64

// scopeBytes bounds the memory a scope's bindings and bitsets take per
// engine: with more bindings than fit (see blockLimit), the engine
// evaluates them in blocks, and the memory stays the same however many
// nodes there are.
var scopeBytes = 16 << 20

// prun is a property's run: the snapshots since start share its counts
// (and its patterns, in scopeRun.pats, when the task counts them). It
// starts with the property's literals (scope.tri), so that counting the
// property again reads one record.
type prun struct {
	ptri
	start       int32 // -1: no run
	owed        bool  // in its scope's owed list
	witnessed   bool  // its stats have all the witnesses they keep
	momentsKept bool  // its stats have all the moments they keep
	holds       int64
	nb          int64
}

// psums are what a property's runs add to the counts of its Stats.
type psums struct {
	support, bindings, violations, perfect int64 // the snapshots of support not perfect are violating
	score                                  Score
}

// internBudget bounds the bytes of interned keys an engine keeps; past it
// the engine forgets its interned values and prepared rows at the start of
// a task. The rows of one snapshot are all it needs to keep; at 4 MiB the
// live heap of the 860,000-snapshot scale run stays flat, while 64 MiB
// took 120 MiB more of resident memory for nothing.
const internBudget = 4 << 20

func newFast(tr *trace.Trace, prog *Program, pl *plan) (*fast, error) {
	ref, err := newReference(tr, prog)
	if err != nil {
		return nil, err
	}
	e := &fast{
		pl:       pl,
		ref:      ref,
		in:       newInterner(),
		cache:    map[uint32]*frow{},
		memo:     map[callKey]callResult{},
		next:     map[uint32]*frow{},
		colMoved: make([]uint64, len(pl.cols)),
		scopes:   make([]scopeRun, len(pl.scopes)),
	}
	for k, sc := range pl.scopes {
		sr := &e.scopes[k]
		sr.used = make([]bool, len(sc.atoms))
		sr.users = make([][]int32, len(sc.atoms))
		sr.ones, sr.onesAt, sr.atomMod = make([]int64, len(sc.atoms)), make([]uint64, len(sc.atoms)), make([]uint64, len(sc.atoms))
		sr.pairN, sr.pairAt = make([]int64, len(sc.pairs)), make([]uint64, len(sc.pairs))
		sr.dirty = make([]uint64, bitset.Words(len(sc.props)))
		sr.runs, sr.sums = make([]prun, len(sc.props)), make([]psums, len(sc.props))
		for j := range sr.runs {
			sr.runs[j] = prun{ptri: sc.tri[j], start: -1}
		}
		e.slots = make([]any, max(len(e.slots), sc.nslots))
		e.cur = make([]int32, max(len(e.cur), sc.nslots))
	}
	e.prepareConsts()
	return e, nil
}

func (e *fast) prepareConsts() {
	e.consts = e.consts[:0]
	for _, v := range e.pl.consts {
		e.consts = append(e.consts, e.in.cell(v, needID|needMem|needExact))
	}
}

func (e *fast) close() { e.ref.close() }

func (e *fast) failures() *failures { return &e.ref.fails }

func (e *fast) start(t *task) {
	e.task = t
	e.ref.task = t
	e.patterns = t.patterns
	e.idx = 0
	e.tags, e.tagged, e.ids = e.tags[:0], e.tagged[:0], e.ids[:0]
	if e.in.bytes > internBudget {
		// The previous rows' cells hold ids of the values forgotten:
		// the next snapshot is evaluated afresh (runs go on if its
		// counts are the same).
		e.in.reset()
		clear(e.cache)
		clear(e.memo) // keyed by ids
		e.prepareConsts()
		e.steady = false
		for k := range e.scopes {
			e.scopes[k].valid = false
		}
	}
	if t.lo != e.lo || t.hi != e.hi {
		// The span moved (Run balances the engines): a property that
		// joins starts a new run, and the atoms it reads are evaluated
		// afresh.
		e.lo, e.hi = t.lo, t.hi
		for k := range e.scopes {
			e.scopes[k].valid = false
		}
	}
	for k, sc := range e.pl.scopes {
		sr := &e.scopes[k]
		// Properties pruned since the last chunk, or now in another
		// engine's span, leave the scope; the runs of those that stay go
		// on.
		sr.props, sr.atoms = sr.props[:0], sr.atoms[:0]
		clear(sr.used)
		for a := range sr.users {
			sr.users[a] = sr.users[a][:0]
		}
		for j := range sc.props {
			pp := &sc.props[j]
			if pp.index < t.lo || pp.index >= t.hi || !t.active[pp.index] {
				sr.runs[j] = prun{ptri: sr.runs[j].ptri, start: -1}
				continue
			}
			sr.props = append(sr.props, int32(j))
			st := &t.acc[pp.index]
			ru := &sr.runs[j]
			ru.witnessed, ru.momentsKept = st.witnesses() >= t.wits, st.momentsKept(t.moments, t.full)
			for _, a := range pp.lits {
				if n := len(sr.users[a]); n == 0 || sr.users[a][n-1] != int32(j) {
					sr.users[a] = append(sr.users[a], int32(j))
				}
				sr.used[a] = true
			}
		}
		for a, u := range sr.used {
			if u {
				sr.atoms = append(sr.atoms, int32(a))
			}
		}
		if e.patterns && sr.pats == nil {
			sr.pats = make([][1 << MaxPatternLiterals]int64, len(sc.props))
		}
		owed := sr.owed[:0]
		for _, j := range sr.owed {
			if i := sc.props[j].index; i >= t.lo && i < t.hi && t.active[i] {
				owed = append(owed, j)
			}
		}
		sr.owed = owed
	}
	e.fallback = e.fallback[:0]
	for _, i := range e.pl.fallback {
		if i >= t.lo && i < t.hi && t.active[i] {
			e.fallback = append(e.fallback, i)
		}
	}
}

// finish adds the runs so far to the stats; they go on into the next
// chunk, whose snapshots the engine counts from 0 again.
func (e *fast) finish() {
	for k, sc := range e.pl.scopes {
		sr := &e.scopes[k]
		for _, j := range sr.props {
			if ru := &sr.runs[j]; ru.start >= 0 {
				e.flush(sc, sr, j)
				ru.start = 0
			}
			st, c := &e.task.acc[sc.props[j].index], &sr.sums[j]
			st.Support += c.support
			st.Bindings += c.bindings
			st.Violations += c.violations
			st.Perfect += c.perfect
			st.ViolatingSnapshots += c.support - c.perfect
			st.ScoreSum = st.ScoreSum.Add(c.score)
			*c = psums{}
		}
	}
}

// endRuns adds the runs of the scope's properties that end before the
// current snapshot to their stats, and forgets the scope's bitsets.
func (e *fast) endRuns(sc *scope, sr *scopeRun) {
	for _, j := range sr.props {
		e.flush(sc, sr, j)
	}
	sr.valid = false
	for _, j := range sr.owed {
		sr.runs[j].owed = false
	}
	sr.owed = sr.owed[:0]
}

func (e *fast) eval(s *trace.Snapshot) error {
	err := e.evalSnapshot(s)
	e.idx++
	return err
}

func (e *fast) evalSnapshot(s *trace.Snapshot) error {
	e.gen++
	e.tags, e.ids = append(e.tags, s.Tags), append(e.ids, s.ID)
	if len(s.Tags) > 0 {
		e.tagged = append(e.tagged, int32(e.idx))
	}
	if err := e.load(s); err != nil {
		return err
	}
	t := e.task
	if e.dup || len(e.rows) == 0 {
		// Without live nodes the snapshot is vacuous for every property. A
		// node listed twice is no valid trace; the reference says what it
		// means.
		for k, sc := range e.pl.scopes {
			e.endRuns(sc, &e.scopes[k])
		}
		e.steady = false
		if len(e.rows) == 0 {
			return nil
		}
		e.refNodes()
		for i := t.lo; i < t.hi && e.ref.err == nil; i++ {
			if t.active[i] {
				e.ref.evalProp(e.pl.prog.Props[i], s, &t.acc[i], t.wits)
			}
		}
		return e.ref.err
	}
	for k, sc := range e.pl.scopes {
		if sr := &e.scopes[k]; len(sr.props) > 0 {
			if err := e.evalScope(sc, sr, s); err != nil {
				return err
			}
		}
	}
	if len(e.fallback) > 0 {
		e.refNodes()
		for _, i := range e.fallback {
			if e.ref.evalProp(e.pl.prog.Props[i], s, &t.acc[i], t.wits); e.ref.err != nil {
				return e.ref.err
			}
		}
	}
	return nil
}

// refNodes gives the reference the live nodes of the snapshot.
func (e *fast) refNodes() {
	e.ref.nodes = e.ref.nodes[:0]
	for _, r := range e.rows {
		e.ref.nodes = append(e.ref.nodes, r.ns)
	}
}

// load prepares the members of s, reusing the rows of the previous
// snapshot, and finds what changed since.
func (e *fast) load(s *trace.Snapshot) error {
	e.prev, e.rows = e.rows, e.prev[:0]
	e.ref.snap = s.ID
	clear(e.next)
	e.dup = false
	for _, row := range s.Members {
		r, ok := e.next[row]
		if ok {
			e.dup = true
		} else if r, ok = e.cache[row]; !ok {
			st, err := e.ref.states.State(row)
			if err != nil {
				return err
			}
			r = e.prepare(e.ref.decode(st, row))
		}
		e.next[row] = r
		e.rows = append(e.rows, r)
	}
	e.cache, e.next = e.next, e.cache

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

// prepare computes the cells, iterator members and single-node atoms of
// a decoded state.
func (e *fast) prepare(ns *nodeState) *frow {
	pl := e.pl
	r := &frow{
		ns:    ns,
		cells: make([]cell, len(pl.cols)),
		doms:  make([]fdom, len(pl.doms)),
		truth: make([]uint64, bitset.Words(len(pl.rowAtoms))),
	}
	for c := range pl.cols {
		col := &pl.cols[c]
		r.cells[c] = e.in.cell(fieldsOf(ns.vals[col.variable], col.fields), col.needs)
	}
	for d := range pl.doms {
		dom := &pl.doms[d]
		var vals []any
		switch v := r.cells[dom.col].v.(type) {
		case []any:
			vals = v
		case map[string]any:
			vals = make([]any, 0, len(v))
			for _, k := range slices.Sorted(maps.Keys(v)) {
				vals = append(vals, k)
			}
		}
		fd := fdom{vals: vals, cells: make([][]cell, len(dom.elems))}
		for k := range dom.elems {
			pe := &dom.elems[k]
			cs := make([]cell, len(vals))
			for j, v := range vals {
				cs[j] = e.in.cell(fieldsOf(v, pe.fields), pe.needs)
			}
			fd.cells[k] = cs
		}
		r.doms[d] = fd
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
	return test(a, x, y)
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
		e.args = append(e.args, c.v)
	}
}

// test evaluates an atom other than a call on its operands.
func test(a *fatom, x, y *cell) bool {
	switch a.kind {
	case ir.Compare:
		switch a.op {
		case grammar.OpEq:
			return cellEqual(x, y)
		case grammar.OpNe:
			return !cellEqual(x, y)
		case grammar.OpLt:
			return cellLess(x, y, false)
		case grammar.OpLe:
			return cellLess(x, y, true)
		}
	case ir.In:
		return cellContains(y, x)
	case ir.Subset:
		return cellSubset(x, y)
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
	return test(a, x, y)
}

// evalScope evaluates the task's properties of one scope on s. It stops
// part way with the context's error when the task's is done (see
// reference.halt); the engine is then only good to close.
func (e *fast) evalScope(sc *scope, sr *scopeRun, s *trace.Snapshot) error {
	var tb, old *nodeTable
	remap := false // the number of nodes changed, the bitsets over old's bindings valid
	limit := e.blockLimit(sc)
	if sc.nodeOnly {
		nb, ok := nodeBindings(sc, len(e.rows))
		switch {
		case !ok:
			return fmt.Errorf("evaluator: %d nodes give more than 2^62 bindings per snapshot to %s", len(e.rows), e.pl.prog.Props[sc.props[0].index].Text)
		case nb > limit:
			if e.walkBindings(sc, sr, limit); e.ref.err != nil {
				return e.ref.err
			}
			e.endBlocks(sc, sr, s)
			return nil
		}
		old = sr.table
		tb = e.table(sc, sr)
		if tb != old {
			remap = sr.valid && old != nil
			sr.valid = false
		}
		sr.table, sr.nb, sr.bind = tb, tb.nb, tb.bind
	} else {
		// Bindings that differ from the previous snapshot's come from
		// rows that changed, so that moved is not 0 and every atom is
		// evaluated again; only their number matters here.
		blocked := e.walkBindings(sc, sr, limit)
		if e.ref.err != nil {
			return e.ref.err
		}
		if blocked {
			e.endBlocks(sc, sr, s)
			return nil
		}
		if len(sr.own) != len(sr.last) {
			sr.valid = false
		}
		sr.nb, sr.bind = len(sr.own)/sc.nslots, sr.own
	}
	if sr.nb == 0 {
		e.endRuns(sc, sr) // vacuous
		return nil
	}
	sr.scores.size(sr.nb)
	switch {
	case remap && e.evalRemapped(sc, sr, old, tb):
		// The bindings of nodes whose rows stayed kept their values.
		e.countAll(sc, sr)
	case !sr.valid || e.moved == ^uint64(0):
		e.evalAll(sc, sr)
		e.countAll(sc, sr)
	case e.moved == 0:
		// Nothing changed: every run goes on.
	case tb != nil:
		e.evalMoved(sc, sr, tb)
		e.recountDirty(sc, sr)
	default:
		e.evalChanged(sc, sr)
		e.recountDirty(sc, sr)
	}
	if e.ref.err != nil {
		return e.ref.err
	}
	sr.valid = true
	e.witnesses(sc, sr, s)
	return nil
}

// blockLimit returns the number of bindings of sc whose bitsets and
// bindings fit in scopeBytes; at least 1.
func (e *fast) blockLimit(sc *scope) int {
	per := 4*sc.nslots + (len(sc.atoms)+7)/8 // a binding, and a bit per atom
	if sc.nodeOnly && len(e.rows) <= maxMasked {
		per += sc.nslots * maxMasked / 8 // its bits in the masks
	}
	return max(1, scopeBytes/per)
}

// nodeBindings returns the number of bindings of a node-only scope over
// n nodes, and false if it is beyond 2^62.
func nodeBindings(sc *scope, n int) (int, bool) {
	nb := 1
	for _, q := range sc.quants {
		for k := range len(q.group) {
			if n-k <= 0 {
				return 0, true
			}
			hi, lo := bits.Mul64(uint64(nb), uint64(n-k))
			if hi != 0 || lo > 1<<62 {
				return 0, false
			}
			nb = int(lo)
		}
	}
	return nb, true
}

// walkBindings enumerates the bindings of sc into sr.own, keeping those
// of the previous snapshot in sr.last. If there are more than limit, it
// evaluates them in blocks of limit as it goes instead (to be completed
// by endBlocks) and reports true. It stops between two blocks when the
// task's context is done (e.ref.err).
func (e *fast) walkBindings(sc *scope, sr *scopeRun, limit int) bool {
	ns := sc.nslots
	buf := sr.last[:0]
	sr.blocked = false
	e.walk(sc, 0, e.cur[:ns], func(b []int32) bool {
		if len(buf) == limit*ns {
			if !sr.blocked {
				e.startBlocks(sc, sr)
			}
			if e.block(sc, sr, buf); e.ref.err != nil {
				return false
			}
			buf = buf[:0]
		}
		buf = append(buf, b...)
		return true
	})
	if sr.blocked {
		e.block(sc, sr, buf)
		sr.last = buf[:0]
		return true
	}
	sr.last, sr.own = sr.own, buf
	return false
}

// startBlocks begins the evaluation of the current snapshot in blocks:
// the scope's bitsets no longer hold the previous snapshot's.
func (e *fast) startBlocks(sc *scope, sr *scopeRun) {
	sr.blocked, sr.valid, sr.table = true, false, nil
	sr.nb, sr.total = 0, 0
	if len(sr.counts) < len(sc.props) {
		sr.counts = make([]pcount, len(sc.props))
		sr.fail = make([]int32, len(sc.props)*sc.nslots)
	}
	for _, j := range sr.props {
		sr.counts[j] = pcount{}
	}
}

// block evaluates the atoms at a block of bindings and adds the counts
// of the properties to sr.counts.
func (e *fast) block(sc *scope, sr *scopeRun, bind []int32) {
	ns := sc.nslots
	nb := len(bind) / ns
	if nb == 0 {
		return
	}
	sr.nb, sr.bind, sr.nw = nb, bind, bitset.Words(nb)
	sr.allMod = e.gen
	sr.sizeBits(sc)
	for _, a := range sr.atoms {
		if e.ref.halt(nb) {
			return
		}
		e.evalAtom(sc, sr, &sc.atoms[a], sr.bits[int(a)*sr.nw:][:sr.nw])
	}
	for _, j := range sr.props {
		pp := &sc.props[j]
		c := &sr.counts[j]
		var holds int64
		if e.patterns && pp.patterns {
			var pats [1 << MaxPatternLiterals]int64
			holds, pats = e.count(sr, pp)
			for k := range c.pats {
				c.pats[k] += pats[k]
			}
		} else {
			holds = e.holds(sc, sr, j)
		}
		c.holds += holds
		if holds < int64(nb) && !c.failed {
			b := e.firstFail(sr, pp)
			copy(sr.fail[int(j)*ns:][:ns], bind[b*ns:])
			c.failed = true
		}
	}
	sr.total += nb
}

// endBlocks counts the properties of a scope evaluated in blocks.
func (e *fast) endBlocks(sc *scope, sr *scopeRun, s *trace.Snapshot) {
	for _, j := range sr.props {
		c, pp := &sr.counts[j], &sc.props[j]
		var pats *[1 << MaxPatternLiterals]int64
		if e.patterns && pp.patterns {
			pats = &c.pats
		}
		e.settle(sc, sr, j, c.holds, sr.total, pats)
	}
	e.witnesses(sc, sr, s)
	sr.blocked = false
}

// sizeBits makes room for the bitsets of the scope's atoms at sr.nw
// words each, and of its atom zero, which it clears, and three words
// past them, which triHolds reads and masks (sr.lastMask).
func (sr *scopeRun) sizeBits(sc *scope) {
	if n := (len(sc.atoms)+1)*sr.nw + 3; len(sr.bits) < n {
		sr.bits = make([]uint64, n)
	}
	clear(sr.bits[int(sc.zero)*sr.nw:][:sr.nw])
	sr.lastMask = [4]uint64{}
	w := (sr.nw - 1) &^ 3 // the first word of the last four
	for k := range sr.lastMask[:sr.nw-w-1] {
		sr.lastMask[k] = ^uint64(0)
	}
	sr.lastMask[sr.nw-w-1] = bitset.Tail(sr.nb)
}

// evalAll evaluates every atom at every binding; every property is to be
// counted again (countAll).
func (e *fast) evalAll(sc *scope, sr *scopeRun) {
	sr.nw = bitset.Words(sr.nb)
	sr.allMod = e.gen
	sr.sizeBits(sc)
	for _, a := range sr.atoms {
		if e.ref.halt(sr.nb) {
			return
		}
		e.evalAtom(sc, sr, &sc.atoms[a], sr.bits[int(a)*sr.nw:][:sr.nw])
	}
}

// evalChanged evaluates every atom again, and marks dirty the properties
// of those whose bitset changed.
func (e *fast) evalChanged(sc *scope, sr *scopeRun) {
	if len(sr.tmp) < sr.nw {
		sr.tmp = make([]uint64, sr.nw)
	}
	tmp := sr.tmp[:sr.nw]
	for _, a := range sr.atoms {
		if e.ref.halt(sr.nb) {
			return
		}
		e.evalAtom(sc, sr, &sc.atoms[a], tmp)
		old := sr.bits[int(a)*sr.nw:][:sr.nw]
		if !slices.Equal(tmp, old) {
			copy(old, tmp)
			e.touch(sr, a)
		}
	}
}

// evalMoved evaluates the atoms of a node-only scope again at the
// bindings of the nodes whose cells they read changed.
func (e *fast) evalMoved(sc *scope, sr *scopeRun, tb *nodeTable) {
	nw, n := sr.nw, tb.n
	if len(sr.tmp) < nw {
		sr.tmp = make([]uint64, nw)
	}
	tmp := sr.tmp[:nw]
	for _, ai := range sr.atoms {
		a := &sc.atoms[ai]
		out := sr.bits[int(ai)*nw:][:nw]
		if a.row >= 0 {
			// A single-node atom changes where its truth flipped.
			changed := false
			for m := e.moved; m != 0; m &= m - 1 {
				p := bits.TrailingZeros64(m)
				now := bitset.Has(e.rows[p].truth, int(a.row))
				if now == bitset.Has(e.prev[p].truth, int(a.row)) {
					continue
				}
				mask := tb.masks[(int(a.slot)*n+p)*nw:][:nw]
				for w := range out {
					if now {
						out[w] |= mask[w]
					} else {
						out[w] &^= mask[w]
					}
				}
				changed = true
			}
			if changed {
				e.touch(sr, ai)
			}
			continue
		}
		var moved uint64
		if a.kind == ir.Call {
			moved = e.moved
		} else {
			for _, c := range a.cols {
				moved |= e.colMoved[c]
			}
		}
		if moved == 0 {
			continue
		}
		clear(tmp)
		for _, s := range a.slots {
			for m := moved; m != 0; m &= m - 1 {
				mask := tb.masks[(int(s)*n+bits.TrailingZeros64(m))*nw:][:nw]
				for w := range tmp {
					tmp[w] |= mask[w]
				}
			}
		}
		ns := sc.nslots
		if ok, changed := e.compareAt(a, sr.bind, ns, tmp, out); ok {
			if changed {
				e.touch(sr, ai)
			}
			continue
		}
		changed := false
		for w, m := range tmp {
			for ; m != 0; m &= m - 1 {
				b := w<<6 + bits.TrailingZeros64(m)
				bit := uint64(1) << (uint(b) & 63)
				now := e.atomAt(a, sr.bind[b*ns:b*ns+ns])
				if now != (out[w]&bit != 0) {
					out[w] ^= bit
					changed = true
				}
			}
		}
		if changed {
			e.touch(sr, ai)
		}
	}
}

// maxRemap bounds the tuples of node positions (nodes^slots) over which
// a scope's bindings are remapped when the number of nodes changes
// (evalRemapped); above it, every atom is evaluated again.
const maxRemap = 1 << 16

// evalRemapped evaluates the atoms of a node-only scope whose number of
// nodes changed since the previous snapshot, old its table then; every
// property is to be counted again (countAll). It reports false, having done nothing, if
// the scope has too many tuples of nodes for it. An atom of such a scope
// reads only the rows of the nodes at its slots: at a binding of nodes
// whose rows are those of the previous snapshot, it keeps the value it
// had at their binding then, and only the bindings of the nodes that
// joined or changed are evaluated.
func (e *fast) evalRemapped(sc *scope, sr *scopeRun, old, tb *nodeTable) bool {
	ns := sc.nslots
	size := 1
	for range ns {
		if size *= old.n; size > maxRemap {
			return false
		}
	}
	if e.oldPosAt != e.gen {
		e.oldPosAt = e.gen
		e.oldPos = e.oldPos[:0]
		for _, r := range e.rows {
			p := slices.Index(e.prev, r)
			e.oldPos = append(e.oldPos, int32(p))
		}
	}
	if old.index == nil {
		old.index = make([]int32, size)
		for i := range old.index {
			old.index[i] = -1
		}
		for b := range old.nb {
			old.index[tupleKey(old.bind[b*ns:b*ns+ns], old.n, nil)] = int32(b)
		}
	}
	from := sr.from[:0]
	for b := range tb.nb {
		f := int32(-1)
		if k := tupleKey(tb.bind[b*ns:b*ns+ns], old.n, e.oldPos); k >= 0 {
			f = old.index[k]
		}
		from = append(from, f)
	}
	sr.from = from

	prev, onw := sr.bits, sr.nw
	sr.bits, sr.spare = sr.spare, sr.bits
	sr.nw = bitset.Words(sr.nb)
	sr.allMod = e.gen
	sr.sizeBits(sc)
	for _, ai := range sr.atoms {
		a := &sc.atoms[ai]
		in := prev[int(ai)*onw:][:onw]
		out := sr.bits[int(ai)*sr.nw:][:sr.nw]
		clear(out)
		for b, f := range from {
			var v bool
			switch bnd := tb.bind[b*ns : b*ns+ns]; {
			case f >= 0:
				v = bitset.Has(in, int(f))
			case a.row >= 0:
				v = bitset.Has(e.rows[bnd[a.slot]].truth, int(a.row))
			default:
				v = e.atomAt(a, bnd)
			}
			if v {
				bitset.Set(out, b)
			}
		}
	}
	return true
}

// tupleKey returns the key of the tuple of node positions bnd among n
// nodes, each position first mapped through pos if it is not nil; -1 if
// pos maps one to -1.
func tupleKey(bnd []int32, n int, pos []int32) int {
	k := 0
	for _, p := range bnd {
		if pos != nil {
			if p = pos[p]; p < 0 {
				return -1
			}
		}
		k = k*n + int(p)
	}
	return k
}

// touch marks dirty the properties that use atom a.
func (e *fast) touch(sr *scopeRun, a int32) {
	sr.atomMod[a] = e.gen
	for _, j := range sr.users[a] {
		bitset.Set(sr.dirty, int(j))
	}
}

// table returns the bindings of a node-only scope over the current
// number of nodes. Tables of up to maxMasked nodes are kept, with masks;
// of more, only the last.
func (e *fast) table(sc *scope, sr *scopeRun) *nodeTable {
	n := len(e.rows)
	if n > maxMasked {
		if sr.big == nil || sr.big.n != n {
			sr.big = nil // its memory may serve the new one
			sr.big = e.newTable(sc, n)
		}
		return sr.big
	}
	for len(sr.tables) <= n {
		sr.tables = append(sr.tables, nil)
	}
	if sr.tables[n] == nil {
		sr.tables[n] = e.newTable(sc, n)
	}
	return sr.tables[n]
}

// newTable enumerates the bindings of a node-only scope over the n
// current nodes, with masks if n is at most maxMasked.
func (e *fast) newTable(sc *scope, n int) *nodeTable {
	ns := sc.nslots
	var bind []int32
	e.walk(sc, 0, e.cur[:ns], func(b []int32) bool { bind = append(bind, b...); return true })
	tb := &nodeTable{n: n, nb: len(bind) / ns, bind: bind}
	if n > maxMasked {
		return tb
	}
	nw := bitset.Words(tb.nb)
	tb.masks = make([]uint64, ns*n*nw)
	for b := range tb.nb {
		for s := range ns {
			p := int(bind[b*ns+s])
			bitset.Set(tb.masks[(s*n+p)*nw:], b)
		}
	}
	return tb
}

// walk calls visit with each binding of quantifiers q…, in the order of
// the reference evaluator, cur holding the slots bound so far, until
// visit returns false; it reports whether visit never did.
func (e *fast) walk(sc *scope, q int, cur []int32, visit func([]int32) bool) bool {
	if q == len(sc.quants) {
		return visit(cur)
	}
	pq := &sc.quants[q]
	if pq.dom < 0 {
		return e.assign(sc, q, 0, cur, visit)
	}
	n := len(e.rows[cur[pq.owner]].doms[pq.dom].vals)
	for j := range n {
		cur[pq.slot] = int32(j)
		if !e.walk(sc, q+1, cur, visit) {
			return false
		}
	}
	return true
}

// assign binds the slots k… of node group q to distinct nodes, as walk.
func (e *fast) assign(sc *scope, q, k int, cur []int32, visit func([]int32) bool) bool {
	g := sc.quants[q].group
	if k == len(g) {
		return e.walk(sc, q+1, cur, visit)
	}
next:
	for p := range e.rows {
		for _, prev := range g[:k] {
			if cur[prev] == int32(p) {
				continue next
			}
		}
		cur[g[k]] = int32(p)
		if !e.assign(sc, q, k+1, cur, visit) {
			return false
		}
	}
	return true
}

// evalAtom evaluates a at every binding of the scope into out.
func (e *fast) evalAtom(sc *scope, sr *scopeRun, a *fatom, out []uint64) {
	clear(out)
	ns, nb := sc.nslots, sr.nb
	if a.row >= 0 {
		if tb := sr.table; tb != nil && tb.masks != nil {
			// OR the bindings of the nodes where the atom holds, a word
			// at a time.
			for p, r := range e.rows {
				if bitset.Has(r.truth, int(a.row)) {
					m := tb.masks[(int(a.slot)*tb.n+p)*sr.nw:][:len(out)]
					for w := range out {
						out[w] |= m[w]
					}
				}
			}
			return
		}
		for b := range nb {
			if bitset.Has(e.rows[sr.bind[b*ns+int(a.slot)]].truth, int(a.row)) {
				bitset.Set(out, b)
			}
		}
		return
	}
	if ok, _ := e.compareAt(a, sr.bind, ns, sr.every(), out); ok {
		return
	}
	for b := range nb {
		if e.atomAt(a, sr.bind[b*ns:b*ns+ns]) {
			bitset.Set(out, b)
		}
	}
}

// recount counts a property whose atoms changed on the current snapshot.
// Only the reporter's second pass, limited to the candidates, counts
// literal patterns (not Options.NoPatterns): the first counts holding bindings
// alone, one OR and one popcount per word.
func (e *fast) recount(sc *scope, sr *scopeRun, pp *pprop, j int32) {
	switch {
	case !e.patterns || !pp.patterns:
		e.settle(sc, sr, j, e.holds(sc, sr, j), sr.nb, nil)
	case len(pp.lits) <= 3:
		holds := e.holds(sc, sr, j)
		pats := e.derive(sc, sr, pp, holds)
		e.settle(sc, sr, j, holds, sr.nb, &pats)
	default:
		holds, pats := e.count(sr, pp)
		e.settle(sc, sr, j, holds, sr.nb, &pats)
	}
}

// derive returns the literal patterns of pp, of at most three literals,
// which holds at holds of the current bindings. By inclusion and
// exclusion they follow from the number of bindings where each subset of
// the literals holds together; those of one literal and of two are
// counted once per atom and per pair of atoms, for every property that
// shares them, and that of all three follows from holds. A property
// thus costs one popcount a word, where count takes seven.
func (e *fast) derive(sc *scope, sr *scopeRun, pp *pprop, holds int64) [1 << MaxPatternLiterals]int64 {
	nb := int64(sr.nb)
	var pats [1 << MaxPatternLiterals]int64
	var o, c [3]int64 // bindings where each literal's atom holds, and where the literal does
	for i, a := range pp.lits {
		o[i] = e.ones(sr, a)
		c[i] = o[i]
		if pp.xor[i] != 0 {
			c[i] = nb - o[i]
		}
	}
	pats[0] = nb - holds
	switch len(pp.lits) {
	case 1:
		pats[1] = holds
	case 2:
		both := c[0] + c[1] - holds
		pats[1], pats[2], pats[3] = c[0]-both, c[1]-both, both
	case 3:
		var b [3]int64 // bindings where literals 0 and 1, 0 and 2, 1 and 2 hold
		for n, ij := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			i, j := ij[0], ij[1]
			var both int64 // bindings where both atoms hold
			if pp.lits[i] == pp.lits[j] {
				both = o[i]
			} else {
				both = e.pair(sc, sr, pp.pairs[n])
			}
			switch ni, nj := pp.xor[i] != 0, pp.xor[j] != 0; {
			case ni && nj:
				both = nb - o[i] - o[j] + both
			case ni:
				both = o[j] - both
			case nj:
				both = o[i] - both
			}
			b[n] = both
		}
		all := holds - c[0] - c[1] - c[2] + b[0] + b[1] + b[2]
		pats[7] = all
		pats[3], pats[5], pats[6] = b[0]-all, b[1]-all, b[2]-all
		pats[1] = c[0] - b[0] - b[1] + all
		pats[2] = c[1] - b[0] - b[2] + all
		pats[4] = c[2] - b[1] - b[2] + all
	}
	return pats
}

// ones returns the number of the current bindings where atom a holds.
func (e *fast) ones(sr *scopeRun, a int32) int64 {
	if at := sr.onesAt[a]; at != 0 && at >= sr.allMod && at >= sr.atomMod[a] {
		return sr.ones[a]
	}
	l := sr.bits[int(a)*sr.nw:][:sr.nw]
	var c int
	for w := range len(l) - 1 {
		c += bits.OnesCount64(l[w])
	}
	c += bits.OnesCount64(l[len(l)-1] & bitset.Tail(sr.nb))
	sr.ones[a], sr.onesAt[a] = int64(c), e.gen
	return int64(c)
}

// pair returns the number of the current bindings where both atoms of
// pair p of the scope hold.
func (e *fast) pair(sc *scope, sr *scopeRun, p int32) int64 {
	ab := sc.pairs[p]
	if at := sr.pairAt[p]; at != 0 && at >= sr.allMod && at >= sr.atomMod[ab[0]] && at >= sr.atomMod[ab[1]] {
		return sr.pairN[p]
	}
	nw := sr.nw
	l0, l1 := sr.bits[int(ab[0])*nw:][:nw], sr.bits[int(ab[1])*nw:][:nw]
	var c int
	for w := range nw - 1 {
		c += bits.OnesCount64(l0[w] & l1[w])
	}
	c += bits.OnesCount64(l0[nw-1] & l1[nw-1] & bitset.Tail(sr.nb))
	sr.pairN[p], sr.pairAt[p] = int64(c), e.gen
	return int64(c)
}

// holds returns the number of the scope's current bindings at which
// property j holds: the popcount of the OR of its literals' bitsets.
// Properties of up to three literals, nearly all of a pool, take one
// loop (scope.tri).
func (e *fast) holds(sc *scope, sr *scopeRun, j int32) int64 {
	t := &sr.runs[j].ptri
	if t.atoms[0] < 0 {
		last, tail := sr.nw-1, bitset.Tail(sr.nb)
		pp := &sc.props[j]
		var c int
		for w := range last {
			c += bits.OnesCount64(e.or(sr, pp, w))
		}
		c += bits.OnesCount64(e.or(sr, pp, last) & tail)
		return int64(c)
	}
	return sr.triHolds(t)
}

// count returns the number of the scope's current bindings at which pp,
// which keeps patterns, holds, and its literal patterns.
func (e *fast) count(sr *scopeRun, pp *pprop) (int64, [1 << MaxPatternLiterals]int64) {
	nb, nw := sr.nb, sr.nw
	tail := bitset.Tail(nb)
	var holds int64
	var pats [1 << MaxPatternLiterals]int64
	switch {
	case len(pp.lits) == 1:
		l0, x0 := sr.bits[int(pp.lits[0])*nw:][:nw], pp.xor[0]
		var c int
		for w := range nw - 1 {
			c += bits.OnesCount64(l0[w] ^ x0)
		}
		c += bits.OnesCount64((l0[nw-1] ^ x0) & tail)
		pats[0], pats[1] = int64(nb-c), int64(c)
		holds = int64(c)
	case len(pp.lits) == 2:
		l0, x0 := sr.bits[int(pp.lits[0])*nw:][:nw], pp.xor[0]
		l1, x1 := sr.bits[int(pp.lits[1])*nw:][:nw], pp.xor[1]
		var c0, c1, c01 int
		for w := range nw {
			a, b := l0[w]^x0, l1[w]^x1
			if w == nw-1 {
				a &= tail
				b &= tail
			}
			c0 += bits.OnesCount64(a)
			c1 += bits.OnesCount64(b)
			c01 += bits.OnesCount64(a & b)
		}
		pats[3] = int64(c01)
		pats[1] = int64(c0 - c01)
		pats[2] = int64(c1 - c01)
		pats[0] = int64(nb - c0 - c1 + c01)
		holds = int64(nb) - pats[0]
	default:
		// pats[S] first counts the bindings where every literal of S
		// holds; the patterns follow by inclusion and exclusion.
		k := len(pp.lits)
		var x [1 << MaxPatternLiterals]uint64
		for w := range nw {
			x[0] = ^uint64(0)
			if w == nw-1 {
				x[0] = tail
			}
			for i, a := range pp.lits {
				l := sr.bits[int(a)*nw+w] ^ pp.xor[i]
				for set := range 1 << i {
					x[set|1<<i] = x[set] & l
				}
			}
			for set := 1; set < 1<<k; set++ {
				pats[set] += int64(bits.OnesCount64(x[set]))
			}
		}
		pats[0] = int64(nb)
		for i := range k {
			for set := range 1 << k {
				if set&(1<<i) == 0 {
					pats[set] -= pats[set|1<<i]
				}
			}
		}
		holds = int64(nb) - pats[0]
	}
	return holds, pats
}

// settle gives property j of the scope its counts on the current
// snapshot, and its patterns if the task counts them (else pats is nil):
// if they changed, its run ends and a new one starts.
func (e *fast) settle(sc *scope, sr *scopeRun, j int32, holds int64, nb int, pats *[1 << MaxPatternLiterals]int64) {
	ru := &sr.runs[j]
	if ru.start < 0 || ru.holds != holds || ru.nb != int64(nb) || pats != nil && sr.pats[j] != *pats {
		e.flush(sc, sr, j)
		ru.start, ru.holds, ru.nb = int32(e.idx), holds, int64(nb)
		if pats != nil {
			sr.pats[j] = *pats
		}
	}
	if holds < int64(nb) && !ru.owed && !ru.witnessed {
		ru.owed = true
		sr.owed = append(sr.owed, j)
	}
}

// flush adds the run of property j of the scope, which ends before the
// current snapshot, to its counts; its moments, tags and patterns go to
// its stats.
func (e *fast) flush(sc *scope, sr *scopeRun, j int32) {
	ru := &sr.runs[j]
	if ru.start < 0 {
		return
	}
	start := int(ru.start)
	ru.start = -1
	n := e.idx - start
	if n == 0 || ru.nb == 0 {
		return
	}
	c := &sr.sums[j]
	r := int64(n)
	c.add(ru, r, Score{}.AddN(sr.scores.of(ru.holds, ru.nb), r))
	pp := &sc.props[j]
	if e.patterns && pp.patterns {
		st := &e.task.acc[pp.index]
		for pat := range 1 << len(pp.lits) {
			st.Patterns[pat] += r * sr.pats[j][pat]
		}
	}
	if ru.holds == ru.nb {
		return
	}
	k, _ := slices.BinarySearch(e.tagged, int32(start))
	tagged := k < len(e.tagged) && int(e.tagged[k]) < e.idx
	if ru.momentsKept && !tagged {
		return
	}
	st := &e.task.acc[pp.index]
	need := max(0, e.task.moments-len(st.Moments), e.task.full-st.full.n)
	for _, id := range e.ids[start:min(e.idx, start+need)] {
		st.addMoment(id, e.task.moments, e.task.full)
	}
	ru.momentsKept = st.momentsKept(e.task.moments, e.task.full)
	for ; k < len(e.tagged) && int(e.tagged[k]) < e.idx; k++ {
		st.countTags(e.tags[e.tagged[k]])
	}
}

// add adds to c a run of r snapshots with ru's counts, whose scores sum
// to sum.
func (c *psums) add(ru *prun, r int64, sum Score) {
	c.support += r
	c.bindings += r * ru.nb
	c.violations += r * (ru.nb - ru.holds)
	c.score = c.score.Add(sum)
	if ru.holds == ru.nb {
		c.perfect += r
	}
}

// witnesses gives a witness at the current snapshot to every failing
// property that may still take one.
func (e *fast) witnesses(sc *scope, sr *scopeRun, s *trace.Snapshot) {
	owed := sr.owed[:0]
	for _, j := range sr.owed {
		ru, st := &sr.runs[j], &e.task.acc[sc.props[j].index]
		if ru.holds < ru.nb && st.witnesses() < e.task.wits {
			e.witness(sc, sr, j, s, st, e.task.wits)
		}
		ru.witnessed = st.witnesses() >= e.task.wits
		if ru.holds < ru.nb && !ru.witnessed {
			owed = append(owed, j)
		} else {
			ru.owed = false
		}
	}
	sr.owed = owed
}

// or returns word w of the disjunction of pp's literals.
func (e *fast) or(sr *scopeRun, pp *pprop, w int) uint64 {
	var or uint64
	for i, a := range pp.lits {
		or |= sr.bits[int(a)*sr.nw+w] ^ pp.xor[i]
	}
	return or
}

// firstFail returns the first of the scope's current bindings at which
// pp fails; there must be one.
func (e *fast) firstFail(sr *scopeRun, pp *pprop) int {
	for w := range sr.nw {
		fail := ^e.or(sr, pp, w)
		if w == sr.nw-1 {
			fail &= bitset.Tail(sr.nb)
		}
		if fail != 0 {
			return w<<6 + bits.TrailingZeros64(fail)
		}
	}
	panic("evaluator: no failing binding")
}

// witness records the first binding at which property j fails in st.
func (e *fast) witness(sc *scope, sr *scopeRun, j int32, s *trace.Snapshot, st *Stats, max int) {
	var bnd []int32
	if sr.blocked {
		bnd = sr.fail[int(j)*sc.nslots:][:sc.nslots]
	} else {
		b := e.firstFail(sr, &sc.props[j])
		bnd = sr.bind[b*sc.nslots:][:sc.nslots]
	}
	slots := e.slots[:sc.nslots]
	for _, q := range sc.quants {
		if q.dom < 0 {
			for _, sl := range q.group {
				slots[sl] = e.rows[bnd[sl]].ns
			}
			continue
		}
		slots[q.slot] = e.rows[bnd[q.owner]].doms[q.dom].vals[bnd[q.slot]]
	}
	st.addWitness(s, slots, max)
	clear(slots)
}
