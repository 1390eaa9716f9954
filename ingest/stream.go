package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/trace"
)

// A StreamReader reads the node-local records of an Arrow IPC stream
// written by a [collector.ArrowSink] (or by any Arrow writer, with the same
// columns). Its API is modeled on bufio.Scanner:
//
//	for r.Next() {
//		rec := r.Record()
//		…
//	}
//	if err := r.Err(); err != nil { … }
//	if torn := r.Torn(); torn != nil { … }
//
// A stream that ends inside a message, as one does when its writer was
// killed in the middle of a flush, is torn: Next stops after the last
// complete record batch and Torn reports the file and the offset of the
// torn message. Every record before it is read. Err reports anything
// else: a file that cannot be read, or one that is not such a stream.
type StreamReader struct {
	path   string
	f      *os.File
	cr     *countingReader
	r      *ipc.Reader
	schema trace.Schema

	batch  arrow.RecordBatch
	offset int64 // of the current batch's message
	row    int
	rec    StreamRecord
	n      int // records returned

	torn *Error
	err  error
}

// A StreamRecord is a record read by a StreamReader. It is valid until
// the next call to Next.
type StreamRecord struct {
	Node   string
	TS     uint64
	Event  collector.Event
	Offset int64 // byte offset of the record batch that holds it
	Row    int   // row within that batch

	r *StreamReader
}

// Vars decodes the state variables, one value per column of the reader's
// Schema, in the representation of package trace; all are nil but for
// [collector.EventState]. The result is owned by the caller.
func (sr *StreamRecord) Vars() []any {
	vals := make([]any, len(sr.r.schema))
	if sr.Event != collector.EventState {
		return vals
	}
	for i := range vals {
		vals[i] = trace.Value(sr.r.batch.Column(i+3), sr.Row)
	}
	return vals
}

// countingReader counts the bytes read through it, so that the reader
// knows where each message starts: the Arrow message reader reads exactly
// one message at a time.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// OpenStream opens a node-local Arrow stream file. mem holds the batches
// read; nil means memory.DefaultAllocator. A file torn before the end of
// its schema, or an empty one (its writer never flushed), opens with no
// records; the first is reported by Torn.
func OpenStream(path string, mem memory.Allocator) (*StreamReader, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Pos: diag.Position{Filename: path}, Msg: "open input", Err: unwrapPathError(err)}
	}
	sr := &StreamReader{path: path, f: f}
	sr.cr = &countingReader{r: bufio.NewReaderSize(f, 64<<10)}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{Pos: diag.Position{Filename: path}, Msg: "open input", Err: unwrapPathError(err)}
	}
	if fi.Size() == 0 {
		return sr, nil
	}
	sr.r, err = newStreamReader(sr.cr, mem)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			sr.torn = &Error{Pos: diag.Position{Filename: path}, Msg: "torn Arrow stream: it ends inside its schema message; no record is readable"}
			return sr, nil
		}
		f.Close()
		return nil, &Error{Pos: diag.Position{Filename: path}, Msg: "not a node-local Arrow stream", Err: err}
	}
	if err := sr.checkSchema(); err != nil {
		sr.Close()
		return nil, err
	}
	return sr, nil
}

// newStreamReader opens the stream; the Arrow library can panic on
// malformed metadata.
func newStreamReader(r io.Reader, mem memory.Allocator) (rr *ipc.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			rr, err = nil, fmt.Errorf("malformed metadata: %v", p)
		}
	}()
	return ipc.NewReader(r, ipc.WithAllocator(mem))
}

func (sr *StreamReader) checkSchema() error {
	s := sr.r.Schema()
	want := []struct {
		name string
		id   arrow.Type
	}{{"node", arrow.STRING}, {"ts", arrow.UINT64}, {collector.EventColumn, arrow.STRING}}
	if s.NumFields() < len(want) {
		return &Error{Pos: diag.Position{Filename: sr.path}, Msg: fmt.Sprintf("not a node-local Arrow stream: want the columns node (utf8), ts (uint64) and %s (utf8) first, have %s", collector.EventColumn, s)}
	}
	for i, w := range want {
		if f := s.Field(i); f.Name != w.name || f.Type.ID() != w.id {
			return &Error{Pos: diag.Position{Filename: sr.path}, Msg: fmt.Sprintf("not a node-local Arrow stream: want the columns node (utf8), ts (uint64) and %s (utf8) first, have %s", collector.EventColumn, s)}
		}
	}
	seen := map[string]bool{}
	for _, f := range s.Fields()[3:] {
		if err := checkVarName(f.Name); err != nil || seen[f.Name] {
			return &Error{Pos: diag.Position{Filename: sr.path}, Field: f.Name, Msg: "column name is empty, reserved or repeated"}
		}
		seen[f.Name] = true
		if err := trace.CheckType(f.Type); err != nil {
			return &Error{Pos: diag.Position{Filename: sr.path}, Field: f.Name, Msg: err.Error()}
		}
		sr.schema = append(sr.schema, trace.Column{Name: f.Name, Type: f.Type})
	}
	return nil
}

// Schema returns the state variables of the stream (nil for a stream
// torn in its schema).
func (sr *StreamReader) Schema() trace.Schema { return sr.schema }

// Next advances to the next record and reports whether there is one.
func (sr *StreamReader) Next() bool {
	if sr.err != nil || sr.r == nil {
		return false
	}
	for sr.batch == nil || sr.row >= int(sr.batch.NumRows()) {
		if !sr.nextBatch() {
			return false
		}
	}
	i := sr.row
	sr.row++
	nodes := sr.batch.Column(0).(*array.String)
	ts := sr.batch.Column(1).(*array.Uint64)
	events := sr.batch.Column(2).(*array.String)
	sr.rec = StreamRecord{
		Node:   nodes.Value(i),
		TS:     ts.Value(i),
		Event:  parseEvent(events.Value(i)),
		Offset: sr.offset,
		Row:    i,
		r:      sr,
	}
	if sr.rec.Node == "" || sr.rec.Event == collector.EventInvalid || nodes.IsNull(i) || ts.IsNull(i) {
		sr.err = &Error{Pos: diag.Position{Filename: sr.path, Offset: int(sr.offset)},
			Msg: fmt.Sprintf("record batch row %d: want a node name, a ts and an event (state, heartbeat or leave), got %q, %d, %q", i, nodes.Value(i), ts.Value(i), events.Value(i))}
		return false
	}
	sr.n++
	return true
}

// nextBatch loads the next record batch, or records why there is none.
func (sr *StreamReader) nextBatch() (ok bool) {
	if sr.batch != nil {
		sr.batch.Release()
		sr.batch = nil
	}
	sr.offset = sr.cr.n
	defer func() {
		if p := recover(); p != nil {
			if sr.batch != nil {
				sr.batch.Release()
				sr.batch = nil
			}
			sr.err = &Error{Pos: diag.Position{Filename: sr.path, Offset: int(sr.offset)}, Msg: fmt.Sprintf("malformed record batch: %v", p)}
			ok = false
		}
	}()
	if !sr.r.Next() {
		err := sr.r.Err()
		switch {
		case err == nil:
		case errors.Is(err, io.ErrUnexpectedEOF):
			sr.torn = &Error{Pos: diag.Position{Filename: sr.path, Offset: int(sr.offset)},
				Msg: fmt.Sprintf("torn Arrow stream: it ends inside the record batch at this offset (its writer stopped mid-write); %d records before it were read", sr.n)}
		default:
			sr.err = &Error{Pos: diag.Position{Filename: sr.path, Offset: int(sr.offset)}, Msg: "malformed record batch", Err: err}
		}
		return false
	}
	b := sr.r.RecordBatch()
	for c, col := range b.Columns() {
		if err := validateArray(col); err != nil {
			sr.err = &Error{Pos: diag.Position{Filename: sr.path, Offset: int(sr.offset)}, Field: b.ColumnName(c), Msg: "malformed record batch", Err: err}
			return false
		}
	}
	b.Retain()
	sr.batch, sr.row = b, 0
	return true
}

// validateArray checks the offsets and buffers of a, so that decoding
// never reads out of bounds.
func validateArray(a arrow.Array) error {
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			return err
		}
	}
	switch a := a.(type) {
	case array.ListLike:
		return validateArray(a.ListValues())
	case *array.Struct:
		for f := range a.NumField() {
			if err := validateArray(a.Field(f)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Record returns the current record.
func (sr *StreamReader) Record() *StreamRecord { return &sr.rec }

// Err returns the error that stopped Next, if any; a torn end is not an
// error (see Torn).
func (sr *StreamReader) Err() error { return sr.err }

// Torn returns a non-nil *Error naming the file and the offset of the
// torn message if the stream ends inside one.
func (sr *StreamReader) Torn() *Error { return sr.torn }

// Close releases the reader's memory and closes the file.
func (sr *StreamReader) Close() error {
	if sr.batch != nil {
		sr.batch.Release()
		sr.batch = nil
	}
	if sr.r != nil {
		sr.r.Release()
		sr.r = nil
	}
	return sr.f.Close()
}

// parseEvent is the inverse of collector.Event.String for valid events.
func parseEvent(s string) collector.Event {
	for e := collector.EventState; e <= collector.EventLeave; e++ {
		if e.String() == s {
			return e
		}
	}
	return collector.EventInvalid
}
