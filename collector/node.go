package collector

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/augur-dev/augur/collector/internal/batch"
	"github.com/augur-dev/augur/coltype"
)

// ErrClosed is returned by the methods of a [Node] after Close, and by
// sinks written to after Close.
var ErrClosed = batch.ErrClosed

// EventColumn is the column of an Arrow stream of node-local records
// (written by package arrowsink), after node and ts, that holds the
// [Event] of a record (utf8: state, heartbeat or leave). No state
// variable may take its name.
const EventColumn = "@event"

// Event is the kind of a node-local record.
type Event uint8

const (
	EventInvalid   Event = iota
	EventState           // the node's state after a change
	EventHeartbeat       // progress without a change of state
	EventLeave           // orderly departure
)

var eventNames = [...]string{"invalid", "state", "heartbeat", "leave"}

// String returns "state", "heartbeat", "leave" or "invalid", the names
// used in Arrow stream files.
func (e Event) String() string {
	if int(e) < len(eventNames) {
		return eventNames[e]
	}
	return fmt.Sprintf("Event(%d)", uint8(e))
}

// A Record is one node-local record, as a [Sink] receives it.
type Record struct {
	Node  string
	TS    uint64 // the node's Lamport time of the record
	Event Event
	State State // the exposed state, for EventState
}

// State is a value passed to [Node.Expose], with the plan that turns it
// into a row. It refers to the caller's value, so it is valid only during
// the Sink.Write that receives it.
type State struct {
	p *plan
	v reflect.Value
}

// StateOf returns state, a struct or a pointer to one, as [Node.Expose]
// records it, for sinks and recorders of their own. The State refers to
// state. The error is a [*TypeError] when its type cannot be exposed.
func StateOf(state any) (State, error) {
	v, p, err := stateValue(state)
	if err != nil {
		return State{}, err
	}
	return State{p, v}, nil
}

// Type returns the Go struct type of the state: states of one type have
// one schema.
func (s State) Type() reflect.Type { return s.p.typ }

// Schema returns the state variables: the exported fields of the state's
// type, in field order.
func (s State) Schema() coltype.Schema { return s.p.schema }

// Values returns one value per Schema column, in the representation of
// package trace (nil, bool, int64, uint64, float64, string, []any,
// map[string]any). The result is owned by the caller.
func (s State) Values() []any {
	vals := make([]any, len(s.p.root.fields))
	for i := range s.p.root.fields {
		f := &s.p.root.fields[i]
		vals[i] = f.c.value(f.field(s.v))
	}
	return vals
}

// Visit passes the values of the state variables to v, in Schema order,
// as [VisitState] does, allocating as little.
func (s State) Visit(v Visitor) {
	for i := range s.p.root.fields {
		f := &s.p.root.fields[i]
		f.c.visit(f.field(s.v), v)
	}
}

// AppendJSON appends the state as a JSON object whose keys are the state
// variables. Floats keep a fraction or an exponent, so that they read back
// as floats. A NaN or an infinity is an error naming the field.
func (s State) AppendJSON(b []byte) ([]byte, error) {
	return s.p.root.appendJSON(b, s.v, false)
}

// AppendKey appends an encoding of the state that is equal for equal
// states and differs for different ones: its JSON, with NaN and the
// infinities as strings.
func (s State) AppendKey(b []byte) []byte {
	b, _ = s.p.root.appendJSON(b, s.v, true)
	return b
}

// A Sink stores the records of a node. Write must not keep r.State after
// it returns. The sinks of this package are safe for concurrent use.
type Sink interface {
	Write(r *Record) error
	Close() error
}

// A Flusher is a Sink that buffers records and can write them out on
// demand.
type Flusher interface {
	Flush() error
}

// A Node exposes the state of one node of a system to a [Sink], stamped
// with the node's Lamport clock. Its methods are safe for concurrent use.
//
// A nil *Node does nothing: its methods return zero values and nil
// errors, so a system can keep its instrumentation and pass nil when it
// is not traced. The cost is then one nil check per call.
type Node struct {
	clock Clock
	name  string

	mu     sync.Mutex
	sink   Sink
	plan   *plan
	closed bool
	rec    Record // reused under mu: a Record passed to a Sink escapes
}

// NewNode returns a node named name that writes to sink, and owns it:
// [Node.Close] closes the sink. It panics if name is empty or sink is nil.
func NewNode(name string, sink Sink) *Node {
	if name == "" || sink == nil {
		panic("collector: NewNode needs a name and a sink")
	}
	return &Node{name: name, sink: sink}
}

// Name returns the node's name.
func (n *Node) Name() string {
	if n == nil {
		return ""
	}
	return n.name
}

// Clock returns the node's Lamport clock.
func (n *Node) Clock() *Clock {
	if n == nil {
		return nil
	}
	return &n.clock
}

// Tick advances the node's clock for a local event; see [Clock.Tick].
func (n *Node) Tick() uint64 {
	if n == nil {
		return 0
	}
	return n.clock.Tick()
}

// Stamp advances the node's clock for a message about to be sent and
// returns the time to send with it; see [Clock.Stamp].
//
// Expose a state change that a message reports before stamping the
// message: the stamp then exceeds the exposure's time, and every snapshot
// that holds the receiver's state after the message also holds the
// sender's state after the change.
func (n *Node) Stamp() uint64 {
	if n == nil {
		return 0
	}
	return n.clock.Stamp()
}

// Receive merges the time carried by a received message into the node's
// clock; see [Clock.Receive].
func (n *Node) Receive(ts uint64) uint64 {
	if n == nil {
		return 0
	}
	return n.clock.Receive(ts)
}

// Expose records state, the node's state after a change, at the next
// tick of its clock. state is a struct or a pointer to one; its exported
// fields are the state variables:
//
//   - bool, signed integers, uint8 to uint32 (int64), uint, uint64 and
//     uintptr (uint64), float32 and float64 (float64), string (utf8);
//   - []byte and [N]byte: a lower-case hex string;
//   - time.Time: int64 nanoseconds since the Unix epoch, the zero time null;
//   - slices and arrays: lists; nil slices are empty lists;
//   - maps with string or integer keys: map<utf8, T>, integer keys in
//     decimal; nil maps are empty;
//   - structs: structs of their exported fields; pointers: null when nil.
//
// A field tag augur:"name" renames a field, augur:"-" leaves it out, and
// augur:",string" records the field's String method instead. Fields of
// embedded structs are promoted unless the embedded field has a name tag.
// A type that cannot be exposed (an interface, a channel, a func, a
// recursive type) is a [*TypeError] naming the field, at the first call.
// The reflection plan is built once per type and shared.
//
// All exposures of a node must have the same type.
func (n *Node) Expose(state any) error {
	if n == nil {
		return nil
	}
	v, p, err := stateValue(state)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return ErrClosed
	}
	if n.plan == nil {
		n.plan = p
	} else if n.plan != p {
		return fmt.Errorf("collector: node %s: state type changed from %s to %s", n.name, n.plan.typ, p.typ)
	}
	// The tick is taken under the lock, so the sink sees the node's
	// records in the order of their times.
	n.rec = Record{Node: n.name, TS: n.clock.Tick(), Event: EventState, State: State{p, v}}
	err = n.sink.Write(&n.rec)
	n.rec.State = State{}
	return err
}

// Heartbeat records progress without a change of state, at the next tick
// of the node's clock. Heartbeats let snapshots complete while a node is
// idle.
func (n *Node) Heartbeat() error { return n.event(EventHeartbeat) }

// Leave records the node's orderly departure, at the next tick of its
// clock: it is no longer part of the snapshots after that time. A later
// Expose makes it rejoin. Call Leave before Close on an orderly shutdown;
// without it the node counts as live until a heartbeat timeout, and the
// snapshots after its last record are incomplete.
func (n *Node) Leave() error { return n.event(EventLeave) }

func (n *Node) event(e Event) error {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return ErrClosed
	}
	n.rec = Record{Node: n.name, TS: n.clock.Tick(), Event: e}
	return n.sink.Write(&n.rec)
}

// Flush writes out the records the sink buffers, if it is a [Flusher].
func (n *Node) Flush() error {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return ErrClosed
	}
	if f, ok := n.sink.(Flusher); ok {
		return f.Flush()
	}
	return nil
}

// Close closes the node's sink. It does not leave (see [Node.Leave]).
// Later calls return ErrClosed.
func (n *Node) Close() error {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return ErrClosed
	}
	n.closed = true
	return n.sink.Close()
}
