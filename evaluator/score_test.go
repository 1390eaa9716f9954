package evaluator_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/augur-dev/augur/evaluator"
)

// exact returns s as a rational number.
func exact(s evaluator.Score) *big.Rat {
	n := new(big.Int).Lsh(new(big.Int).SetUint64(s.Int), 64)
	n.Or(n, new(big.Int).SetUint64(s.Frac))
	return new(big.Rat).SetFrac(n, new(big.Int).Lsh(big.NewInt(1), 64))
}

func TestScoreOf(t *testing.T) {
	tests := []struct {
		holds, bindings int64
		want            evaluator.Score
	}{
		{0, 1, evaluator.Score{}},
		{0, 240, evaluator.Score{}},
		{1, 1, evaluator.Score{Int: 1}},
		{240, 240, evaluator.Score{Int: 1}},
		{1, 2, evaluator.Score{Frac: 1 << 63}},
		{3, 4, evaluator.Score{Frac: 3 << 62}},
		{1, 3, evaluator.Score{Frac: 0x5555555555555555}},                             // rounded down
		{2, 3, evaluator.Score{Frac: 0xaaaaaaaaaaaaaaaa}},                             // rounded down
		{math.MaxInt64 - 1, math.MaxInt64, evaluator.Score{Frac: math.MaxUint64 - 2}}, // 2^64 - 2 - a little, rounded down
		{1, math.MaxInt64, evaluator.Score{Frac: 2}},
	}
	for _, tt := range tests {
		got := evaluator.ScoreOf(tt.holds, tt.bindings)
		if got != tt.want {
			t.Errorf("ScoreOf(%d, %d) = %#v, want %#v", tt.holds, tt.bindings, got, tt.want)
		}
		// Rounded down, by less than 2^-64.
		diff := new(big.Rat).Sub(big.NewRat(tt.holds, tt.bindings), exact(got))
		if diff.Sign() < 0 || diff.Cmp(exact(evaluator.Score{Frac: 1})) >= 0 {
			t.Errorf("ScoreOf(%d, %d) = %v, off by %v", tt.holds, tt.bindings, got, diff)
		}
	}
}

func TestScoreAdd(t *testing.T) {
	half, third := evaluator.ScoreOf(1, 2), evaluator.ScoreOf(1, 3)
	max := evaluator.Score{Int: math.MaxUint64, Frac: math.MaxUint64}
	tests := []struct {
		name string
		got  evaluator.Score
		want evaluator.Score
	}{
		{"zero", evaluator.Score{}.Add(evaluator.Score{}), evaluator.Score{}},
		{"halves carry", half.Add(half), evaluator.Score{Int: 1}},
		{"carry into int", evaluator.Score{Int: 7, Frac: math.MaxUint64}.Add(evaluator.Score{Frac: 1}), evaluator.Score{Int: 8}},
		{"ones", evaluator.ScoreOf(5, 5).Add(evaluator.ScoreOf(1, 1)), evaluator.Score{Int: 2}},
		{"thirds", third.Add(third).Add(third), evaluator.Score{Frac: math.MaxUint64}},
		{"to the top", max.Add(evaluator.Score{}), max},
		{"AddN none", half.AddN(third, 0), half},
		{"AddN halves", evaluator.Score{}.AddN(half, 7), evaluator.Score{Int: 3, Frac: 1 << 63}},
		{"AddN thirds", evaluator.Score{}.AddN(third, 3), third.Add(third).Add(third)},
		{"AddN carry", half.AddN(half, 3), evaluator.Score{Int: 2}},
		{"AddN ones", evaluator.Score{Int: 2}.AddN(evaluator.ScoreOf(4, 4), 5), evaluator.Score{Int: 7}},
		{"AddN all-holding, huge", evaluator.Score{}.AddN(evaluator.ScoreOf(1, 1), math.MaxInt64), evaluator.Score{Int: math.MaxInt64}},
		{"AddN huge", evaluator.Score{}.AddN(evaluator.Score{Frac: math.MaxUint64}, math.MaxInt64),
			evaluator.Score{Int: math.MaxInt64 - 1, Frac: 1<<63 + 1}},
		{"Sub none", half.Sub(evaluator.Score{}), half},
		{"Sub itself", third.Sub(third), evaluator.Score{}},
		{"Sub borrow", evaluator.Score{Int: 8}.Sub(evaluator.Score{Frac: 1}), evaluator.Score{Int: 7, Frac: math.MaxUint64}},
		{"Sub undoes Add", evaluator.Score{Int: 3}.AddN(third, 5).Sub(evaluator.Score{}.AddN(third, 5)), evaluator.Score{Int: 3}},
		{"AddN huge twice", evaluator.Score{}.AddN(evaluator.ScoreOf(1, 1), math.MaxInt64).AddN(evaluator.ScoreOf(1, 1), math.MaxInt64).AddN(evaluator.ScoreOf(1, 1), 1),
			evaluator.Score{Int: math.MaxUint64}},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
}

// TestScoreOrder adds random scores in runs, in two orders, and compares
// the sums with each other and with the exact one.
func TestScoreOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type run struct {
		s evaluator.Score
		n int64
	}
	runs := make([]run, 2000)
	want := new(big.Rat)
	for i := range runs {
		nb := 1 + rng.Int64N(1<<uint(rng.IntN(62)))
		runs[i] = run{evaluator.ScoreOf(rng.Int64N(nb+1), nb), 1 + rng.Int64N(1<<uint(rng.IntN(40)))}
		want.Add(want, new(big.Rat).Mul(exact(runs[i].s), new(big.Rat).SetInt64(runs[i].n)))
	}
	var fwd, back evaluator.Score
	for i := range runs {
		fwd = fwd.AddN(runs[i].s, runs[i].n)
		r := runs[len(runs)-1-i]
		for k := range min(r.n, 3) { // one at a time, then the rest at once
			back = back.Add(r.s)
			if k == 2 {
				back = back.AddN(r.s, r.n-3)
			}
		}
	}
	if fwd != back || exact(fwd).Cmp(want) != 0 {
		t.Fatalf("forward %v, backward %v, want %v", fwd, back, want.FloatString(20))
	}
}

// TestScoreRate compares Rate and Float with exact rationals rounded by
// math/big, to the bit.
func TestScoreRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	type sn struct {
		s evaluator.Score
		n int64
	}
	cases := []sn{
		{evaluator.Score{}, 1}, {evaluator.Score{}, 0}, {evaluator.Score{Int: 3}, 0},
		{evaluator.Score{Int: 1}, 1}, {evaluator.Score{Int: 10}, 10}, {evaluator.Score{Int: 9}, 10},
		{evaluator.Score{Int: math.MaxInt64}, math.MaxInt64}, {evaluator.Score{Int: math.MaxInt64 - 1, Frac: math.MaxUint64}, math.MaxInt64},
		{evaluator.Score{Frac: 1}, 1}, {evaluator.Score{Frac: 1}, math.MaxInt64}, {evaluator.Score{Frac: math.MaxUint64}, 1},
		{evaluator.Score{Int: 1, Frac: 1 << 63}, 2}, {evaluator.Score{Int: 1, Frac: 1 << 63}, 3},
		// Ties and near-ties of the rounding to 53 bits.
		{evaluator.Score{Frac: 1<<63 | 1<<10}, 1}, {evaluator.Score{Frac: 1<<63 | 1<<10 | 1}, 1}, {evaluator.Score{Frac: 1<<63 | 3<<10}, 1},
		{evaluator.Score{Int: 1 << 52, Frac: 1 << 63}, 1 << 62},
	}
	for range 5000 {
		n := 1 + rng.Int64N(1<<uint(rng.IntN(63)))
		s := evaluator.Score{Frac: rng.Uint64()}
		if n > 1 {
			s.Int = rng.Uint64N(uint64(n))
		}
		cases = append(cases, sn{s, n})
	}
	for _, c := range cases {
		var want float64
		if c.n > 0 {
			want, _ = new(big.Rat).Quo(exact(c.s), new(big.Rat).SetInt64(c.n)).Float64()
		}
		if got := c.s.Rate(c.n); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%#v.Rate(%d) = %v, want %v", c.s, c.n, got, want)
		}
		want, _ = exact(c.s).Float64()
		if got := c.s.Float(); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%#v.Float() = %v, want %v", c.s, got, want)
		}
	}
}

func TestScoreCompare(t *testing.T) {
	tests := []struct {
		a, b evaluator.Score
		want int
	}{
		{evaluator.Score{}, evaluator.Score{}, 0},
		{evaluator.Score{Frac: 1}, evaluator.Score{}, 1},
		{evaluator.Score{Int: 1}, evaluator.Score{Frac: math.MaxUint64}, 1},
		{evaluator.Score{Int: 2, Frac: 5}, evaluator.Score{Int: 2, Frac: 6}, -1},
	}
	for _, tt := range tests {
		if got := tt.a.Compare(tt.b); got != tt.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
