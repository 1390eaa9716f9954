package planted

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"strconv"
)

// ovStatus is where a node of the tree overlay is in its life.
type ovStatus uint8

const (
	ovJoining ovStatus = iota // looking for a parent: fresh, or orphaned with its subtree
	ovJoined                  // in the tree
	ovLeaving                 // handing its children off before it goes
)

// ovNode is one node's state as the trace shows it. A recorded ovNode is
// never changed: the simulator replaces it, so that the steps at which a
// node did not change share one.
type ovNode struct {
	id, parent, root  string // parent and root are "" when unknown
	children          []string
	status            ovStatus
	depth, gen, round int64
	// In a ring: the node's position, its successor and predecessor (""
	// when unknown) and its successor list, nearest first.
	key        int64
	succ, pred string
	succs      []ovEntry
}

// ovEntry is an entry of a successor list.
type ovEntry struct {
	id  string
	key int64
}

// ovParams are the knobs of one simulated run of an overlay.
type ovParams struct {
	nodes, steps int
	maxDelay     int // of a message, in steps
	beat         int // steps between a node's heartbeats or stabilisation rounds, on average
	timeout      int // steps a node must be down before a neighbour notices
	gap          int // steps between crashes and leaves, on average

	fanout int // tree: children a node adopts, at most
	// eager (tree): a leaving node forgets its parent and children at
	// once, before they know; otherwise it waits until each has
	// detached.
	eager bool
	// fast (tree): a crashed node may restart before its neighbours
	// notice the crash, as a new incarnation that knows nothing.
	fast  bool
	succs int // ring: length of the successor lists
}

// The events of the tree's simulator: messages, then timers.
type ovKind uint8

const (
	ovJoin     ovKind = iota // a join request, forwarded down the tree
	ovAccept                 // a parent adopts the joiner
	ovCancel                 // the joiner, adopted elsewhere, declines
	ovOrphan                 // a leaving parent lets its child go
	ovDetach                 // the child has let go
	ovLeave                  // a leaving child tells its parent
	ovLeaveAck               // the parent has forgotten it
	ovNewDepth               // a parent's new depth
	ovRetry                  // timer: the joiner asks again
	ovBeat                   // timer: heartbeat and failure detection
	ovRestart                // timer: a node that went down comes back
)

// ovEvent is a message or a timer. who is the joiner of a join, accept
// or cancel; gen the sender's incarnation; ticket the join attempt an
// accept or cancel answers; name and list a node and a successor list
// a ring's message carries.
type ovEvent struct {
	at, seq       int
	timer         bool
	kind          ovKind
	from, to, who int
	depth, gen    int64
	jgen, ticket  int64
	name          string
	list          []ovEntry
}

type ovQueue []ovEvent

func (q ovQueue) Len() int { return len(q) }
func (q ovQueue) Less(i, j int) bool {
	return q[i].at < q[j].at || q[i].at == q[j].at && q[i].seq < q[j].seq
}
func (q ovQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *ovQueue) Push(x any)   { *q = append(*q, x.(ovEvent)) }
func (q *ovQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// childRec is what a parent knows of a child: the incarnation and the
// join attempt it adopted.
type childRec struct{ gen, ticket int64 }

// ovNet is what the overlays' simulators share: the nodes, their
// states, and the queue of messages and timers, one event per step.
type ovNet struct {
	p        ovParams
	rng      *rand.Rand
	names    []string
	index    map[string]int
	now, seq int
	q        ovQueue
	inFlight int // messages in the queue

	cur     []*ovNode // nil: down
	last    []int64   // a node's last incarnation, while it is down
	downAt  []int
	attempt []int64
	lastAt  map[[2]int]int // per channel, for FIFO delivery

	hist     [][]*ovNode // per step, per node
	steady   []bool
	episodes int
}

func newOvNet(rng *rand.Rand, p ovParams) *ovNet {
	s := &ovNet{
		p: p, rng: rng, index: map[string]int{}, lastAt: map[[2]int]int{},
		cur: make([]*ovNode, p.nodes), last: make([]int64, p.nodes), downAt: make([]int, p.nodes), attempt: make([]int64, p.nodes),
	}
	for i := range p.nodes {
		s.names = append(s.names, ovName(i))
		s.index[s.names[i]] = i
	}
	return s
}

// An ovProtocol is an overlay's behaviour, which ovNet runs.
type ovProtocol interface {
	handle(e ovEvent) // deliver a message or fire a timer
	disturb()         // crash a node, or have one leave
	consistent() bool // whether the overlay is repaired
}

// simulate runs p.steps steps of pr, one event per step: the next
// message or timer due, else a crash or leave when one is due, and
// records them. A step is steady when no message is in flight and the
// overlay is consistent.
func (s *ovNet) simulate(pr ovProtocol) {
	next := s.p.gap
	s.hist = make([][]*ovNode, s.p.steps)
	s.steady = make([]bool, s.p.steps)
	for s.now = 0; s.now < s.p.steps; s.now++ {
		switch {
		case len(s.q) > 0 && s.q[0].at <= s.now:
			e := heap.Pop(&s.q).(ovEvent)
			if !e.timer {
				s.inFlight--
			}
			pr.handle(e)
		case s.now >= next:
			pr.disturb()
			next = s.now + s.p.gap/2 + s.rng.IntN(s.p.gap)
		}
		s.hist[s.now] = slices.Clone(s.cur)
		s.steady[s.now] = s.inFlight == 0 && pr.consistent()
	}
}

// treeSim simulates a RandTree-like overlay: node 0 is the root, which
// never fails; the others join by a request that walks down from the
// root to a node with room, leave by handing their children off, crash,
// and come back. A node whose parent fails rejoins with its subtree,
// and its new depth reaches the subtree by messages.
type treeSim struct {
	*ovNet
	parentGen []int64 // the incarnation of the parent that adopted the node
	kids      []map[int]childRec
}

func newTreeSim(rng *rand.Rand, p ovParams) *treeSim {
	s := &treeSim{ovNet: newOvNet(rng, p), parentGen: make([]int64, p.nodes), kids: make([]map[int]childRec, p.nodes)}
	for i := range p.nodes {
		s.kids[i] = map[int]childRec{}
	}
	// A consistent tree to start from: each node under an earlier one
	// with room.
	s.cur[0] = &ovNode{id: s.names[0], root: s.names[0], status: ovJoined, gen: 1}
	for i := 1; i < p.nodes; i++ {
		var room []int
		for j := range i {
			if len(s.cur[j].children) < p.fanout {
				room = append(room, j)
			}
		}
		par := room[rng.IntN(len(room))]
		s.cur[i] = &ovNode{id: s.names[i], parent: s.names[par], root: s.names[0], status: ovJoined, depth: s.cur[par].depth + 1, gen: 1}
		s.edit(par, func(n *ovNode) { n.children = addName(n.children, s.names[i]) })
		s.kids[par][i] = childRec{gen: 1}
		s.parentGen[i] = 1
	}
	for i := range p.nodes {
		s.timer(ovBeat, i, 1+rng.IntN(p.beat), 1)
	}
	return s
}

// ovName is the name of node i.
func ovName(i int) string { return "n" + strconv.Itoa(i+1) }

// consistent reports whether every live node is joined, one level
// below a live parent that lists it, and lists only live children that
// point to it.
func (s *treeSim) consistent() bool {
	for i, n := range s.cur {
		if n == nil {
			continue
		}
		if n.status != ovJoined {
			return false
		}
		if i != 0 {
			p := s.live(n.parent)
			if p == nil || !slices.Contains(p.children, n.id) || p.depth+1 != n.depth {
				return false
			}
		}
		for _, c := range n.children {
			if k := s.live(c); k == nil || k.parent != n.id {
				return false
			}
		}
	}
	return true
}

// live returns the state of the live node named name, or nil.
func (s *ovNet) live(name string) *ovNode {
	if i, ok := s.index[name]; ok {
		return s.cur[i]
	}
	return nil
}

// edit replaces node i's state by a copy changed by f.
func (s *ovNet) edit(i int, f func(n *ovNode)) {
	n := *s.cur[i]
	f(&n)
	s.cur[i] = &n
}

// send sends a message, delivered in order on its channel after a
// random delay.
func (s *ovNet) send(e ovEvent) {
	e.at = s.now + 1 + s.rng.IntN(s.p.maxDelay)
	ch := [2]int{e.from, e.to}
	e.at = max(e.at, s.lastAt[ch])
	s.lastAt[ch] = e.at
	s.inFlight++
	s.push(e)
}

// timer sets a timer of node i after the given steps.
func (s *ovNet) timer(kind ovKind, i, after int, ticket int64) {
	s.push(ovEvent{at: s.now + after, timer: true, kind: kind, to: i, ticket: ticket})
}

func (s *ovNet) push(e ovEvent) {
	s.seq++
	e.seq = s.seq
	heap.Push(&s.q, e)
}

// disturb crashes a joined node other than the root, or has it leave,
// while at least two nodes stay up.
func (s *treeSim) disturb() {
	var cands []int
	up := 0
	for i, n := range s.cur {
		if n != nil {
			up++
			if i != 0 && n.status == ovJoined {
				cands = append(cands, i)
			}
		}
	}
	if up <= 2 || len(cands) == 0 {
		return
	}
	s.episodes++
	i := cands[s.rng.IntN(len(cands))]
	if s.rng.IntN(2) == 0 {
		s.down(i, true)
		return
	}
	n := s.cur[i]
	s.edit(i, func(n *ovNode) {
		n.status = ovLeaving
		if s.p.eager {
			n.parent, n.children = "", nil
		}
	})
	for _, c := range n.children {
		s.send(ovEvent{kind: ovOrphan, from: i, to: s.index[c], gen: n.gen})
	}
	if s.p.eager {
		clear(s.kids[i])
		s.send(ovEvent{kind: ovLeave, from: i, to: s.index[n.parent], gen: n.gen})
	} else if len(n.children) == 0 {
		s.depart(i)
	}
}

// down takes node i down and sets the timer of its restart: soon after
// a crash in a fast system, otherwise once every neighbour has noticed.
func (s *treeSim) down(i int, crash bool) {
	s.last[i] = s.cur[i].gen
	s.cur[i], s.downAt[i] = nil, s.now
	clear(s.kids[i])
	after := s.p.timeout + 2*s.p.beat + s.rng.IntN(300)
	if crash && s.p.fast {
		after = 2 + s.rng.IntN(s.p.timeout+s.p.beat)
	}
	s.timer(ovRestart, i, after, 0)
}

// depart has a leaving node tell its parent and go.
func (s *treeSim) depart(i int) {
	if n := s.cur[i]; n.parent != "" {
		s.send(ovEvent{kind: ovLeave, from: i, to: s.index[n.parent], gen: n.gen})
	}
	s.down(i, false)
}

// join sends node i's join request to the root and sets the timer of
// its next attempt.
func (s *treeSim) join(i int) {
	s.attempt[i]++
	s.send(ovEvent{kind: ovJoin, from: i, to: 0, who: i, jgen: s.cur[i].gen, ticket: s.attempt[i]})
	s.timer(ovRetry, i, 4*s.p.maxDelay*s.p.nodes+s.p.beat, s.attempt[i])
}

// orphan has node i look for a new parent, keeping its subtree.
func (s *treeSim) orphan(i int) {
	s.edit(i, func(n *ovNode) { n.parent, n.status = "", ovJoining })
	s.join(i)
}

func (s *treeSim) handle(e ovEvent) {
	to := e.to
	n := s.cur[to]
	if n == nil && e.kind != ovRestart {
		return // lost, or the timer of a node that went down
	}
	switch e.kind {
	case ovJoin:
		s.onJoin(e, n)
	case ovAccept:
		s.onAccept(e, n)
	case ovCancel:
		if r, ok := s.kids[to][e.who]; ok && r.ticket == e.ticket {
			s.drop(to, e.who)
		}
	case ovOrphan:
		if n.parent == s.names[e.from] && s.parentGen[to] == e.gen {
			s.orphan(to)
		}
		s.send(ovEvent{kind: ovDetach, from: to, to: e.from})
	case ovDetach:
		s.drop(to, e.from)
		if n.status == ovLeaving && !s.p.eager && len(s.cur[to].children) == 0 {
			s.depart(to)
		}
	case ovLeave:
		if r, ok := s.kids[to][e.from]; ok && r.gen == e.gen {
			s.drop(to, e.from)
		}
		if s.p.eager {
			s.send(ovEvent{kind: ovLeaveAck, from: to, to: e.from})
		}
	case ovLeaveAck:
		if n.status == ovLeaving {
			s.down(to, false)
		}
	case ovNewDepth:
		if n.parent == s.names[e.from] && n.depth != e.depth+1 {
			s.setDepth(to, e.depth+1)
		}
	case ovRetry:
		if n.status == ovJoining && s.attempt[to] == e.ticket {
			s.join(to)
		}
	case ovBeat:
		if n.gen == e.ticket { // not the heartbeat of an earlier incarnation
			s.onBeat(to, n)
		}
	case ovRestart:
		// It waits until its former children, which may not have
		// noticed the crash, have noticed the new incarnation.
		s.cur[to] = &ovNode{id: s.names[to], status: ovJoining, gen: s.last[to] + 1}
		s.timer(ovBeat, to, 1+s.rng.IntN(s.p.beat), s.cur[to].gen)
		s.timer(ovRetry, to, 3*s.p.beat/2+1, s.attempt[to])
	}
}

// onJoin adopts the joiner if the node has room, or passes the request
// to a random child.
func (s *treeSim) onJoin(e ovEvent, n *ovNode) {
	x, j := e.to, e.who
	if n.status != ovJoined || x == j {
		return
	}
	_, known := s.kids[x][j]
	if len(n.children) < s.p.fanout || known {
		s.edit(x, func(n *ovNode) { n.children = addName(n.children, s.names[j]) })
		s.kids[x][j] = childRec{gen: e.jgen, ticket: e.ticket}
		s.send(ovEvent{kind: ovAccept, from: x, to: j, who: j, depth: n.depth, gen: n.gen, jgen: e.jgen, ticket: e.ticket})
		return
	}
	c := s.index[n.children[s.rng.IntN(len(n.children))]]
	if c != j {
		e.from, e.to = x, c
		s.send(e)
	}
}

// onAccept makes the sender the joiner's parent, or declines it when
// the joiner has a parent already.
func (s *treeSim) onAccept(e ovEvent, n *ovNode) {
	j, x := e.to, e.from
	switch {
	case e.jgen != n.gen || n.parent == s.names[x]:
		return // for an earlier incarnation, or a second adoption by the parent
	case n.status != ovJoining:
		s.send(ovEvent{kind: ovCancel, from: j, to: x, who: j, ticket: e.ticket})
		return
	}
	s.edit(j, func(n *ovNode) { n.parent, n.root, n.status = s.names[x], s.names[0], ovJoined })
	s.parentGen[j] = e.gen
	s.setDepth(j, e.depth+1)
}

// setDepth sets node i's depth and tells its children.
func (s *treeSim) setDepth(i int, d int64) {
	s.edit(i, func(n *ovNode) { n.depth = d })
	for _, c := range s.cur[i].children {
		s.send(ovEvent{kind: ovNewDepth, from: i, to: s.index[c], depth: d})
	}
}

// drop removes child c from node i's children.
func (s *treeSim) drop(i, c int) {
	delete(s.kids[i], c)
	if slices.Contains(s.cur[i].children, s.names[c]) {
		s.edit(i, func(n *ovNode) {
			n.children = slices.DeleteFunc(slices.Clone(n.children), func(x string) bool { return x == s.names[c] })
		})
	}
}

// onBeat counts a heartbeat round, forgets the children that have been
// down long enough or came back as another incarnation, and notices the
// same of the parent: a joined node then rejoins, a leaving one goes.
func (s *treeSim) onBeat(i int, n *ovNode) {
	if n.status == ovLeaving && s.p.eager {
		s.down(i, false) // its parent's acknowledgement was lost
		return
	}
	s.timer(ovBeat, i, s.p.beat/2+s.rng.IntN(s.p.beat), n.gen)
	s.edit(i, func(n *ovNode) { n.round++ })
	gone := func(j int, gen int64) bool {
		m := s.cur[j]
		return m == nil && s.now-s.downAt[j] >= s.p.timeout || m != nil && m.gen != gen
	}
	for _, c := range slices.Clone(n.children) {
		if j := s.index[c]; gone(j, s.kids[i][j].gen) {
			s.drop(i, j)
		}
	}
	if n.parent != "" && gone(s.index[n.parent], s.parentGen[i]) {
		if n.status == ovLeaving {
			s.edit(i, func(n *ovNode) { n.parent = "" })
		} else {
			s.orphan(i)
		}
	}
	if n.status == ovLeaving && !s.p.eager && len(s.cur[i].children) == 0 {
		s.depart(i)
	}
}

// addName returns the sorted names with name added.
func addName(names []string, name string) []string {
	if slices.Contains(names, name) {
		return names
	}
	out := append(slices.Clone(names), name)
	slices.Sort(out)
	return out
}
