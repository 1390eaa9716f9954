package generator

import (
	"math/bits"
	"slices"

	"github.com/augur-dev/augur/internal/bitset"
)

// A selector keeps the candidates of a class that survive the cap: the
// n smallest by (rank, hash), in a max-heap. The rank prefers few loose
// set(x) literals, then few distinct state variables; among candidates of equal
// rank the hash of the literal texts makes a deterministic, evenly spread
// choice that does not lean towards the start of the alphabet and that
// stays put when the spec gains a variable.
type selector struct {
	n     int // the cap, at least 1
	total int // candidates offered
	heap  pickHeap
}

// offer counts a candidate and keeps it if it is among the n best so far.
func (sl *selector) offer(s *scope, si int, idx []int32) {
	sl.total++
	r := s.rank(idx)
	full := len(sl.heap) >= sl.n
	if full && r > sl.heap[0].rank {
		return // the common case once the heap is full
	}
	p := pick{rank: r, hash: s.hash(idx), scope: int32(si)}
	copy(p.idx[:], idx)
	switch {
	case !full:
		sl.heap.push(p)
	case p.less(&sl.heap[0]):
		sl.heap.replaceMax(p)
	}
}

// rank orders the candidates for the cap, lower first: by their number
// of loose set(x) literals, then by focus. Nullness facts are cheap to
// state and rarely the point of a longer disjunction; a focused
// disjunction, about few state variables, is more often a telling one
// than a disjunction of unrelated facts. A not set(x) about a path x
// that another literal (no set(y)) reads guards it, and is not loose:
// n0.owned != n1.owned or not set(n0.owned), no two consumers own one
// message, is the point of its class (a blind user's queue lost it to
// the cap, behind 50,000 disjunctions of two variables).
func (s *scope) rank(idx []int32) int {
	sets := 0
	for k, i := range idx {
		if bitset.Has(s.setLits, int(i)) && !(s.lits[i].sign.neg && s.guards(idx, k)) {
			sets++
		}
	}
	return sets<<16 | s.focus(idx)
}

// guards reports whether the paths of the literal idx[k] are all read
// by literals of idx that are no set(x): not set(x) then excuses the
// others where x is null, and they say what holds of x wherever it is
// set.
func (s *scope) guards(idx []int32, k int) bool {
	for _, p := range s.lits[idx[k]].paths {
		if !slices.ContainsFunc(idx, func(i int32) bool { return !s.lits[i].set && slices.Contains(s.lits[i].paths, p) }) {
			return false
		}
	}
	return true
}

// focus returns the number of distinct variable-free path names in idx:
// the number of state variables (and fields) the disjunction talks about.
func (s *scope) focus(idx []int32) int {
	if s.fewNames {
		var m uint64
		for _, i := range idx {
			m |= s.nameMasks[i]
		}
		return bits.OnesCount64(m)
	}
	var buf [4 * MaxLiterals]int32
	seen := buf[:0]
	for _, i := range idx {
		for _, n := range s.lits[i].names {
			if !slices.Contains(seen, n) {
				seen = append(seen, n)
			}
		}
	}
	return len(seen)
}

// hash returns a hash of the texts of the literals idx (and of the
// scope's prefix), independent of how the literals are numbered.
func (s *scope) hash(idx []int32) uint64 {
	h := s.prefixHash
	for _, i := range idx {
		h = mix(h ^ s.textHash[i])
	}
	return h
}

// textHash is FNV-1a, mixed.
func textHash(text string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(text) {
		h ^= uint64(text[i])
		h *= 1099511628211
	}
	return mix(h)
}

// mix is the finalizer of SplitMix64.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
