package monitor

import (
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/augur-dev/augur/checker"
)

// violationLine renders a violation as the line GET /v1/violations and
// the monitor's output carry, with a newline.
func violationLine(v *checker.Violation) []byte {
	type line struct {
		Check    string         `json:"check"`
		Property string         `json:"property"`
		Snapshot uint64         `json:"snapshot"`
		TS       uint64         `json:"ts"`
		Binding  map[string]any `json:"binding"`
		Values   map[string]any `json:"values"`
		Cut      map[string]int `json:"cut,omitempty"`
	}
	b, err := marshalLine(line{
		Check:    v.Check.Name,
		Property: v.Check.Property,
		Snapshot: v.Witness.Snapshot,
		TS:       v.Witness.TS,
		Binding:  v.Witness.Binding,
		Values:   v.Witness.Values,
		Cut:      v.Witness.Cut,
	})
	if err != nil {
		// A value JSON cannot hold (a NaN): say so in the line.
		b, _ = marshalLine(map[string]any{"check": v.Check.Name, "property": v.Check.Property,
			"snapshot": v.Witness.Snapshot, "ts": v.Witness.TS, "error": err.Error()})
	}
	return b
}

// marshalLine encodes v as one JSON line, without escaping <, > and &.
func marshalLine(v any) ([]byte, error) {
	var b lineBuffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b, err
}

type lineBuffer []byte

func (b *lineBuffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// A hub hands the violation lines to the subscribers of GET
// /v1/violations and to the monitor's output, without ever waiting for
// them: each has a bounded queue. A stream whose queue is full is
// disconnected, and told so; lines the output cannot take are dropped
// and counted.
type hub struct {
	size int // lines queued per subscriber
	max  int // subscribers
	met  *metrics

	mu     sync.Mutex
	subs   map[*subscriber]bool
	closed bool

	out     io.Writer
	outq    chan []byte
	outDone chan struct{}
}

// A subscriber is one stream.
type subscriber struct {
	lines chan []byte
	slow  bool // disconnected for falling behind
}

func newHub(size, streams int, out io.Writer, met *metrics) *hub {
	h := &hub{size: size, max: streams, met: met, subs: map[*subscriber]bool{}, out: out}
	if out != nil {
		h.outq = make(chan []byte, max(size, 1<<14))
		h.outDone = make(chan struct{})
		go h.writeOut()
	}
	return h
}

func (h *hub) writeOut() {
	defer close(h.outDone)
	for l := range h.outq {
		h.out.Write(l)
	}
}

// subscribe adds a stream. It returns nil and errClosed when the hub is
// closed, nil and errStreams when it has its most subscribers.
func (h *hub) subscribe() (*subscriber, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errClosed
	}
	if len(h.subs) >= h.max {
		return nil, errStreams
	}
	s := &subscriber{lines: make(chan []byte, h.size)}
	h.subs[s] = true
	h.met.subs.Store(int64(len(h.subs)))
	return s, nil
}

// The errors of subscribe.
var (
	errClosed  = errors.New("the monitor is shutting down")
	errStreams = errors.New("too many violation streams")
)

// unsubscribe removes a stream whose client went away.
func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[s] {
		delete(h.subs, s)
		close(s.lines)
		h.met.subs.Store(int64(len(h.subs)))
	}
}

// publish hands a line to every subscriber and the output.
func (h *hub) publish(line []byte) {
	if h.outq != nil {
		select {
		case h.outq <- line:
		default:
			h.met.drop("stdout")
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		select {
		case s.lines <- line:
		default:
			s.slow = true
			delete(h.subs, s)
			close(s.lines)
			h.met.drop("slow_subscriber")
			h.met.subs.Store(int64(len(h.subs)))
		}
	}
}

// close ends every stream, after the lines queued, and waits for the
// output to be written.
func (h *hub) close() {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		for s := range h.subs {
			close(s.lines)
		}
		clear(h.subs)
		h.met.subs.Store(0)
		if h.outq != nil {
			close(h.outq)
		}
	}
	h.mu.Unlock()
	if h.outDone != nil {
		<-h.outDone
	}
}
