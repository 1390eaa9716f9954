package grammar

import (
	"strings"

	"github.com/augur-dev/augur/diag"
)

// Pos is a byte offset into the source text of a property.
// [Property.Position] resolves it to a file, line and column.
type Pos int

// NoPos stands for "no position".
const NoPos Pos = -1

// Position resolves pos to a position in the file p was parsed from.
// It returns a Position without line for a property that was not
// parsed, and for NoPos or a pos outside the source.
func (p *Property) Position(pos Pos) diag.Position {
	if !p.base.IsValid() || pos < 0 || int(pos) > len(p.src) {
		return diag.Position{Filename: p.base.Filename}
	}
	return advance(p.base, p.src[:pos])
}

// advance returns the position reached from pos by reading text.
func advance(pos diag.Position, text string) diag.Position {
	pos.Offset += len(text)
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		pos.Line += strings.Count(text, "\n")
		pos.Column = len(text) - i
	} else {
		pos.Column += len(text)
	}
	return pos
}

// token is the kind of a lexical token.
type token uint8

const (
	tokIllegal token = iota
	tokEOF
	tokName   // x, n0.log
	tokInt    // 42, -7
	tokFloat  // 1.5, 2e-3
	tokString // "leader"

	tokComma  // ,
	tokColon  // :
	tokLparen // (
	tokRparen // )
	tokEq     // ==
	tokNe     // != ≠
	tokLt     // <
	tokLe     // <= ≤
	tokGt     // >
	tokGe     // >= ≥

	tokForall // forall ∀
	tokExists // exists ∃
	tokIn     // in ∈
	tokNodes  // nodes
	tokOr     // or ∨
	tokNot    // not ¬
	tokSubset // subset ⊆
	tokEmpty  // empty
	tokSet    // set
	tokTrue   // true
	tokFalse  // false
)

var tokenText = [...]string{
	tokIllegal: "illegal token",
	tokEOF:     "end of input",
	tokName:    "name",
	tokInt:     "integer",
	tokFloat:   "float",
	tokString:  "string",
	tokComma:   `","`,
	tokColon:   `":"`,
	tokLparen:  `"("`,
	tokRparen:  `")"`,
	tokEq:      `"=="`,
	tokNe:      `"!="`,
	tokLt:      `"<"`,
	tokLe:      `"<="`,
	tokGt:      `">"`,
	tokGe:      `">="`,
	tokForall:  `"forall"`,
	tokExists:  `"exists"`,
	tokIn:      `"in"`,
	tokNodes:   `"nodes"`,
	tokOr:      `"or"`,
	tokNot:     `"not"`,
	tokSubset:  `"subset"`,
	tokEmpty:   `"empty"`,
	tokSet:     `"set"`,
	tokTrue:    `"true"`,
	tokFalse:   `"false"`,
}

// String describes t for error messages.
func (t token) String() string { return tokenText[t] }

var keywords = map[string]token{
	"forall": tokForall,
	"exists": tokExists,
	"in":     tokIn,
	"nodes":  tokNodes,
	"or":     tokOr,
	"not":    tokNot,
	"subset": tokSubset,
	"empty":  tokEmpty,
	"set":    tokSet,
	"true":   tokTrue,
	"false":  tokFalse,
}

// symbols are the Unicode spellings of keywords and operators.
var symbols = map[rune]token{
	'∀': tokForall,
	'∃': tokExists,
	'∈': tokIn,
	'∨': tokOr,
	'¬': tokNot,
	'⊆': tokSubset,
	'≠': tokNe,
	'≤': tokLe,
	'≥': tokGe,
}
