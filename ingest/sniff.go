package ingest

import (
	"bufio"
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
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(8)
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}):
		return inputArrow, nil
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return inputInvalid, &Error{Pos: diag.Position{Filename: name}, Msg: "an Arrow IPC file; node-local Arrow input is the stream format written by arrowsink.Sink"}
	}
	lr := newLineReader(name, br)
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
		var probe map[string]json.RawMessage
		if json.Unmarshal(line, &probe) != nil {
			return inputUnknown, nil
		}
		_, local := probe["node"]
		_, global := probe["nodes"]
		if local && !global {
			return inputLocal, nil
		}
		return inputGlobal, nil
	}
}
