package ingest

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/diag"
)

// localLines reads the records of a node-local JSONL input.
type localLines struct {
	name   string
	f      *os.File
	lr     *lineReader
	endsNL bool // the file ends with a newline, so its last line is whole
	broken bool // a line could not be read: the error is not about one record
}

// A localLine is a decoded node-local JSONL record.
type localLine struct {
	at    pos
	name  string
	ts    uint64
	event collector.Event
	state map[string]any
}

func openLocalLines(name string) (*localLines, error) {
	f, err := openInput(name)
	if err != nil {
		return nil, err
	}
	ll := &localLines{name: name, f: f, lr: newLineReader(name, f), endsNL: true}
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], fi.Size()-1); err == nil {
			ll.endsNL = last[0] == '\n'
		}
	}
	return ll, nil
}

func (ll *localLines) close() { ll.f.Close() }

// errTorn is returned by localLines.next for a last line cut short.
var errTorn = errors.New("torn last line")

// next returns the next record, io.EOF at the end, an *Error for a bad
// line, or an *Error wrapping errTorn for a malformed last line without a
// newline: its writer stopped in the middle of it. After an error that
// is not about one line (the file cannot be read, a line is too long),
// broken is set.
func (ll *localLines) next() (*localLine, error) {
	for {
		line, err := ll.lr.next()
		if err != nil {
			ll.broken = err != io.EOF
			return nil, err
		}
		if isBlank(line) {
			continue
		}
		at := pos{ll.name, ll.lr.line}
		v, err := decodeLine(at, line)
		if err != nil {
			if _, perr := ll.lr.br.Peek(1); perr == io.EOF && !ll.endsNL {
				return nil, &Error{Pos: diag.Position{Filename: ll.name, Line: at.line}, Msg: "torn last line (its writer stopped in the middle of it); ignored", Err: errTorn}
			}
			return nil, err
		}
		return parseLocal(at, v)
	}
}

// localKeys are the keys of a node-local line.
var localKeys = []string{"node", "ts", "state", "heartbeat", "leave"}

// parseLocal checks the shape of a decoded node-local line.
func parseLocal(at pos, v any) (*localLine, error) {
	r := &localLine{at: at}
	errf := func(field, format string, args ...any) error {
		return &Error{Pos: diag.Position{Filename: at.file, Line: at.line}, Node: r.name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errf("", `want a JSON object {"node": …, "ts": …, "state": {…}}, got %s`, kindName(v))
	}
	if _, ok := m["nodes"]; ok {
		return nil, errf("", "global-snapshot record in node-local input (a file is all one mode)")
	}
	if s, ok := m["node"].(string); ok {
		r.name = s
	}
	if r.name == "" {
		return nil, errf("node", "want a non-empty node name")
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(localKeys, k) {
			return nil, errf("", "unknown key %q (want node, ts, and one of state, heartbeat and leave)", k)
		}
	}
	var err error
	tv, ok := m["ts"]
	if !ok {
		return nil, errf("", `missing "ts" (want the node's Lamport time)`)
	}
	if r.ts, err = parseUint(tv); err != nil {
		return nil, errf("ts", "%v", err)
	}
	n := 0
	if sv, ok := m["state"]; ok {
		n++
		r.event = collector.EventState
		if r.state, ok = sv.(map[string]any); !ok {
			return nil, errf("state", "want the node's state as an object, got %s", kindName(sv))
		}
	}
	for _, k := range []string{"heartbeat", "leave"} {
		if x, ok := m[k]; ok {
			n++
			if x != true {
				return nil, errf(k, "want true, got %s", kindName(x))
			}
			r.event = collector.EventHeartbeat
			if k == "leave" {
				r.event = collector.EventLeave
			}
		}
	}
	if n != 1 {
		return nil, errf("", `want exactly one of "state", "heartbeat": true and "leave": true`)
	}
	return r, nil
}

// close releases the inputs.
