package evaluator

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
)

// Score is a sum of spatial scores in fixed point: Int + Frac/2^64. Each
// snapshot's score holds/bindings is rounded down to a multiple of 2^-64
// once (ScoreOf), and sums of those are exact: they do not depend on the
// order of the additions, so the fast and the reference evaluator agree
// to the bit, and so do merged shards with one run. A sum of n scores is
// at most n, which 128 bits hold for any int64 n.
type Score struct {
	Int  uint64 // integer part
	Frac uint64 // fraction, in units of 2^-64
}

// ScoreOf returns the score of a snapshot where holds of bindings
// bindings hold: holds/bindings rounded down to a multiple of 2^-64, and
// exactly 1 when every binding holds. It needs 0 ≤ holds ≤ bindings and
// bindings > 0.
func ScoreOf(holds, bindings int64) Score {
	if holds == bindings {
		return Score{Int: 1}
	}
	q, _ := bits.Div64(uint64(holds), 0, uint64(bindings))
	return Score{Frac: q}
}

// Add returns s + o.
func (s Score) Add(o Score) Score {
	frac, carry := bits.Add64(s.Frac, o.Frac, 0)
	return Score{Int: s.Int + o.Int + carry, Frac: frac}
}

// Sub returns s − o, for o ≤ s: the scores summed in s after those
// summed in o, when s continues o's sum.
func (s Score) Sub(o Score) Score {
	frac, borrow := bits.Sub64(s.Frac, o.Frac, 0)
	return Score{Int: s.Int - o.Int - borrow, Frac: frac}
}

// AddN returns s + n·o, for n ≥ 0: a run of n snapshots of score o.
func (s Score) AddN(o Score, n int64) Score {
	hi, lo := bits.Mul64(o.Frac, uint64(n))
	return s.Add(Score{Int: hi + o.Int*uint64(n), Frac: lo})
}

// Compare returns -1, 0 or +1 as s is less than, equal to or greater
// than o.
func (s Score) Compare(o Score) int {
	return cmp.Or(cmp.Compare(s.Int, o.Int), cmp.Compare(s.Frac, o.Frac))
}

// Rate returns s/n, the mean of n scores summed in s, correctly rounded
// to the nearest float64 (ties to even); 0 if n ≤ 0. s must be at most n,
// as a sum of n scores is.
func (s Score) Rate(n int64) float64 {
	switch {
	case n <= 0:
		return 0
	case s.Int >= uint64(n):
		return 1
	}
	// s/n in units of 2^-128, q1·2^64 + q0, with remainder r: s.Int < n,
	// so q1 < 2^64.
	q1, r := bits.Div64(s.Int, s.Frac, uint64(n))
	q0, r := bits.Div64(r, 0, uint64(n))
	// The leading 64 bits of q1·2^64 + q0, the rest folded into a sticky
	// lowest bit, round to 53 bits as the exact quotient does: they hold
	// 11 bits below the rounding position.
	var m uint64
	var shift int
	if q1 != 0 {
		shift = bits.LeadingZeros64(q1)
		m = q1<<shift | q0>>(64-shift)
		if q0<<shift != 0 {
			m |= 1
		}
	} else {
		shift = 64 + bits.LeadingZeros64(q0)
		m = q0 << (shift - 64)
	}
	if r != 0 {
		m |= 1
	}
	return math.Ldexp(float64(m), -64-shift)
}

// Float returns s, correctly rounded to the nearest float64.
func (s Score) Float() float64 {
	if s.Int == 0 {
		return math.Ldexp(float64(s.Frac), -64)
	}
	shift := bits.LeadingZeros64(s.Int)
	m := s.Int<<shift | s.Frac>>(64-shift)
	if s.Frac<<shift != 0 {
		m |= 1
	}
	return math.Ldexp(float64(m), -shift)
}

// String renders s as its nearest float64, then exactly: "10.5
// (10+0x8000000000000000/2^64)".
func (s Score) String() string { return fmt.Sprintf("%v (%d+%#x/2^64)", s.Float(), s.Int, s.Frac) }

// scoreTable holds ScoreOf(h, n) for every h of one n, so that adding a
// snapshot's score takes no division: at high churn a property's count
// changes at most snapshots, and each change adds a score. The zero
// value holds none.
//
// It also splits each score in two, h·q + rem[h] in units of 2^-64 with
// q = ⌊(2^64−1)/n⌋, so that a sum of scores of n bindings is q times the
// sum of their counts plus the sum of their rems (sum): a loop over the
// snapshots of a batch adds up two int64s, not a 128-bit Score with its
// carry (countDense, countQuick). With 2^64 = n·q + r, 1 ≤ r ≤ n,
// ⌊h·2^64/n⌋ = h·q + ⌊h·r/n⌋ for h < n, and n·q + r = 2^64 is the score 1
// of h = n: rem[h] = ⌊h·r/n⌋, at most n.
type scoreTable struct {
	scores []Score // by holds, for n = len - 1
	q      uint64
	rem    []int64 // by holds
}

// maxScoreTable is the largest number of bindings a scoreTable holds the
// scores of; a scope evaluated in blocks has more.
const maxScoreTable = 1 << 12

// size makes t hold the scores of n bindings, if n is at most
// maxScoreTable.
func (t *scoreTable) size(n int) {
	if n == len(t.scores)-1 || n > maxScoreTable {
		return
	}
	t.scores, t.rem = t.scores[:0], t.rem[:0]
	q := ^uint64(0) / uint64(n)
	r := -(q * uint64(n)) // 2^64 − n·q, wrapping
	for h := range n + 1 {
		t.scores = append(t.scores, ScoreOf(int64(h), int64(n)))
		t.rem = append(t.rem, int64(uint64(h)*r/uint64(n)))
	}
	t.q = q
}

// holds reports whether t holds the scores of n bindings.
func (t *scoreTable) holds(n int64) bool { return n == int64(len(t.scores)-1) }

// of returns ScoreOf(holds, n).
func (t *scoreTable) of(holds, n int64) Score {
	if t.holds(n) {
		return t.scores[holds]
	}
	return ScoreOf(holds, n)
}

// sum returns the sum of the scores of snapshots whose counts sum to
// holds and their rems to rems (both at least 0), for the n bindings t
// holds the scores of.
func (t *scoreTable) sum(holds, rems int64) Score {
	hi, lo := bits.Mul64(t.q, uint64(holds))
	lo, carry := bits.Add64(lo, uint64(rems), 0)
	return Score{Int: hi + carry, Frac: lo}
}
