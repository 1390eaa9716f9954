package ingest

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/diag"
)

// A source is one node-local input file and its reorder buffer.
type source struct {
	idx   int
	name  string
	jsonl *localLines
	arrow *StreamReader
	cols  []int // Arrow: the output column of each stream column

	buf        reorder
	eof        bool
	lastPopped uint64
	seq        int
	nodes      []*localNode
}

// A localNode is what the reading side knows of a node, to check its
// records.
type localNode struct {
	name     string
	src      *source
	first    string // position of its first record, for errors
	read     bool
	lastRead uint64 // ts of the last record read
}

// A localRecord is a node-local record read from an input.
type localRecord struct {
	name  string
	ts    uint64
	event collector.Event
	vars  []any // EventState: one value per output column
	seq   int   // read order within its source
	at    pos   // JSONL line
	off   int64 // Arrow: offset of the record batch
	row   int   // Arrow: row in the batch
}

// sourceHeap orders the sources with buffered records by their next
// record, then by input order.
type sourceHeap []*source

func (h sourceHeap) Len() int { return len(h) }
func (h sourceHeap) Less(i, j int) bool {
	a, b := h[i].buf.min(), h[j].buf.min()
	return a.ts < b.ts || a.ts == b.ts && h[i].idx < h[j].idx
}
func (h sourceHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sourceHeap) Push(x any)   { *h = append(*h, x.(*source)) }
func (h *sourceHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}

// read returns the next good record of s, or nil at its end. A bad record
// is an error, or under Lenient skipped and counted.
func (b *builder) read(s *source) (*localRecord, error) {
	for {
		if err := interrupted(b.ctx, b.out); err != nil {
			return nil, err
		}
		r, err := b.readRaw(s)
		if fe, ok := err.(*fatalError); ok {
			return nil, fe.err
		}
		if err == nil && r != nil {
			err = b.check(s, r)
		}
		if err != nil {
			if err := b.skipped(err); err != nil {
				return nil, err
			}
			continue
		}
		return r, nil
	}
}

// fatalError is an input error that Lenient cannot skip.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }

// readRaw decodes the next record of s, with its state converted to the
// output columns.
func (b *builder) readRaw(s *source) (*localRecord, error) {
	switch {
	case s.jsonl != nil:
		for {
			l, err := s.jsonl.next()
			if err == io.EOF {
				return nil, nil
			}
			if errors.Is(err, errTorn) {
				b.warn(WarnTorn, err)
				return nil, nil
			}
			if s.jsonl.broken {
				return nil, &fatalError{err}
			}
			if err != nil {
				var e *Error
				if errors.As(err, &e) && b.skip[pos{e.Pos.Filename, e.Pos.Line}] {
					continue
				}
				return nil, err
			}
			if b.skip[l.at] {
				continue
			}
			r := &localRecord{name: l.name, ts: l.ts, event: l.event, at: l.at}
			if l.event == collector.EventState {
				b.sw.at = l.at
				b.sw.path = append(b.sw.path[:0], seg{key: "state", idx: -1})
				if err := b.sw.convertState(l.state); err != nil {
					if e := (*Error)(nil); errors.As(err, &e) {
						e.Node = l.name
					}
					return nil, err
				}
				r.vars = slices.Clone(b.sw.vars)
			}
			return r, nil
		}
	case s.arrow != nil:
		for !s.arrow.Next() {
			if t := s.arrow.Torn(); t != nil {
				b.warn(WarnTorn, t)
			}
			err := s.arrow.Err()
			if err == nil {
				return nil, nil
			}
			if !b.opts.Lenient {
				return nil, err
			}
			// Skip the damage, saying how much is lost, and read
			// on from the next intact record batch, if any.
			b.res.Lost = append(b.res.Lost, warning(WarnDamaged, s.arrow.Resync()))
		}
		sr := s.arrow.Record()
		r := &localRecord{name: sr.Node, ts: sr.TS, event: sr.Event, off: sr.Offset, row: sr.Row}
		if sr.Event == collector.EventState {
			r.vars = make([]any, len(b.sw.schema))
			for i, v := range sr.Vars() {
				r.vars[s.cols[i]] = v
			}
			for i, v := range r.vars {
				if b.sw.check == nil {
					break
				}
				v, _ := boxLists(v)
				if err := b.sw.check(i, v); err != nil {
					return nil, r.errorf(s, "state.%s: %v", b.sw.schema[i].Name, err)
				}
			}
		}
		return r, nil
	}
	return nil, nil
}

// errorf returns an error about record r of s.
func (r *localRecord) errorf(s *source, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if r.at.line == 0 {
		msg = fmt.Sprintf("row %d of the record batch: %s", r.row, msg)
	}
	return &Error{Pos: diag.Position{Filename: s.name, Line: r.at.line, Offset: int(r.off)}, Node: r.name, Msg: msg}
}

// where describes the position of r for messages about later records.
func (r *localRecord) where(s *source) string {
	if r.at.line > 0 {
		return fmt.Sprintf("%s:%d", s.name, r.at.line)
	}
	return fmt.Sprintf("%s (offset %d, row %d)", s.name, r.off, r.row)
}

// check checks a record against the records read before it.
func (b *builder) check(s *source, r *localRecord) error {
	n := b.nodes[r.name]
	switch {
	case n == nil:
		n = &localNode{name: r.name, src: s, first: r.where(s)}
		b.nodes[r.name] = n
		s.nodes = append(s.nodes, n)
	case n.src != s:
		return r.errorf(s, "also has records in %s (first at %s); a node's records must all be in one input", n.src.name, n.first)
	case n.read && r.ts <= n.lastRead:
		return r.errorf(s, "ts %d is not after the node's previous ts %d (timestamps of a node must increase)", r.ts, n.lastRead)
	}
	if r.ts < s.lastPopped {
		return r.errorf(s, "ts %d comes more than %d records after records of other nodes up to ts %d (raise the out-of-order window)", r.ts, b.window, s.lastPopped)
	}
	n.read, n.lastRead = true, r.ts
	r.seq = s.seq
	s.seq++
	return nil
}
