package collector

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/augur-dev/augur/collector/internal/batch"
)

// SinkOptions configure the file sinks: the JSONL sink here, the Arrow
// sink of package arrowsink. A record is flushed (written to the operating
// system, and so safe from a crash of the process) at most FlushRecords
// records or FlushInterval after it was written.
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
}

// policy returns the flush policy of o.
func (o SinkOptions) policy() batch.Policy {
	return batch.Policy{Records: o.FlushRecords, Interval: o.FlushInterval, Sync: o.Sync}
}

// A JSONLSink writes records as node-local JSON lines:
//
//	{"node":"n1","ts":17,"state":{"term":2,"role":"leader"}}
//	{"node":"n1","ts":19,"heartbeat":true}
//	{"node":"n1","ts":25,"leave":true}
//
// It is safe for concurrent use.
type JSONLSink struct {
	b   batch.Batcher
	out batch.Out
	buf []byte
}

// CreateJSONLSink creates (or truncates) the file at path and returns a
// sink that writes to it and closes it on Close.
func CreateJSONLSink(path string, opts SinkOptions) (*JSONLSink, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("collector: %w", err)
	}
	return newJSONLSink(f, nil, opts), nil
}

// NewJSONLSink returns a sink that writes to w. Close flushes but does not
// close w.
func NewJSONLSink(w io.Writer, opts SinkOptions) *JSONLSink {
	return newJSONLSink(nil, w, opts)
}

func newJSONLSink(f *os.File, w io.Writer, opts SinkOptions) *JSONLSink {
	s := &JSONLSink{out: batch.NewOut(f, w)}
	s.b.Init(opts.policy(), func() error { return s.out.Flush(s.b.Sync()) })
	return s
}

// Write buffers the record as one JSON line.
func (s *JSONLSink) Write(r *Record) error {
	s.b.Lock()
	defer s.b.Unlock()
	if err := s.b.Check(); err != nil {
		return err
	}
	b, err := r.AppendJSON(s.buf[:0])
	if err != nil {
		return err
	}
	s.buf = b
	if _, err := s.out.W.Write(b); err != nil {
		s.b.Fail(err)
		return err
	}
	return s.b.Add(1)
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
func (s *JSONLSink) Flush() error { return s.b.Flush() }

// Close flushes the buffered records and closes the file the sink owns.
func (s *JSONLSink) Close() error {
	s.b.Lock()
	defer s.b.Unlock()
	if err := s.b.Close(); err != nil {
		return err
	}
	err := s.b.FlushLocked()
	if cerr := s.out.Close(); err == nil {
		err = cerr
	}
	return err
}
