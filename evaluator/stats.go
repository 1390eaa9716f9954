package evaluator

// MaxPatternLiterals is the largest disjunction for which Stats.Patterns
// is kept.
const MaxPatternLiterals = 4

// Stats are the accumulated counts of one property over the snapshots
// evaluated so far.
type Stats struct {
	Support            int64   // non-vacuous snapshots
	Bindings           int64   // bindings, summed over snapshots
	Violations         int64   // bindings at which the property fails
	Perfect            int64   // non-vacuous snapshots with spatial score 1
	ViolatingSnapshots int64   // non-vacuous snapshots with score below 1
	ScoreSum           float64 // spatial scores, summed

	// Patterns counts bindings by the truth values of the literals: bit i
	// of the index is literal i. It is kept for flat properties (no exists)
	// of at most MaxPatternLiterals literals, so that the reporter can test
	// sub-disjunctions and independence without another pass.
	Patterns [1 << MaxPatternLiterals]int64

	// Tags counts the tags of the violating snapshots; nil if none.
	Tags map[string]int64

	// Witnesses are the first violations, in snapshot order.
	Witnesses []Witness

	Pruned      bool  // dropped by the filter
	PrunedAfter int64 // snapshots evaluated when it was dropped
}

// Witness is one violating binding.
type Witness struct {
	Snapshot uint64         `json:"snapshot"`
	TS       uint64         `json:"ts"`
	Binding  map[string]any `json:"binding"` // node variables → node name, iterator variables → element
	Values   map[string]any `json:"values"`  // each path of the property → its value
}

// HoldingRate returns the mean spatial score over non-vacuous snapshots,
// or 0 if there are none.
func (s *Stats) HoldingRate() float64 {
	if s.Support == 0 {
		return 0
	}
	return s.ScoreSum / float64(s.Support)
}

// TemporalRate returns the share of non-vacuous snapshots with score 1.
func (s *Stats) TemporalRate() float64 {
	if s.Support == 0 {
		return 0
	}
	return float64(s.Perfect) / float64(s.Support)
}

// Merge adds the counts of o, which covers later snapshots than s, keeping
// at most maxWitnesses witnesses.
func (s *Stats) Merge(o *Stats, maxWitnesses int) {
	s.Support += o.Support
	s.Bindings += o.Bindings
	s.Violations += o.Violations
	s.Perfect += o.Perfect
	s.ViolatingSnapshots += o.ViolatingSnapshots
	s.ScoreSum += o.ScoreSum
	for i, n := range o.Patterns {
		s.Patterns[i] += n
	}
	for tag, n := range o.Tags {
		if s.Tags == nil {
			s.Tags = map[string]int64{}
		}
		s.Tags[tag] += n
	}
	for _, w := range o.Witnesses {
		if len(s.Witnesses) >= maxWitnesses {
			break
		}
		s.Witnesses = append(s.Witnesses, w)
	}
}

// reset clears s for reuse, keeping its allocations.
func (s *Stats) reset() {
	tags, ws := s.Tags, s.Witnesses[:0]
	clear(tags)
	*s = Stats{Tags: tags, Witnesses: ws}
}
