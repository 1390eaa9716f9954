package evaluator

import (
	"slices"

	"github.com/augur-dev/augur/trace"
)

// This file is the fast evaluator's last step on a property: its run,
// the snapshots that share its counts, ends when they change (settle),
// and is then added to its counts and its stats (flush); witnesses are
// taken at the snapshots where it fails.

// flushStage is what the engine keeps of the chunk's snapshots so far,
// for the runs that end to add to their stats.
type flushStage struct {
	patterns bool       // the task counts Stats.Patterns
	idx      int        // the current snapshot's index in the chunk
	tags     [][]string // tags of the chunk's snapshots so far
	ids      []uint64   // their IDs
	tagged   []int32    // the indexes of those that have tags
	slots    []any      // a binding, for witnesses
}

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

// finish adds the runs so far to the stats; they go on into the next
// chunk, whose snapshots the engine counts from 0 again.
func (e *fast) finish() {
	for k, sc := range e.pl.scopes {
		sr := &e.scopes[k]
		e.endBatch(sc, sr)
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
	e.endBatch(sc, sr)
	for _, j := range sr.props {
		e.flush(sc, sr, j)
	}
	sr.valid = false
	for _, j := range sr.owed {
		sr.runs[j].owed = false
	}
	sr.owed = sr.owed[:0]
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
	st.addMoments(e.ids[start:min(e.idx, start+need)], e.task.moments, e.task.full)
	ru.momentsKept = st.momentsKept(e.task.moments, e.task.full)
	for k < len(e.tagged) && int(e.tagged[k]) < e.idx {
		tags, n := e.tags[e.tagged[k]], int64(1)
		for k++; k < len(e.tagged) && int(e.tagged[k]) < e.idx && &e.tags[e.tagged[k]][0] == &tags[0]; k++ {
			n++ // the same tags (evalSnapshot)
		}
		st.countTags(tags, n)
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
		if ru.holds < ru.nb && st.NumWitnesses() < e.task.wits {
			e.witness(sc, sr, j, s, st)
		}
		ru.witnessed = st.NumWitnesses() >= e.task.wits
		if ru.holds < ru.nb && !ru.witnessed {
			owed = append(owed, j)
		} else {
			ru.owed = false
		}
	}
	sr.owed = owed
}

// witness records the first binding at which property j fails in st.
func (e *fast) witness(sc *scope, sr *scopeRun, j int32, s *trace.Snapshot, st *Stats) {
	var bnd []int32
	if sr.blocked {
		bnd = sr.fail[int(j)*sc.nslots:][:sc.nslots]
	} else {
		b := e.firstFail(sr, &sc.props[j])
		bnd = sr.bind[b*sc.nslots:][:sc.nslots]
	}
	e.addWitness(sc, e.rows, bnd, s, st)
}

// addWitness records in st the binding bnd of the scope at snapshot s,
// whose live nodes' rows are rows.
func (e *fast) addWitness(sc *scope, rows []*frow, bnd []int32, s *trace.Snapshot, st *Stats) {
	slots := e.slots[:sc.nslots]
	for _, q := range sc.quants {
		if q.dom < 0 {
			for _, sl := range q.group {
				slots[sl] = rows[bnd[sl]].ns
			}
			continue
		}
		slots[q.slot] = rows[bnd[q.owner]].doms[q.dom].vals[bnd[q.slot]]
	}
	st.addWitness(s, slots, e.task.wits)
	clear(slots)
}
