package evaluator

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMomentLog checks that a momentLog gives back the IDs added, one by
// one or a run's at a time, whatever the gaps between them (the first ID
// 0, stretches of consecutive IDs of every length, gaps of one byte and
// more, IDs near 2^64), and that a stretch takes a few bytes whatever its
// length.
func TestMomentLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		var ids []uint64
		id := uint64(rng.IntN(3)) // the first may be 0
		if trial%50 == 49 {
			id = math.MaxUint64 - 5000
		}
		for range rng.IntN(400) {
			ids = append(ids, id)
			switch r := rng.IntN(10); {
			case r < 6:
				id++
			case r < 9:
				id += 2 + uint64(rng.IntN(200))
			default:
				id += 1 + uint64(rng.IntN(1<<12))
			}
			if id < ids[len(ids)-1] {
				break // past 2^64
			}
		}
		var one, runs momentLog
		for _, id := range ids {
			one.add(id)
		}
		for rest := ids; len(rest) > 0; {
			k := 1 + rng.IntN(min(len(rest), 40))
			runs.addAll(rest[:k])
			rest = rest[k:]
		}
		for _, l := range []*momentLog{&one, &runs} {
			if l.n != len(ids) {
				t.Fatalf("trial %d: %d IDs counted, %d added", trial, l.n, len(ids))
			}
			for _, max := range []int{0, 1, 2, len(ids) / 2, len(ids), len(ids) + 3} {
				if got, want := l.first(max), ids[:min(max, len(ids))]; !slices.Equal(got, want) && (len(got) > 0 || len(want) > 0) {
					t.Fatalf("trial %d: first(%d) = %v, want %v", trial, max, got, want)
				}
			}
		}
	}
	var l momentLog
	for id := range uint64(4096) {
		l.addAll([]uint64{1000 + 2*id, 1000 + 2*id + 1}[:1+int(id/2048)])
	}
	l.add(1 << 20)
	if len(l.buf) > 2048+8 {
		t.Errorf("2,048 IDs apart and a stretch of 4,096 take %d bytes, want at most %d", len(l.buf), 2048+8)
	}
}
