package reporter

import (
	"testing"

	"github.com/augur-dev/augur/grammar"
)

// TestPatternProperties checks each pattern property against its
// definition, the negations of the mask's literals under the property's
// quantifiers, for one to four literals, and that the properties stay
// apart: growing one's matrix leaves the others as they were.
func TestPatternProperties(t *testing.T) {
	lits := []string{"n0.applied <= n1.commit", "n1.term <= n1.commit", "n0.id == n1.id", `n0.state != "leader"`}
	for k := 1; k <= len(lits); k++ {
		src := "forall n0, n1 in nodes: " + lits[0]
		for _, l := range lits[1:k] {
			src += " or " + l
		}
		p, err := grammar.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int]string{}
		for mask := 1; mask < 1<<k-1; mask++ {
			q := &grammar.Property{Quants: p.Quants}
			for l, lit := range p.Matrix {
				if mask&(1<<l) != 0 {
					q.Matrix = append(q.Matrix, &grammar.Literal{Neg: !lit.Neg, Atom: lit.Atom})
				}
			}
			want[mask] = q.Text()
		}
		got := map[int]*grammar.Property{}
		for mask, q := range PatternProperties(p) {
			got[mask] = q
		}
		for _, q := range got {
			q.Matrix = append(q.Matrix, p.Matrix[0]) // must not reach another's matrix
		}
		for mask, q := range got {
			if q.Matrix = q.Matrix[:len(q.Matrix)-1]; q.Text() != want[mask] {
				t.Errorf("%s: pattern property %b = %s, want %s", src, mask, q.Text(), want[mask])
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d pattern properties, want %d", src, len(got), len(want))
		}
	}
}
