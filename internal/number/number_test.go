package number

import (
	"math"
	"testing"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b any
		want int
	}{
		{int64(1), int64(2), -1},
		{int64(math.MinInt64), int64(math.MaxInt64), -1},
		{uint64(math.MaxUint64), uint64(math.MaxUint64), 0},
		// Signedness: a negative int64 is below every uint64, and
		// uint64 values above MaxInt64 are above every int64.
		{int64(-1), uint64(0), -1},
		{uint64(0), int64(-1), 1},
		{int64(math.MinInt64), uint64(math.MaxUint64), -1},
		{uint64(math.MaxUint64), int64(math.MaxInt64), 1},
		{int64(math.MaxInt64), uint64(math.MaxInt64), 0},
		{uint64(math.MaxInt64 + 1), int64(math.MaxInt64), 1},
		{int64(7), uint64(7), 0},
		// Integers against floats round the integer to float64.
		{int64(2), 2.0, 0},
		{2.5, uint64(2), 1},
		{int64(1<<53 + 1), float64(1 << 53), 0},
		{float64(1 << 53), int64(1<<53 + 1), 0},
		{uint64(math.MaxUint64), float64(1 << 64), 0},
		{int64(math.MinInt64), -float64(1 << 63), 0},
		{int64(-3), math.Inf(-1), 1},
		{math.Inf(1), uint64(math.MaxUint64), 1},
		// Without a float, integers beyond 2^53 stay exact.
		{int64(1<<53 + 1), int64(1 << 53), 1},
		{uint64(1<<53 + 1), int64(1 << 53), 1},
		{math.Copysign(0, -1), 0.0, 0},
		{math.Copysign(0, -1), int64(0), 0},
		{-1.5, -1.25, -1},
		// NaN is unequal to and unordered with everything.
		{math.NaN(), math.NaN(), 2},
		{math.NaN(), 1.0, 2},
		{int64(0), math.NaN(), 2},
		{math.NaN(), uint64(0), 2},
	}
	for _, tt := range tests {
		ka, a := Of(tt.a)
		kb, b := Of(tt.b)
		if got := Compare(ka, a, kb, b); got != tt.want {
			t.Errorf("Compare(%T(%v), %T(%v)) = %d, want %d", tt.a, tt.a, tt.b, tt.b, got, tt.want)
		}
	}
}

func TestOf(t *testing.T) {
	tests := []struct {
		v    any
		kind Kind
		bits uint64
	}{
		{int64(-1), Int, math.MaxUint64},
		{uint64(5), Uint, 5},
		{1.0, Float, math.Float64bits(1)},
		{nil, Invalid, 0},
		{int(1), Invalid, 0},
		{"1", Invalid, 0},
	}
	for _, tt := range tests {
		if k, b := Of(tt.v); k != tt.kind || b != tt.bits {
			t.Errorf("Of(%T(%v)) = %d, %#x; want %d, %#x", tt.v, tt.v, k, b, tt.kind, tt.bits)
		}
	}
}
