package evaluator

import (
	"math/bits"
	"slices"

	"github.com/augur-dev/augur/internal/bitset"
	"github.com/augur-dev/augur/trace"
)

// This file is the fast evaluator's batched counting: the properties of
// a scope whose bitsets take at most four words (up to 256 bindings, two
// nodes of 16 at the paper's scale) are counted over a batch of up to 64
// consecutive snapshots at once, property by property, instead of
// snapshot by snapshot.
//
// Counting snapshot by snapshot reads and writes each dirty
// property's run and sums at every snapshot, and branches on whether
// its count changed: when most nodes change at every snapshot, two
// thirds of the properties are dirty at each, and half of those
// change their count (recountFew and touch took 49% of the CPU time
// of augur bench --workload periodic --churn 16, 20,000 snapshots).
// In a batch, the atoms' bitsets at each snapshot are kept side by
// side, with the snapshots at which each changed (a word of bits an
// atom, set by touch instead of marking its properties dirty), and a
// property's run is read once per batch: its count is taken again at
// the snapshots where one of its atoms changed, and it takes its
// witnesses at the snapshots where it fails, in order, as witnesses
// would have given them; most runs end without a branch (countQuick).
// The whole process took 0.75 times the CPU time at churn 16, 0.73 at
// churn 2 (paired runs of that benchmark). A property whose atoms change
// at most snapshots of the batch is counted at every one, each adding
// its own counts, the run still going on at the end taken back out
// (countDense): with the literals' negations kept beside the atoms'
// bitsets (lit), 0.88 times the CPU time again at churn 16, 0.87 at
// churn 2. The batch is counted when it is full, and before anything
// else reads the runs: a snapshot that the scope evaluates otherwise
// (evalAll, remap, blocks), a vacuous one, and the end of the chunk
// (finish).
//
// A batch pays only where enough of the scope's properties are dirty
// at each snapshot: it copies every atom's bitsets at every snapshot
// (batchSlot) and reads every property's run once per batch
// (countBatch), whether or not its atoms changed, while counting
// snapshot by snapshot costs nothing for a property none of whose atoms
// changed. So a scope counts in batches while, on average over its
// recent windows (a batch, or the snapshots that a batch would have
// held, counted one by one; batchRule), at least a sixth of its
// properties are dirty at a snapshot (batchDirty), and snapshot by
// snapshot below that. The rule is relative to the scope's own
// properties, not to a trace or a number of nodes: the share is what
// the two ways of counting spend on the same scope, measured by both
// (touch's marks, countBatch's changes). In the first pass of augur
// infer it was 2 to 11% on the testbeds' runs of 20,000 snapshots
// (etcdraft-apply-uncommitted-1 7.8%, paxos 11%, randtree 7.5%, chord
// 2%): few nodes change between snapshots there, and on the etcd raft
// run batches, cut by nodes that leave or join, held 27 snapshots on
// average; counting it always in batches took 1.14 times the time of
// counting snapshot by snapshot (single whole-process runs), and with
// the rule the process takes 0.88 times the CPU of always in batches,
// 0.95 that of never (paired runs, medians). The share was 27 to 65% on
// augur bench's workloads with --literals 3 (the etcdraft one at
// --churn 4 27%; periodic at --churn 1, 2 and 16, 32, 41 and 65%),
// where batches saved 5% of the whole process at 27% and 27% at 32%
// (single runs), and the rule keeps them: 1.006 and 1.004 times the CPU
// of always in batches at churn 16 and 2 (paired runs, medians).
// Nothing was measured between 11% and 27%: a sixth lies between. (At
// churn 2 the one-node scope's share is about a sixth: it changes its
// way every few windows, at no cost measured.)
// Windows of 64 snapshots at most, each added to half the sums before,
// follow a trace whose churn changes within a few hundred snapshots.

// batchSlots is the largest number of snapshots in a batch: the
// snapshots at which an atom changed are the bits of one word.
const batchSlots = 64

// batchLimit is the number of snapshots a batch holds at most, at most
// batchSlots; 0 counts every scope snapshot by snapshot. Tests lower it
// to count many batches on short traces.
var batchLimit = batchSlots

// minBatchSlots is the smallest batch worth counting in batches; a scope
// with so many atoms that a batch of batchBytes holds fewer snapshots is
// counted snapshot by snapshot.
const minBatchSlots = 8

// batchBytes bounds the memory of a scope's batch per engine: eight
// words an atom and a snapshot, its bitset and its negation's.
const batchBytes = 4 << 20

// batchStage is a scope's state for counting its properties over a
// batch of snapshots.
type batchStage struct {
	batchRule // when the scope counts in batches

	batching  bool     // the scope's snapshots since batchBase are counted in a batch
	batchN    int      // snapshots in the batch so far
	batchBase int      // the chunk index of the batch's first snapshot (fast.idx)
	batchCap  int      // snapshots a batch holds; 0 until sized, -1 if the scope is not batched
	chg       []uint64 // by atom: bit i, its bitset changed at the batch's snapshot i

	// bbits holds the literals' bitsets at the batch's snapshots: atom
	// a's at snapshot i at bbits[2a*batchCap+i], its negation's at
	// bbits[(2a+1)*batchCap+i], four words with no bit past the scope's
	// bindings (see lit), so that a property's count is the popcount of
	// their OR, with no mask and no negation.
	bbits [][4]uint64
	holds []int64 // by snapshot of the batch: a property's count (countDense)

	// pair is the OR of the bitsets over the batch of two literals, the
	// first two of the properties countDense counts, each 2·atom+1 if
	// negated, else 2·atom, in pairLits ({-1, -1} for none): the
	// properties of a scope come in the order of their literals, and
	// seven in eight share their first two with the one before (the pool
	// of ScaleSpec's two-node scope).
	pair     [][4]uint64
	pairLits [2]int32
}

// batchRule decides, from how many of a scope's properties were dirty at
// the snapshots of its recent windows, whether it counts the next ones
// in a batch or snapshot by snapshot (see the top of this file). A
// window is a batch, or the snapshots counted one by one that a batch
// would have held: it ends where a batch would, when full or before a
// snapshot that the scope evaluates otherwise (endBatch).
type batchRule struct {
	sparse   bool  // the recent windows were sparse: the scope counts snapshot by snapshot
	winN     int   // snapshots counted one by one in the current window
	winDirty int64 // the current window's dirty properties, summed over its snapshots

	// The dirty properties of the recent windows and their properties,
	// both summed over their snapshots: each window adds its own to half
	// the sums before.
	recentDirty, recentProps int64
}

// batchDirty is the inverse of the share of a scope's properties dirty
// at a snapshot (one of their atoms changed), on average over its recent
// windows, from which it counts in batches; below it, snapshot by
// snapshot (see the top of this file). Tests set it to count in batches
// never (0), at any snapshot where an atom changed (a large value), or
// both in turn.
var batchDirty int64 = 6

// testHookBatchRule, if not nil, is called when a scope changes how it
// counts: sparse, it counts snapshot by snapshot from its next snapshot.
var testHookBatchRule func(sparse bool)

// endWindow ends the scope's current window of n snapshots, at which its
// properties were dirty dirty times in all, and decides how it counts
// the next.
func (sr *scopeRun) endWindow(n int, dirty int64) {
	sr.recentDirty = sr.recentDirty/2 + dirty
	sr.recentProps = sr.recentProps/2 + int64(n*len(sr.props))
	sr.winN, sr.winDirty = 0, 0
	sparse := sr.recentDirty*batchDirty < sr.recentProps
	if sparse != sr.sparse && testHookBatchRule != nil {
		testHookBatchRule(sparse)
	}
	sr.sparse = sparse
}

// sparseSlot adds the current snapshot, counted by itself, to the
// scope's window, and ends the window when a batch would be full.
func (sr *scopeRun) sparseSlot() {
	if sr.winN++; sr.winN >= sr.batchCap {
		sr.endWindow(sr.winN, sr.winDirty)
	}
}

// recentSnaps keeps the engine's last snapshots and their rows, for the
// witnesses that a batch takes when it is counted.
type recentSnaps struct {
	snaps []*trace.Snapshot // by chunk index modulo recentLen
	rows  [][]*frow
}

// recentLen is the number of snapshots recentSnaps keeps: those of a
// full batch, counted at its last snapshot, and more.
const recentLen = 2 * batchSlots

// remember keeps the current snapshot, s, and its rows.
func (e *fast) remember(s *trace.Snapshot) {
	if e.recent.snaps == nil {
		e.recent = recentSnaps{snaps: make([]*trace.Snapshot, recentLen), rows: make([][]*frow, recentLen)}
	}
	k := e.idx % recentLen
	e.recent.snaps[k] = s
	e.recent.rows[k] = append(e.recent.rows[k][:0], e.rows...)
}

// batchable reports whether the scope, whose atoms evalMoved evaluates
// again at the current snapshot, counts its properties in a batch.
func (e *fast) batchable(sc *scope, sr *scopeRun) bool {
	if e.patterns || sr.nw > 4 {
		return false
	}
	if sr.batchCap == 0 {
		sr.batchCap = min(batchLimit, batchBytes/((len(sc.atoms)+1)*2*4*8))
		if sr.batchCap < min(minBatchSlots, batchLimit) || sr.batchCap == 0 {
			sr.batchCap = -1
		}
	}
	return sr.batchCap > 0
}

// startBatch begins a batch at the current snapshot.
func (e *fast) startBatch(sc *scope, sr *scopeRun) {
	if sr.bbits == nil {
		sr.bbits = make([][4]uint64, (len(sc.atoms)+1)*2*sr.batchCap)
		sr.holds = make([]int64, sr.batchCap)
		sr.pair = make([][4]uint64, sr.batchCap)
		sr.chg = make([]uint64, len(sc.atoms)+1)
	}
	sr.batching, sr.batchN, sr.batchBase = true, 0, e.idx
}

// batchSlot adds the current snapshot, whose atoms' bitsets sr.bits
// holds, to the scope's batch, with their negations, and counts the
// batch if it is full.
func (e *fast) batchSlot(sc *scope, sr *scopeRun) {
	i, k, nw, m := sr.batchN, sr.batchCap, sr.nw, sr.lastMask
	for _, a := range sr.atoms {
		in := sr.bits[int(a)*nw:][:nw]
		pos, neg := &sr.bbits[2*int(a)*k+i], &sr.bbits[(2*int(a)+1)*k+i]
		for w := range pos {
			var v uint64
			if w < nw {
				v = in[w] & m[w]
			}
			pos[w], neg[w] = v, ^v&m[w]
		}
	}
	if sr.batchN++; sr.batchN == k {
		e.endBatch(sc, sr)
	}
}

// endBatch counts the scope's batch, if it has one: every run is then
// that of the batch's last snapshot, as if its snapshots had been
// counted one by one, and the scope's owed list holds the properties
// that fail there and may still take a witness.
func (e *fast) endBatch(sc *scope, sr *scopeRun) {
	if !sr.batching {
		if sr.winN > 0 {
			sr.endWindow(sr.winN, sr.winDirty)
		}
		return
	}
	sr.batching = false
	sr.pairLits = [2]int32{-1, -1} // the bitsets are the batch's
	idx := e.idx
	tagPrev := e.tagMask(sr.batchBase-1, sr.batchN)
	// The last tagged snapshot up to the batch's last: a run that starts
	// after it has none.
	lastTag := -1
	if k, _ := slices.BinarySearch(e.tagged, int32(sr.batchBase+sr.batchN)); k > 0 {
		lastTag = int(e.tagged[k-1])
	}
	for _, j := range sr.props {
		e.countBatch(sc, sr, j, tagPrev, lastTag)
	}
	e.idx = idx
	for _, j := range sr.owed {
		sr.runs[j].owed = false
	}
	sr.owed = sr.owed[:0]
	for _, j := range sr.props {
		if ru := &sr.runs[j]; ru.start >= 0 && ru.holds < ru.nb && !ru.witnessed {
			ru.owed = true
			sr.owed = append(sr.owed, j)
		}
	}
	clear(sr.chg)
	sr.endWindow(sr.batchN, sr.winDirty)
	sr.batchN = 0
}

// tagMask returns the chunk's snapshots from index lo on that are
// tagged, n of them: bit i for snapshot lo+i.
func (e *fast) tagMask(lo, n int) uint64 {
	var m uint64
	k, _ := slices.BinarySearch(e.tagged, int32(lo))
	for ; k < len(e.tagged) && int(e.tagged[k]) < lo+n; k++ {
		m |= 1 << uint(int(e.tagged[k])-lo)
	}
	return m
}

// countBatch counts property j of the scope at the snapshots of the
// batch, tagPrev telling which snapshot before each is tagged, lastTag
// the last tagged one up to the batch's end: at those where one of its
// atoms changed, its count is taken again, and its run goes on, or ends
// and is flushed as settle does (a run of one snapshot in line, as in
// recountFew); at those where it fails, it takes a witness if it may
// still (as witnesses does). fast.idx is left at the snapshot counted
// last.
//
// A property of up to three literals is first counted by countQuick,
// which takes the snapshots where it needs no witness and its runs end
// without moments or tags; the others follow here.
func (e *fast) countBatch(sc *scope, sr *scopeRun, j int32, tagPrev uint64, lastTag int) {
	ru := &sr.runs[j]
	n, nb := sr.batchN, int64(sr.nb)
	tri := ru.atoms[0] >= 0
	var chg uint64
	var p0, p1, p2 [][4]uint64
	a0, a1, a2 := ru.atoms[0], ru.atoms[1], ru.atoms[2]
	if tri {
		chg = sr.chg[a0] | sr.chg[a1] | sr.chg[a2]
		p0, p1, p2 = sr.lit(a0, ru.neg&1 != 0), sr.lit(a1, ru.neg&2 != 0), sr.lit(a2, ru.neg&4 != 0)
	} else {
		for _, a := range sc.props[j].lits {
			chg |= sr.chg[a]
		}
	}
	sr.winDirty += int64(bits.OnesCount64(chg))
	if ru.start < 0 {
		chg |= 1 // a new run starts at the batch's first snapshot
	}
	i := 0
	if tri && ru.start >= 0 && ru.nb == nb && int(ru.start) > lastTag && (ru.holds == nb || ru.witnessed) && sr.scores.holds(nb) {
		if bits.OnesCount64(chg)*denseShare >= n && sr.countDense(ru, &sr.sums[j], sr.litPair(a0, a1, ru.neg&1 != 0, ru.neg&2 != 0), p2) {
			return
		}
		if i = sr.countQuick(ru, &sr.sums[j], chg, p0, p1, p2); i == n {
			return
		}
		chg &^= 1<<uint(i) - 1
	}
	for ; i < n; i++ {
		if ru.start < 0 || ru.holds == ru.nb || ru.witnessed {
			// No witness owed: on to the next snapshot where an atom
			// changed.
			rest := chg >> uint(i) << uint(i)
			if rest == 0 {
				return
			}
			i = bits.TrailingZeros64(rest)
		}
		idx := sr.batchBase + i
		if chg>>uint(i)&1 != 0 {
			var holds int64
			if tri {
				holds = or3(&p0[i], &p1[i], &p2[i])
			} else {
				holds = sr.holdsAt(&sc.props[j], i)
			}
			switch {
			case ru.start >= 0 && ru.holds == holds && ru.nb == nb:
			case ru.start >= 0 && int(ru.start) == idx-1 && ru.nb > 0 && (ru.holds == ru.nb || ru.momentsKept && tagPrev>>uint(i)&1 == 0):
				sr.sums[j].add(ru, 1, sr.scores.of(ru.holds, ru.nb))
				ru.start, ru.holds, ru.nb = int32(idx), holds, nb
			default:
				e.idx = idx
				e.flush(sc, sr, j)
				ru.start, ru.holds, ru.nb = int32(idx), holds, nb
			}
		}
		if ru.holds < ru.nb && !ru.witnessed {
			e.batchWitness(sc, sr, j, i)
		}
	}
}

// countQuick counts ru, the run of a property of up to three literals
// whose literals' bitsets over the batch are p0, p1 and p2 (lit), at
// the batch's snapshots chg where one of them changed, into c, its
// sums, until the first where it would owe a witness or its run would
// end with moments or tags to keep (flush), which it returns; the
// batch's size if there is none. A run holds no
// tagged snapshot (see countBatch), and until then owes no witness: it
// holds everywhere, or its property has all its witnesses. Its count
// changes at about half the snapshots where most nodes change, so that
// it ends its run without a branch: its counts are added to c times the
// snapshots it spans, 0 if it goes on.
func (sr *scopeRun) countQuick(ru *prun, c *psums, chg uint64, p0, p1, p2 [][4]uint64) int {
	base, nb, rem := int64(sr.batchBase), int64(sr.nb), sr.scores.rem
	rs, rh := int64(ru.start), ru.holds
	var slow, owing int64 // the ends of a failing run keep moments; a failing count owes a witness
	if !ru.momentsKept {
		slow = 1
	}
	if !ru.witnessed {
		owing = 1
	}
	var support, violations, perfect, held, rems int64 // held and rems: the scores (scoreTable.sum)
	stop := sr.batchN
	for d := chg; d != 0; d &= d - 1 {
		i := bits.TrailingZeros64(d)
		holds := or3(&p0[i], &p1[i], &p2[i])
		ends := int64(b2i(holds != rh))
		if ends&(int64(b2i(rh < nb))&slow|int64(b2i(holds < nb))&owing) != 0 {
			stop = i
			break
		}
		idx := base + int64(i)
		r := (idx - rs) * ends // the run's snapshots if it ends here
		support += r
		violations += r * (nb - rh)
		perfect += r * int64(b2i(rh == nb))
		held += r * rh
		rems += r * rem[rh]
		rs += (idx - rs) * ends
		rh += (holds - rh) * ends
	}
	ru.start, ru.holds = int32(rs), rh
	c.support += support
	c.bindings += support * nb
	c.violations += violations
	c.perfect += perfect
	c.score = c.score.Add(sr.scores.sum(held, rems))
	return stop
}

// holdsAt returns the number of the scope's bindings at which pp holds
// at the batch's snapshot i.
func (sr *scopeRun) holdsAt(pp *pprop, i int) int64 {
	var c int
	for w := range sr.nw {
		c += bits.OnesCount64(sr.orAt(pp, i, w))
	}
	return int64(c)
}

// orAt returns word w of the disjunction of pp's literals at the batch's
// snapshot i.
func (sr *scopeRun) orAt(pp *pprop, i, w int) uint64 {
	var or uint64
	for l, a := range pp.lits {
		or |= sr.lit(a, pp.xor[l] != 0)[i][w]
	}
	return or
}

// lit returns the bitsets over the batch of the literal of atom a,
// negated if neg, by snapshot (batchStage.bbits).
func (sr *scopeRun) lit(a int32, neg bool) [][4]uint64 {
	k := sr.batchCap
	return sr.bbits[(2*int(a)+int(b2i(neg)))*k:][:k]
}

// litPair returns the OR of the bitsets over the batch of the literals of
// atoms a0 and a1, negated as neg0 and neg1 say: that of the properties
// counted before if they start with the same two literals (pairLits).
func (sr *scopeRun) litPair(a0, a1 int32, neg0, neg1 bool) [][4]uint64 {
	n := sr.batchN
	p := sr.pair[:n]
	lits := [2]int32{2*a0 + int32(b2i(neg0)), 2*a1 + int32(b2i(neg1))}
	if lits == sr.pairLits {
		return p
	}
	sr.pairLits = lits
	l0, l1 := sr.lit(a0, neg0)[:n], sr.lit(a1, neg1)[:n]
	for i := range p {
		x, y := &l0[i], &l1[i]
		p[i] = [4]uint64{x[0] | y[0], x[1] | y[1], x[2] | y[2], x[3] | y[3]}
	}
	return p
}

// or2 returns the popcount of the OR of two blocks of four words: or3's
// count when l0 is the OR of the first two literals' bitsets (litPair).
func or2(l0, l1 *[4]uint64) int64 {
	return int64(bits.OnesCount64(l0[0]|l1[0]) + bits.OnesCount64(l0[1]|l1[1]) +
		bits.OnesCount64(l0[2]|l1[2]) + bits.OnesCount64(l0[3]|l1[3]))
}

// or3 returns the popcount of the OR of three blocks of four words: the
// number of the scope's bindings at which a property of up to three
// literals holds at a snapshot of the batch, given its literals' bitsets
// there (lit).
func or3(l0, l1, l2 *[4]uint64) int64 {
	return int64(bits.OnesCount64(l0[0]|l1[0]|l2[0]) + bits.OnesCount64(l0[1]|l1[1]|l2[1]) +
		bits.OnesCount64(l0[2]|l1[2]|l2[2]) + bits.OnesCount64(l0[3]|l1[3]|l2[3]))
}

// batchWitness gives property j of the scope, which fails at the
// batch's snapshot i, a witness there if it may still take one.
func (e *fast) batchWitness(sc *scope, sr *scopeRun, j int32, i int) {
	ru, st := &sr.runs[j], &e.task.acc[sc.props[j].index]
	if st.NumWitnesses() < e.task.wits {
		pp := &sc.props[j]
		b := -1
		for w := range sr.nw {
			fail := ^sr.orAt(pp, i, w)
			if w == sr.nw-1 {
				fail &= bitset.Tail(sr.nb)
			}
			if fail != 0 {
				b = w<<6 + bits.TrailingZeros64(fail)
				break
			}
		}
		if b < 0 {
			panic("evaluator: no failing binding")
		}
		r := (sr.batchBase + i) % recentLen
		ns := sc.nslots
		e.addWitness(sc, e.recent.rows[r], sr.bind[b*ns:][:ns], e.recent.snaps[r], st)
	}
	ru.witnessed = st.NumWitnesses() >= e.task.wits
}

// denseShare is the inverse of the share of a batch's snapshots, at
// which one of a property's atoms changed, from which countBatch counts
// it at every snapshot of the batch (countDense) rather than at those
// alone (countQuick).
const denseShare = 2

// countDense is countQuick at every snapshot of the batch, for a
// property whose atoms change at most of them: the count of a snapshot
// where none changed is that of the one before it, and each snapshot
// adds its own counts to the batch's sums, with no branch and no
// product, so that the snapshots do not wait for one another. The run
// still going on at the end of the batch, from the last snapshot where
// the count changed, then takes its snapshots back out. It reports
// false, having changed nothing, if the property would owe a witness or
// a run would end with moments to keep somewhere in the batch, where
// countQuick stops. p01 is the OR of the bitsets of its first two
// literals (litPair), p2 the third's.
func (sr *scopeRun) countDense(ru *prun, c *psums, p01, p2 [][4]uint64) bool {
	n, nb, rem := sr.batchN, int64(sr.nb), sr.scores.rem
	// The counts first, in a loop of their own, with few registers.
	hs := sr.holds[:n]
	p01, p2 = p01[:n], p2[:n]
	for i := range hs {
		hs[i] = or2(&p01[i], &p2[i])
	}
	rh := ru.holds
	// The count at the snapshot before, the last snapshot where it
	// changed, and the sums of the counts and of their rems, which make
	// the scores (scoreTable.sum).
	prev, last := rh, -1
	var sum, rems, perfect int64
	for i, holds := range hs {
		if holds != prev {
			last = i
		}
		sum += holds
		rems += rem[holds]
		perfect += int64(b2i(holds == nb))
		prev = holds
	}
	if last < 0 {
		return true // the run goes on through the batch
	}
	// The property fails at a snapshot of the batch: it owes a witness
	// if it may take one (countBatch calls it only if its run holds
	// everywhere then). And the runs that end here, that of the batch's
	// start and those before last, fail at some snapshot: their moments
	// are to be kept if they may be.
	if !ru.witnessed && perfect < int64(n) || !ru.momentsKept && (rh < nb || perfect-int64(n-last)*int64(b2i(prev == nb)) < int64(last)) {
		return false
	}
	// The run that goes on, from snapshot last, has count prev.
	rest := int64(n - last)
	sum -= rest * prev
	rems -= rest * rem[prev]
	perfect -= rest * int64(b2i(prev == nb))
	// The run of the batch's start began before it.
	before := int64(sr.batchBase) - int64(ru.start)
	support := before + int64(last)
	c.support += support
	c.bindings += support * nb
	c.violations += before*(nb-rh) + int64(last)*nb - sum
	c.perfect += before*int64(b2i(rh == nb)) + perfect
	c.score = c.score.AddN(sr.scores.of(rh, nb), before).Add(sr.scores.sum(sum, rems))
	ru.start, ru.holds = int32(sr.batchBase+last), prev
	return true
}
