// Package filter prunes properties whose holding rate falls below a
// threshold while the evaluator runs, so that time is spent only on
// properties that may still be almost-invariants.
package filter

import (
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/specs"
)

// Filter drops, every Interval snapshots, the properties that will not
// hold at HoldRatio by the end of the run: those that cannot reach it
// even if every snapshot still to come holds, and those below it both
// over the snapshots so far and over the last Interval alone.
//
// The second test is a forecast, as any pruning before the end must be;
// asking the last interval too keeps the properties whose failures so
// far lie in earlier intervals: a start-up transient, or a bug's early
// episodes. Judged on the rate so far alone, a property that fails in
// its first thousand snapshots at twice the share the hold ratio allows,
// and is violated rarely after that, is pruned at the first pass though
// it ends among the almost-invariants. A property below the ratio in
// every interval is pruned one pass later than the rate so far alone
// would, which is the price of that.
//
// A Filter keeps the rates of one run's properties at its last pass, so
// it serves one run; New returns a fresh one.
type Filter struct {
	HoldRatio float64
	Interval  int

	last []mark // by property: stats at the last pass
}

// mark is a property's score sum and support at a pass.
type mark struct {
	sum     evaluator.Score
	support int64
	seen    bool
}

// New returns the filter the spec asks for.
func New(s specs.Filter) *Filter {
	return &Filter{HoldRatio: s.HoldRatio, Interval: s.Every}
}

// Every returns the number of snapshots between pruning passes.
func (f *Filter) Every() int { return f.Interval }

// Keep reports whether property i, with stats s after done of the run's
// total snapshots, stays.
func (f *Filter) Keep(i int, s *evaluator.Stats, done, total int64) bool {
	if i >= len(f.last) {
		f.last = append(f.last, make([]mark, i+1-len(f.last))...)
	}
	prev := f.last[i]
	f.last[i] = mark{sum: s.ScoreSum, support: s.Support, seen: true}
	switch {
	case s.Support == 0 || s.HoldsAtLeast(f.HoldRatio):
		return true
	case !f.reachable(s, total-done):
		return false
	case !prev.seen || s.Support == prev.support:
		// No interval of its own yet: nothing but the rate so far.
		return true
	}
	last := s.ScoreSum.Sub(prev.sum).Rate(s.Support - prev.support)
	return evaluator.RoundRate(last) >= f.HoldRatio
}

// reachable reports whether a property with stats s would hold at the
// hold ratio if each of the rest snapshots still to come held at every
// binding: the best it can end with.
func (f *Filter) reachable(s *evaluator.Stats, rest int64) bool {
	rest = max(rest, 0)
	best := s.ScoreSum.AddN(evaluator.Score{Int: 1}, rest).Rate(s.Support + rest)
	return evaluator.RoundRate(best) >= f.HoldRatio
}

var _ evaluator.Pruner = (*Filter)(nil)
