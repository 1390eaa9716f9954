package reporter

import (
	"strconv"
	"strings"
	"unicode"
)

// maxCheckName bounds the length of a check name derived from a
// property, which is cut at a word.
const maxCheckName = 48

// checkWords names the operators of the property language in a check
// name.
var checkWords = map[string]string{
	"<=": "le", "<": "lt", ">=": "ge", ">": "gt", "==": "eq", "!=": "ne",
}

// checkName derives a readable name from the text of a property: the
// words of its literals without the quantifiers and their variables,
// operators spelled (le, ne, …), lower case and joined by dashes, the
// literals by -or-. Past maxCheckName characters it keeps the literals
// that fit, or cuts the first at a word. forall n0 in nodes:
// n0.applied <= n0.commit is applied-le-commit.
func checkName(text string) string {
	toks := checkTokens(text)
	bound := map[string]bool{}
	lits := [][]string{nil}
	for i := 0; i < len(toks); i++ {
		switch t := toks[i]; {
		case t == "forall" || t == "exists":
			for i++; i < len(toks) && toks[i] != "in"; i++ {
				bound[toks[i]] = true
			}
		case t == "nodes" || t == "in" || bound[t]:
		case t == "or":
			lits = append(lits, nil)
		case checkWords[t] != "":
			lits[len(lits)-1] = append(lits[len(lits)-1], checkWords[t])
		default:
			if w := nameWord(t); w != "" {
				lits[len(lits)-1] = append(lits[len(lits)-1], w)
			}
		}
	}
	name := strings.Join(lits[0], "-")
	for len(name) > maxCheckName {
		i := strings.LastIndexByte(name[:maxCheckName+1], '-')
		if i < 0 {
			i = maxCheckName
		}
		name = name[:i]
	}
	for _, l := range lits[1:] {
		next := name + "-or-" + strings.Join(l, "-")
		if len(next) > maxCheckName {
			break
		}
		name = next
	}
	if name == "" {
		return "check"
	}
	return name
}

// checkTokens splits a property into identifiers, numbers, quoted
// strings and operators; other punctuation separates them.
func checkTokens(text string) []string {
	var toks []string
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(text) && text[j] != '"' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(text))
			if s, err := strconv.Unquote(text[i:j]); err == nil {
				toks = append(toks, s)
			}
			i = j
		case strings.IndexByte("<>=!", c) >= 0:
			j := i + 1
			if j < len(text) && text[j] == '=' {
				j++
			}
			toks = append(toks, text[i:j])
			i = j
		case c == '_' || isAlnum(rune(c)):
			j := i + 1
			for j < len(text) && (text[j] == '_' || isAlnum(rune(text[j]))) {
				j++
			}
			toks = append(toks, text[i:j])
			i = j
		default:
			i++
		}
	}
	return toks
}

func isAlnum(r rune) bool { return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// nameWord returns the letters and digits of w in lower case, each run
// of other characters a dash between them.
func nameWord(w string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(w), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}), "-")
}
