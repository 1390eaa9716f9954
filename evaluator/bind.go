package evaluator

import (
	"math/bits"

	"github.com/augur-dev/augur/internal/bitset"
	"github.com/augur-dev/augur/trace"
)

// This file is the fast evaluator's stage of scopes and bindings: a
// scope's bindings over the current snapshot's nodes, enumerated in the
// reference's order; those of a node-only scope in a table by number of
// nodes, with the masks of each node's bindings; those of a scope with
// too many for its bitsets to fit in memory, evaluated and counted in
// blocks as they are enumerated.

// bindStage is a scope's state for its bindings: those of the current
// snapshot and the previous, the tables of a node-only scope, and the
// counts of a snapshot evaluated in blocks.
type bindStage struct {
	table  *nodeTable
	nb, nw int          // bindings of the current snapshot, and words per bitset
	bind   []int32      // the current bindings, nslots each: node positions and member indexes
	own    []int32      // bindings of an iterator scope
	last   []int32      // its bindings at the previous snapshot
	tables []*nodeTable // by number of nodes, up to 64
	big    *nodeTable   // the table of the last number of nodes above 64

	// A scope whose bitsets over every binding would take more than
	// scopeBytes is evaluated in blocks of bindings (see walkBindings).
	blocked bool     // the current snapshot is evaluated in blocks
	total   int      // bindings of the blocks so far
	counts  []pcount // by scope property: its counts over the blocks so far
	fail    []int32  // by scope property, nslots each: its first failing binding
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

// pcount is a property's counts over some bindings.
type pcount struct {
	holds  int64
	pats   [1 << MaxPatternLiterals]int64
	failed bool // fail holds its first failing binding
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
