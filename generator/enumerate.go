package generator

import (
	"math/bits"

	"github.com/augur-dev/augur/internal/bitset"
)

// buildSets builds the bitsets over the literals that each walks: all
// literals, the set(x) ones and the literals covering each set of
// variables. The pairs that may share a disjunction are tabled by
// buildCompat when each first needs them.
func (s *scope) buildSets() {
	n := len(s.lits)
	w := bitset.Words(n)
	s.words = w
	s.all = make([]uint64, w)
	s.setLits = make([]uint64, w)
	for i, l := range s.lits {
		bitset.Set(s.all, i)
		if l.set {
			bitset.Set(s.setLits, i)
		}
	}
	s.cover = make([][]uint64, int(s.full)+1)
	for r := range s.cover {
		s.cover[r] = make([]uint64, w)
		for i, l := range s.lits {
			if l.vars&uint8(r) == uint8(r) {
				bitset.Set(s.cover[r], i)
			}
		}
	}
}

// compatible reports whether the literals i < j may share a disjunction:
// they are not redundant together and the theory allows it.
func (s *scope) compatible(i, j int) bool {
	pair := [2]int32{int32(i), int32(j)}
	return !redundant(s.lits[i].sign, s.lits[j].sign) && s.theoryOK(pair[:], 2)
}

// pairOK reports whether the literals i < j may share a disjunction, from
// the table once buildCompat has built it.
func (s *scope) pairOK(i, j int) bool {
	if s.compat == nil {
		return s.compatible(i, j)
	}
	return bitset.Has(s.compatRow(i), j)
}

// buildCompat tables compatible over all pairs of literals, once: each
// walks its rows. The table costs the square of the literals in time and
// bits, so it is built only for a class enumerated whole, whose
// combinations the budget bounds; check, for a class sampled, asks
// compatible of the pairs it draws. Built up front, it took a scope of
// the 10,000 one-integer variables of a spec init'ed trace more than
// 400 s before anything was sampled.
func (s *scope) buildCompat() {
	if s.compat != nil {
		return
	}
	n, w := len(s.lits), s.words
	s.compat = make([]uint64, n*w)
	for i := range n {
		for j := i + 1; j < n; j++ {
			if s.compatible(i, j) {
				bitset.Set(s.compatRow(i), j)
				bitset.Set(s.compatRow(j), i)
			}
		}
	}
}

// compatRow returns the literals that may share a disjunction with
// literal i.
func (s *scope) compatRow(i int) []uint64 {
	return s.compat[i*s.words : (i+1)*s.words]
}

// each calls fn with the literal indexes, increasing, of every candidate
// disjunction of m literals of s: no two literals redundant together,
// every variable used, and the representative of its class under node
// renaming. fn must not keep idx.
func (s *scope) each(m int, fn func(idx []int32)) {
	w := s.words
	if w == 0 || m > len(s.lits) {
		return
	}
	if m > 1 {
		s.buildCompat()
	}
	allowed := make([]uint64, m*w)
	copy(allowed, s.all)
	if m > MaxSetLiterals {
		for i := range w {
			allowed[i] &^= s.setLits[i]
		}
	}
	idx := make([]int32, m)
	var rec func(d, from int, used uint8)
	rec = func(d, from int, used uint8) {
		cur := allowed[d*w : (d+1)*w]
		last := d == m-1
		var need []uint64
		if last {
			need = s.cover[s.full&^used]
		}
		// Leave room for the literals after this one.
		limit := len(s.lits) - (m - 1 - d)
		for wi := from >> 6; wi < w && wi<<6 < limit; wi++ {
			word := cur[wi]
			if wi == from>>6 {
				word &= ^uint64(0) << (from & 63)
			}
			if last {
				word &= need[wi]
			}
			for word != 0 {
				i := wi<<6 | bits.TrailingZeros64(word)
				word &= word - 1
				if i >= limit {
					break
				}
				idx[d] = int32(i)
				if last {
					if s.valid(idx) {
						fn(idx)
					}
					continue
				}
				next := allowed[(d+1)*w : (d+2)*w]
				row := s.compatRow(i)
				// Words below wi are never read again at depth d+1.
				for x := wi; x < w; x++ {
					next[x] = cur[x] & row[x]
				}
				rec(d+1, i+1, used|s.vars[i])
			}
		}
	}
	rec(0, 0, s.start)
}

// check reports whether the increasing literal indexes idx make a
// candidate: the test each applies, for a combination drawn at random.
func (s *scope) check(idx []int32) bool {
	used := s.start
	for a, i := range idx {
		if len(idx) > MaxSetLiterals && s.lits[i].set {
			return false
		}
		for _, j := range idx[a+1:] {
			if !s.pairOK(int(i), int(j)) {
				return false
			}
		}
		used |= s.vars[i]
	}
	return used == s.full && s.valid(idx)
}

// valid applies the rules each cannot express as a bitset: the enum
// count, node symmetry and, on three or more literals, the theory.
func (s *scope) valid(idx []int32) bool {
	if s.enumCheck && !s.enumOK(idx) {
		return false
	}
	return s.representative(idx) && (len(idx) < 3 || s.theoryOK(idx, 3))
}

// enumOK reports whether idx holds at most enumMax positive constants of
// each enum path: on non-null values, x == a or x == b or x == c on an
// enum of four values is x != d.
func (s *scope) enumOK(idx []int32) bool {
	for a, i := range idx {
		l := &s.lits[i]
		if l.enumPath < 0 {
			continue
		}
		n := 1
		for _, j := range idx[a+1:] {
			if s.lits[j].enumPath == l.enumPath {
				n++
			}
		}
		if n > l.enumMax {
			return false
		}
	}
	return true
}
