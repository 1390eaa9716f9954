package evaluator

import (
	"math/bits"
	"slices"

	"github.com/augur-dev/augur/internal/bitset"
	"github.com/augur-dev/augur/ir"
)

// This file is the fast evaluator's stage of incremental re-evaluation:
// the bitsets of a scope's atoms over its bindings, evaluated at every
// binding when the bindings are new (evalAll), remapped when the number
// of nodes changed (evalRemapped), and otherwise evaluated again where
// the rows changed (evalMoved, evalChanged), marking dirty the
// properties of the atoms whose bitsets changed (touch).

// evalStage is a scope's state for the evaluation of its atoms: their
// bitsets, and what changed in them at the current snapshot.
type evalStage struct {
	valid bool     // bits hold the atoms at the previous snapshot evaluated, over the same bindings
	bits  []uint64 // atom a's bitset at bits[a*nw:]
	// lastMask masks the last four words of a bitset, from word
	// (nw-1)&^3: the bindings in them, none past.
	lastMask [4]uint64
	spare    []uint64 // the bitsets of the previous snapshot, while they are remapped
	from     []int32  // by binding: the binding of the previous snapshot it keeps the values of, or -1 (evalRemapped)
	tmp      []uint64
	all      []uint64 // every binding's bit (every), for everyNb bindings
	everyNb  int
	dirty    []uint64 // by scope property: count it again at this snapshot

	// An atom's bitset last changed at fast.gen max(allMod, atomMod[a]).
	atomMod []uint64
	allMod  uint64
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

// touch marks dirty the properties that use atom a, or, when the scope
// counts a batch, the current snapshot as one where a changed.
func (e *fast) touch(sr *scopeRun, a int32) {
	sr.atomMod[a] = e.gen
	if sr.batching {
		sr.chg[a] |= 1 << uint(sr.batchN)
		return
	}
	for _, j := range sr.users[a] {
		bitset.Set(sr.dirty, int(j))
	}
}
