package evaluator

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/augur-dev/augur/internal/bitset"
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
//
// Each stage is a file, with the state it keeps:
//
//   - rows.go, rows and interning: a snapshot's members become prepared
//     rows, and what changed since the previous snapshot is found
//     (rowStage); atoms are evaluated on rows and bindings (atomStage,
//     and the kernels of kernel.go);
//   - bind.go, scopes and bindings: a scope's bindings are enumerated,
//     in tables by number of nodes, or in blocks when they are too many
//     (bindStage);
//   - incremental.go, incremental re-evaluation: the atoms' bitsets are
//     evaluated again where the rows changed, and the properties of
//     those that changed marked dirty (evalStage);
//   - count.go and flush.go, counting and flushing: the dirty properties
//     are counted again (countStage), and the runs that end are added to
//     their stats (flushStage);
//   - batch.go, batched counting: a scope of up to 256 bindings counts
//     its properties over up to 64 snapshots at once (batchStage),
//     while at least a sixth of them are dirty at a snapshot (batchRule).
//
// This file holds the engine's driver: a task's start and finish, and a
// snapshot's evaluation, scope by scope.
type fast struct {
	pl       *plan
	ref      *reference // decodes states; evaluates what the plan leaves binding by binding
	task     *task      // the current task
	lo, hi   int        // the span of the last task
	gen      uint64     // counts the snapshots evaluated, across chunks; from 1
	scopes   []scopeRun // by plan scope
	fallback []int      // the task's active properties of plan.fallback
	cur      []int32    // a binding being enumerated (walk)
	recent   recentSnaps

	rowStage   // rows.go
	atomStage  // rows.go
	flushStage // flush.go
}

// scopeRun is an engine's working state for one scope, by stage.
type scopeRun struct {
	scopeTask  // this file
	bindStage  // bind.go
	evalStage  // incremental.go
	countStage // count.go
	batchStage // batch.go
}

// scopeTask holds the task's properties of a scope and the atoms they
// use (fast.start).
type scopeTask struct {
	props []int32   // the task's active properties, as indexes in scope.props
	atoms []int32   // the atoms they use
	used  []bool    // by atom
	users [][]int32 // by atom: the active properties that use it
}

// newFast returns an engine of pl; store, if not nil, shares the members
// of huge lists with the run's other engines.
func newFast(tr *trace.Trace, prog *Program, pl *plan, store *memberStore) (*fast, error) {
	ref, err := newReference(tr, prog)
	if err != nil {
		return nil, err
	}
	e := &fast{
		pl:     pl,
		ref:    ref,
		scopes: make([]scopeRun, len(pl.scopes)),
		rowStage: rowStage{
			in:       newInterner(),
			cache:    map[uint32]*frow{},
			next:     map[uint32]*frow{},
			colMoved: make([]uint64, len(pl.cols)),
		},
		atomStage: atomStage{memo: map[callKey]callResult{}},
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
	e.in.store = store
	e.prepareConsts()
	return e, nil
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
			ru.witnessed, ru.momentsKept = st.NumWitnesses() >= t.wits, st.momentsKept(t.moments, t.full)
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

func (e *fast) eval(s *trace.Snapshot, states []*nodeState) error {
	err := e.evalSnapshot(s, states)
	e.idx++
	return err
}

func (e *fast) evalSnapshot(s *trace.Snapshot, states []*nodeState) error {
	e.gen++
	tags := s.Tags
	if len(tags) > 0 {
		// Tags equal to the last tagged snapshot's are its slice, so
		// that flush counts a stretch of them at once.
		if n := len(e.tagged); n > 0 && slices.Equal(tags, e.tags[e.tagged[n-1]]) {
			tags = e.tags[e.tagged[n-1]]
		}
		e.tagged = append(e.tagged, int32(e.idx))
	}
	e.tags, e.ids = append(e.tags, tags), append(e.ids, s.ID)
	if err := e.load(s, states); err != nil {
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
	if !e.patterns {
		e.remember(s)
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
			e.endBatch(sc, sr)
			if n := limit * sc.nslots; cap(sr.last) < n {
				// Blocks of limit bindings: one buffer, not a doubling
				// one's garbage, before the first block looks at the
				// context.
				sr.last = make([]int32, 0, n)
			}
			if e.walkBindings(sc, sr, limit); e.ref.err != nil {
				return e.ref.err
			}
			e.endBlocks(sc, sr, s)
			return nil
		}
		old = sr.table
		tb = e.table(sc, sr)
		if tb != old {
			e.endBatch(sc, sr)
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
	batched := false // the snapshot is one of the scope's batch, which takes its witnesses
	switch {
	case remap && e.evalRemapped(sc, sr, old, tb):
		// The bindings of nodes whose rows stayed kept their values.
		e.countAll(sc, sr)
	case !sr.valid || e.moved == ^uint64(0):
		e.endBatch(sc, sr)
		e.evalAll(sc, sr)
		e.countAll(sc, sr)
	case e.moved == 0:
		// Nothing changed: every run goes on.
		switch {
		case sr.batching:
			e.batchSlot(sc, sr)
			batched = true
		case sr.sparse:
			sr.sparseSlot()
		}
	case tb != nil && e.batchable(sc, sr) && !sr.sparse:
		if !sr.batching {
			e.startBatch(sc, sr)
		}
		e.evalMoved(sc, sr, tb)
		e.batchSlot(sc, sr)
		batched = true
	case tb != nil && sr.sparse && e.batchable(sc, sr):
		e.evalMoved(sc, sr, tb)
		for _, d := range sr.dirty {
			sr.winDirty += int64(bits.OnesCount64(d))
		}
		e.recountDirty(sc, sr)
		sr.sparseSlot()
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
	if !batched {
		e.witnesses(sc, sr, s)
	}
	return nil
}
