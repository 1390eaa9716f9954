package evaluator

import "math/bits"

// This file is the fast evaluator's last stage on a scope: counting its
// properties once its atoms' bitsets hold the current snapshot. After
// evalAll, every property is counted, in order (countAll). Otherwise
// only those that use an atom whose bitset changed are (recountDirty,
// the properties marked by touch): even in the periodic snapshots of a
// busy system, where most bindings change from one snapshot to the next,
// the atoms over the variables that change rarely (a node's term, its
// role) keep their bitsets, and so do nearly half the properties of a
// pool (BenchmarkChurn: 55% of them are dirty at a snapshot where 89% of
// the bindings changed, 36% where 12% did). Counting every property
// there, rather than marking them, took about 1.3 times the CPU time
// (paired whole-process runs of augur infer, 2,000 snapshots).

// countAll counts every property of the scope at the current snapshot.
func (e *fast) countAll(sc *scope, sr *scopeRun) {
	if e.patterns {
		for _, j := range sr.props {
			e.recount(sc, sr, &sc.props[j], j)
		}
		return
	}
	for _, j := range sr.props {
		e.recountHolds(sc, sr, j)
	}
}

// recountDirty counts again the dirty properties of the scope.
func (e *fast) recountDirty(sc *scope, sr *scopeRun) {
	if !e.patterns && sr.nw <= 4 {
		e.recountFew(sc, sr)
		return
	}
	for w, m := range sr.dirty {
		if m == 0 {
			continue
		}
		sr.dirty[w] = 0
		for ; m != 0; m &= m - 1 {
			j := int32(w<<6 + bits.TrailingZeros64(m))
			if e.patterns {
				e.recount(sc, sr, &sc.props[j], j)
			} else {
				e.recountHolds(sc, sr, j)
			}
		}
	}
}

// recountHolds counts property j of the scope again when the task counts
// no patterns, the first pass over a whole pool: the holding bindings of
// a property of up to three literals are counted here (as holds does),
// and a property whose count stayed the same only goes on with its run
// (as settle does).
func (e *fast) recountHolds(sc *scope, sr *scopeRun, j int32) {
	ru := &sr.runs[j]
	var holds int64
	if ru.atoms[0] < 0 {
		holds = e.holds(sc, sr, j)
	} else {
		holds = sr.triHolds(&ru.ptri)
	}
	if nb := int64(sr.nb); !sr.goOn(ru, j, holds, nb) {
		e.settle(sc, sr, j, holds, int(nb), nil)
	}
}

// goOn reports whether ru, the run of property j of the scope, goes on at
// the current snapshot, where the property holds at holds of nb bindings:
// its counts are the run's. The property then joins the scope's owed
// list if it fails there and may still take a witness (as in settle).
func (sr *scopeRun) goOn(ru *prun, j int32, holds, nb int64) bool {
	if ru.start < 0 || ru.holds != holds || ru.nb != nb {
		return false
	}
	if holds < nb && !ru.owed && !ru.witnessed {
		ru.owed = true
		sr.owed = append(sr.owed, j)
	}
	return true
}

// triHolds returns the number of the current bindings at which t, a
// property of at most three literals, holds: the popcount of the OR of
// its literals' bitsets. It takes their words four at a time, as arrays,
// so that the loop has no bounds to check and few iterations (a scope of
// two nodes among 16 has four words); the last four are masked by
// sr.lastMask.
func (sr *scopeRun) triHolds(t *ptri) int64 {
	nw := sr.nw
	b0, b1, b2 := int(t.atoms[0])*nw, int(t.atoms[1])*nw, int(t.atoms[2])*nw
	x0, x1, x2 := -uint64(t.neg&1), -uint64(t.neg>>1&1), -uint64(t.neg>>2&1)
	last := (nw - 1) &^ 3
	var c int
	for w := 0; ; w += 4 {
		l0, l1, l2 := (*[4]uint64)(sr.bits[b0+w:]), (*[4]uint64)(sr.bits[b1+w:]), (*[4]uint64)(sr.bits[b2+w:])
		m := [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		if w == last {
			m = sr.lastMask
		}
		c += bits.OnesCount64(((l0[0] ^ x0) | (l1[0] ^ x1) | (l2[0] ^ x2)) & m[0])
		c += bits.OnesCount64(((l0[1] ^ x0) | (l1[1] ^ x1) | (l2[1] ^ x2)) & m[1])
		c += bits.OnesCount64(((l0[2] ^ x0) | (l1[2] ^ x1) | (l2[2] ^ x2)) & m[2])
		c += bits.OnesCount64(((l0[3] ^ x0) | (l1[3] ^ x1) | (l2[3] ^ x2)) & m[3])
		if w == last {
			return int64(c)
		}
	}
}

// recountFew is recountDirty without patterns when the scope's bitsets
// take at most four words (up to 256 bindings: two nodes of up to 16, one
// node of up to 256), as they do at the paper's scale: it counts a
// property of up to three literals in line, one masked block of four
// words as triHolds reads it, and goes on with its run without a call
// when its count stayed the same. When most nodes change at every
// snapshot, half the properties are counted again at each, and the calls
// and the loop of recountHolds and triHolds took most of their time.
//
// A run of one snapshot, the previous, that ends here, as most do when
// most nodes change at every snapshot, is added to the property's sums
// in line too, unless its stats take its moment or tags (flush).
func (e *fast) recountFew(sc *scope, sr *scopeRun) {
	nw, nb := sr.nw, int64(sr.nb)
	bs, m := sr.bits, sr.lastMask
	prev := int32(e.idx - 1)
	// The previous snapshot is tagged: e.tagged ends with it, or with it
	// and the current one.
	tagged := false
	for _, k := range e.tagged[max(0, len(e.tagged)-2):] {
		tagged = tagged || k == prev
	}
	for w, d := range sr.dirty {
		if d == 0 {
			continue
		}
		sr.dirty[w] = 0
		for ; d != 0; d &= d - 1 {
			j := int32(w<<6 + bits.TrailingZeros64(d))
			ru := &sr.runs[j]
			if ru.atoms[0] < 0 {
				e.recountHolds(sc, sr, j)
				continue
			}
			l0 := (*[4]uint64)(bs[int(ru.atoms[0])*nw:])
			l1 := (*[4]uint64)(bs[int(ru.atoms[1])*nw:])
			l2 := (*[4]uint64)(bs[int(ru.atoms[2])*nw:])
			x0, x1, x2 := -uint64(ru.neg&1), -uint64(ru.neg>>1&1), -uint64(ru.neg>>2&1)
			holds := int64(bits.OnesCount64(((l0[0]^x0)|(l1[0]^x1)|(l2[0]^x2))&m[0]) +
				bits.OnesCount64(((l0[1]^x0)|(l1[1]^x1)|(l2[1]^x2))&m[1]) +
				bits.OnesCount64(((l0[2]^x0)|(l1[2]^x1)|(l2[2]^x2))&m[2]) +
				bits.OnesCount64(((l0[3]^x0)|(l1[3]^x1)|(l2[3]^x2))&m[3]))
			switch {
			case sr.goOn(ru, j, holds, nb):
			case ru.start >= 0 && ru.start == prev && ru.nb > 0 && (ru.holds == ru.nb || ru.momentsKept && !tagged):
				sr.sums[j].add(ru, 1, sr.scores.of(ru.holds, ru.nb))
				ru.start, ru.holds, ru.nb = int32(e.idx), holds, nb
				if holds < nb && !ru.owed && !ru.witnessed {
					ru.owed = true
					sr.owed = append(sr.owed, j)
				}
			default:
				e.settle(sc, sr, j, holds, int(nb), nil)
			}
		}
	}
}
