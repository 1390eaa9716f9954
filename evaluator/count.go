package evaluator

import (
	"math/bits"

	"github.com/augur-dev/augur/internal/bitset"
)

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
// (paired whole-process runs of augur infer, 2,000 snapshots). A scope
// over nodes alone of up to 256 bindings, when the task counts no
// patterns, is counted in batches of snapshots instead (batch.go), the
// same properties at the same snapshots, while enough of its properties
// are dirty at each (batchRule).

// countStage is a scope's state for counting its properties and
// flushing their runs.
type countStage struct {
	owed   []int32    // properties that fail and may still take witnesses
	scores scoreTable // the scores of the current number of bindings (flush)

	// By scope property, in the order of scope.props so that counting
	// the dirty ones walks memory forward: its run, what its runs added
	// during the chunk (to its Stats at the end of the chunk), and the
	// patterns of its run when the task counts them.
	runs []prun
	sums []psums
	pats [][1 << MaxPatternLiterals]int64

	// For the patterns of properties of up to three literals (derive):
	// the number of bindings where each atom holds, and where each pair
	// of scope.pairs does, counted at fast.gen onesAt and pairAt (see
	// evalStage.atomMod).
	ones, pairN    []int64
	onesAt, pairAt []uint64
}

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
