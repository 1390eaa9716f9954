package pipeline

import (
	"strings"
	"testing"

	"github.com/augur-dev/augur/reporter"
)

// TestFormatTestNamesLiterals checks that a split test and a negation
// name the literals they are about, where they had named positions
// ("split [0]") a blind user could not read.
func TestFormatTestNamesLiterals(t *testing.T) {
	lits := literalTexts(`forall n0, n1 in nodes: n0.role != "holding" or n1.role != "holding" or n0.token < n1.token`)
	tests := []struct {
		name string
		test reporter.OrEffectTest
		want string
	}{{
		name: "split",
		test: reporter.OrEffectTest{Split: []int{0}, Table: [2][2]int64{{46, 33508}, {33508, 227130}}, Level: 0.01, Passed: true},
		want: `whether n0.role != "holding" and (n1.role != "holding" or n0.token < n1.token) hold independently: of the bindings, both hold at 227130, only the first at 33508, only the second at 33508, neither at 46; p-value 0 at level 0.01: they do not: passed`,
	}, {
		name: "split of two",
		test: reporter.OrEffectTest{Split: []int{0, 2}, Table: [2][2]int64{{1, 2}, {3, 4}}, PValue: 0.5, Level: 0.01},
		want: `whether (n0.role != "holding" or n0.token < n1.token) and n1.role != "holding" hold independently: of the bindings, both hold at 4, only the first at 3, only the second at 2, neither at 1; p-value 0.5 at level 0.01: as far as the counts tell, they do: failed`,
	}, {
		name: "negation",
		test: reporter.OrEffectTest{Sub: "q", Table: [2][2]int64{{10, 5}, {0, 4}}, PValue: 0.001, Level: 0.01, OddsRatio: 9, Passed: true, Negates: []int{0, 2}},
		want: `against q: violated at 4 bindings, the rest holding at 4 of them; holding at 15, the rest at 5 of them; p-value 0.001 at level 0.01, odds ratio 9: passed, but n0.role != "holding" and n0.token < n1.token are each other's negation at every binding: the rest restates the violations, and it is not listed as explaining them`,
	}}
	for _, tt := range tests {
		if got := formatTest(tt.test, lits); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	// A property that does not parse (never, from the pool) leaves the
	// positions.
	for _, tt := range []struct {
		test reporter.OrEffectTest
		want string
	}{
		{reporter.OrEffectTest{Split: []int{0, 2}}, "whether literals 0, 2 and the other literals hold independently"},
		{reporter.OrEffectTest{Sub: "q", Table: [2][2]int64{{1, 1}, {0, 1}}, Negates: []int{0, 2}}, "but literal 0 and literal 2 are each other's negation"},
	} {
		if got := formatTest(tt.test, nil); !strings.Contains(got, tt.want) {
			t.Errorf("without the literals: %s\nwant %s", got, tt.want)
		}
	}
}

// TestWriteTextTestsAlike checks that or-effect tests reading alike word
// for word (against the two namings of a symmetric sub-property) make one
// line saying how many they are, where a blind user saw a line twice.
func TestWriteTextTestsAlike(t *testing.T) {
	sym := reporter.OrEffectTest{Sub: "forall n0, n1 in nodes: n0.gen != n1.gen or not n0.holding", Table: [2][2]int64{{55552, 764080}, {46, 0}}, PValue: 1, Level: 0.01, OddsRatio: 0.001}
	other := reporter.OrEffectTest{Sub: "forall n0, n1 in nodes: not n0.holding or not n1.holding", Table: [2][2]int64{{708574, 111012}, {46, 46}}, PValue: 1e-25, Level: 0.01, OddsRatio: 6.4, Passed: true}
	x := &Explanation{
		Property:      "forall n0, n1 in nodes: n0.gen != n1.gen or not n0.holding or not n1.holding",
		Generated:     true,
		OrEffectTests: []reporter.OrEffectTest{sym, sym, other},
	}
	var b strings.Builder
	if err := x.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lits := literalTexts(x.Property)
	if n := strings.Count(out, formatTest(sym, lits)); n != 1 {
		t.Errorf("the test against the symmetric sub-property is written %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "2 tests alike, the same up to the naming of nodes: "+formatTest(sym, lits)) {
		t.Errorf("no line says the two tests alike:\n%s", out)
	}
	if strings.Contains(out, "tests alike, the same up to the naming of nodes: "+formatTest(other, lits)) || !strings.Contains(out, formatTest(other, lits)) {
		t.Errorf("the other test's line:\n%s", out)
	}
}
