package grammar

import (
	"fmt"
	"unicode/utf8"

	"github.com/augur-dev/augur/diag"
)

// A scanner splits source text into tokens. After it returns tokIllegal,
// code and msg describe the error at the token's position.
type scanner struct {
	src  string
	off  int // offset of the next unread byte
	code diag.Code
	msg  string
}

// scan returns the next token and its extent [pos, end) in src.
func (s *scanner) scan() (tok token, pos, end Pos) {
	for s.off < len(s.src) && isSpace(s.src[s.off]) {
		s.off++
	}
	start := s.off
	tok = s.scanToken()
	return tok, Pos(start), Pos(s.off)
}

// scanToken scans the token at s.off.
func (s *scanner) scanToken() token {
	if s.off >= len(s.src) {
		return tokEOF
	}
	c := s.src[s.off]
	switch {
	case isLetter(c):
		return s.scanName()
	case isDigit(c), c == '-' && isDigit(s.peek(1)):
		return s.scanNumber()
	case c == '"':
		return s.scanString()
	case c >= utf8.RuneSelf:
		return s.scanSymbol()
	}
	s.off++
	switch c {
	case ',':
		return tokComma
	case ':':
		return tokColon
	case '(':
		return tokLparen
	case ')':
		return tokRparen
	case '<':
		return s.pickEq(tokLt, tokLe)
	case '>':
		return s.pickEq(tokGt, tokGe)
	case '=', '!':
		if s.peek(0) == '=' {
			s.off++
			if c == '=' {
				return tokEq
			}
			return tokNe
		}
	}
	// Any other byte, or a lone '=' or '!'.
	return s.illegalChar(rune(c))
}

// pickEq returns withEq after consuming a following '=', or tok.
func (s *scanner) pickEq(tok, withEq token) token {
	if s.peek(0) == '=' {
		s.off++
		return withEq
	}
	return tok
}

// scanName scans an identifier or a dotted path such as n0.log.
// A single identifier may be a keyword; fields of a path never are.
func (s *scanner) scanName() token {
	start := s.off
	s.skipIdent()
	for s.peek(0) == '.' && isLetter(s.peek(1)) {
		s.off++
		s.skipIdent()
	}
	if tok, ok := keywords[s.src[start:s.off]]; ok {
		return tok
	}
	return tokName
}

func (s *scanner) skipIdent() {
	for s.off < len(s.src) && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
		s.off++
	}
}

// scanNumber scans -?digits, with an optional fraction and exponent
// that make it a float. Letters, digits and dots that follow make the
// whole run an invalid number.
func (s *scanner) scanNumber() token {
	start := s.off
	tok := tokInt
	if s.src[s.off] == '-' {
		s.off++
	}
	s.skipDigits()
	if s.peek(0) == '.' && isDigit(s.peek(1)) {
		s.off++
		s.skipDigits()
		tok = tokFloat
	}
	if c := s.peek(0); c == 'e' || c == 'E' {
		n := 1
		if c := s.peek(1); c == '+' || c == '-' {
			n++
		}
		if isDigit(s.peek(n)) {
			s.off += n
			s.skipDigits()
			tok = tokFloat
		}
	}
	junk := s.off
	for c := s.peek(0); isLetter(c) || isDigit(c) || c == '.'; c = s.peek(0) {
		s.off++
	}
	if s.off > junk {
		return s.illegal(CodeBadNumber, "invalid number %s", s.src[start:s.off])
	}
	return tok
}

func (s *scanner) skipDigits() {
	for isDigit(s.peek(0)) {
		s.off++
	}
}

// scanString scans a double-quoted string up to its closing quote.
// Escapes are checked when the parser unquotes it.
func (s *scanner) scanString() token {
	s.off++ // opening quote
	for {
		if s.off >= len(s.src) || s.src[s.off] == '\n' {
			return s.illegal(CodeUnterminated, "string not terminated")
		}
		switch c := s.src[s.off]; {
		case c == '"':
			s.off++
			return tokString
		case c == '\\':
			s.off++
			if c := s.peek(0); c == '"' || c == '\\' {
				s.off++
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s.src[s.off:])
			if r == utf8.RuneError && size == 1 {
				return s.illegal(CodeIllegalChar, "invalid UTF-8 encoding in string")
			}
			s.off += size
		default:
			s.off++
		}
	}
}

// scanSymbol scans a Unicode keyword or operator such as ∀ or ≤.
func (s *scanner) scanSymbol() token {
	r, size := utf8.DecodeRuneInString(s.src[s.off:])
	s.off += size
	if r == utf8.RuneError && size == 1 {
		return s.illegal(CodeIllegalChar, "invalid UTF-8 encoding")
	}
	if tok, ok := symbols[r]; ok {
		return tok
	}
	return s.illegalChar(r)
}

func (s *scanner) illegalChar(r rune) token {
	return s.illegal(CodeIllegalChar, "illegal character %#U", r)
}

func (s *scanner) illegal(code diag.Code, format string, args ...any) token {
	s.code = code
	s.msg = fmt.Sprintf(format, args...)
	return tokIllegal
}

// peek returns the byte n places after the next unread one, or 0 past
// the end of src.
func (s *scanner) peek(n int) byte {
	if s.off+n < len(s.src) {
		return s.src[s.off+n]
	}
	return 0
}

func isSpace(c byte) bool  { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
