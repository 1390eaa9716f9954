package bitset

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

func TestAgainstBools(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + rng.IntN(300)
		w := make([]uint64, Words(n))
		want := make([]bool, n)
		for i := range n {
			if rng.IntN(3) == 0 {
				Set(w, i)
				want[i] = true
			}
		}
		count := 0
		for i := range n {
			if Has(w, i) != want[i] {
				t.Fatalf("n=%d: Has(%d) = %v", n, i, !want[i])
			}
			if want[i] {
				count++
			}
		}
		last := len(w) - 1
		w[last] |= ^Tail(n) // garbage past n, as a negation leaves
		got := 0
		for i, x := range w {
			if i == last {
				x &= Tail(n)
			}
			got += bits.OnesCount64(x)
		}
		if got != count {
			t.Fatalf("n=%d: %d bits under the tail mask, want %d", n, got, count)
		}
	}
}

func TestTail(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want uint64
	}{{0, ^uint64(0)}, {1, 1}, {63, 1<<63 - 1}, {64, ^uint64(0)}, {65, 1}} {
		if got := Tail(tt.n); got != tt.want {
			t.Errorf("Tail(%d) = %#x, want %#x", tt.n, got, tt.want)
		}
	}
}
