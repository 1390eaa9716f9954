// Package filter prunes properties whose holding rate falls below a
// threshold while the evaluator runs, so that time is spent only on
// properties that may still be almost-invariants.
package filter

import (
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/specs"
)

// Filter drops, every Every snapshots, the properties whose holding rate
// so far is below HoldRatio. Properties without support yet stay.
type Filter struct {
	HoldRatio float64
	Interval  int
}

// New returns the filter the spec asks for.
func New(s specs.Filter) *Filter {
	return &Filter{HoldRatio: s.HoldRatio, Interval: s.Every}
}

// Every returns the number of snapshots between pruning passes.
func (f *Filter) Every() int { return f.Interval }

// Keep reports whether a property with stats s stays.
func (f *Filter) Keep(s *evaluator.Stats) bool {
	return s.Support == 0 || s.HoldsAtLeast(f.HoldRatio)
}

var _ evaluator.Pruner = (*Filter)(nil)
