// Package bitset has the word-at-a-time helpers of the fast evaluator: sets
// of bits stored in []uint64, bit i in word i/64 at position i%64.
package bitset

// Words returns the number of words that hold n bits.
func Words(n int) int { return (n + 63) >> 6 }

// Tail returns the mask of the valid bits of the last word of an n-bit
// set: all ones when n is a multiple of 64. Callers AND it into the last
// word before counting, since a negation leaves ones past n.
func Tail(n int) uint64 {
	if n&63 == 0 {
		return ^uint64(0)
	}
	return 1<<(uint(n)&63) - 1
}

// Set sets bit i.
func Set(w []uint64, i int) { w[i>>6] |= 1 << (uint(i) & 63) }

// Has reports whether bit i is set.
func Has(w []uint64, i int) bool { return w[i>>6]&(1<<(uint(i)&63)) != 0 }
