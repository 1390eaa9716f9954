package ingest

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/internal/infile"
)

// An Error is a problem with the input at a position: the input file as
// the caller named it, and a line and column (JSONL) or a byte offset (an
// Arrow stream) when known.
type Error struct {
	Pos   diag.Position
	Node  string // the node whose record it is; "" if none
	Field string // path of the offending value, e.g. nodes.n3.log[2].term; "" if none
	Msg   string
	Err   error // underlying cause (I/O, trace writer), if any
}

// Error renders the error as "file:line:col: node N: field: msg", or
// "file: offset N: …" for a position in an Arrow stream.
func (e *Error) Error() string {
	pos := e.Pos.String()
	if pos == "-" {
		pos = ""
	}
	return pos + ": " + e.detail()
}

// detail renders what e says after its position: "node N: field: msg:
// cause".
func (e *Error) detail() string {
	var b strings.Builder
	if e.Node != "" {
		b.WriteString("node ")
		b.WriteString(e.Node)
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		if e.Msg != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// The codes of the warnings of a [Result].
const (
	// WarnTorn: an input ends inside a line or an Arrow message, its
	// writer having stopped mid-write; what comes before is read.
	WarnTorn diag.Code = "torn-end"
	// WarnSkipped: a bad record skipped under Options.Lenient.
	WarnSkipped diag.Code = "record-skipped"
	// WarnDamaged: a damaged part of an Arrow stream skipped under
	// Options.Lenient, up to the next intact record batch or the end.
	WarnDamaged diag.Code = "stream-damaged"
)

// warning returns err, an input error that did not stop the collection,
// as a warning of kind code: an [*Error]'s position and what it says
// after it, or any other error's message.
func warning(code diag.Code, err error) diag.Warning {
	if e, ok := err.(*Error); ok {
		return diag.Warning{Code: code, Pos: e.Pos, Msg: e.detail()}
	}
	return diag.Warning{Code: code, Msg: err.Error()}
}

// pos is a line of the input.
type pos struct {
	file string
	line int
}

// relative renders p for a message about position cur: "line 3", or
// "other.jsonl:3" when p is in another file.
func (p pos) relative(cur pos) string {
	if p.file != cur.file {
		return fmt.Sprintf("%s:%d", p.file, p.line)
	}
	return fmt.Sprintf("line %d", p.line)
}

// seg is one step of a field path: an object key, or a list index when
// idx >= 0.
type seg struct {
	key string
	idx int
}

// fieldPath renders a path as nodes.n3.log[2].term, quoting keys that are
// not plain identifiers: nodes["10.0.0.1:80"].
func fieldPath(p []seg) string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.idx >= 0:
			fmt.Fprintf(&b, "[%d]", s.idx)
		case !isIdent(s.key):
			b.WriteByte('[')
			b.WriteString(strconv.Quote(s.key))
			b.WriteByte(']')
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case c == '_' || c == '-' && i > 0:
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}

// openInput opens the input file name: a regular file only, opened
// without blocking (see [infile.Open]), so that a named pipe with no
// writer does not block collect where no signal reaches it, and a device
// is not read without end. A pipe is refused even with a writer: telling
// an input's kind reads its first lines, which a pipe would not give
// again.
func openInput(name string) (*os.File, error) {
	f, err := infile.Open(name)
	var nr *infile.NotRegularError
	switch {
	case errors.As(err, &nr):
		return nil, &Error{Pos: diag.Position{Filename: name}, Msg: "is " + nr.What + ", not a regular file; collect reads files"}
	case err != nil:
		return nil, &Error{Pos: diag.Position{Filename: name}, Msg: "open input", Err: unwrapPathError(err)}
	}
	return f, nil
}

// unwrapPathError drops the *os.PathError wrapper, whose path the *Error
// already names.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
