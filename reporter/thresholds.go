package reporter

// Thresholds are the fixed decision rules of the reporter, in one place
// with their defaults (DefaultThresholds), in the manner of golang/perf's
// benchmath.Thresholds. The spec sets Options; Thresholds are for
// experiments and tests. A zero field takes its default.
type Thresholds struct {
	// Grouping decides when a property belongs to the anomaly of a
	// simpler one.
	Grouping Grouping

	// MinLift is how many times more often the other literals R of a
	// disjunction P must hold where its sub-disjunction Q fails than
	// where Q holds, for P to explain Q's violations ("rarely elsewhere").
	MinLift float64

	// Z is the standard-normal quantile of the one-sided confidence bound
	// that ranks anomalies (see score): 1.645 is 95% confidence.
	Z float64

	// EpisodeSpan is how long one violation event lasts at most, in
	// snapshots (see events): a violation episode longer than that counts
	// one event per EpisodeSpan snapshots it lasts. A broken state lasts
	// until something repairs it, so one lasting violation is one event;
	// but a property violated through most of the run is not violated
	// rarely, and counted as one event it would outrank every rare one.
	// The testbeds' figures barely moved between 20 and 200; 50 keeps the
	// quality benchmark's planted breaks (1 to 10 snapshots) one event.
	EpisodeSpan int

	// StandOut is the most violation events an anomaly may have and
	// still stand out: the report lists only anomalies violated at most
	// StandOut times (up to Options.Size of them), and counts the others
	// in Candidates.NotStandingOut. An anomaly violated at more moments
	// is a recurring state of the system, not a rare one. Negative lists
	// every anomaly. The default, 4, was chosen on the development seeds
	// of augur bench testbeds (1 to 10) and bench quality: the smallest
	// bound that kept testbed recall at its plateau, with bug-free runs
	// listing at most 3 almost-invariants that fail in steady state.
	StandOut int

	// FullMoments is how many violating snapshots of each candidate the
	// second pass keeps (Input.Moments), so that grouping compares whole
	// sets for all but broad properties; the evaluator's first pass keeps
	// only evaluator.MaxMoments.
	FullMoments int

	// RatePrecision is the precision at which holding rates are compared,
	// ranked and printed. Rates are sums of per-snapshot scores, each
	// rounded down to a multiple of 2^-64 (evaluator.Score), so two rates
	// equal as fractions may differ in their last bits.
	RatePrecision float64
}

// DefaultThresholds are the thresholds of reports.
var DefaultThresholds = Thresholds{
	Grouping:      DefaultGrouping,
	MinLift:       2,
	Z:             1.645,
	EpisodeSpan:   50,
	StandOut:      4,
	FullMoments:   4096,
	RatePrecision: 1e-12,
}

// withDefaults returns th with each zero field set to its default.
func (th Thresholds) withDefaults() Thresholds {
	d := DefaultThresholds
	if th.Grouping == (Grouping{}) {
		th.Grouping = d.Grouping
	}
	if th.MinLift == 0 {
		th.MinLift = d.MinLift
	}
	if th.Z == 0 {
		th.Z = d.Z
	}
	if th.EpisodeSpan == 0 {
		th.EpisodeSpan = d.EpisodeSpan
	}
	if th.StandOut == 0 {
		th.StandOut = d.StandOut
	}
	if th.FullMoments == 0 {
		th.FullMoments = d.FullMoments
	}
	if th.RatePrecision == 0 {
		th.RatePrecision = d.RatePrecision
	}
	return th
}
