package generator

import (
	"slices"

	"gonum.org/v1/gonum/stat/combin"
)

// Node variables range over distinct nodes, so renaming them gives an
// equivalent property. Of each class of renamings the generator keeps the
// representative: the one whose literal indexes, sorted, come first
// lexicographically (literals are numbered in text order).

// buildPerms computes, for each permutation of the node variables other
// than the identity (fixing n0 when there is an iterator, whose domain is
// on n0), the literal each literal is renamed to. ntmpl is the number of
// node paths per node variable: node path v*ntmpl+t is template t on
// variable v.
func (s *scope) buildPerms(ntmpl int) {
	first := 0
	if s.iter != nil {
		first = 1
	}
	free := s.nodes - first
	if free < 2 {
		return
	}
	index := make(map[string]int32, len(s.lits))
	for i, l := range s.lits {
		index[l.text] = int32(i)
	}
	for _, perm := range combin.Permutations(free, free) {
		sigma := make([]int, s.nodes)
		identity := true
		for v := range s.nodes {
			sigma[v] = v
			if v >= first {
				sigma[v] = first + perm[v-first]
			}
			identity = identity && sigma[v] == v
		}
		if identity {
			continue
		}
		mapPath := func(p int) int {
			if p >= s.nodes*ntmpl {
				return p // an iterator path
			}
			return sigma[p/ntmpl]*ntmpl + p%ntmpl
		}
		m := make([]int32, len(s.lits))
		for i, l := range s.lits {
			a := *l.sign.a
			a.args = make([]int, len(a.args))
			for j, p := range l.sign.a.args {
				a.args[j] = mapPath(p)
			}
			text := s.canonical(a.literal(s.paths, l.sign.neg)).String()
			j, ok := index[text]
			if !ok {
				panic("generator: literals not closed under node renaming: " + text)
			}
			m[i] = j
		}
		s.perms = append(s.perms, m)
	}
}

// representative reports whether the increasing literal indexes idx are
// the representative of their class under node renaming: no renaming
// gives indexes that, sorted, come first.
func (s *scope) representative(idx []int32) bool {
	var buf [MaxLiterals]int32
	for _, p := range s.perms {
		mapped := buf[:len(idx)]
		for j, i := range idx {
			mapped[j] = p[i]
		}
		insertionSort(mapped)
		if slices.Compare(mapped, idx) < 0 {
			return false
		}
	}
	return true
}

// insertionSort sorts x in place: the fastest sort for a handful of
// literal indexes, with no allocation.
func insertionSort(x []int32) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}
