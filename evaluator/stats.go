package evaluator

import (
	"encoding/binary"
	"math"

	"github.com/augur-dev/augur/ir"
)

// MaxPatternLiterals is the largest disjunction for which Stats.Patterns
// is kept.
const MaxPatternLiterals = 4

// MaxMoments is the number of violating snapshots Stats.Moments keeps
// unless Options.MaxMoments says otherwise.
const MaxMoments = 16

// Stats are the accumulated counts of one property over the snapshots
// evaluated so far.
type Stats struct {
	Support            int64 // non-vacuous snapshots
	Bindings           int64 // bindings, summed over snapshots
	Violations         int64 // bindings at which the property fails
	Perfect            int64 // non-vacuous snapshots with spatial score 1
	ViolatingSnapshots int64 // non-vacuous snapshots with score below 1
	ScoreSum           Score // spatial scores, summed exactly (see Score)

	// Patterns counts bindings by the truth values of the literals: bit i
	// of the index is literal i. It is kept for flat properties (no exists)
	// of at most MaxPatternLiterals literals, unless Options.NoPatterns
	// leaves them out: the reporter tests sub-disjunctions and independence
	// on its candidates, whose patterns a second pass can count.
	Patterns [1 << MaxPatternLiterals]int64

	// Tags counts the tags of the violating snapshots; nil if none.
	Tags map[string]int64

	// Moments are the IDs of the first violating snapshots (MaxMoments
	// unless Options.MaxMoments says otherwise), in order: the reporter
	// tells properties that fail at the same moments from ones that fail
	// at others, and draws when they fail.
	Moments []uint64

	Pruned      bool  // dropped by the filter
	PrunedAfter int64 // snapshots evaluated when it was dropped

	// full are the first violating snapshots, Options.FullMoments of
	// them, kept by Run for the reporter (Result.FullMoments).
	full momentLog

	// wits are the first violations, in snapshot order, nil if none:
	// Witnesses returns them.
	wits *witnessLog
}

// Witness is one violating binding: the snapshot, the binding of the
// property's variables, and the values of the paths it reads. The live
// checker reports the same type.
type Witness = ir.Witness

// HoldingRate returns the mean spatial score over non-vacuous snapshots,
// or 0 if there are none: ScoreSum/Support, correctly rounded. Each
// snapshot's score is rounded down to a multiple of 2^-64 first, so the
// rate may fall short of the mean of the exact scores by less than 2^-64,
// far below the float64's own rounding for rates above 2^-11.
func (s *Stats) HoldingRate() float64 {
	return s.ScoreSum.Rate(s.Support)
}

// RatePrecision is the precision at which holding rates are compared
// with a hold ratio. Rates are sums of per-snapshot scores, each rounded
// down to a multiple of 2^-64 (Score), so two rates equal as fractions
// may differ in their last bits.
const RatePrecision = 1e-12

// RoundRate rounds a rate to RatePrecision.
func RoundRate(h float64) float64 {
	const scale = 1 / RatePrecision
	return math.Round(h*scale) / scale
}

// HoldsAtLeast reports whether the holding rate, rounded to
// RatePrecision, is at least ratio: the one comparison of a rate with a
// hold ratio, which the filter, the reporter's candidates and its extra
// passes share. A property never violated holds at any ratio.
func (s *Stats) HoldsAtLeast(ratio float64) bool {
	return s.Violations == 0 || RoundRate(s.HoldingRate()) >= ratio
}

// TemporalRate returns the share of non-vacuous snapshots with score 1.
func (s *Stats) TemporalRate() float64 {
	if s.Support == 0 {
		return 0
	}
	return float64(s.Perfect) / float64(s.Support)
}

// Merge adds the counts of o, which covers later snapshots than s, keeping
// at most maxWitnesses witnesses and maxMoments moments.
func (s *Stats) Merge(o *Stats, maxWitnesses, maxMoments int) {
	s.Support += o.Support
	s.Bindings += o.Bindings
	s.Violations += o.Violations
	s.Perfect += o.Perfect
	s.ViolatingSnapshots += o.ViolatingSnapshots
	s.ScoreSum = s.ScoreSum.Add(o.ScoreSum)
	for i, n := range o.Patterns {
		s.Patterns[i] += n
	}
	for tag, n := range o.Tags {
		if s.Tags == nil {
			s.Tags = map[string]int64{}
		}
		s.Tags[tag] += n
	}
	if n := min(o.NumWitnesses(), maxWitnesses-s.NumWitnesses()); n > 0 {
		s.SetWitnesses(append(s.Witnesses(), o.Witnesses()[:n]...))
	}
	s.Moments = append(s.Moments, o.Moments[:max(0, min(len(o.Moments), maxMoments-len(s.Moments)))]...)
}

// addMoment records one more violating snapshot, one of at most max in
// Moments and of at most full in the full log.
func (s *Stats) addMoment(id uint64, max, full int) {
	if len(s.Moments) < max {
		s.Moments = append(s.Moments, id)
	}
	if s.full.n < full {
		s.full.add(id)
	}
}

// addMoments records the violating snapshots ids, later than those
// recorded, as addMoment does each: a run's that ends (fast.flush).
func (s *Stats) addMoments(ids []uint64, max, full int) {
	if n := min(len(ids), max-len(s.Moments)); n > 0 {
		s.Moments = append(s.Moments, ids[:n]...)
	}
	if n := min(len(ids), full-s.full.n); n > 0 {
		s.full.addAll(ids[:n])
	}
}

// momentsKept reports whether s holds all the moments it keeps, max in
// Moments and full in the full log.
func (s *Stats) momentsKept(max, full int) bool {
	return len(s.Moments) >= max && s.full.n >= full
}

// momentLog is a list of increasing snapshot IDs in little memory: the
// differences between consecutive ones, as uvarints. A property that
// fails often fails at consecutive snapshots, a byte each, where Moments
// take eight; and through stretches of them, which take a few bytes
// whatever their length: a difference of 0, never that of two IDs after
// the first, then the number of IDs that follow the one before, each one
// past it. The IDs of the stretch still going on are only counted
// (more), and written when it ends.
type momentLog struct {
	n    int
	last uint64
	more int // IDs last-more+1 ... last, each one past the one before, not written yet
	buf  []byte
}

func (l *momentLog) add(id uint64) {
	if l.n > 0 && id == l.last+1 {
		l.more++
	} else {
		l.end()
		l.buf = binary.AppendUvarint(l.buf, id-l.last) // l.last is 0 before the first
	}
	l.last = id
	l.n++
}

// addAll adds the increasing ids, as add does each: those of a run of
// snapshots that ends (fast.flush), which follow each other when the
// trace's do, and at once when they go on from the last.
func (l *momentLog) addAll(ids []uint64) {
	if k := len(ids); k > 0 && l.n > 0 && ids[0] == l.last+1 && ids[k-1]-ids[0] == uint64(k-1) {
		l.more += k
		l.last = ids[k-1]
		l.n += k
		return
	}
	for _, id := range ids {
		l.add(id)
	}
}

// end writes the stretch going on: one past the last ID written, a
// difference of 1; longer, 0 and its length.
func (l *momentLog) end() {
	switch l.more {
	case 0:
		return
	case 1:
		l.buf = append(l.buf, 1)
	default:
		l.buf = binary.AppendUvarint(append(l.buf, 0), uint64(l.more))
	}
	l.more = 0
}

// first returns the first max IDs of l.
func (l *momentLog) first(max int) []uint64 {
	if l.n == 0 || max <= 0 {
		return nil
	}
	ids := make([]uint64, 0, min(max, l.n))
	var id uint64
	for b := l.buf; len(ids) < cap(ids) && len(b) > 0; {
		d, k := binary.Uvarint(b)
		b = b[k:]
		if d != 0 || len(ids) == 0 {
			id += d
			ids = append(ids, id)
			continue
		}
		more, k := binary.Uvarint(b)
		b = b[k:]
		for ; more > 0 && len(ids) < cap(ids); more-- {
			id++
			ids = append(ids, id)
		}
	}
	for len(ids) < cap(ids) { // the stretch going on
		id++
		ids = append(ids, id)
	}
	return ids
}

// countTags counts the tags of n more violating snapshots, each tagged
// tags.
func (s *Stats) countTags(tags []string, n int64) {
	for _, tag := range tags {
		if s.Tags == nil {
			s.Tags = map[string]int64{}
		}
		s.Tags[tag] += n
	}
}
