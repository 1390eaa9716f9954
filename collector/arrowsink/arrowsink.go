// Package arrowsink writes a node's records to an Arrow IPC stream, the
// node-local input of augur collect that survives a crash. It is a sink
// of its own, so that a process that records through package collector
// to JSON lines or over HTTP does not link Arrow.
package arrowsink

import (
	"fmt"
	"io"
	"os"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/internal/batch"
	"github.com/augur-dev/augur/coltype"
	"github.com/augur-dev/augur/trace"
)

// Options configure a [Sink]: when it flushes, as for every file sink of
// package collector, and where it holds its buffers.
type Options struct {
	collector.SinkOptions
	// Allocator holds the sink's buffers; nil means
	// memory.DefaultAllocator.
	Allocator memory.Allocator
}

// A Sink writes records to an Arrow IPC stream: the columns node (utf8),
// ts (uint64) and @event (collector.EventColumn, utf8: state, heartbeat
// or leave), then one column per state variable, null in heartbeats and
// leaves. Each flush writes one record batch, so a crash loses at most
// the records not yet flushed and at worst tears the last batch, which
// readers detect (the reader of package ingest reports it with its
// offset).
//
// The schema is fixed by the first state written; records before it are
// held until then. It is safe for concurrent use.
type Sink struct {
	b     batch.Batcher
	out   batch.Out
	mem   memory.Allocator
	typ   reflect.Type         // of the states, fixed by the first; nil before
	early []collector.Record   // heartbeats and leaves before the first state
	rb    *array.RecordBuilder // nil before the schema is fixed
	w     *ipc.Writer
	app   appender
}

// Create creates (or truncates) the file at path and returns a sink that
// writes an Arrow stream to it and closes it on Close.
func Create(path string, opts Options) (*Sink, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("arrowsink: %w", err)
	}
	return newSink(f, nil, opts), nil
}

// New returns a sink that writes an Arrow stream to w. Close ends the
// stream but does not close w.
func New(w io.Writer, opts Options) *Sink {
	return newSink(nil, w, opts)
}

func newSink(f *os.File, w io.Writer, opts Options) *Sink {
	s := &Sink{out: batch.NewOut(f, w), mem: opts.Allocator}
	if s.mem == nil {
		s.mem = memory.DefaultAllocator
	}
	o := opts.SinkOptions
	s.b.Init(batch.Policy{Records: o.FlushRecords, Interval: o.FlushInterval, Sync: o.Sync}, s.writeBatch)
	return s
}

// streamSchema is the Arrow schema of a stream of records whose states
// have the state variables cols.
func streamSchema(cols coltype.Schema) *arrow.Schema {
	fields := []arrow.Field{
		{Name: "node", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Uint64},
		{Name: collector.EventColumn, Type: arrow.BinaryTypes.String},
	}
	for _, c := range cols {
		fields = append(fields, arrow.Field{Name: c.Name, Type: trace.ArrowType(c.Type), Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}

// start fixes the schema to that of states of type typ, with state
// variables cols (none before any state), and buffers the records held
// until then.
func (s *Sink) start(typ reflect.Type, cols coltype.Schema) {
	s.typ = typ
	schema := streamSchema(cols)
	s.rb = array.NewRecordBuilder(s.mem, schema)
	s.w = ipc.NewWriter(s.out.W, ipc.WithSchema(schema), ipc.WithAllocator(s.mem))
	for i := range s.early {
		s.append(&s.early[i])
	}
}

// append adds r to the builders.
func (s *Sink) append(r *collector.Record) {
	s.rb.Field(0).(*array.StringBuilder).Append(r.Node)
	s.rb.Field(1).(*array.Uint64Builder).Append(r.TS)
	s.rb.Field(2).(*array.StringBuilder).Append(r.Event.String())
	vars := s.rb.Fields()[3:]
	if r.Event != collector.EventState {
		for _, b := range vars {
			b.AppendNull()
		}
		return
	}
	s.app.reset(vars)
	r.State.Visit(&s.app)
}

// Write buffers the record.
func (s *Sink) Write(r *collector.Record) error {
	s.b.Lock()
	defer s.b.Unlock()
	if err := s.b.Check(); err != nil {
		return err
	}
	switch r.Event {
	case collector.EventState:
		if s.rb == nil {
			s.start(r.State.Type(), r.State.Schema())
			n := len(s.early)
			s.early = nil
			s.append(r)
			return s.b.Add(n + 1)
		}
		if t := r.State.Type(); t != s.typ {
			return fmt.Errorf("arrowsink: state type changed from %s to %s", s.typ, t)
		}
	case collector.EventHeartbeat, collector.EventLeave:
		if s.rb == nil {
			// Held until the schema is known; not counted, since no
			// flush can write them.
			s.early = append(s.early, collector.Record{Node: r.Node, TS: r.TS, Event: r.Event})
			return nil
		}
	default:
		return fmt.Errorf("arrowsink: write %s record", r.Event)
	}
	s.append(r)
	return s.b.Add(1)
}

// writeBatch writes the buffered records as one record batch.
func (s *Sink) writeBatch() error {
	rec := s.rb.NewRecordBatch()
	defer rec.Release()
	if err := s.w.Write(rec); err != nil {
		return err
	}
	return s.out.Flush(s.b.Sync())
}

// Flush writes the buffered records as one record batch.
func (s *Sink) Flush() error { return s.b.Flush() }

// Close flushes, ends the stream and closes the file the sink owns. A
// sink that saw no state writes a stream without state variables.
func (s *Sink) Close() error {
	s.b.Lock()
	defer s.b.Unlock()
	if err := s.b.Close(); err != nil {
		return err
	}
	if s.rb == nil && s.b.Err() == nil {
		s.start(nil, nil)
		s.b.Add(len(s.early))
		s.early = nil
	}
	err := s.b.FlushLocked()
	if s.w != nil {
		if cerr := s.w.Close(); err == nil {
			err = cerr
		}
		if cerr := s.out.Flush(s.b.Sync()); err == nil {
			err = cerr
		}
	}
	if s.rb != nil {
		s.rb.Release()
	}
	if cerr := s.out.Close(); err == nil {
		err = cerr
	}
	return err
}
