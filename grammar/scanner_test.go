package grammar

import (
	"strings"
	"testing"
)

var scanTests = []struct {
	in   string
	want string // the tokens, and then the code of an error
}{
	{"", "end of input"},
	{"forall∀ exists∃ in∈ or∨ not¬ subset⊆", `"forall" "forall" "exists" "exists" "in" "in" "or" "or" "not" "not" "subset" "subset" end of input`},
	{"== != ≠ < <= ≤ > >= ≥", `"==" "!=" "!=" "<" "<=" "<=" ">" ">=" ">=" end of input`},
	{"(,):", `"(" "," ")" ":" end of input`},
	{"nodes empty set true false", `"nodes" "empty" "set" "true" "false" end of input`},
	{"x n0.log e.in _a.b_2 inx", "name name name name name end of input"},
	{"0 -12 1.5 -1e3 2E+4 3.0e-1", "integer integer float float float float end of input"},
	{`"" "a\"b" "é"`, "string string string end of input"},
	{"x<-1", `name "<" integer end of input`},
	{"x.", "name illegal token: illegal character"},
	{"1x", "illegal token: invalid number"},
	{`"a`, "illegal token: unterminated string"},
	{"=", "illegal token: illegal character"},
	{"\x00", "illegal token: illegal character"},
	{"∧", "illegal token: illegal character"},
}

func TestScan(t *testing.T) {
	for _, tt := range scanTests {
		s := scanner{src: tt.in}
		var toks []string
		for {
			tok, _, _ := s.scan()
			if tok == tokIllegal {
				toks = append(toks, tok.String()+": "+string(s.code))
				break
			}
			toks = append(toks, tok.String())
			if tok == tokEOF {
				break
			}
		}
		if got := strings.Join(toks, " "); got != tt.want {
			t.Errorf("scan(%q):\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}
