// Package batch holds what the file sinks of package collector and its
// subpackages share: the flush policy with its timer, the first error,
// which sticks, and the buffered file or writer they write to.
package batch

import (
	"bufio"
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// ErrClosed is collector.ErrClosed: a sink written to after Close returns
// it.
var ErrClosed = errors.New("collector: closed")

// Policy says when buffered records are flushed; see
// collector.SinkOptions, whose fields these are.
type Policy struct {
	Records  int           // 0 means 64
	Interval time.Duration // 0 means 100ms; negative, by count and Flush only
	Sync     bool
}

// A Batcher counts the records a sink buffers and flushes them by its
// policy. A sink holds its lock while it buffers and flushes, and the
// timer takes it to flush.
type Batcher struct {
	mu      sync.Mutex
	policy  Policy
	pending int // records not yet flushed
	timer   *time.Timer
	err     error
	closed  bool
	flush   func() error // writes out the pending records; called with mu held
}

// Init sets b's policy, with defaults, and what flushes; it must be
// called before b is used.
func (b *Batcher) Init(p Policy, flush func() error) {
	if p.Records <= 0 {
		p.Records = 64
	}
	if p.Interval == 0 {
		p.Interval = 100 * time.Millisecond
	}
	b.policy, b.flush = p, flush
}

// Lock takes the sink's lock.
func (b *Batcher) Lock() { b.mu.Lock() }

// Unlock releases it.
func (b *Batcher) Unlock() { b.mu.Unlock() }

// Sync reports whether a flush must also fsync.
func (b *Batcher) Sync() bool { return b.policy.Sync }

// Add counts n records just buffered and flushes when the policy says
// so; the first record buffered starts the timer, unless the sink is
// closing. The lock is held.
func (b *Batcher) Add(n int) error {
	was := b.pending
	b.pending += n
	if b.pending >= b.policy.Records {
		return b.FlushLocked()
	}
	if was == 0 && b.pending > 0 && b.policy.Interval > 0 && !b.closed {
		if b.timer == nil {
			b.timer = time.AfterFunc(b.policy.Interval, b.tick)
		} else {
			b.timer.Reset(b.policy.Interval)
		}
	}
	return nil
}

// tick flushes from the timer. An error is kept for the next call.
func (b *Batcher) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed && b.err == nil && b.pending > 0 {
		b.FlushLocked()
	}
}

// FlushLocked writes out the pending records. The lock is held.
func (b *Batcher) FlushLocked() error {
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

// Flush takes the lock and writes out the pending records, unless the
// sink is closed or an error stuck.
func (b *Batcher) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.Check(); err != nil {
		return err
	}
	return b.FlushLocked()
}

// Check returns the error that a write must return before buffering:
// ErrClosed after Close, or the error that stuck. The lock is held.
func (b *Batcher) Check() error {
	if b.closed {
		return ErrClosed
	}
	return b.err
}

// Fail makes err stick: every later call returns it. The lock is held.
func (b *Batcher) Fail(err error) { b.err = err }

// Err returns the error that stuck, if any. The lock is held.
func (b *Batcher) Err() error { return b.err }

// Close marks the sink closed and stops the timer; it returns ErrClosed
// if it already was. The lock is held.
func (b *Batcher) Close() error {
	if b.closed {
		return ErrClosed
	}
	b.closed = true
	if b.timer != nil {
		b.timer.Stop()
	}
	return nil
}

// Out is what a sink writes to: a file it owns, or any io.Writer,
// through a buffer.
type Out struct {
	f *os.File // nil for a writer the sink does not own
	W *bufio.Writer
}

// NewOut returns an Out that writes to f, which it owns, or, when f is
// nil, to w.
func NewOut(f *os.File, w io.Writer) Out {
	if f != nil {
		w = f
	}
	return Out{f: f, W: bufio.NewWriterSize(w, 64<<10)}
}

// Flush writes out what is buffered, and fsyncs an owned file if sync.
func (o Out) Flush(sync bool) error {
	if err := o.W.Flush(); err != nil {
		return err
	}
	if sync && o.f != nil {
		return o.f.Sync()
	}
	return nil
}

// Close closes an owned file.
func (o Out) Close() error {
	if o.f == nil {
		return nil
	}
	return o.f.Close()
}
