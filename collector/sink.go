package collector

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// SinkOptions configure the file sinks. A record is flushed (written to
// the operating system, and so safe from a crash of the process) at most
// FlushRecords records or FlushInterval after it was written.
type SinkOptions struct {
	// FlushRecords is the number of records buffered before they are
	// flushed; 0 means 64, and 1 flushes every record.
	FlushRecords int
	// FlushInterval is the longest a record stays buffered; 0 means
	// 100ms, and a negative interval flushes by count and Flush only.
	FlushInterval time.Duration
	// Sync makes every flush also fsync the file, so that flushed records
	// survive a crash of the machine too. It costs a disk write per flush.
	Sync bool
	// Allocator holds the Arrow sink's buffers; nil means
	// memory.DefaultAllocator.
	Allocator memory.Allocator
}

func (o SinkOptions) withDefaults() SinkOptions {
	if o.FlushRecords <= 0 {
		o.FlushRecords = 64
	}
	if o.FlushInterval == 0 {
		o.FlushInterval = 100 * time.Millisecond
	}
	if o.Allocator == nil {
		o.Allocator = memory.DefaultAllocator
	}
	return o
}

// batcher holds what the sinks share: a lock, the flush policy and its
// timer, and the first error, which sticks.
type batcher struct {
	mu      sync.Mutex
	opts    SinkOptions
	pending int // records not yet flushed
	timer   *time.Timer
	err     error
	closed  bool
	flush   func() error // writes out the pending records; called with mu held
}

// added counts a record just buffered and flushes when the policy says
// so. mu is held.
func (b *batcher) added() error {
	b.pending++
	if b.pending >= b.opts.FlushRecords {
		return b.flushLocked()
	}
	if b.pending == 1 && b.opts.FlushInterval > 0 {
		if b.timer == nil {
			b.timer = time.AfterFunc(b.opts.FlushInterval, b.tick)
		} else {
			b.timer.Reset(b.opts.FlushInterval)
		}
	}
	return nil
}

// tick flushes from the timer. An error is kept for the next call.
func (b *batcher) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed && b.err == nil && b.pending > 0 {
		b.flushLocked()
	}
}

func (b *batcher) flushLocked() error {
	if b.err != nil {
		return b.err
	}
	if b.pending == 0 {
		return nil
	}
	if err := b.flush(); err != nil {
		b.err = err
		return err
	}
	b.pending = 0
	return nil
}

// check returns the error that a write must return before buffering.
func (b *batcher) check() error {
	if b.closed {
		return ErrClosed
	}
	return b.err
}

// stop stops the timer for Close. mu is held.
func (b *batcher) stop() {
	b.closed = true
	if b.timer != nil {
		b.timer.Stop()
	}
}

// syncer is what a sink writes to: a file it owns, or any io.Writer.
type syncer struct {
	f  *os.File // nil for a writer the sink does not own
	bw *bufio.Writer
}

func newSyncer(f *os.File, w io.Writer) syncer {
	if f != nil {
		w = f
	}
	return syncer{f: f, bw: bufio.NewWriterSize(w, 64<<10)}
}

// flush writes out what is buffered, and fsyncs an owned file if asked.
func (s syncer) flush(sync bool) error {
	if err := s.bw.Flush(); err != nil {
		return err
	}
	if sync && s.f != nil {
		return s.f.Sync()
	}
	return nil
}

// close closes an owned file.
func (s syncer) close() error {
	if s.f == nil {
		return nil
	}
	return s.f.Close()
}

// A JSONLSink writes records as node-local JSON lines:
//
//	{"node":"n1","ts":17,"state":{"term":2,"role":"leader"}}
//	{"node":"n1","ts":19,"heartbeat":true}
//	{"node":"n1","ts":25,"leave":true}
//
// It is safe for concurrent use.
type JSONLSink struct {
	batcher
	out  syncer
	name string // for errors
	buf  []byte
}

// CreateJSONLSink creates (or truncates) the file at path and returns a
// sink that writes to it and closes it on Close.
func CreateJSONLSink(path string, opts SinkOptions) (*JSONLSink, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("collector: %w", err)
	}
	return newJSONLSink(path, f, nil, opts), nil
}

// NewJSONLSink returns a sink that writes to w. Close flushes but does not
// close w.
func NewJSONLSink(w io.Writer, opts SinkOptions) *JSONLSink {
	return newJSONLSink("", nil, w, opts)
}

func newJSONLSink(name string, f *os.File, w io.Writer, opts SinkOptions) *JSONLSink {
	s := &JSONLSink{out: newSyncer(f, w), name: name}
	s.opts = opts.withDefaults()
	s.flush = func() error { return s.out.flush(s.opts.Sync) }
	return s
}

// Write buffers the record as one JSON line.
func (s *JSONLSink) Write(r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	b, err := r.AppendJSON(s.buf[:0])
	if err != nil {
		return err
	}
	s.buf = b
	if _, err := s.out.bw.Write(b); err != nil {
		s.err = err
		return err
	}
	return s.added()
}

// AppendJSON appends r to b as one node-local JSON line, newline
// included: what [JSONLSink] writes and package httpsink sends.
func (r *Record) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"node":`...)
	b = appendJSONString(b, r.Node)
	b = append(b, `,"ts":`...)
	b = strconv.AppendUint(b, r.TS, 10)
	switch r.Event {
	case EventState:
		b = append(b, `,"state":`...)
		var err error
		if b, err = r.State.AppendJSON(b); err != nil {
			return b, err
		}
	case EventHeartbeat:
		b = append(b, `,"heartbeat":true`...)
	case EventLeave:
		b = append(b, `,"leave":true`...)
	default:
		return b, fmt.Errorf("collector: write %s record", r.Event)
	}
	return append(b, "}\n"...), nil
}

// Flush writes out the buffered records.
func (s *JSONLSink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	return s.flushLocked()
}

// Close flushes the buffered records and closes the file the sink owns.
func (s *JSONLSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.stop()
	err := s.flushLocked()
	if cerr := s.out.close(); err == nil {
		err = cerr
	}
	return err
}

// EventColumn is the column of an [ArrowSink]'s stream, after node and
// ts, that holds the [Event] of a record (utf8: state, heartbeat or
// leave). No state variable may take its name.
const EventColumn = "@event"

// An ArrowSink writes records to an Arrow IPC stream: the columns node
// (utf8), ts (uint64) and @event (utf8: state, heartbeat or leave), then
// one column per state variable, null in heartbeats and leaves. Each
// flush writes one record batch, so a crash loses at most the records
// not yet flushed and at worst tears the last batch, which readers detect
// (the reader of package ingest reports it with its offset).
//
// The schema is fixed by the first state written; records before it are
// held until then. It is safe for concurrent use.
type ArrowSink struct {
	batcher
	out   syncer
	plan  *plan
	early []Record // heartbeats and leaves before the first state
	rb    *array.RecordBuilder
	w     *ipc.Writer
}

// CreateArrowSink creates (or truncates) the file at path and returns a
// sink that writes an Arrow stream to it and closes it on Close.
func CreateArrowSink(path string, opts SinkOptions) (*ArrowSink, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("collector: %w", err)
	}
	return newArrowSink(f, nil, opts), nil
}

// NewArrowSink returns a sink that writes an Arrow stream to w. Close
// ends the stream but does not close w.
func NewArrowSink(w io.Writer, opts SinkOptions) *ArrowSink {
	return newArrowSink(nil, w, opts)
}

func newArrowSink(f *os.File, w io.Writer, opts SinkOptions) *ArrowSink {
	s := &ArrowSink{out: newSyncer(f, w)}
	s.opts = opts.withDefaults()
	s.flush = s.writeBatch
	return s
}

// streamSchema is the Arrow schema of a stream of records of plan p (nil:
// no state variables).
func streamSchema(p *plan) *arrow.Schema {
	fields := []arrow.Field{
		{Name: "node", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Uint64},
		{Name: EventColumn, Type: arrow.BinaryTypes.String},
	}
	if p != nil {
		for _, c := range p.schema {
			fields = append(fields, arrow.Field{Name: c.Name, Type: c.Type, Nullable: true})
		}
	}
	return arrow.NewSchema(fields, nil)
}

// start fixes the schema.
func (s *ArrowSink) start(p *plan) error {
	s.plan = p
	schema := streamSchema(p)
	s.rb = array.NewRecordBuilder(s.opts.Allocator, schema)
	s.w = ipc.NewWriter(s.out.bw, ipc.WithSchema(schema), ipc.WithAllocator(s.opts.Allocator))
	for i := range s.early {
		s.append(&s.early[i])
	}
	s.pending += len(s.early)
	s.early = nil
	return nil
}

// append adds r to the builders.
func (s *ArrowSink) append(r *Record) {
	s.rb.Field(0).(*array.StringBuilder).Append(r.Node)
	s.rb.Field(1).(*array.Uint64Builder).Append(r.TS)
	s.rb.Field(2).(*array.StringBuilder).Append(r.Event.String())
	if s.plan == nil {
		return
	}
	for i := range s.plan.root.fields {
		b := s.rb.Field(i + 3)
		if r.Event != EventState {
			b.AppendNull()
			continue
		}
		f := &s.plan.root.fields[i]
		f.c.appendArrow(b, f.field(r.State.v))
	}
}

// Write buffers the record.
func (s *ArrowSink) Write(r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	switch r.Event {
	case EventState:
		if s.plan == nil {
			s.start(r.State.p)
		} else if r.State.p != s.plan {
			return fmt.Errorf("collector: arrow sink: state type changed from %s to %s", s.plan.typ, r.State.p.typ)
		}
	case EventHeartbeat, EventLeave:
		if s.plan == nil {
			// Held until the schema is known; not pending, since no
			// flush can write them.
			s.early = append(s.early, Record{Node: r.Node, TS: r.TS, Event: r.Event})
			return nil
		}
	default:
		return fmt.Errorf("collector: write %s record", r.Event)
	}
	s.append(r)
	return s.added()
}

// writeBatch writes the buffered records as one record batch.
func (s *ArrowSink) writeBatch() error {
	rec := s.rb.NewRecordBatch()
	defer rec.Release()
	if err := s.w.Write(rec); err != nil {
		return err
	}
	return s.out.flush(s.opts.Sync)
}

// Flush writes the buffered records as one record batch.
func (s *ArrowSink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	return s.flushLocked()
}

// Close flushes, ends the stream and closes the file the sink owns. A
// sink that saw no state writes a stream without state variables.
func (s *ArrowSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.stop()
	if s.plan == nil && s.err == nil {
		s.start(nil)
	}
	err := s.flushLocked()
	if s.w != nil {
		if cerr := s.w.Close(); err == nil {
			err = cerr
		}
		if cerr := s.out.flush(s.opts.Sync); err == nil {
			err = cerr
		}
	}
	if s.rb != nil {
		s.rb.Release()
	}
	if cerr := s.out.close(); err == nil {
		err = cerr
	}
	return err
}
