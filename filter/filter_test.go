package filter_test

import (
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/filter"
	"github.com/augur-dev/augur/specs"
)

// pass is a property's stats at one filter pass: support and the sum of
// its snapshots' scores so far, after done of the run's total snapshots.
type pass struct {
	support int64
	sum     evaluator.Score
	done    int64
}

func score(x float64) evaluator.Score {
	i := uint64(x)
	return evaluator.Score{Int: i, Frac: uint64((x - float64(i)) * (1 << 63) * 2)}
}

func TestKeep(t *testing.T) {
	const total = 10000
	tests := []struct {
		name   string
		ratio  float64
		passes []pass
		keep   []bool // after each pass
	}{
		{"no support yet", 0.9, []pass{{0, score(0), 100}}, []bool{true}},
		{"at the ratio", 0.9, []pass{{10, score(9), 100}}, []bool{true}},
		// 9 less 2^-60: a sum of rounded scores equal to 9 as a fraction.
		{"at the ratio, rounded", 0.9, []pass{{10, evaluator.Score{Int: 8, Frac: 1<<64 - 16}, 100}}, []bool{true}},
		{"below at the first pass: no interval yet", 0.9, []pass{{100, score(85), 100}}, []bool{true}},
		{"below so far and over the last interval", 0.9, []pass{{100, score(85), 100}, {200, score(170), 200}}, []bool{true, false}},
		{"below so far, above over the last interval", 0.9, []pass{{100, score(50), 100}, {200, score(148), 200}, {300, score(248), 300}}, []bool{true, true, true}},
		{"below so far, at the ratio over the last interval", 0.9, []pass{{100, score(50), 100}, {200, score(140), 200}}, []bool{true, true}},
		{"vacuous over the last interval", 0.9, []pass{{100, score(50), 100}, {100, score(50), 200}}, []bool{true, true}},
		{"a start-up transient, then an early episode", 0.95, []pass{{1000, score(900), 1000}, {2000, score(1880), 2000}, {3000, score(2875), 3000}}, []bool{true, true, true}},
		// 1,000 failing snapshots of 10,000 allow at best 0.9 at the end.
		{"beyond reach", 0.95, []pass{{1000, score(0), 1000}}, []bool{false}},
		{"just within reach", 0.95, []pass{{1000, score(500), 1000}}, []bool{true}},
		{"an invariant that failed", 1, []pass{{1000, score(999.5), 1000}}, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filter.New(specs.Filter{HoldRatio: tt.ratio, Every: 100})
			for k, p := range tt.passes {
				// Another property first, so that the filter tells them apart.
				f.Keep(0, &evaluator.Stats{Support: p.support, ScoreSum: score(0)}, p.done, total)
				s := evaluator.Stats{Support: p.support, ScoreSum: p.sum, Violations: int64(p.support) - int64(p.sum.Int)}
				if got := f.Keep(1, &s, p.done, total); got != tt.keep[k] {
					t.Errorf("pass %d (support %d, rate %.4f): Keep = %v, want %v", k+1, p.support, s.HoldingRate(), got, tt.keep[k])
				}
			}
		})
	}
}

func TestEvery(t *testing.T) {
	if f := filter.New(specs.Filter{HoldRatio: 0.9, Every: 100}); f.Every() != 100 {
		t.Errorf("Every = %d", f.Every())
	}
}
