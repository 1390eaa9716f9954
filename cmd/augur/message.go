package main

import (
	"fmt"
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A message may quote what a user gave or a damaged file held, and is
// printed on a terminal: printable escapes what would not print as
// itself and cuts what would fill it.
const (
	maxWord  = 200 // bytes of a run without white space, beyond which it is cut
	keepHead = 64  // bytes kept of the start of a run cut
	keepTail = 16  // and of its end
)

// printable returns msg with its invalid UTF-8 bytes and its control
// characters other than newline and tab escaped (\xff, \x1b, \u2028),
// and each run without white space longer than maxWord bytes cut in its
// middle, saying how long it was: a value of a megabyte quoted in an
// error is not printed whole.
func printable(msg string) string {
	var b strings.Builder
	for word := range splitWords(msg) {
		if len(word) > maxWord && !isSpace(word) {
			head, tail := cutAt(word, keepHead), word[cutAt(word, len(word)-keepTail):]
			fmt.Fprintf(&b, "%s…[%d bytes]…%s", escape(word[:head]), len(word), escape(tail))
			continue
		}
		b.WriteString(escape(word))
	}
	return b.String()
}

// splitWords yields msg in runs of white space and runs of anything else,
// which together are msg.
func splitWords(msg string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for len(msg) > 0 {
			space := isSpace(msg)
			i := strings.IndexFunc(msg, func(r rune) bool { return unicode.IsSpace(r) != space })
			if i < 0 {
				i = len(msg)
			}
			if !yield(msg[:i]) {
				return
			}
			msg = msg[i:]
		}
	}
}

// isSpace reports whether s starts with white space.
func isSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// cutAt returns the start of the rune at byte i of s, or len(s).
func cutAt(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return min(max(i, 0), len(s))
}

// escape returns s with invalid UTF-8 and control characters escaped.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t' || !unicode.IsControl(r) && r != '\u2028' && r != '\u2029':
			b.WriteString(s[i : i+size])
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}
