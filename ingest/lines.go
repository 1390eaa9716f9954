package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/augur-dev/augur/diag"
)

// maxLineBytes bounds the length of one JSONL line.
const maxLineBytes = 64 << 20

// bom is the UTF-8 byte order mark, dropped from the start of a file.
const bom = "\xef\xbb\xbf"

// lineReader reads the lines of one input file. Each line it returns is a
// string of its own, which the values decoded from it may share (see
// parseLine).
type lineReader struct {
	name string
	br   *bufio.Reader
	ra   io.ReaderAt // the input, if it can be read at an offset
	off  int64       // offset in the input of the next byte of br
	line int         // number of the line last returned
	max  int
	peek []byte // ReadAt's buffer for the look-ahead of a long line
}

// newLineReader returns a reader of the lines of r, which must be at its
// start. If r is an io.ReaderAt (an *os.File), a line longer than the
// read buffer is measured by reading ahead before it is read, so that it
// is kept in one allocation of its size, and a line over the limit is
// refused without being kept.
func newLineReader(name string, r io.Reader) *lineReader {
	lr := &lineReader{name: name, br: bufio.NewReaderSize(r, 64<<10), max: maxLineBytes}
	lr.ra, _ = r.(io.ReaderAt)
	return lr
}

// next returns the next line without its line terminator, or io.EOF.
func (lr *lineReader) next() (string, error) {
	chunk, err := lr.br.ReadSlice('\n')
	lr.off += int64(len(chunk))
	var line string
	switch err {
	case nil, io.EOF:
		if err == io.EOF && len(chunk) == 0 {
			return "", io.EOF
		}
		chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
		if len(chunk) > lr.max {
			return "", lr.tooLong()
		}
		line = string(chunk)
	case bufio.ErrBufferFull:
		if line, err = lr.long(chunk); err != nil {
			return "", err
		}
	default:
		return "", lr.readError(err)
	}
	lr.line++
	if lr.line == 1 {
		line = strings.TrimPrefix(line, bom)
	}
	return line, nil
}

// long reads the rest of a line whose first bytes filled the read buffer.
// The line is grown from first; with a look-ahead, it is allocated once.
func (lr *lineReader) long(first []byte) (string, error) {
	size := lr.measure(len(first))
	if size > lr.max {
		return "", lr.tooLong()
	}
	var b strings.Builder
	b.Grow(max(size, len(first)))
	b.Write(first)
	for {
		chunk, err := lr.br.ReadSlice('\n')
		lr.off += int64(len(chunk))
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		if b.Len()+len(chunk) > lr.max {
			return "", lr.tooLong()
		}
		b.Write(chunk)
		switch err {
		case bufio.ErrBufferFull:
		case nil, io.EOF:
			return b.String(), nil
		default:
			return "", lr.readError(err)
		}
	}
}

// measure returns the length of the line being read, of which done bytes
// have been read, by reading ahead up to its newline or the end of the
// input (more than lr.max for a line over the limit, where it stops), or
// -1 without a look-ahead. The length is a hint for the allocation, which
// an input that changes while it is read can make wrong; but a line it
// finds over the limit is refused, as it was when read ahead.
func (lr *lineReader) measure(done int) int {
	if lr.ra == nil {
		return -1
	}
	if lr.peek == nil {
		lr.peek = make([]byte, 64<<10)
	}
	size := done
	for off := lr.off; size <= lr.max; {
		n, err := lr.ra.ReadAt(lr.peek, off)
		if i := bytes.IndexByte(lr.peek[:n], '\n'); i >= 0 {
			return size + i
		}
		size += n
		off += int64(n)
		if err != nil || n == 0 {
			if err == io.EOF {
				return size
			}
			return -1 // the read that follows reports an error
		}
	}
	return size
}

func (lr *lineReader) tooLong() error {
	return &Error{Pos: diag.Position{Filename: lr.name, Line: lr.line + 1},
		Msg: fmt.Sprintf("line longer than %d bytes", lr.max)}
}

func (lr *lineReader) readError(err error) error {
	return &Error{Pos: diag.Position{Filename: lr.name, Line: lr.line + 1}, Msg: "read", Err: err}
}

// decodeLine decodes one JSON value from line, with numbers as
// json.Number. The error is an *Error with column and excerpt. Invalid
// UTF-8 is an error: encoding/json would turn it into U+FFFD.
//
// A line that parseLine accepts is decoded by it, sharing the line's
// memory for its largest strings; any other line is decoded by
// encoding/json, which says what is wrong with it.
func decodeLine(at pos, line string) (any, error) {
	if !utf8.ValidString(line) {
		i := 0
		for i < len(line) {
			r, n := utf8.DecodeRuneInString(line[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		return nil, &Error{Pos: diag.Position{Filename: at.file, Line: at.line, Column: i + 1},
			Msg: fmt.Sprintf("invalid UTF-8 (byte %#x) near %s", line[i], excerpt(line, i))}
	}
	if v, ok := parseLine(line); ok {
		return v, nil
	}
	dec := json.NewDecoder(strings.NewReader(line))
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
	if trimmed := strings.TrimLeft(rest, " \t\r\n"); len(trimmed) > 0 {
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
func excerpt(line string, i int) string {
	const span = 20
	lo, hi := max(0, i-span), min(len(line), i+span)
	for lo > 0 && lo < len(line) && !utf8.RuneStart(line[lo]) {
		lo--
	}
	for hi < len(line) && !utf8.RuneStart(line[hi]) {
		hi++
	}
	s := strconv.Quote(line[lo:hi])
	if lo > 0 {
		s = "…" + s
	}
	if hi < len(line) {
		s += "…"
	}
	return s
}

// isBlank reports whether line holds nothing but JSON whitespace.
func isBlank(line string) bool {
	return len(strings.Trim(line, " \t\r\n")) == 0
}
