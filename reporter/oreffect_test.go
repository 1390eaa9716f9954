package reporter

import (
	"testing"

	"github.com/augur-dev/augur/grammar"
)

// TestSubTexts checks the cached texts of sub-disjunctions against
// working each out, over properties that share their quantifiers and
// literals as a generated scope's do, and properties that do not: the
// same literals under other quantifiers, or the same quantifiers,
// renamed, over other literals.
func TestSubTexts(t *testing.T) {
	parse := func(src string) *grammar.Property {
		t.Helper()
		p, err := grammar.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	two := parse("forall n0, n1 in nodes: n0.applied <= n1.commit or n1.term <= n1.commit or n0.id == n1.id")
	one := parse("forall n0 in nodes: n0.applied <= n0.commit or n0.term <= n0.commit")
	lits := two.Matrix
	props := []*grammar.Property{
		two,
		{Quants: two.Quants, Matrix: []*grammar.Literal{lits[1], lits[0], lits[2]}},
		{Quants: two.Quants, Matrix: []*grammar.Literal{lits[2], lits[1]}},
		{Quants: one.Quants, Matrix: []*grammar.Literal{one.Matrix[0], lits[1]}}, // n1 unbound: a text of its own
		one,
		parse("forall n1, n0 in nodes: n0.applied <= n1.commit or n1.term <= n1.commit"),
		// Longer than the cache holds: worked out each time.
		parse("forall n0, n1 in nodes: n0.applied <= n1.commit or n1.term <= n1.commit or n0.id == n1.id or n0.term <= n1.term or n0.applied <= n0.term or n1.applied <= n0.term"),
	}
	texts := subTexts{}
	for range 2 { // the second round reads the cache
		for _, p := range props {
			for mask := 1; mask < 1<<len(p.Matrix)-1; mask++ {
				want := subProperty(p, mask).SymmetricText()
				if got := texts.text(p, mask); got != want {
					t.Errorf("sub-disjunction %b of %s = %q, want %q", mask, p.Text(), got, want)
				}
			}
		}
	}
}
