package collector

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLineBytes bounds the length of one JSONL line.
const maxLineBytes = 64 << 20

// An Error is a problem with the input at a position.
type Error struct {
	File   string // input file as named by the caller
	Line   int    // 1-based line; 0 for the file as a whole
	Col    int    // 1-based byte column in the line; 0 if unknown
	Offset int64  // byte offset into a binary input (an Arrow stream); 0 if none
	Node   string // the node whose record it is; "" if none
	Field  string // path of the offending value, e.g. nodes.n3.log[2].term; "" if none
	Msg    string
	Err    error // underlying cause (I/O, trace writer), if any
}

// Error renders the error as "file:line:col: node N: field: msg", or
// "file: offset N: …" for a position in an Arrow stream.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	} else if e.Offset > 0 {
		fmt.Fprintf(&b, ": offset %d", e.Offset)
	}
	b.WriteString(": ")
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
			return nil, &Error{File: lr.name, Line: lr.line + 1,
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
			return nil, &Error{File: lr.name, Line: lr.line + 1, Msg: "read", Err: err}
		}
	}
}

// decodeLine decodes one JSON value from line, with numbers as
// json.Number. The error is an *Error with column and excerpt.
func decodeLine(at pos, line []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			col := int(se.Offset)
			return nil, &Error{File: at.file, Line: at.line, Col: col,
				Msg: fmt.Sprintf("malformed JSON: %s near %s", se.Error(), excerpt(line, col-1))}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &Error{File: at.file, Line: at.line, Col: len(line) + 1,
				Msg: fmt.Sprintf("malformed JSON: line ends inside a value near %s", excerpt(line, len(line)))}
		}
		return nil, &Error{File: at.file, Line: at.line, Msg: "malformed JSON", Err: err}
	}
	off := int(dec.InputOffset())
	rest := line[off:]
	if trimmed := bytes.TrimLeft(rest, " \t\r\n"); len(trimmed) > 0 {
		col := off + len(rest) - len(trimmed) + 1
		return nil, &Error{File: at.file, Line: at.line, Col: col,
			Msg: fmt.Sprintf("malformed JSON: data after the object near %s (one object per line)", excerpt(line, col-1))}
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

// record is one decoded global-snapshot line.
type record struct {
	snapshot uint64
	ts       uint64
	tags     []string
	nodes    []nodeState // sorted by name
}

type nodeState struct {
	name  string
	state map[string]any
}

// topKeys are the keys of a global-snapshot line.
var topKeys = []string{"snapshot", "ts", "tags", "nodes"}

// errNodeLocal is the message for node-local input.
const errNodeLocal = `node-local input ({"node": …, "ts": …, "state": …}): ` +
	`CollectJSONL reads global snapshots ({"snapshot": N, "nodes": {…}}); Collect reads both`

// parseRecord checks the shape of a decoded line and fills rec. first
// reports whether this is the first record of the input.
func parseRecord(at pos, v any, first bool, rec *record) error {
	errf := func(field, format string, args ...any) error {
		return &Error{File: at.file, Line: at.line, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return errf("", "want a JSON object {\"snapshot\": N, \"nodes\": {…}}, got %s", kindName(v))
	}
	if _, ok := m["node"]; ok {
		if _, global := m["nodes"]; !global {
			if first {
				return errf("", "%s", errNodeLocal)
			}
			return errf("", "node-local record in global-snapshot input (a file is all one mode)")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(topKeys, k) {
			return errf("", "unknown key %q (want snapshot, ts, tags and nodes)", k)
		}
	}
	sv, ok := m["snapshot"]
	if !ok {
		return errf("", `missing "snapshot" (want a non-negative integer)`)
	}
	var err error
	if rec.snapshot, err = parseUint(sv); err != nil {
		return errf("snapshot", "%v", err)
	}
	rec.ts = rec.snapshot
	if tv := m["ts"]; tv != nil {
		if rec.ts, err = parseUint(tv); err != nil {
			return errf("ts", "%v", err)
		}
	}
	rec.tags = rec.tags[:0]
	switch tv := m["tags"].(type) {
	case nil:
	case []any:
		for i, t := range tv {
			s, ok := t.(string)
			if !ok {
				return errf(fmt.Sprintf("tags[%d]", i), "want a string, got %s", kindName(t))
			}
			rec.tags = append(rec.tags, s)
		}
	default:
		return errf("tags", "want a list of strings, got %s", kindName(tv))
	}
	nv, ok := m["nodes"]
	if !ok {
		return errf("", `missing "nodes" (want an object mapping node names to states)`)
	}
	nodes, ok := nv.(map[string]any)
	if !ok {
		return errf("nodes", "want an object mapping node names to states, got %s", kindName(nv))
	}
	rec.nodes = rec.nodes[:0]
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		field := fieldPath([]seg{{key: "nodes", idx: -1}, {key: name, idx: -1}})
		if name == "" {
			return errf(field, "empty node name")
		}
		st, ok := nodes[name].(map[string]any)
		if !ok {
			return errf(field, "want the node's state as an object, got %s", kindName(nodes[name]))
		}
		rec.nodes = append(rec.nodes, nodeState{name, st})
	}
	return nil
}

// parseUint reads a non-negative integer that fits uint64.
func parseUint(v any) (uint64, error) {
	n, ok := v.(json.Number)
	if ok {
		if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
			return u, nil
		}
		return 0, fmt.Errorf("want a non-negative integer, got %s", n)
	}
	return 0, fmt.Errorf("want a non-negative integer, got %s", kindName(v))
}

// kindName names the kind of a decoded JSON value.
func kindName(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case json.Number:
		if isInteger(v) {
			return "integer"
		}
		return "float"
	case string:
		return "string"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// isInteger reports whether a JSON number has neither fraction nor
// exponent.
func isInteger(n json.Number) bool {
	return !strings.ContainsAny(string(n), ".eE")
}

// scanInputs reads the inputs in order as one stream of global-snapshot
// records and calls fn for each. It checks that snapshot numbers strictly
// increase. The record passed to fn is reused.
func scanInputs(inputs []string, fn func(at pos, rec *record) error) (int, error) {
	var (
		rec     record
		n       int
		prev    uint64
		prevAt  pos
		scratch []byte
	)
	for _, name := range inputs {
		f, err := os.Open(name)
		if err != nil {
			return n, &Error{File: name, Msg: "open input", Err: unwrapPathError(err)}
		}
		lr := newLineReader(name, f)
		lr.buf = scratch
		for {
			line, err := lr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return n, err
			}
			if isBlank(line) {
				continue
			}
			at := pos{name, lr.line}
			v, err := decodeLine(at, line)
			if err == nil {
				err = parseRecord(at, v, n == 0, &rec)
			}
			if err == nil && n > 0 && rec.snapshot <= prev {
				err = &Error{File: at.file, Line: at.line, Field: "snapshot",
					Msg: fmt.Sprintf("snapshot %d does not increase (previous %d at %s)", rec.snapshot, prev, prevAt.relative(at))}
			}
			if err == nil {
				err = fn(at, &rec)
			}
			if err != nil {
				f.Close()
				return n, err
			}
			n++
			prev, prevAt = rec.snapshot, at
		}
		scratch = lr.buf
		if err := f.Close(); err != nil {
			return n, &Error{File: name, Msg: "close input", Err: err}
		}
	}
	return n, nil
}

// isBlank reports whether line holds nothing but JSON whitespace.
func isBlank(line []byte) bool {
	return len(bytes.Trim(line, " \t\r\n")) == 0
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
