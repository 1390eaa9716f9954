package grammar

import (
	"strconv"
	"strings"
)

// Pos is a byte offset into the source text of a property.
// [Property.Position] resolves it to a file, line and column.
type Pos int

// NoPos stands for "no position".
const NoPos Pos = -1

// Position is a resolved source position.
type Position struct {
	Filename string // file name, if any
	Offset   int    // byte offset, starting at 0
	Line     int    // line number, starting at 1
	Column   int    // column number in bytes, starting at 1
}

// IsValid reports whether pos has a line number.
func (pos Position) IsValid() bool { return pos.Line > 0 }

// String returns "file:line:column", leaving out the parts that are
// unset, or "-" when all of them are.
func (pos Position) String() string {
	s := pos.Filename
	if pos.IsValid() {
		if s != "" {
			s += ":"
		}
		s += strconv.Itoa(pos.Line)
		if pos.Column != 0 {
			s += ":" + strconv.Itoa(pos.Column)
		}
	}
	if s == "" {
		s = "-"
	}
	return s
}

// Position resolves pos to a position in the file p was parsed from.
// It returns a Position without line for a property that was not
// parsed, and for NoPos or a pos outside the source.
func (p *Property) Position(pos Pos) Position {
	if !p.base.IsValid() || pos < 0 || int(pos) > len(p.src) {
		return Position{Filename: p.base.Filename}
	}
	return p.base.advance(p.src[:pos])
}

// advance returns the position reached from pos by reading text.
func (pos Position) advance(text string) Position {
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
