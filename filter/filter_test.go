package filter_test

import (
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/filter"
	"github.com/augur-dev/augur/specs"
)

func TestKeep(t *testing.T) {
	f := filter.New(specs.Filter{HoldRatio: 0.9, Every: 100})
	if f.Every() != 100 {
		t.Errorf("Every = %d", f.Every())
	}
	tests := []struct {
		name string
		s    evaluator.Stats
		keep bool
	}{
		{"no support yet", evaluator.Stats{}, true},
		{"at the ratio", evaluator.Stats{Support: 10, Violations: 1, ScoreSum: evaluator.Score{Int: 9}}, true},
		// 9 less 2^-60: a sum of rounded scores equal to 9 as a fraction.
		{"at the ratio, rounded", evaluator.Stats{Support: 10, Violations: 1, ScoreSum: evaluator.Score{Int: 8, Frac: 1<<64 - 16}}, true},
		{"below", evaluator.Stats{Support: 10, Violations: 2, ScoreSum: evaluator.Score{Int: 8, Frac: 1 << 63}}, false},
	}
	for _, tt := range tests {
		if got := f.Keep(&tt.s); got != tt.keep {
			t.Errorf("%s: Keep = %v, want %v", tt.name, got, tt.keep)
		}
	}
}
