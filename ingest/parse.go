package ingest

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxParseDepth is the nesting parseLine accepts, that of encoding/json.
const maxParseDepth = 10000

// parseLine decodes line, valid UTF-8 holding one JSON value and nothing
// but whitespace around it, into what encoding/json decodes it to with
// numbers as json.Number: map[string]any, []any, string, json.Number,
// bool and nil; except that an array of scalars of one kind is a slice
// of them: a []int64 if it holds only integers within int64 but -0, a
// []float64 if it holds only numbers with a fraction or an exponent
// within float64's range (the values strconv parses them to), and a
// []string if it holds only strings. Those take 8 bytes a number and 16
// a string, where a []any of json.Number took about 40 (a line with a
// list of 2,000,000 integers cost collect 179 MB) and of strings 32. It
// reports false for anything else
// (malformed JSON, a key that appears twice in an object, nesting deeper
// than encoding/json's), which decodeLine hands to encoding/json to be
// told what is wrong.
//
// Unlike encoding/json it reads line in place: a string or number that
// takes at least an eighth of the line (a 60 MB string, say) is a part of
// line rather than a copy, so a huge value costs its line and no more,
// and one kept alone holds at most eight times its size. Smaller ones are
// copied, so that those kept for long (node names, the keys of a schema)
// do not hold their lines.
func parseLine(line string) (any, bool) {
	p := parser{s: line}
	p.space()
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	return v, p.i == len(p.s)
}

// A parser reads one JSON value from s, starting at i.
type parser struct {
	s string
	i int
}

// part returns s[i:j], shared with s if it is at least an eighth of s.
func (p *parser) part(i, j int) string {
	if 8*(j-i) >= len(p.s) {
		return p.s[i:j]
	}
	return strings.Clone(p.s[i:j])
}

// space skips JSON whitespace.
func (p *parser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value reads the value at p.i, nested in depth arrays and objects.
func (p *parser) value(depth int) (any, bool) {
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, ok := p.str()
		return s, ok
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, false
}

func (p *parser) literal(lit string) bool {
	if !strings.HasPrefix(p.s[p.i:], lit) {
		return false
	}
	p.i += len(lit)
	return true
}

func (p *parser) object(depth int) (any, bool) {
	if depth > maxParseDepth {
		return nil, false
	}
	p.i++ // '{'
	m := map[string]any{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return m, true
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, false
		}
		p.i++
		p.space()
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		m[k] = v
		done, ok := p.after('}')
		if !ok {
			return nil, false
		}
		if done {
			return m, true
		}
	}
}

// after reads what follows a member of an object or array closed by
// end: a comma and the space after it (another member follows), or end
// (done); ok is false for anything else.
func (p *parser) after(end byte) (done, ok bool) {
	p.space()
	if p.i >= len(p.s) {
		return false, false
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		p.space()
		return false, true
	case end:
		p.i++
		return true, true
	}
	return false, false
}

func (p *parser) array(depth int) (any, bool) {
	if depth > maxParseDepth {
		return nil, false
	}
	p.i++ // '['
	l := []any{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return l, true
	}
	first := p.i
	if l, ok := p.scalars(); ok {
		return l, true
	}
	p.i = first
	for {
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		l = append(l, v)
		done, ok := p.after(']')
		if !ok {
			return nil, false
		}
		if done {
			return l, true
		}
	}
}

// scalars reads the elements of an array and its end, from the first
// element on, if they are all integers of int64 but -0 (a []int64), all
// numbers with a fraction or an exponent within the range of float64 (a
// []float64), or all strings (a []string). It reports false for any
// other array, which the caller reads again from the first element: a
// list of scalars is read twice only as far as its first element of
// another kind.
func (p *parser) scalars() (any, bool) {
	size := p.count()
	if p.i < len(p.s) && p.s[p.i] == '"' {
		l := make([]string, 0, size)
		for {
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, false
			}
			s, ok := p.str()
			if !ok {
				return nil, false
			}
			l = append(l, s)
			done, ok := p.after(']')
			if !ok {
				return nil, false
			}
			if done {
				return l, true
			}
		}
	}
	var (
		ints   []int64
		floats []float64
	)
	for {
		start := p.i
		integer, ok := p.scanNumber()
		if !ok {
			return nil, false
		}
		switch text := p.s[start:p.i]; {
		case integer && floats == nil && text != "-0":
			n, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				return nil, false
			}
			if ints == nil {
				ints = make([]int64, 0, size)
			}
			ints = append(ints, n)
		case !integer && ints == nil:
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return nil, false
			}
			if floats == nil {
				floats = make([]float64, 0, size)
			}
			floats = append(floats, f)
		default:
			return nil, false
		}
		done, ok := p.after(']')
		if !ok {
			return nil, false
		}
		if done && ints != nil {
			return ints, true
		}
		if done {
			return floats, true
		}
	}
}

// count returns the elements of the array from p.i on, the commas
// outside strings before its ']' and one, if no array or object comes
// first; 1 otherwise, a guess that costs nothing if wrong. It stops at
// a nested array or object, which counts its own: each byte of a line
// is counted at most once.
func (p *parser) count() int {
	n, quoted := 1, false
	for i := p.i; i < len(p.s); i++ {
		switch c := p.s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == ',':
			n++
		case c == ']':
			return n
		case c == '[' || c == '{':
			return 1
		}
	}
	return 1
}

// number reads a number as a json.Number.
func (p *parser) number() (any, bool) {
	start := p.i
	if _, ok := p.scanNumber(); !ok {
		return nil, false
	}
	return json.Number(p.part(start, p.i)), true
}

// scanNumber skips a number, which JSON writes
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and reports whether it
// is an integer, without fraction and exponent.
func (p *parser) scanNumber() (integer, ok bool) {
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.digits() == 0:
		return false, false
	}
	integer = true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return false, false
		}
		integer = false
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return false, false
		}
		integer = false
	}
	return integer, true
}

// digits skips decimal digits and returns how many.
func (p *parser) digits() int {
	start := p.i
	for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// str reads a string. One without escapes is a part of s; one with
// escapes is built anew.
func (p *parser) str() (string, bool) {
	p.i++ // '"'
	start, escaped := p.i, false
	for ; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			if escaped {
				return unescape(p.s[start : p.i-1])
			}
			return p.part(start, p.i-1), true
		case c == '\\':
			escaped = true
			p.i++ // the escaped byte, checked by unescape
		case c < ' ':
			return "", false // control characters must be escaped
		}
	}
	return "", false
}

// unescape returns the string the body of a JSON string s stands for, as
// encoding/json reads it. It measures the string before it writes it: an
// escape is up to six times the bytes it stands for.
func unescape(s string) (string, bool) {
	n, ok := unescapeTo(nil, s)
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.Grow(n)
	unescapeTo(&b, s)
	return b.String(), true
}

// unescapeTo writes what s stands for to b, if b is not nil, and returns
// its length.
func unescapeTo(b *strings.Builder, s string) (int, bool) {
	n := 0
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			i = len(s)
		}
		if b != nil {
			b.WriteString(s[:i])
		}
		n, s = n+i, s[i:]
		if s == "" {
			return n, true
		}
		r, w := escape(s)
		if w == 0 {
			return 0, false
		}
		if b != nil {
			b.WriteRune(r)
		}
		n, s = n+utf8.RuneLen(r), s[w:]
	}
}

// escape reads the escape at the start of s and returns the rune it
// stands for and its length, 0 if it is malformed. As for encoding/json,
// a \u escape of half a surrogate pair that the other half does not
// follow stands for U+FFFD, and what follows it is read on its own.
func escape(s string) (rune, int) {
	if len(s) < 2 {
		return 0, 0
	}
	switch c := s[1]; c {
	case '"', '\\', '/':
		return rune(c), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, ok := hex4(s[2:])
		if !ok {
			return 0, 0
		}
		if !utf16.IsSurrogate(r) {
			return r, 6
		}
		if strings.HasPrefix(s[6:], `\u`) {
			if r2, ok := hex4(s[8:]); ok {
				if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
					return d, 12
				}
			}
		}
		return unicode.ReplacementChar, 6
	}
	return 0, 0
}

// hex4 reads the four hex digits of a \u escape.
func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
