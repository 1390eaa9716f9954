package pipeline

import (
	"context"
	"slices"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/reporter"
)

// timeline gathers what the HTML report draws: the tags of p's trace and,
// evaluating the reported almost-invariants again with every violating
// snapshot kept, when each of them fails.
func (p *Pipeline) timeline(ctx context.Context, rep *reporter.Report, o Options) (*reporter.Timeline, error) {
	tl := &reporter.Timeline{Snapshots: p.Trace.NumSnapshots(), Violations: map[string][]int{}, Tags: map[string][]int{}}
	ids := make([]uint64, 0, tl.Snapshots)
	sr := p.Trace.Snapshots()
	defer sr.Close()
	for sr.Next() {
		s := sr.Snapshot()
		for _, tag := range s.Tags {
			if tag != "steady" {
				tl.Tags[tag] = append(tl.Tags[tag], len(ids))
			}
		}
		ids = append(ids, s.ID)
	}
	if err := sr.Err(); err != nil {
		return nil, err
	}
	props := make([]*grammar.Property, len(rep.AlmostInvariants))
	for i, e := range rep.AlmostInvariants {
		props[i] = e.Property()
	}
	opts := passOptions(o)
	opts.MaxWitnesses, opts.MaxMoments = evaluator.NoWitnesses, max(1, tl.Snapshots)
	res, err := p.again(ctx, p.Trace, props, opts, "drawing the timeline", nil)
	if err != nil {
		return nil, err
	}
	for i, e := range rep.AlmostInvariants {
		for _, id := range res.Stats[i].Moments {
			if pos, ok := slices.BinarySearch(ids, id); ok {
				tl.Violations[e.ID] = append(tl.Violations[e.ID], pos)
			}
		}
	}
	return tl, nil
}
