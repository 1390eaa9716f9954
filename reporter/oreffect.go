package reporter

import (
	"cmp"
	"slices"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
)

// An OrEffectTest is one test the or-effect step made of a disjunction P:
// against a sub-disjunction Q that is itself a candidate (does R, P's
// other literals, explain Q's violations?), or, when P has none, of a
// split of its literals into two groups (are their truth values
// independent?).
type OrEffectTest struct {
	// Sub is the text of the sub-disjunction Q; "" for a split test.
	Sub string `json:"sub,omitempty"`
	// Split names the literals of the first group of a split test, by
	// their position in P's text from 0.
	Split []int `json:"split,omitempty"`
	// Table counts P's bindings: for a sub-disjunction, [Q violated][R
	// holds]; for a split, [first group holds][second group holds].
	Table [2][2]int64 `json:"table"`
	// PValue is the one-sided p-value of "R does not hold more often at
	// Q's violations" (sub-disjunction), or the two-sided p-value of
	// independence (split); Level is what it was compared with.
	PValue float64 `json:"p_value"`
	Level  float64 `json:"level"`
	// OddsRatio is the sub-disjunction table's odds ratio, with half a
	// binding added to each cell so that an empty cell gives a finite
	// ratio.
	OddsRatio float64 `json:"odds_ratio,omitempty"`
	// Passed says that R explains Q's violations, or that the groups are
	// dependent: P is no or-effect by this test.
	Passed bool `json:"passed"`
	// Negates names, for a passed test against Q, a literal of Q and one
	// of R, by their position in P's text from 0, that are each other's
	// negation at every binding of the run (n0.state != "holding" and
	// n0.holding, when holding is true exactly in that state): R then
	// holds at Q's violations because it restates them, and P, kept, is
	// not listed as explaining Q (Entry.ExplainedBy).
	Negates []int `json:"negates,omitempty"`
	// SubLeftOut says that Q does not stand out: violated through a
	// large share of the run, it is not listed itself (augur infer --all
	// lists it), so a P dropped as its or-effect shows in no list.
	SubLeftOut bool `json:"sub_left_out,omitempty"`
}

// orEffect marks the candidates that hold only by OR-ing and returns how
// many it dropped. cands are in rank order; holdRatio says which stand
// out (OrEffectTest.SubLeftOut). Candidates are decided from
// the fewest literals up, so that a disjunction is dropped in favour of a
// sub-disjunction only when that one stays. Each candidate keeps the
// tests made of it (Entry.orTests), for augur explain.
func orEffect(cands []*Entry, alpha, minOddsRatio, holdRatio float64) int {
	// A sub-disjunction has fewer literals than the disjunction it is
	// taken from (canonical properties have no literal twice), so only
	// the candidates shorter than the longest one tested are looked up by
	// text: most candidates are of the longest kind, and their texts are
	// never worked out.
	longest := 0
	for _, e := range cands {
		if e.prop.Literals() >= 2 && testable(e) {
			longest = max(longest, e.prop.Literals())
		}
	}
	bySym := map[string]*Entry{}
	for _, e := range cands {
		if e.prop.Literals() < longest {
			if _, ok := bySym[e.symText()]; !ok {
				bySym[e.symText()] = e
			}
		}
	}
	// The sub-disjunctions of each candidate among the candidates, found
	// once: their texts are what costs. Many candidates share one
	// (generated properties of one scope share their quantifiers and
	// literals), so each text is worked out once.
	type sub struct {
		q    *Entry
		mask int
	}
	subsOf := make(map[*Entry][]sub, len(cands))
	texts := subTexts{}
	tests := 0
	for _, e := range cands {
		n := e.prop.Literals()
		if n < 2 || !testable(e) {
			continue
		}
		var ss []sub
		for mask := 1; mask < 1<<n-1; mask++ {
			if q, ok := bySym[texts.text(e.prop.Property, mask)]; ok && q != e {
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
			t := explains(subTable(e.stats, e.prop.Literals(), mask), level, minOddsRatio)
			t.Sub, t.SubLeftOut = q.Text, !standsOut(q, holdRatio)
			if t.Passed {
				explained = true
				if i, j, ok := negating(e.stats, e.prop.Literals(), mask); ok {
					t.Negates = []int{i, j}
				} else if !slices.Contains(q.ExplainedBy, e.Text) {
					q.ExplainedBy = append(q.ExplainedBy, e.Text)
				}
			}
			e.orTests = append(e.orTests, t)
		})
		switch {
		case hasSub:
			e.drop = !explained
		case e.prop.Literals() >= 2 && testable(e):
			var t OrEffectTest
			e.drop, t = independentSplit(e.stats, e.prop.Literals(), alpha)
			e.orTests = append(e.orTests, t)
		}
		if e.drop {
			dropped++
		}
	}
	return dropped
}

// negating returns a literal of P's in mask (Q) and one outside it (R),
// by position, that are each other's negation at every binding of the
// run: no pattern of P's n literals has both true or both false. R then
// holds wherever Q fails through that literal, not because it explains
// anything (a flag restating a state: holding and state == "holding"),
// though P, the equivalence of the two facts, may be an invariant worth
// keeping.
func negating(st *evaluator.Stats, n, mask int) (i, j int, ok bool) {
	for i := range n {
		if mask&(1<<i) == 0 {
			continue
		}
		for j := range n {
			if mask&(1<<j) != 0 {
				continue
			}
			var same int64
			for pat := range 1 << n {
				if pat>>i&1 == pat>>j&1 {
					same += st.Patterns[pat]
				}
			}
			if same == 0 && st.Bindings > 0 {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// subTexts caches the symmetric texts of the sub-disjunctions of
// disjunctions of at most evaluator.MaxPatternLiterals literals, by what
// they are made of, by identity: the property's quantifiers (their
// slice: where it starts, and its length) and the literals taken, in
// order. The properties of one generated scope share both, and a
// property is never changed once compiled.
type subTexts map[subKey]string

type subKey struct {
	quants **grammar.Quantifier
	nq     int
	lits   [evaluator.MaxPatternLiterals]*grammar.Literal
}

// text returns the symmetric text of the sub-disjunction of p of the
// literals in mask (subProperty).
func (c subTexts) text(p *grammar.Property, mask int) string {
	var k subKey
	if len(p.Matrix) > len(k.lits) { // longer than any the cache holds
		return subProperty(p, mask).SymmetricText()
	}
	k.nq = len(p.Quants)
	if len(p.Quants) > 0 {
		k.quants = &p.Quants[0]
	}
	j := 0
	for i, l := range p.Matrix {
		if mask&(1<<i) != 0 {
			k.lits[j] = l
			j++
		}
	}
	t, ok := c[k]
	if !ok {
		t = subProperty(p, mask).SymmetricText()
		c[k] = t
	}
	return t
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

// explains tests whether R explains Q's violations: R holds at them far
// beyond chance (one-sided, at level) and the odds ratio of the table is
// at least minOddsRatio. The odds ratio reads both sides of the table: R
// holding at Q's violations more often than elsewhere, and R's failing
// side excluding Q's violations, as the usually-true guard of an
// implication does.
func explains(t table, level, minOddsRatio float64) OrEffectTest {
	res := OrEffectTest{Table: t.counts(), Level: level, PValue: 1}
	viol := t[1][0] + t[1][1]
	rest := t[0][0] + t[0][1]
	if viol == 0 || rest == 0 {
		return res
	}
	res.PValue = association(t)
	res.OddsRatio = oddsRatio(t)
	res.Passed = res.PValue < level && res.OddsRatio >= minOddsRatio
	return res
}

// oddsRatio returns the odds ratio of t, t[1][1]·t[0][0] over
// t[1][0]·t[0][1], with half a count added to each cell (Haldane's
// correction), so that an empty cell gives a large but finite ratio.
func oddsRatio(t table) float64 {
	return (t[1][1] + 0.5) * (t[0][0] + 0.5) / ((t[1][0] + 0.5) * (t[0][1] + 0.5))
}

// independentSplit reports whether the literals split into two groups
// whose truth values look independent over the bindings, and the test of
// the first split that does (or of the last one tried). Unlike the
// sub-disjunction test, it takes alpha uncorrected, on purpose: here
// failing to reject independence is what drops the property, so a
// Bonferroni-corrected (smaller) level would drop more properties on
// weaker evidence, the opposite of what the correction is for.
func independentSplit(st *evaluator.Stats, n int, alpha float64) (bool, OrEffectTest) {
	all := 1<<n - 1
	var res OrEffectTest
	// Group A always holds literal 0, so each split is tried once.
	for a := 1; a < all; a += 2 {
		var t table
		for pat := range 1 << n {
			t[b2i(pat&a != 0)][b2i(pat&(all&^a) != 0)] += float64(st.Patterns[pat])
		}
		p := independence(t)
		res = OrEffectTest{Split: literalsIn(a, n), Table: t.counts(), PValue: p, Level: alpha, Passed: p < alpha}
		if !res.Passed {
			return true, res
		}
	}
	return false, res
}

// literalsIn returns the positions of the literals in mask, of n.
func literalsIn(mask, n int) []int {
	var out []int
	for i := range n {
		if mask&(1<<i) != 0 {
			out = append(out, i)
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
