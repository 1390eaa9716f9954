package evaluator

import (
	"math/bits"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/internal/bitset"
	"github.com/augur-dev/augur/ir"
)

// This file holds the fast evaluator's atom kernels: a comparison of two
// nodes' cells, the most common atom of a two-node scope (n0.term <=
// n1.term, n0.lead == n1.id), evaluated at many bindings in one loop over
// the columns' values unboxed by position, instead of binding by binding
// through atomAt, cellAt and test. When most nodes change at every
// snapshot, nearly every binding of a two-node scope is evaluated again,
// and atomAt took a seventh of the CPU time of augur bench --workload
// periodic.

// colVec holds the cells of one plan column at the current snapshot's
// nodes, by position, when they are all integers or all strings: cellEqual
// and cellLess then compare them as Go compares int64 and string.
type colVec struct {
	gen  uint64   // fast.gen it holds
	kind cellKind // kInt, kString, or kOther when the cells are of neither kind alone
	ints []int64
	strs []string
}

// vec returns column c's values at the current snapshot.
func (e *fast) vec(c int32) *colVec {
	if len(e.vecs) < len(e.pl.cols) {
		e.vecs = make([]colVec, len(e.pl.cols))
	}
	v := &e.vecs[c]
	if v.gen == e.gen {
		return v
	}
	v.gen, v.kind = e.gen, kOther
	v.ints, v.strs = v.ints[:0], v.strs[:0]
	k := e.rows[0].cells[c].kind
	for _, r := range e.rows {
		cl := &r.cells[c]
		switch {
		case cl.kind != k:
			return v
		case k == kInt:
			v.ints = append(v.ints, int64(cl.bits))
		case k == kString:
			v.strs = append(v.strs, cl.v.(string))
		default:
			return v
		}
	}
	v.kind = k
	return v
}

// compareAt evaluates a at the bindings of set (by word, as the scope's
// bitsets) if it is a comparison of two nodes' cells that the kernels
// take, setting its bits in out to the results; it reports whether it
// did, and whether a bit of out changed.
func (e *fast) compareAt(a *fatom, bind []int32, ns int, set, out []uint64) (ok, changed bool) {
	if a.kind != ir.Compare || len(a.args) != 2 || a.args[0].src != opNode || a.args[1].src != opNode {
		return false, false
	}
	switch a.op {
	case grammar.OpEq, grammar.OpLt, grammar.OpLe: // != is the negation of == (planner.add)
	default:
		return false, false
	}
	x, y := e.vec(a.args[0].col), e.vec(a.args[1].col)
	if x.kind != y.kind {
		return false, false
	}
	s0, s1 := int(a.args[0].slot), int(a.args[1].slot)
	switch x.kind {
	case kInt:
		return true, compareWords(a.op, x.ints, y.ints, bind, ns, s0, s1, set, out)
	case kString:
		return true, compareWords(a.op, x.strs, y.strs, bind, ns, s0, s1, set, out)
	}
	return false, false
}

// compareWords sets the bits of out at the bindings of set to xs[p0] op
// ys[p1], p0 and p1 the positions a binding puts at slots s0 and s1, and
// reports whether one changed.
func compareWords[T int64 | string](op grammar.Op, xs, ys []T, bind []int32, ns, s0, s1 int, set, out []uint64) bool {
	var diff uint64
	for w, m := range set {
		if m == 0 {
			continue
		}
		var now uint64
		for r := m; r != 0; r &= r - 1 {
			i := bits.TrailingZeros64(r)
			b := (w<<6 + i) * ns
			x, y := xs[bind[b+s0]], ys[bind[b+s1]]
			var t bool
			switch op {
			case grammar.OpEq:
				t = x == y
			case grammar.OpLt:
				t = x < y
			case grammar.OpLe:
				t = x <= y
			}
			now |= uint64(b2i(t)) << i // no branch: t is as often true as not
		}
		old := out[w]
		nw := old&^m | now
		diff |= old ^ nw
		out[w] = nw
	}
	return diff != 0
}

// every returns the bits of the scope's current bindings, all set.
func (sr *scopeRun) every() []uint64 {
	if sr.everyNb != sr.nb || len(sr.all) != sr.nw {
		sr.all = sr.all[:0]
		for range sr.nw {
			sr.all = append(sr.all, ^uint64(0))
		}
		sr.all[sr.nw-1] = bitset.Tail(sr.nb)
		sr.everyNb = sr.nb
	}
	return sr.all
}
