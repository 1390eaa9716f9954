package planted

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/reporter"
)

// Apart is how often a planted property fails in its system's run and in
// the good runs, the latter at the legitimate moments of a system whose
// design breaks it there too: its violation events in each, counted as
// reports count them, and the p-value of the reporter's test that the
// run's rate is far above the good runs' (reporter.BaselinePValue). A
// property failing in the good runs about as often as here is, by every
// count the runs give, how the system behaves: the report ranks it with
// the system's transients, and no ranking that reads the counts could
// single it out without singling out those too. Apart tells such misses
// from the ranking's own.
type Apart struct {
	Events     int64   `json:"events"`
	GoodEvents int64   `json:"good_events"`
	PValue     float64 `json:"p_value"`
}

// Told reports whether the good runs tell the property's failures from
// the system's behaviour: it never fails there, or fails here far more
// often (the reporter's tiers above what the good run shows as often).
func (a *Apart) Told() bool {
	return a.GoodEvents == 0 || a.PValue < reporter.DefaultThresholds.BaselineLevel
}

// goodTrace is the path of the i-th good run's trace in dir.
func goodTrace(dir string, i int) string {
	if i == 0 {
		return filepath.Join(dir, "good.trace")
	}
	return filepath.Join(dir, fmt.Sprintf("good%d.trace", i+1))
}

// apart evaluates the planted properties of sys over its run and its
// good runs, the files inferOne wrote in dir, under the system's own
// spec (spec.yaml, whose names the planted texts use, also when the
// report is made with spec init's), and returns how each compares, in
// the order of sys.Planted.
func apart(ctx context.Context, sys *System, dir string, o RunOptions) ([]Apart, error) {
	if len(sys.Planted) == 0 {
		return nil, nil
	}
	props := make([]*grammar.Property, len(sys.Planted))
	for i, p := range sys.Planted {
		var err error
		if props[i], err = grammar.Parse(p.Text); err != nil {
			return nil, fmt.Errorf("planted property %s: %w", p.Name, err)
		}
	}
	spec := filepath.Join(dir, "spec.yaml")
	out := make([]Apart, len(props))
	support, goodSupport := make([]int64, len(props)), make([]int64, len(props))
	for r := -1; r < o.GoodRuns; r++ {
		path := filepath.Join(dir, "run.trace")
		if r >= 0 {
			path = goodTrace(dir, r)
		}
		stats, err := evaluateAt(ctx, spec, path, props, o)
		if err != nil {
			return nil, fmt.Errorf("evaluate the planted properties over %s: %w", filepath.Base(path), err)
		}
		for i := range stats {
			n := reporter.DefaultThresholds.ViolationEvents(&stats[i])
			if r < 0 {
				out[i].Events, support[i] = n, stats[i].Support
			} else {
				out[i].GoodEvents += n
				goodSupport[i] += stats[i].Support
			}
		}
	}
	for i := range out {
		out[i].PValue = reporter.BaselinePValue(out[i].Events, support[i], out[i].GoodEvents, goodSupport[i])
	}
	return out, nil
}

// evaluateAt evaluates props over the trace at path under the spec at
// spec, keeping every violating snapshot, which events are counted from.
func evaluateAt(ctx context.Context, spec, path string, props []*grammar.Property, o RunOptions) ([]evaluator.Stats, error) {
	sp, tr, err := pipeline.OpenFitting(spec, path)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	prog, err := evaluator.Compile(sp, props)
	if err != nil {
		return nil, err
	}
	res, err := evaluator.Run(ctx, tr, prog, evaluator.Options{
		Kind: o.Evaluator, Workers: o.Workers, MaxWitnesses: evaluator.NoWitnesses, MaxMoments: max(1, tr.NumSnapshots()),
	})
	if err != nil {
		return nil, err
	}
	return res.Stats, nil
}
