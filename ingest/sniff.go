package ingest

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/augur-dev/augur/diag"
)

// inputKind is what an input file holds.
type inputKind uint8

const (
	inputInvalid inputKind = iota
	inputEmpty             // nothing but blank lines
	inputGlobal            // global-snapshot JSONL
	inputLocal             // node-local JSONL
	inputArrow             // node-local Arrow IPC stream
	inputUnknown           // JSONL whose first line is not a JSON object: read in the mode of the others
)

// sniff tells the kind of an input from its first bytes or its first
// non-blank line. An input whose first line is not a JSON object is read
// in the mode of the others, whose reader reports the line.
func sniff(name string) (inputKind, error) {
	f, err := openInput(name)
	if err != nil {
		return inputInvalid, err
	}
	defer f.Close()
	var buf [8]byte
	n, _ := f.ReadAt(buf[:], 0)
	switch head := buf[:n]; {
	case bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}):
		return inputArrow, nil
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return inputInvalid, &Error{Pos: diag.Position{Filename: name}, Msg: "an Arrow IPC file; node-local Arrow input is the stream format written by arrowsink.Sink"}
	}
	lr := newLineReader(name, f)
	for {
		line, err := lr.next()
		if err == io.EOF {
			return inputEmpty, nil
		}
		if err != nil {
			return inputInvalid, err
		}
		if isBlank(line) {
			continue
		}
		local, global, ok := hasKeys(line, "node", "nodes")
		if !ok {
			return inputUnknown, nil
		}
		if local && !global {
			return inputLocal, nil
		}
		return inputGlobal, nil
	}
}

// hasKeys reports whether line, a JSON object, has the keys a and b; ok is
// false if line is not a JSON object (null counts as one without keys).
func hasKeys(line, a, b string) (hasA, hasB, ok bool) {
	if v, parsed := parseLine(line); parsed {
		if obj, isObj := v.(map[string]any); isObj {
			_, hasA = obj[a]
			_, hasB = obj[b]
			return hasA, hasB, true
		}
	}
	// null, or a key twice: encoding/json takes both, copying the values.
	var probe map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &probe) != nil {
		return false, false, false
	}
	_, hasA = probe[a]
	_, hasB = probe[b]
	return hasA, hasB, true
}
