package grammar

import (
	"os"
	"strings"
	"testing"
)

// TestDocGrammar checks that the EBNF of docs/properties.md names every
// keyword, Unicode symbol and operator the scanner knows, so that the
// reference cannot fall behind the parser. (The examples of the page are
// parsed by the tests of package docs.)
func TestDocGrammar(t *testing.T) {
	b, err := os.ReadFile("../docs/properties.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```ebnf\n")
	ebnf, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/properties.md has no ebnf block")
	}
	quoted := func(s string) bool { return strings.Contains(ebnf, `"`+s+`"`) }
	for kw := range keywords {
		if !quoted(kw) {
			t.Errorf("the EBNF of docs/properties.md lacks the keyword %q", kw)
		}
	}
	for r := range symbols {
		if !quoted(string(r)) {
			t.Errorf("the EBNF of docs/properties.md lacks the symbol %q", r)
		}
	}
	for tok := tokComma; tok < tokForall; tok++ {
		if !strings.Contains(ebnf, tok.String()) {
			t.Errorf("the EBNF of docs/properties.md lacks the token %s", tok)
		}
	}
}
