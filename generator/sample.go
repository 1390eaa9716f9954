package generator

import (
	"math"
	"math/bits"
	"slices"
)

// seed derives the sampling seed of a scope of a class, so that a run
// samples the same combinations whatever else the spec holds.
func seed(c Class, scope int) uint64 {
	return uint64(c.Nodes)<<48 ^ uint64(c.Iters)<<40 ^ uint64(c.Literals)<<32 ^ uint64(scope) ^ 0x9e3779b97f4a7c15
}

// sample visits up to n combinations of m literals of s, spread over all
// of them, and calls fn with those that make candidates. It returns the
// number of combinations visited.
//
// When the combinations can be counted in 62 bits, it visits distinct
// ones: the ranks b, b+a, b+2a, … modulo their number, with a coprime to
// it and near the golden section (a Weyl sequence, evenly spread), each
// turned into a combination in colexicographic order. Otherwise the
// combinations are drawn at random, with replacement: among so many,
// repeats are rare (and the caller drops them).
func (s *scope) sample(m, n int, seed uint64, fn func(idx []int32)) int {
	L := len(s.lits)
	idx := make([]int32, m)
	total := binomial(L, m)
	if total < 1<<62 {
		if total == 0 {
			return 0
		}
		a := uint64(float64(total)*0.6180339887498949) | 1
		for gcd(a, total) != 1 {
			a += 2
		}
		a %= total
		r := seed % total
		visits := min(uint64(n), total)
		binom := binomTable(L, m)
		for range visits {
			unrank(binom, r, idx)
			if s.check(idx) {
				fn(idx)
			}
			r = (r + a) % total
		}
		return int(visits)
	}
	rng := splitmix(seed)
	for range n {
		// Floyd's algorithm: m distinct values of [0, L).
		idx = idx[:0]
		for j := L - m; j < L; j++ {
			t := int32(rng.next() % uint64(j+1))
			if slices.Contains(idx, t) {
				t = int32(j)
			}
			idx = append(idx, t)
		}
		insertionSort(idx)
		if s.check(idx) {
			fn(idx)
		}
	}
	return n
}

// binomTable returns the table unrank reads for combinations of m of L:
// binom[i][c] = C(c, i+1) for c < L, increasing in c.
func binomTable(L, m int) [][]uint64 {
	binom := make([][]uint64, m)
	for i := range binom {
		binom[i] = make([]uint64, L)
		for c := range L {
			binom[i][c] = binomial(c, i+1)
		}
	}
	return binom
}

// unrank sets idx to the combination of rank r in colexicographic order:
// the one with r = C(idx[0], 1) + C(idx[1], 2) + … . binom[i][c] is
// C(c, i+1).
func unrank(binom [][]uint64, r uint64, idx []int32) {
	hi := len(binom[0]) // idx[i] < hi
	for i := len(idx) - 1; i >= 0; i-- {
		// The largest c < hi with C(c, i+1) <= r; C(i, i+1) = 0.
		row := binom[i][:hi]
		c, _ := slices.BinarySearch(row, r+1) // the first entry > r
		c--
		idx[i] = int32(c)
		r -= row[c]
		hi = c
	}
}

// binomial returns C(n, k), or math.MaxUint64 when it does not fit.
func binomial(n, k int) uint64 {
	if k < 0 || k > n {
		return 0
	}
	c := uint64(1)
	for j := range k {
		hi, lo := bits.Mul64(c, uint64(n-j))
		if hi != 0 {
			return math.MaxUint64
		}
		c = lo / uint64(j+1) // exact: c·(n-j) = C(n, j+1)·(j+1)
	}
	return c
}

// gcd returns the greatest common divisor of a and b.
func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// splitmix is the SplitMix64 generator: small, fast and the same on every
// platform and Go release.
type splitmix uint64

func (r *splitmix) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	return mix(uint64(*r))
}
