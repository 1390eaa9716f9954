// Package httpsink pushes a node's records to augur monitor over HTTP.
// It is a sink of its own, so that a process that records through
// package collector without pushing does not link net/http.
package httpsink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/augur-dev/augur/collector"
)

// Options configure a [Sink].
type Options struct {
	// Token is sent as "Authorization: Bearer Token"; empty sends none.
	Token string
	// BatchRecords is the most records sent in one request; 0 means 256.
	BatchRecords int
	// FlushInterval is the longest a record waits before it is sent; 0
	// means 200ms.
	FlushInterval time.Duration
	// MaxBuffered bounds the records held while the monitor cannot be
	// reached; 0 means 65536. Beyond it the oldest records are dropped
	// and counted (see [Sink.Dropped]): a node must not run out of
	// memory because its monitor is down.
	MaxBuffered int
	// MaxBackoff caps the delay between retries of a failed request
	// (a network error, a 5xx, 408 or 429), which doubles from 50ms (or
	// MaxBackoff, if less) after each failure; 0 means 5s.
	MaxBackoff time.Duration
	// CloseTimeout is how long Close keeps trying to send what is left;
	// 0 means 5s.
	CloseTimeout time.Duration
	// Client sends the requests; nil means a client with a 10s timeout.
	Client *http.Client
}

func (o Options) withDefaults() Options {
	if o.BatchRecords <= 0 {
		o.BatchRecords = 256
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = 200 * time.Millisecond
	}
	if o.MaxBuffered <= 0 {
		o.MaxBuffered = 1 << 16
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Second
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = 5 * time.Second
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	return o
}

// A Sink pushes records to a monitor over HTTP: batches of node-local
// JSON lines (the format of [collector.JSONLSink]) in POST requests with
// Content-Type application/x-ndjson. A goroutine sends them in order and
// retries failed requests with exponential backoff; Write never waits for
// the network. It is safe for concurrent use.
//
// A batch the monitor refuses with a 4xx status other than 408 (Request
// Timeout) and 429 (Too Many Requests) would be refused again: the sink
// drops its records, counts them (see [Sink.Rejected]), reports a
// [*RejectedError] by the next Flush or Close, and goes on with the next
// batch.
type Sink struct {
	url  string
	opts Options

	mu       sync.Mutex
	cond     *sync.Cond // signalled when lines are sent or a request fails
	lines    [][]byte   // encoded records not yet sent, oldest first
	first    uint64     // sequence number of lines[0]
	next     uint64     // sequence number of the next record written
	dropped  int64
	rejected int64  // records of batches the monitor refused
	fails    uint64 // failed requests so far
	lastErr  error
	refusal  error // the last refusal not yet returned by Flush or Close
	closed   bool
	buf      []byte

	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a sink that pushes records to url.
func New(url string, opts Options) *Sink {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Sink{
		url:    url,
		opts:   opts.withDefaults(),
		wake:   make(chan struct{}, 1),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	s.cond = sync.NewCond(&s.mu)
	go s.send(ctx)
	return s
}

// Write queues the record for sending. When MaxBuffered records are
// already waiting, the oldest is dropped.
func (s *Sink) Write(r *collector.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return collector.ErrClosed
	}
	b, err := r.AppendJSON(s.buf[:0])
	if err != nil {
		return err
	}
	s.buf = b
	s.lines = append(s.lines, bytes.Clone(b))
	s.next++
	if len(s.lines) > s.opts.MaxBuffered {
		s.lines[0] = nil
		s.lines = s.lines[1:]
		s.first++
		s.dropped++
	}
	if len(s.lines) >= s.opts.BatchRecords {
		s.poke()
	}
	return nil
}

// poke wakes the sender without blocking.
func (s *Sink) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Dropped returns the number of records never delivered: dropped because
// the buffer was full, refused by the monitor (see [Sink.Rejected]),
// or left unsent by Close.
func (s *Sink) Dropped() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Rejected returns the number of records dropped because the monitor
// refused their batch with a 4xx status that a retry would not change.
func (s *Sink) Rejected() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rejected
}

// Flush sends the records written so far and waits until they are
// delivered, or until a request fails, whose error it returns. When the
// monitor refused a batch since the last Flush, every record is sent or
// dropped and the refusal, a [*RejectedError], is returned.
func (s *Sink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return collector.ErrClosed
	}
	if err := s.waitLocked(s.next); err != nil {
		return err
	}
	return s.takeRefusal()
}

// takeRefusal returns the refusal not yet reported and forgets it. mu is
// held.
func (s *Sink) takeRefusal() error {
	err := s.refusal
	s.refusal = nil
	return err
}

// waitLocked waits until every record before seq is sent or dropped, or a
// request fails. mu is held.
func (s *Sink) waitLocked(seq uint64) error {
	fails := s.fails
	s.poke()
	for s.first < seq && s.fails == fails {
		s.cond.Wait()
	}
	if s.first < seq {
		return s.lastErr
	}
	return nil
}

// Close sends what is left, trying for up to CloseTimeout, and stops the
// sender. Records it could not send are counted as dropped, and the last
// request error is returned; else a refusal of the monitor not yet
// reported by Flush, a [*RejectedError].
func (s *Sink) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return collector.ErrClosed
	}
	s.closed = true
	deadline := time.Now().Add(s.opts.CloseTimeout)
	var err error
	for s.first < s.next {
		if err = s.waitLocked(s.next); err == nil || time.Now().After(deadline) {
			break
		}
	}
	left := int64(len(s.lines))
	s.dropped += left
	refusal := s.takeRefusal()
	s.mu.Unlock()
	s.cancel()
	<-s.done
	if left > 0 {
		return fmt.Errorf("collector: push to %s: %d records not sent: %w", s.url, left, err)
	}
	return refusal
}

// send is the sender goroutine: it posts batches in order, retrying a
// failed batch after a growing delay.
func (s *Sink) send(ctx context.Context) {
	defer close(s.done)
	ticker := time.NewTicker(s.opts.FlushInterval)
	defer ticker.Stop()
	minBackoff := min(50*time.Millisecond, s.opts.MaxBackoff)
	backoff := minBackoff
	for {
		s.mu.Lock()
		n := min(len(s.lines), s.opts.BatchRecords)
		batch, start := bytes.Join(s.lines[:n], nil), s.first
		s.mu.Unlock()
		if n == 0 {
			select {
			case <-ctx.Done():
				return
			case <-s.wake:
			case <-ticker.C:
			}
			continue
		}
		err := s.post(ctx, batch)
		var refused *RejectedError
		s.mu.Lock()
		if err == nil || errors.As(err, &refused) {
			// Lines may have been dropped meanwhile; remove what is left
			// of the batch.
			k := 0
			if sent := start + uint64(n); sent > s.first {
				k = int(sent - s.first)
				clear(s.lines[:k])
				s.lines = s.lines[k:]
				s.first = sent
			}
			if refused != nil {
				refused.Records = k
				s.rejected += int64(k)
				s.dropped += int64(k)
				s.refusal = refused
			}
			err, backoff = nil, minBackoff
		} else {
			s.fails++
			s.lastErr = err
		}
		s.cond.Broadcast()
		s.mu.Unlock()
		if err != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, s.opts.MaxBackoff)
		}
	}
}

// A RejectedError reports a batch that the monitor refused with a 4xx
// status other than 408 and 429, which the sink dropped.
type RejectedError struct {
	URL     string
	Status  string // "400 Bad Request"
	Reason  string // the start of the response body
	Records int    // records dropped
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("collector: push to %s: %s: %s (%d records dropped)", e.URL, e.Status, e.Reason, e.Records)
}

// retryable reports whether a request answered with code may succeed
// when sent again.
func retryable(code int) bool {
	return code/100 != 4 || code == http.StatusRequestTimeout || code == http.StatusTooManyRequests
}

// post sends one batch.
func (s *Sink) post(ctx context.Context, batch []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(batch))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	if s.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+s.opts.Token)
	}
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		return fmt.Errorf("collector: push to %s: %w", s.url, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 && !retryable(resp.StatusCode) {
		return &RejectedError{URL: s.url, Status: resp.Status, Reason: string(bytes.TrimSpace(msg))}
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("collector: push to %s: %s: %s", s.url, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

var _ interface {
	collector.Sink
	collector.Flusher
} = (*Sink)(nil)
