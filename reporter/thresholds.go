package reporter

import "github.com/augur-dev/augur/evaluator"

// Thresholds are the fixed decision rules of the reporter, in one place
// with their defaults (DefaultThresholds), in the manner of golang/perf's
// benchmath.Thresholds. The spec sets Options; Thresholds are for
// experiments and tests. A zero field takes its default.
//
// Every threshold is relative (a share, a ratio) or the level of a
// stated test, never an absolute count: the same behaviour must decide
// the same way in a run of 2,000 snapshots of 3 nodes and in one of
// 50,000 snapshots of 16, and on systems no benchmark generates. What is
// rare enough to be listed at all is the spec's hold ratio, applied over
// time (Options.HoldRatio): the report leaves out only an anomaly
// violated through a large share of the run, and ranks the others.
type Thresholds struct {
	// Grouping decides when a property belongs to the anomaly of a
	// simpler one.
	Grouping Grouping

	// MinOddsRatio is the least odds ratio of the 2×2 table of "Q
	// violated" against "R holds", over the bindings of a disjunction
	// P = Q or R, for R to explain Q's violations (beside a one-sided
	// test at the or-effect level). The odds ratio judges the table from
	// both sides: R holding at Q's violations more often than elsewhere,
	// or R failing, where it fails, far from Q's violations. A lift
	// (R's share at Q's violations over its share elsewhere) cannot
	// credit a guard that holds at 90% of the bindings, as implications
	// such as n0.role != "primary" or … have; their odds ratio is
	// unbounded when Q never fails where the guard does. 2 means R's
	// odds of holding are twice as high where Q fails; being a ratio, it
	// does not depend on the number of bindings.
	MinOddsRatio float64

	// RankLevel is the level of the one-sided confidence bound that
	// ranks anomalies (see score), Bonferroni-corrected for the number of
	// properties of the representative's shape (node variables,
	// iterators, literals) in the pool: a property of a shape of which
	// thousands were tried holds at a high rate by chance far more easily
	// than one of a shape of which a few dozen were, and a bug striking
	// a simple property twenty times is more alarming than a three-literal
	// disjunction violated seven times. 0.05 is 95% confidence over each
	// shape's properties together.
	RankLevel float64

	// DuringLevel is the level of the test, made both ways, that an
	// anomaly fails during the episodes of another listed above it, and
	// that one near its, far more often than chance (see duringLast),
	// Bonferroni-corrected for the anomalies it is compared with. The
	// chance is the share of the run's places where an episode as long
	// would lie as near, so the test does not depend on the run's length.
	// At 0.05, an anomaly whose episodes fall independently of the
	// others' ranks lower with probability at most 5%; nothing is hidden.
	DuringLevel float64

	// BaselineLevel is the level of the one-sided test that a property
	// failing in the baseline too has far more violation events here,
	// per non-vacuous snapshot, than there (see BaselinePValue): of the
	// properties that fail there, which rank after the others, such ones
	// rank first. It is not corrected for the number of properties
	// tested: one that passes by chance still ranks after every property
	// that does not fail there. 0.05.
	BaselineLevel float64

	// EpisodeShare bounds how long one violation event lasts, as a share
	// of the property's non-vacuous snapshots (see events): an episode
	// lasting longer counts one event per EpisodeShare of the run begun.
	// A broken state lasts until something repairs it, so one lasting
	// violation is one event; but a property violated through much of the
	// run is not violated rarely, and counted as one event it would
	// outrank every rare one. Relative to the run, a behaviour counts the
	// same at any trace length: at the default, 1%, a 50-snapshot
	// episode is one event in 5,000 snapshots or more and three in 2,000.
	EpisodeShare float64

	// FullMoments is how many violating snapshots of each candidate the
	// second pass keeps (Input.Moments), so that grouping compares whole
	// sets for all but broad properties; the evaluator's first pass keeps
	// only evaluator.MaxMoments. It bounds memory, not a decision:
	// grouping compares cut lists only up to where both tell (kept), and
	// bounds by the true counts; the events of a cut list are scaled up
	// from the moments kept.
	FullMoments int

	// RatePrecision is the precision at which holding rates and scores
	// are ranked and printed (candidacy compares at
	// evaluator.RatePrecision).
	RatePrecision float64
}

// DefaultThresholds are the thresholds of reports.
var DefaultThresholds = Thresholds{
	Grouping:      DefaultGrouping,
	MinOddsRatio:  2,
	RankLevel:     0.05,
	DuringLevel:   0.05,
	BaselineLevel: 0.05,
	EpisodeShare:  0.01,
	FullMoments:   4096,
	RatePrecision: evaluator.RatePrecision,
}

// withDefaults returns th with each zero field set to its default.
func (th Thresholds) withDefaults() Thresholds {
	d := DefaultThresholds
	if th.Grouping == (Grouping{}) {
		th.Grouping = d.Grouping
	}
	if th.MinOddsRatio == 0 {
		th.MinOddsRatio = d.MinOddsRatio
	}
	if th.RankLevel == 0 {
		th.RankLevel = d.RankLevel
	}
	if th.DuringLevel == 0 {
		th.DuringLevel = d.DuringLevel
	}
	if th.BaselineLevel == 0 {
		th.BaselineLevel = d.BaselineLevel
	}
	if th.EpisodeShare == 0 {
		th.EpisodeShare = d.EpisodeShare
	}
	if th.FullMoments == 0 {
		th.FullMoments = d.FullMoments
	}
	if th.RatePrecision == 0 {
		th.RatePrecision = d.RatePrecision
	}
	return th
}

// ViolationEvents counts the violation events of a property evaluated
// to st, as reports count them (Entry.ViolationEvents): one per episode
// of consecutive violating snapshots, or one per EpisodeShare of its
// non-vacuous snapshots begun, scaled up when st.Moments holds only the
// first of its violating snapshots.
func (th Thresholds) ViolationEvents(st *evaluator.Stats) int64 {
	if st.ViolatingSnapshots == 0 {
		return 0
	}
	return events(st.Moments, st.ViolatingSnapshots, th.withDefaults().span(st.Support))
}

// span returns the longest episode, in snapshots, that counts as one
// event for a property with support non-vacuous snapshots.
func (th Thresholds) span(support int64) int {
	return max(1, int(th.EpisodeShare*float64(support)+0.5))
}
