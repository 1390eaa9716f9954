package generator

import "slices"

// A pick is a candidate: a combination of literals of one scope.
type pick struct {
	rank  int
	hash  uint64
	scope int32
	idx   [MaxLiterals]int32
}

// less orders picks by rank, then hash, then scope and literals: a total
// order, so that which picks are kept does not depend on the order in
// which they are offered.
func (a *pick) less(b *pick) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.hash != b.hash {
		return a.hash < b.hash
	}
	if a.scope != b.scope {
		return a.scope < b.scope
	}
	return slices.Compare(a.idx[:], b.idx[:]) < 0
}

// A pickHeap is a max-heap of picks under less: its root is the worst
// pick kept, the one a better candidate replaces. A hand-written heap of
// values is faster here than container/heap, whose interface calls cost
// about 15% on the offers of a capped class.
type pickHeap []pick

// push adds p.
func (h *pickHeap) push(p pick) {
	*h = append(*h, p)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s[parent].less(&s[i]) {
			break
		}
		s[parent], s[i] = s[i], s[parent]
		i = parent
	}
}

// replaceMax replaces the root with p, which must not be empty, and
// restores the heap order.
func (h pickHeap) replaceMax(p pick) {
	h[0] = p
	for i := 0; ; {
		l, r, big := 2*i+1, 2*i+2, i
		if l < len(h) && h[big].less(&h[l]) {
			big = l
		}
		if r < len(h) && h[big].less(&h[r]) {
			big = r
		}
		if big == i {
			break
		}
		h[i], h[big] = h[big], h[i]
		i = big
	}
}
