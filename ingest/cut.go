package ingest

import (
	"slices"

	"github.com/augur-dev/augur/collector"
)

// CutOptions configure a [Cutter].
type CutOptions struct {
	// FailAfter, if positive, is a heartbeat timeout in logical time: a
	// node is not live at a cut more than FailAfter after its latest
	// record. 0, the default, has none: nodes are live until they leave.
	FailAfter uint64
	// Collapse drops a cut whose members are those of the cut emitted
	// before it.
	Collapse bool
}

// A Record is a node-local record as a [Cutter] takes it: parsed,
// checked, and its state stored by the caller.
type Record struct {
	Node  string
	TS    uint64 // the node's Lamport time of the record
	Event collector.Event
	State uint32 // for EventState: the caller's handle of the state, such as its row in states.arrow
}

// A Cut is a complete consistent cut: the snapshot of the nodes live at
// its time.
type Cut struct {
	Seq     uint64   // the cut's number; cuts are numbered from 0 in time order, complete or not
	TS      uint64   // the time of the cut
	Members []uint32 // the State of every live node, in order of the nodes' first records
}

// A Cutter builds the consistent cuts of node-local records, as in D3S.
// It is a deterministic state machine without I/O: the caller reads the
// records (from files, say, or from requests), stores their states, and
// tells the Cutter what it read, in an order that respects time:
//
//   - [Cutter.Read] says that a record of a node has been read, to be
//     applied later: the node is known to have a record after every cut
//     made until then;
//   - [Cutter.Apply] applies the next record, in timestamp order across
//     all nodes, each record after its Read;
//   - [Cutter.End] says that a node has no more records;
//   - [Cutter.Finish] says that the input is over.
//
// There is a cut at every time t at which some node exposed a state,
// made once every record at t is applied: when a later record is
// applied, or at Finish. Its members are the current states of the nodes
// live at t. A node is live from a state until it leaves (a later state
// makes it rejoin), and with [CutOptions.FailAfter] only while its latest
// record is at most FailAfter old. A cut is complete when every live node
// has a record at or after t: one applied at t, or one read. Until that
// is known for every live node, the cut and the cuts after it wait; a
// node that ends without such a record makes the cuts that wait for it
// incomplete. [Cutter.Cuts] returns the complete cuts in order;
// incomplete ones are counted.
//
// A Cutter is not safe for concurrent use.
type Cutter struct {
	opts    CutOptions
	nodes   map[string]*cutNode
	order   []*cutNode // in order of first appearance
	lagging []*cutNode // nodes that pending cuts wait for

	cutTS   uint64 // time of the cut to make before a later record
	haveCut bool
	seq     int      // cuts made
	members []uint32 // scratch
	pending []pendingCut

	out   []Cut
	prev  []uint32 // members of the last cut emitted
	wrote bool     // a cut was emitted

	incomplete, collapsed int
}

// A cutNode is what a Cutter knows of a node.
type cutNode struct {
	name     string
	ended    bool   // it has no more records
	buffered int    // records read and not yet applied
	lastTS   uint64 // ts of the last record applied
	hasState bool   // it has exposed a state since it last left
	state    uint32 // its current state

	// Pending cuts in [lagStart, lagEnd] wait for its next record;
	// lagStart < 0 when none do.
	lagStart, lagEnd int
}

// A pendingCut is a cut that waits for the next record of a node.
type pendingCut struct {
	seq        int
	ts         uint64
	members    []uint32
	incomplete bool
}

// NewCutter returns a Cutter that knows no node yet.
func NewCutter(opts CutOptions) *Cutter {
	return &Cutter{opts: opts, nodes: map[string]*cutNode{}}
}

// Read records that a record of node has been read and will be applied
// later, and so is at or after every cut made until then: the cuts that
// wait only for node are complete. The first Read of a node makes it
// known.
func (c *Cutter) Read(node string) {
	n := c.nodes[node]
	if n == nil {
		n = &cutNode{name: node, lagStart: -1}
		c.nodes[node] = n
		c.order = append(c.order, n)
	}
	n.buffered++
	if n.lagStart >= 0 {
		// Its next record: the cuts waiting for it are complete as far
		// as it is concerned.
		c.unlag(n)
		c.drain()
	}
}

// End records that node has no more records: the cuts that wait for it
// are incomplete, and so is any later cut at which it is live without a
// record at or after the cut.
func (c *Cutter) End(node string) {
	n := c.nodes[node]
	if n == nil {
		return
	}
	n.ended = true
	if n.buffered > 0 || n.lagStart < 0 {
		return
	}
	for i := range c.pending {
		if p := &c.pending[i]; n.lagStart <= p.seq && p.seq <= n.lagEnd {
			p.incomplete = true
		}
	}
	c.unlag(n)
	c.drain()
}

func (c *Cutter) unlag(n *cutNode) {
	n.lagStart = -1
	c.lagging = slices.DeleteFunc(c.lagging, func(x *cutNode) bool { return x == n })
}

// Apply applies the next record in timestamp order, after its Read. A
// record later than the last state applied first makes the cut at that
// state's time.
func (c *Cutter) Apply(r Record) {
	n := c.nodes[r.Node]
	if n == nil || n.buffered == 0 {
		panic("ingest: Cutter.Apply of a record of " + r.Node + " not announced by Read")
	}
	if c.haveCut && r.TS > c.cutTS {
		c.cut(c.cutTS)
		c.haveCut = false
	}
	n.buffered--
	n.lastTS = r.TS
	switch r.Event {
	case collector.EventState:
		n.state, n.hasState = r.State, true
		c.cutTS, c.haveCut = r.TS, true
	case collector.EventLeave:
		n.hasState = false
	}
}

// Seal records that every record at or before t has been applied: the
// cut at the last state's time, if that is at most t, is made now rather
// than when a later record is applied, as it would be then. A monitor,
// which knows when no earlier record can come, checks the cut sooner.
// Records applied after Seal must be later than t.
func (c *Cutter) Seal(t uint64) {
	if c.haveCut && c.cutTS <= t {
		c.cut(c.cutTS)
		c.haveCut = false
	}
}

// Finish records that the input is over, once every record read has
// been applied: every node ends, the last cut is made, and every cut is
// settled.
func (c *Cutter) Finish() {
	for _, n := range c.order {
		if !n.ended {
			c.End(n.name)
		}
	}
	if c.haveCut {
		c.cut(c.cutTS)
		c.haveCut = false
	}
	if len(c.pending) > 0 {
		panic("ingest: cuts left pending after the last record")
	}
}

// Cuts returns the complete cuts settled since the last call, in order.
// The slice is valid until the next call of a method of c; the members
// belong to the caller.
func (c *Cutter) Cuts() []Cut {
	out := c.out
	c.out = c.out[:0]
	return out
}

// Incomplete returns the number of cuts dropped because a live node had
// no record at or after them.
func (c *Cutter) Incomplete() int { return c.incomplete }

// Collapsed returns the number of cuts dropped by [CutOptions.Collapse].
func (c *Cutter) Collapsed() int { return c.collapsed }

// live reports whether n is part of the cut at t: it has exposed a state
// since it last left, and with a heartbeat timeout, its last record is
// recent enough.
func (c *Cutter) live(n *cutNode, t uint64) bool {
	return n.hasState && (c.opts.FailAfter == 0 || t-n.lastTS <= c.opts.FailAfter)
}

// cut makes the cut at t, once every record with ts <= t is applied. Its
// members are the current states of the live nodes. It is complete when
// every live node has a record at or after t: one applied at t, or one
// read and not yet applied (all of which are later). For a node with
// neither that has not ended, it waits.
func (c *Cutter) cut(t uint64) {
	seq := c.seq
	c.seq++
	c.members = c.members[:0]
	waits := false
	for _, n := range c.order {
		if !c.live(n, t) {
			continue
		}
		c.members = append(c.members, n.state)
		if n.lastTS >= t || n.buffered > 0 {
			continue
		}
		if n.ended {
			c.incomplete++
			return
		}
		waits = true
	}
	if !waits && len(c.pending) == 0 {
		c.emit(seq, t, c.members)
		return
	}
	if waits {
		for _, n := range c.order {
			if c.live(n, t) && n.lastTS < t && n.buffered == 0 {
				if n.lagStart < 0 {
					n.lagStart = seq
					c.lagging = append(c.lagging, n)
				}
				n.lagEnd = seq
			}
		}
	}
	c.pending = append(c.pending, pendingCut{seq: seq, ts: t, members: slices.Clone(c.members)})
}

// drain settles the pending cuts, in order, that wait for no node.
func (c *Cutter) drain() {
	for len(c.pending) > 0 {
		p := &c.pending[0]
		if !p.incomplete {
			for _, n := range c.lagging {
				if n.lagStart <= p.seq && p.seq <= n.lagEnd {
					return
				}
			}
		}
		if p.incomplete {
			c.incomplete++
		} else {
			c.emit(p.seq, p.ts, p.members)
		}
		c.pending[0] = pendingCut{}
		c.pending = c.pending[1:]
	}
	c.pending = nil
}

// emit adds the cut numbered seq to the output, unless Collapse drops it.
func (c *Cutter) emit(seq int, ts uint64, members []uint32) {
	if c.opts.Collapse && c.wrote && slices.Equal(members, c.prev) {
		c.collapsed++
		return
	}
	c.out = append(c.out, Cut{Seq: uint64(seq), TS: ts, Members: slices.Clone(members)})
	c.prev = append(c.prev[:0], members...)
	c.wrote = true
}
