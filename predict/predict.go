package predict

import (
	"fmt"
	"strings"

	"github.com/augur-dev/augur/checker"
)

// Kind is the kind of an event.
type Kind uint8

const (
	KindInvalid Kind = iota
	Deliver          // an in-flight message arrives at its receiver
	Drop             // an in-flight message is lost
	Duplicate        // an in-flight message is duplicated
	Timer            // a node's timer fires
	Reset            // a live node fails and restarts at once
	Restart          // a node that is down restarts
)

var kindNames = [...]string{"invalid", "deliver", "drop", "duplicate", "timer", "reset", "restart"}

// String returns the kind's name: deliver, drop, duplicate, timer,
// reset, restart.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// An Event is one event that can happen next in a [Model].
type Event struct {
	Kind Kind
	Node int // the node that handles the event: a message's receiver
	// From, Index, Msg and Hash describe a message: its sender, its
	// position among the messages of Model.Messages, the message itself
	// (for printing) and a hash of it, equal for equal messages.
	From  int
	Index int
	Msg   any
	Hash  uint64
}

// A Model is a copy of a running system that the explorer can advance:
// its nodes' state machines, the messages in flight and the nodes' clocks.
// Nodes are numbered from 0.
type Model interface {
	// Nodes returns the number of nodes, up or down.
	Nodes() int
	// Name returns node n's name, as the checks know it.
	Name(n int) string
	// Live reports whether node n is up.
	Live(n int) bool
	// State returns the state live node n exposes: what checker.Prepare
	// takes.
	State(n int) any
	// Hash returns a hash of live node n's local state, equal for equal
	// states. It covers every variable of State(n), and may leave out
	// variables, such as timestamps, whose differences should not make
	// the search explore a state again.
	Hash(n int) uint64
	// Messages returns the messages in flight to live nodes, as Deliver
	// events; Apply takes any of them with Kind Drop, and those with
	// CanDuplicate set with Kind Duplicate.
	Messages() []Message
	// Apply makes e happen. The Model may keep e.Msg.
	Apply(e Event)
	// Clone returns a copy that the explorer advances independently.
	Clone() Model
}

// A Message is a message in flight: its Deliver event, and whether it may
// be duplicated (a copy made by Duplicate may not be, which bounds the
// copies).
type Message struct {
	Event
	CanDuplicate bool
}

// A Path is a chain of events that leads from the explored model to a
// state violating checks.
type Path struct {
	Events     []Event
	Violations []checker.Violation // the failed checks, each with its witness
	names      []string
}

// String renders the events and the first violation on one line: the
// nodes by name, messages as %+v prints them.
func (p *Path) String() string {
	var b strings.Builder
	for i, e := range p.Events {
		if i > 0 {
			b.WriteString("; ")
		}
		switch e.Kind {
		case Deliver, Drop, Duplicate:
			fmt.Fprintf(&b, "%s %s→%s %T%+v", e.Kind, p.names[e.From], p.names[e.Node], e.Msg, e.Msg)
		default:
			fmt.Fprintf(&b, "%s %s", e.Kind, p.names[e.Node])
		}
	}
	if len(p.Violations) > 0 {
		if len(p.Events) > 0 {
			b.WriteString(": ")
		}
		b.WriteString(p.Violations[0].Error())
	}
	return b.String()
}
