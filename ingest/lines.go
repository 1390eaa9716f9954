package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/augur-dev/augur/diag"
)

// maxLineBytes bounds the length of one JSONL line.
const maxLineBytes = 64 << 20

// lineReader reads the lines of one input file. The line it returns is
// valid until the next call.
type lineReader struct {
	name string
	br   *bufio.Reader
	line int // number of the line last returned
	max  int
	buf  []byte
}

func newLineReader(name string, r io.Reader) *lineReader {
	return &lineReader{name: name, br: bufio.NewReaderSize(r, 64<<10), max: maxLineBytes}
}

// next returns the next line without its line terminator, or io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		content := len(lr.buf) + len(chunk)
		if err == nil {
			content-- // the '\n'
		}
		if content > lr.max {
			return nil, &Error{Pos: diag.Position{Filename: lr.name, Line: lr.line + 1},
				Msg: fmt.Sprintf("line longer than %d bytes", lr.max)}
		}
		switch err {
		case bufio.ErrBufferFull:
			lr.buf = append(lr.buf, chunk...)
			continue
		case nil, io.EOF:
			if err == io.EOF && len(chunk) == 0 && len(lr.buf) == 0 {
				return nil, io.EOF
			}
			lr.line++
			line := chunk
			if len(lr.buf) > 0 {
				lr.buf = append(lr.buf, chunk...)
				line = lr.buf
			}
			line = bytes.TrimSuffix(line, []byte{'\n'})
			if lr.line == 1 {
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			}
			return line, nil
		default:
			return nil, &Error{Pos: diag.Position{Filename: lr.name, Line: lr.line + 1}, Msg: "read", Err: err}
		}
	}
}

// decodeLine decodes one JSON value from line, with numbers as
// json.Number. The error is an *Error with column and excerpt. Invalid
// UTF-8 is an error: encoding/json would turn it into U+FFFD.
func decodeLine(at pos, line []byte) (any, error) {
	if !utf8.Valid(line) {
		i := 0
		for i < len(line) {
			r, n := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		return nil, &Error{Pos: diag.Position{Filename: at.file, Line: at.line, Column: i + 1},
			Msg: fmt.Sprintf("invalid UTF-8 (byte %#x) near %s", line[i], excerpt(line, i))}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			col := int(se.Offset)
			return nil, &Error{Pos: diag.Position{Filename: at.file, Line: at.line, Column: col},
				Msg: fmt.Sprintf("malformed JSON: %s near %s", se.Error(), excerpt(line, col-1))}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &Error{Pos: diag.Position{Filename: at.file, Line: at.line, Column: len(line) + 1},
				Msg: fmt.Sprintf("malformed JSON: line ends inside a value near %s", excerpt(line, len(line)))}
		}
		return nil, &Error{Pos: diag.Position{Filename: at.file, Line: at.line}, Msg: "malformed JSON", Err: err}
	}
	off := int(dec.InputOffset())
	rest := line[off:]
	if trimmed := bytes.TrimLeft(rest, " \t\r\n"); len(trimmed) > 0 {
		col := off + len(rest) - len(trimmed) + 1
		return nil, &Error{Pos: diag.Position{Filename: at.file, Line: at.line, Column: col},
			Msg: fmt.Sprintf("malformed JSON: data after the object near %s (one object per line)", excerpt(line, col-1))}
	}
	if i, field := duplicateKey(line[:off]); i >= 0 {
		return nil, &Error{Pos: diag.Position{Filename: at.file, Line: at.line, Column: i + 1}, Field: field,
			Msg: "appears twice in one object (only one value may be given)"}
	}
	return v, nil
}

// excerpt quotes up to about 40 bytes of line around offset i.
func excerpt(line []byte, i int) string {
	const span = 20
	lo, hi := max(0, i-span), min(len(line), i+span)
	for lo > 0 && lo < len(line) && !utf8.RuneStart(line[lo]) {
		lo--
	}
	for hi < len(line) && !utf8.RuneStart(line[hi]) {
		hi++
	}
	s := strconv.Quote(string(line[lo:hi]))
	if lo > 0 {
		s = "…" + s
	}
	if hi < len(line) {
		s += "…"
	}
	return s
}

// isBlank reports whether line holds nothing but JSON whitespace.
func isBlank(line []byte) bool {
	return len(bytes.Trim(line, " \t\r\n")) == 0
}
