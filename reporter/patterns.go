package reporter

import (
	"fmt"
	"iter"
	"math/bits"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
)

// The or-effect tests read, for a flat disjunction P = L1 or … or Lk,
// how many of P's bindings have each pattern of literal truth values
// (evaluator.Stats.Patterns). The evaluator's first pass over the whole
// pool does not count them; they follow from the violations of P's
// pattern properties, which a second pass over the few candidates
// counts (pipeline).

// PatternProperties yields, for each proper nonempty subset S of p's
// literals (as a mask, bit i for literal i), the pattern property of S:
// the disjunction of the negations of S's literals, under p's
// quantifiers. It fails exactly at the bindings of p where every literal
// of S holds.
func PatternProperties(p *grammar.Property) iter.Seq2[int, *grammar.Property] {
	return func(yield func(int, *grammar.Property) bool) {
		k := len(p.Matrix)
		if k < 2 {
			return
		}
		// The properties share the negated literals, and are allocated
		// together, as are their matrices (k·2^(k-1) - k literals in all):
		// the pipeline takes them for every candidate.
		neg := make([]grammar.Literal, k)
		for l, lit := range p.Matrix {
			neg[l] = grammar.Literal{Neg: !lit.Neg, Atom: lit.Atom}
		}
		props := make([]grammar.Property, 1<<k-2)
		lits := make([]*grammar.Literal, 0, k<<(k-1)-k)
		for mask := 1; mask < 1<<k-1; mask++ {
			from := len(lits)
			for l := range neg {
				if mask&(1<<l) != 0 {
					lits = append(lits, &neg[l])
				}
			}
			q := &props[mask-1]
			q.Quants, q.Matrix = p.Quants, lits[from:len(lits):len(lits)]
			if !yield(mask, q) {
				return
			}
		}
	}
}

// Patterns returns the literal patterns of a flat disjunction of k
// literals with stats st, from sub(mask), the stats of its pattern
// property of each mask (PatternProperties) over the same snapshots.
//
// By inclusion and exclusion: x[S], the bindings at which every literal
// of S holds, is the violations of S's pattern property for a proper
// subset, and st.Bindings for the empty one; the bindings where some
// literal holds, st.Bindings - st.Violations, are the alternating sum of
// x over the nonempty subsets, which gives x of the full set. Then, from
// "every literal of S holds" to "exactly the literals of S hold", a
// Möbius transform over each literal.
func Patterns(k int, st *evaluator.Stats, sub func(mask int) *evaluator.Stats) ([1 << evaluator.MaxPatternLiterals]int64, error) {
	var x [1 << evaluator.MaxPatternLiterals]int64
	full := 1<<k - 1
	x[0] = st.Bindings
	rest := st.Bindings - st.Violations
	for mask := 1; mask < full; mask++ {
		s := sub(mask)
		if s.Support != st.Support || s.Bindings != st.Bindings {
			return x, fmt.Errorf("a pattern property has %d bindings in %d snapshots, the property %d in %d", s.Bindings, s.Support, st.Bindings, st.Support)
		}
		x[mask] = s.Violations
		if bits.OnesCount(uint(mask))%2 == 1 {
			rest -= x[mask]
		} else {
			rest += x[mask]
		}
	}
	x[full] = rest
	if k%2 == 0 {
		x[full] = -rest
	}
	for l := range k {
		for set := range 1 << k {
			if set&(1<<l) == 0 {
				x[set] -= x[set|1<<l]
			}
		}
	}
	return x, nil
}
