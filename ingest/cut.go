package ingest

import (
	"cmp"
	mathbits "math/bits"
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
//
// Its time and memory are proportional to the records and to the members
// of the cuts it returns, whatever the number of nodes: the live nodes are
// kept in order of their latest record, so that a cut looks only at the
// nodes applied or timed out since the cut before it; a cut that waits
// holds the members changed since that cut; and the pending cuts a node
// waits for are a range of them, counted with a difference array. (Each
// pending cut used to hold a copy of every member, and each cut looked at
// every node: collect of 20,000 nodes with one record each took 576 MB
// and 6 s, of 100,000 nodes more than 2.4 GB.)
type Cutter struct {
	opts  CutOptions
	nodes map[string]*cutNode
	order []*cutNode // in order of first appearance

	// The nodes that have a state and have not timed out, in order of
	// their latest record: those at the front time out first. The nodes
	// before unseen had their latest record before the last cut made;
	// those with no record read since wait for their next one.
	front, back, unseen *cutNode
	dirty               []*cutNode // nodes whose membership may have changed since the last changes taken
	waiting             int        // nodes with an open lag: every cut since their lagStart waits for them
	endedWaiting        int        // ended nodes live without a record at or after the last cut: later cuts are incomplete

	cutTS   uint64 // time of the cut to make before a later record
	haveCut bool
	seq     int // cuts made
	pending []pendingCut

	// waitSum and incSum are the sums of the deltas of the pending cuts
	// settled (and of those added while none was pending): how many
	// nodes the first pending cut waits for, and whether it is
	// incomplete, once its own deltas are added. nextWait and nextInc
	// are the deltas for the next cut to be left pending.
	waitSum, incSum   int
	nextWait, nextInc int

	settled []uint64 // bit i: order[i] is a member of the last cut whose changes were taken
	scratch []uint32 // the members of the cut being emitted

	out   []Cut
	prev  []uint32 // members of the last cut emitted
	wrote bool     // a cut was emitted

	incomplete, collapsed int
}

// A cutNode is what a Cutter knows of a node.
type cutNode struct {
	name     string
	idx      int    // its place in Cutter.order
	ended    bool   // it has no more records
	buffered int    // records read and not yet applied
	lastTS   uint64 // ts of the last record applied
	hasState bool   // it has exposed a state since it last left
	state    uint32 // its current state

	listed       bool // in the Cutter's list of live nodes
	prev, next   *cutNode
	seen         bool   // before the Cutter's unseen node
	endedWaiting bool   // counted in Cutter.endedWaiting
	dirty        bool   // in Cutter.dirty
	member       uint32 // its state at the last cut whose changes were taken

	// Pending cuts numbered from lagStart wait for its next record, up
	// to lagEnd, or to the latest cut while lagOpen; lagStart < 0 when
	// none do.
	lagStart, lagEnd int
	lagOpen          bool
}

// A pendingCut is a cut that waits for the next record of a node.
type pendingCut struct {
	seq     int
	ts      uint64
	changes []memberChange // since the cut before it
	// Deltas, at this cut, of the number of nodes that cuts from this
	// one on wait for, and of the number of ended nodes that make them
	// incomplete.
	dWait, dInc int
}

// A memberChange is a node's membership at a cut, where it changed.
type memberChange struct {
	idx   int
	live  bool
	state uint32
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
		n = &cutNode{name: node, idx: len(c.order), lagStart: -1}
		c.nodes[node] = n
		c.order = append(c.order, n)
		if n.idx%64 == 0 {
			c.settled = append(c.settled, 0)
		}
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
	if n.buffered > 0 {
		return
	}
	if n.listed && n.seen && !n.endedWaiting {
		n.endedWaiting = true
		c.endedWaiting++
	}
	if n.lagStart < 0 {
		return
	}
	c.delta(n.lagStart, 0, 1)
	c.delta(c.lagEnd(n)+1, 0, -1)
	c.unlag(n)
	c.drain()
}

// lagEnd returns the number of the last cut that waits for n.
func (c *Cutter) lagEnd(n *cutNode) int {
	if n.lagOpen {
		return c.seq - 1
	}
	return n.lagEnd
}

// unlag makes no cut wait for n.
func (c *Cutter) unlag(n *cutNode) {
	c.delta(n.lagStart, -1, 0)
	if n.lagOpen {
		c.waiting--
	} else {
		c.delta(n.lagEnd+1, 1, 0)
	}
	n.lagStart, n.lagOpen = -1, false
}

// delta adds wait and inc to the deltas of the cut numbered seq: they
// count for the pending cuts from seq on and for the cuts left pending
// later.
func (c *Cutter) delta(seq, wait, inc int) {
	if len(c.pending) == 0 {
		c.waitSum += wait
		c.incSum += inc
		return
	}
	i, _ := slices.BinarySearchFunc(c.pending, seq, func(p pendingCut, seq int) int { return cmp.Compare(p.seq, seq) })
	if i == len(c.pending) {
		c.nextWait += wait
		c.nextInc += inc
		return
	}
	c.pending[i].dWait += wait
	c.pending[i].dInc += inc
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
	c.unlist(n)
	if n.hasState {
		c.list(n)
	}
	c.touch(n)
}

// list appends n, whose record is the latest, to the live nodes.
func (c *Cutter) list(n *cutNode) {
	n.listed, n.seen, n.prev, n.next = true, false, c.back, nil
	if c.back != nil {
		c.back.next = n
	} else {
		c.front = n
	}
	c.back = n
	if c.unseen == nil {
		c.unseen = n
	}
}

// unlist removes n from the live nodes, if it is there.
func (c *Cutter) unlist(n *cutNode) {
	if !n.listed {
		return
	}
	if c.unseen == n {
		c.unseen = n.next
	}
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		c.front = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		c.back = n.prev
	}
	n.listed, n.seen, n.prev, n.next = false, false, nil, nil
}

// touch notes that n's membership may have changed.
func (c *Cutter) touch(n *cutNode) {
	if !n.dirty {
		n.dirty = true
		c.dirty = append(c.dirty, n)
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

// cut makes the cut at t, once every record with ts <= t is applied. Its
// members are the current states of the live nodes: those that have
// exposed a state since they last left and, with a heartbeat timeout,
// whose last record is recent enough. It is complete when every live
// node has a record at or after t: one applied at t, or one read and not
// yet applied (all of which are later). For a node with neither that has
// not ended, it waits.
func (c *Cutter) cut(t uint64) {
	seq := c.seq
	c.seq++
	for n := c.front; c.opts.FailAfter > 0 && n != nil && t-n.lastTS > c.opts.FailAfter; n = c.front {
		if n.lagOpen {
			n.lagOpen, n.lagEnd = false, seq-1
			c.waiting--
			c.delta(seq, -1, 0)
		}
		if n.endedWaiting {
			n.endedWaiting = false
			c.endedWaiting--
		}
		c.unlist(n)
		c.touch(n)
	}
	for ; c.unseen != nil && c.unseen.lastTS < t; c.unseen = c.unseen.next {
		n := c.unseen
		n.seen = true
		switch {
		case n.buffered > 0:
		case n.ended:
			n.endedWaiting = true
			c.endedWaiting++
		default:
			n.lagStart, n.lagOpen = seq, true
			c.waiting++
			c.delta(seq, 1, 0)
		}
	}
	if c.endedWaiting > 0 {
		// Its changes are taken with the next cut's.
		c.incomplete++
		return
	}
	if c.waiting == 0 && len(c.pending) == 0 {
		for _, n := range c.dirty {
			c.settle(memberChange{n.idx, n.listed, n.state})
			n.dirty = false
		}
		c.dirty = c.dirty[:0]
		c.emit(seq, t)
		return
	}
	changes := make([]memberChange, len(c.dirty))
	for i, n := range c.dirty {
		changes[i] = memberChange{n.idx, n.listed, n.state}
		n.dirty = false
	}
	c.dirty = c.dirty[:0]
	c.pending = append(c.pending, pendingCut{seq: seq, ts: t, changes: changes, dWait: c.nextWait, dInc: c.nextInc})
	c.nextWait, c.nextInc = 0, 0
}

// settle applies a change of membership to the settled members.
func (c *Cutter) settle(m memberChange) {
	if m.live {
		c.settled[m.idx/64] |= 1 << (m.idx % 64)
		c.order[m.idx].member = m.state
	} else {
		c.settled[m.idx/64] &^= 1 << (m.idx % 64)
	}
}

// drain settles the pending cuts, in order, that wait for no node.
func (c *Cutter) drain() {
	for len(c.pending) > 0 {
		p := &c.pending[0]
		wait, inc := c.waitSum+p.dWait, c.incSum+p.dInc
		if inc == 0 && wait > 0 {
			return
		}
		c.waitSum, c.incSum = wait, inc
		for _, m := range p.changes {
			c.settle(m)
		}
		if inc > 0 {
			c.incomplete++
		} else {
			c.emit(p.seq, p.ts)
		}
		c.pending[0] = pendingCut{}
		c.pending = c.pending[1:]
	}
	c.pending = nil
	c.waitSum += c.nextWait
	c.incSum += c.nextInc
	c.nextWait, c.nextInc = 0, 0
}

// emit adds the cut numbered seq, whose members are the settled ones,
// to the output, unless Collapse drops it.
func (c *Cutter) emit(seq int, ts uint64) {
	c.scratch = c.scratch[:0]
	for w, bits := range c.settled {
		for ; bits != 0; bits &= bits - 1 {
			c.scratch = append(c.scratch, c.order[w*64+mathbits.TrailingZeros64(bits)].member)
		}
	}
	if c.opts.Collapse && c.wrote && slices.Equal(c.scratch, c.prev) {
		c.collapsed++
		return
	}
	c.out = append(c.out, Cut{Seq: uint64(seq), TS: ts, Members: slices.Clone(c.scratch)})
	c.prev = append(c.prev[:0], c.scratch...)
	c.wrote = true
}
