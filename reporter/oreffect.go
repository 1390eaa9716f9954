package reporter

import (
	"cmp"
	"slices"

	"github.com/augur-dev/augur/evaluator"
)

// orEffect marks the candidates that hold only by OR-ing and returns how
// many it dropped. cands are in rank order. Candidates are decided from
// the fewest literals up, so that a disjunction is dropped in favour of a
// sub-disjunction only when that one stays.
func orEffect(cands []*Entry, alpha, minLift float64) int {
	bySym := make(map[string]*Entry, len(cands))
	for _, e := range cands {
		if _, ok := bySym[e.sym]; !ok {
			bySym[e.sym] = e
		}
	}
	// The sub-disjunctions of each candidate among the candidates, found
	// once: their texts are what costs.
	type sub struct {
		q    *Entry
		mask int
	}
	subsOf := make(map[*Entry][]sub, len(cands))
	tests := 0
	for _, e := range cands {
		n := e.prop.Literals()
		if n < 2 || !testable(e) {
			continue
		}
		var ss []sub
		for mask := 1; mask < 1<<n-1; mask++ {
			if q, ok := bySym[symmetricText(subProperty(e.prop.Property, mask))]; ok && q != e {
				ss = append(ss, sub{q, mask})
			}
		}
		subsOf[e] = ss
		// The number of sub-disjunction tests corrects the significance level.
		tests += len(ss)
	}
	subs := func(e *Entry, yield func(q *Entry, mask int)) {
		for _, s := range subsOf[e] {
			yield(s.q, s.mask)
		}
	}
	level := alpha / float64(max(tests, 1))

	order := slices.Clone(cands)
	slices.SortStableFunc(order, func(a, b *Entry) int { return cmp.Compare(a.prop.Literals(), b.prop.Literals()) })
	dropped := 0
	for _, e := range order {
		hasSub, explained := false, false
		subs(e, func(q *Entry, mask int) {
			if q.drop {
				return
			}
			hasSub = true
			if explains(subTable(e.stats, e.prop.Literals(), mask), level, minLift) {
				explained = true
				if !slices.Contains(q.ExplainedBy, e.Text) {
					q.ExplainedBy = append(q.ExplainedBy, e.Text)
				}
			}
		})
		switch {
		case hasSub:
			e.drop = !explained
		case e.prop.Literals() >= 2 && testable(e):
			e.drop = independentSplit(e.stats, e.prop.Literals(), alpha)
		}
		if e.drop {
			dropped++
		}
	}
	return dropped
}

// testable reports whether the or-effect tests can judge e: the evaluator
// counts literal patterns only for flat disjunctions of at most
// evaluator.MaxPatternLiterals literals.
func testable(e *Entry) bool { return patterned(e.prop) }

func patterned(p *evaluator.Prop) bool {
	return p.Flat() && p.Literals() <= evaluator.MaxPatternLiterals
}

// subTable returns the table of "Q violated" (rows) against "R holds"
// (columns) over P's bindings, where Q is the literals in mask and R the
// others.
func subTable(st *evaluator.Stats, n, mask int) table {
	var t table
	for pat := range 1 << n {
		qViolated := b2i(pat&mask == 0)
		rHolds := b2i(pat&^mask != 0)
		t[qViolated][rHolds] += float64(st.Patterns[pat])
	}
	return t
}

// explains reports whether R holds at Q's violations far beyond chance.
func explains(t table, level, minLift float64) bool {
	viol := t[1][0] + t[1][1]
	rest := t[0][0] + t[0][1]
	if viol == 0 || rest == 0 {
		return false
	}
	inViol, elsewhere := t[1][1]/viol, t[0][1]/rest
	return inViol >= minLift*elsewhere && association(t) < level
}

// independentSplit reports whether the literals split into two groups
// whose truth values look independent over the bindings. Unlike the
// sub-disjunction test, it takes alpha uncorrected, on purpose: here
// failing to reject independence is what drops the property, so a
// Bonferroni-corrected (smaller) level would drop more properties on
// weaker evidence, the opposite of what the correction is for.
func independentSplit(st *evaluator.Stats, n int, alpha float64) bool {
	all := 1<<n - 1
	// Group A always holds literal 0, so each split is tried once.
	for a := 1; a < all; a += 2 {
		var t table
		for pat := range 1 << n {
			t[b2i(pat&a != 0)][b2i(pat&(all&^a) != 0)] += float64(st.Patterns[pat])
		}
		if independence(t) >= alpha {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
