package evaluator

import (
	"math/rand/v2"
	"testing"
)

// TestScoreTableSum checks the split of scoreTable that countDense and
// countQuick sum scores with: every count's score, and sums of many, are
// those of ScoreOf to the bit, for numbers of bindings whose 2^64 mod n
// is 0, 1, or anything between.
func TestScoreTableSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tab scoreTable
	for _, n := range []int{1, 2, 3, 7, 15, 240, 255, 256, 257, 1000, maxScoreTable - 1, maxScoreTable} {
		tab.size(n)
		if !tab.holds(int64(n)) {
			t.Fatalf("size(%d) holds %d scores", n, len(tab.scores))
		}
		for h := range int64(n) + 1 {
			if got, want := tab.sum(h, tab.rem[h]), ScoreOf(h, int64(n)); got != want || tab.of(h, int64(n)) != want {
				t.Errorf("%d of %d bindings: split %v, table %v, want %v", h, n, got, tab.of(h, int64(n)), want)
			}
		}
		for range 100 {
			var held, rems int64
			var want Score
			for range 1 + rng.IntN(200) {
				h, r := rng.Int64N(int64(n)+1), 1+rng.Int64N(1000)
				held, rems = held+r*h, rems+r*tab.rem[h]
				want = want.AddN(ScoreOf(h, int64(n)), r)
			}
			if got := tab.sum(held, rems); got != want {
				t.Fatalf("%d bindings: a sum of runs is %v, want %v", n, got, want)
			}
		}
	}
}
