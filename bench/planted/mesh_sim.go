package planted

import (
	"container/heap"
	"math/rand/v2"
	"slices"
)

// meshState is one node's state in a mesh run, as the trace shows it. A
// stored state is never changed: its slices are replaced, not edited, so
// that the snapshots share it until the node changes.
type meshState struct {
	node           int
	neighbors      []int // configured neighbours, sorted: the same slice in every state of the node
	peers          []int // nodes with a session up, sorted
	orig           []int // items the node originates, sorted
	known          []int // items it has installed: its own and those of the origins it reaches
	pending        []int // originated items not yet advertised
	version, round int64
	routes         []meshRoute // one per origin the node reaches, by origin
}

// meshRoute is a routing table entry: the origin reached, the sequence
// number of its advertisement in use, and the next hop.
type meshRoute struct {
	origin int
	seq    int64
	via    int
}

// An lsa is a node's advertisement: its items and sessions, flooded
// over the mesh and superseded by a higher sequence number.
type lsa struct {
	origin int
	seq    int64
	items  []int
	peers  []int
}

// legitKind is a rare code path of the mesh that makes a property fail
// for one snapshot, untagged: a legitimate moment.
type legitKind uint8

const (
	legitNone legitKind = iota
	// legitColdStart: a node comes back up with an empty table and
	// installs its own items at the next step.
	legitColdStart
	// legitOutboxLag: a withdrawn item leaves the outbox one step after
	// it leaves the node's items.
	legitOutboxLag
	// legitHalfOpen: a session comes up on one side one step before the
	// other.
	legitHalfOpen
	// legitLazyTable: after a session goes down, the node recomputes its
	// routing table at the next step.
	legitLazyTable
	numMeshLegits
)

// Link states of a pair of configured neighbours.
const (
	linkDown    = iota // failed, or an endpoint is down
	linkUp             // a session is up
	linkOpening        // coming up: a linkUp event is queued
)

// meshParams are the settings of a mesh run.
type meshParams struct {
	nodes, steps int
	full         bool               // a full mesh, not a partial one
	maxDelay     int                // message delays are 1 to maxDelay steps
	change       float64            // chance, at a step that delivers no message, of a change event
	tick         float64            // chance of a node's timer round
	maxItems     int                // items a node may originate, its loopback included
	legit        [numMeshLegits]int // times the run may take each rare path
}

// A meshEvent is queued: a message, a session coming up, a node waking.
type meshEvent struct {
	due, seq int // the step it is due at; the order it was queued in, which breaks ties
	kind     uint8
	from, to int
	l        *lsa // the advertisement a message carries
}

// Kinds of events.
const (
	evMsg = iota
	evLinkUp
	evWake
)

// meshQueue is a heap of events, by due step and then in the order
// queued.
type meshQueue []meshEvent

func (q meshQueue) Len() int { return len(q) }
func (q meshQueue) Less(i, j int) bool {
	return q[i].due < q[j].due || q[i].due == q[j].due && q[i].seq < q[j].seq
}
func (q meshQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *meshQueue) Push(x any)   { *q = append(*q, x.(meshEvent)) }
func (q *meshQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// meshNode is a node of the simulator.
type meshNode struct {
	up      bool
	st      meshState // current; its slices are never edited in place
	dirty   bool      // st changed in this step
	idx     int32     // index of the stored state, -1 when down
	db      []*lsa    // by origin; db[self] is the node's own
	version int64     // persisted across restarts
}

// meshSim simulates routers flooding link-state advertisements over a
// full or partial mesh: each originates items (prefixes), floods its
// advertisement (items and sessions) when they change, installs the
// newest advertisement of every origin, and computes its routing table
// and known items from the origins it reaches over two-way sessions.
// Sessions fail and are repaired; nodes crash, stay down a while and
// restart with an empty table, their version persisted. One event per
// step: a message delivered, a timer round, an origination, a
// withdrawal, a session failing or coming up, a crash or a restart.
type meshSim struct {
	rng   *rand.Rand
	p     meshParams
	adj   [][]bool  // configured neighbours
	link  [][]uint8 // the state of each pair's link: linkDown, linkUp or linkOpening
	nodes []meshNode
	queue meshQueue
	seq   int
	// lastDue orders the messages of a link: delivered in the order sent.
	lastDue  [][]int
	inflight int                // messages and sessions coming up in the queue
	now      int                // the step being simulated
	follow   func()             // the second half of a rare path: the next step's event
	legit    [numMeshLegits]int // rare code paths still to take

	states []meshState
	ts     []int   // the step at which each state was taken
	hist   []int32 // per step, per node: index of its state, -1 when down
	steady []bool
	rare   []bool // a rare path was taken at the step, or the step before
	// calm is true at the steps where no node restarts or brings up a
	// session: no database exchange is under way, whose transients are
	// the run's rarest states.
	calm     []bool
	opening  int // sessions coming up in the queue
	unsettle int // the last step of the latest database exchange, or so
}

// newMeshSim builds the topology and the initial states.
func newMeshSim(rng *rand.Rand, p meshParams) *meshSim {
	n := p.nodes
	s := &meshSim{rng: rng, p: p, legit: p.legit}
	s.adj, s.link, s.lastDue = make([][]bool, n), make([][]uint8, n), make([][]int, n)
	for i := range n {
		s.adj[i], s.link[i], s.lastDue[i] = make([]bool, n), make([]uint8, n), make([]int, n)
	}
	connect := func(a, b int) { s.adj[a][b], s.adj[b][a] = true, true }
	if p.full {
		for a := range n {
			for b := a + 1; b < n; b++ {
				connect(a, b)
			}
		}
	} else {
		// A random tree, so that the mesh is connected, and a few more
		// links: leaves are stub routers that a single failure isolates.
		order := rng.Perm(n)
		for i := 1; i < n; i++ {
			connect(order[i], order[rng.IntN(i)])
		}
		for range rng.IntN(n/2 + 1) {
			a, b := rng.IntN(n), rng.IntN(n)
			if a != b {
				connect(a, b)
			}
		}
	}
	s.nodes = make([]meshNode, n)
	for i := range s.nodes {
		nd := &s.nodes[i]
		nd.up, nd.version = true, 1
		items := []int{meshItem(i, 0)}
		for k := 1; k < p.maxItems; k++ {
			if rng.IntN(3) == 0 {
				items = append(items, meshItem(i, k))
			}
		}
		var nbrs []int
		for b := range n {
			if s.adj[i][b] {
				nbrs = append(nbrs, b)
			}
		}
		nd.st = meshState{node: i, neighbors: nbrs, orig: items, known: items, version: 1}
		nd.db = make([]*lsa, n)
	}
	for a := range n {
		for b := a + 1; b < n; b++ {
			if s.adj[a][b] {
				s.link[a][b], s.link[b][a] = linkUp, linkUp
				s.nodes[a].st.peers = append(s.nodes[a].st.peers, b)
				s.nodes[b].st.peers = append(s.nodes[b].st.peers, a)
			}
		}
	}
	// The run starts converged: every node has every advertisement.
	all := make([]*lsa, n)
	for i := range s.nodes {
		st := &s.nodes[i].st
		all[i] = &lsa{origin: i, seq: 1, items: st.orig, peers: st.peers}
	}
	for i := range s.nodes {
		copy(s.nodes[i].db, all)
		s.recompute(i)
	}
	return s
}

// meshItem numbers item k of origin o. Item 0 is the node's loopback,
// which it always originates: every router announces at least itself.
func meshItem(o, k int) int { return o*meshItemsPerNode + k }

// meshItemsPerNode bounds the items a node may originate.
const meshItemsPerNode = 8

// run simulates the steps, recording each node's state at each.
func (s *meshSim) run() {
	n := s.p.nodes
	s.hist = make([]int32, 0, s.p.steps*n)
	s.steady, s.rare, s.calm = make([]bool, s.p.steps), make([]bool, s.p.steps+1), make([]bool, s.p.steps)
	for i := range s.nodes {
		s.nodes[i].idx = -1
	}
	for s.now = range s.p.steps {
		s.step()
		for i := range s.nodes {
			nd := &s.nodes[i]
			switch {
			case !nd.up:
				nd.idx = -1
			case nd.dirty || nd.idx < 0:
				nd.idx, nd.dirty = int32(len(s.states)), false
				s.states = append(s.states, nd.st)
				s.ts = append(s.ts, s.now+1)
			}
			s.hist = append(s.hist, nd.idx)
		}
		s.steady[s.now] = s.isSteady()
		s.calm[s.now] = s.opening == 0 && s.now > s.unsettle && s.follow == nil
	}
}

// at returns the states of the nodes at step, nil for those down, in vs.
func (s *meshSim) at(step int, vs []*meshState) []*meshState {
	n := s.p.nodes
	vs = vs[:0]
	for _, x := range s.hist[step*n : (step+1)*n] {
		if x < 0 {
			vs = append(vs, nil)
		} else {
			vs = append(vs, &s.states[x])
		}
	}
	return vs
}

// step runs one event.
func (s *meshSim) step() {
	if f := s.follow; f != nil {
		s.follow = nil
		f()
		return
	}
	if len(s.queue) > 0 && s.queue[0].due <= s.now && s.rng.IntN(5) > 0 {
		s.deliver(heap.Pop(&s.queue).(meshEvent))
		return
	}
	switch r := s.rng.Float64(); {
	case r < s.p.change:
		s.change()
	case r < s.p.change+s.p.tick:
		if i, ok := s.pick(func(*meshNode) bool { return true }); ok {
			s.tick(i)
		}
	}
}

// pick returns a random live node that ok accepts.
func (s *meshSim) pick(ok func(nd *meshNode) bool) (int, bool) {
	for _, i := range s.rng.Perm(len(s.nodes)) {
		if nd := &s.nodes[i]; nd.up && ok(nd) {
			return i, true
		}
	}
	return -1, false
}

// change runs a change event: an origination, a withdrawal, a session
// failing or repaired, or a crash.
func (s *meshSim) change() {
	switch r := s.rng.IntN(20); {
	case r < 7:
		if i, ok := s.pick(func(nd *meshNode) bool { return len(nd.st.orig) < s.p.maxItems }); ok {
			s.originate(i)
		}
	case r < 13:
		if i, ok := s.pick(func(nd *meshNode) bool { return len(nd.st.orig) > 1 }); ok {
			s.withdraw(i)
		}
	case r < 16:
		if a, b, ok := s.pickLink(linkUp); ok {
			s.linkDown(a, b)
		}
	case r < 19:
		if a, b, ok := s.pickLink(linkDown); ok {
			s.open(a, b, 1+s.rng.IntN(s.p.maxDelay))
		}
	default:
		live := 0
		for i := range s.nodes {
			if s.nodes[i].up {
				live++
			}
		}
		if i, ok := s.pick(func(*meshNode) bool { return live > 2 }); ok {
			s.crash(i)
		}
	}
}

// pickLink returns a random configured link between live nodes in state.
func (s *meshSim) pickLink(state uint8) (int, int, bool) {
	for _, a := range s.rng.Perm(len(s.nodes)) {
		for _, b := range s.rng.Perm(len(s.nodes)) {
			if s.adj[a][b] && s.link[a][b] == state && s.nodes[a].up && s.nodes[b].up {
				return a, b, true
			}
		}
	}
	return -1, -1, false
}

func (s *meshSim) push(e meshEvent) {
	e.seq, s.seq = s.seq, s.seq+1
	if e.kind != evWake {
		s.inflight++
	}
	if e.kind == evLinkUp {
		s.opening++
	}
	heap.Push(&s.queue, e)
}

// send queues l from a to b, after the messages a sent b before it.
func (s *meshSim) send(a, b int, l *lsa) {
	due := max(s.now+1+s.rng.IntN(s.p.maxDelay), s.lastDue[a][b])
	s.lastDue[a][b] = due
	s.push(meshEvent{due: due, kind: evMsg, from: a, to: b, l: l})
}

// flood sends l from a to its peers but skip.
func (s *meshSim) flood(a, skip int, l *lsa) {
	for _, b := range s.nodes[a].st.peers {
		if b != skip {
			s.send(a, b, l)
		}
	}
}

// deliver runs a queued event.
func (s *meshSim) deliver(e meshEvent) {
	if e.kind != evWake {
		s.inflight--
	}
	if e.kind == evLinkUp {
		s.opening--
	}
	switch e.kind {
	case evWake:
		s.wake(e.to)
	case evLinkUp:
		if s.link[e.from][e.to] == linkOpening && s.nodes[e.from].up && s.nodes[e.to].up {
			s.linkUp(e.from, e.to)
		}
	case evMsg:
		w := &s.nodes[e.to]
		if !w.up || s.link[e.from][e.to] != linkUp || e.l.origin == e.to {
			return // lost with its session, or the node's own
		}
		if old := w.db[e.l.origin]; old != nil && old.seq >= e.l.seq {
			return
		}
		w.db[e.l.origin] = e.l
		s.recompute(e.to)
		s.flood(e.to, e.from, e.l)
	}
}

// advertise makes node i's advertisement anew, with a higher version,
// and floods it; it recomputes the node's table unless lazy.
func (s *meshSim) advertise(i int, lazy bool) {
	nd := &s.nodes[i]
	nd.version++
	st := nd.st
	st.version = nd.version
	nd.set(st)
	items := slices.DeleteFunc(slices.Clone(st.orig), func(x int) bool { return slices.Contains(st.pending, x) })
	nd.db[i] = &lsa{origin: i, seq: nd.version, items: items, peers: st.peers}
	if !lazy {
		s.recompute(i)
	}
	s.flood(i, -1, nd.db[i])
}

// set replaces the node's state.
func (nd *meshNode) set(st meshState) { nd.st, nd.dirty = st, true }

// recompute computes node i's routing table and known items from its
// advertisements: the origins reachable over sessions both ends
// advertise, breadth first, the next hop the first on the way.
func (s *meshSim) recompute(i int) {
	nd := &s.nodes[i]
	n := len(s.nodes)
	via := make([]int, n)
	for k := range via {
		via[k] = -1
	}
	via[i] = i
	queue := []int{i}
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		la := nd.db[a]
		if a == i {
			la = &lsa{peers: nd.st.peers}
		}
		if la == nil {
			continue
		}
		for _, b := range la.peers {
			lb := nd.db[b]
			if via[b] >= 0 || lb == nil || b == i || !slices.Contains(lb.peers, a) {
				continue
			}
			via[b] = via[a]
			if a == i {
				via[b] = b
			}
			queue = append(queue, b)
		}
	}
	var routes []meshRoute
	known := slices.Clone(nd.st.orig)
	for o := range n {
		if o == i || via[o] < 0 {
			continue
		}
		routes = append(routes, meshRoute{origin: o, seq: nd.db[o].seq, via: via[o]})
		known = append(known, nd.db[o].items...)
	}
	slices.Sort(known)
	known = slices.Compact(known)
	st := nd.st
	if slices.Equal(routes, st.routes) && slices.Equal(known, st.known) {
		return
	}
	st.routes, st.known = routes, known
	nd.set(st)
}

// tick is a timer round of node i: it advertises its pending items.
func (s *meshSim) tick(i int) {
	nd := &s.nodes[i]
	st := nd.st
	st.round++
	hasPending := len(st.pending) > 0
	st.pending = nil
	nd.set(st)
	if hasPending {
		s.advertise(i, false)
	}
}

// originate has node i originate an item, queued until its next round.
func (s *meshSim) originate(i int) {
	nd := &s.nodes[i]
	st := nd.st
	for _, k := range s.rng.Perm(s.p.maxItems - 1) {
		x := meshItem(i, k+1)
		if !slices.Contains(st.orig, x) {
			st.orig = sortedWith(st.orig, x)
			st.known = sortedWith(st.known, x)
			st.pending = sortedWith(st.pending, x)
			nd.set(st)
			return
		}
	}
}

// withdraw has node i withdraw an item other than its loopback,
// advertised at once.
func (s *meshSim) withdraw(i int) {
	nd := &s.nodes[i]
	st := nd.st
	x := st.orig[1+s.rng.IntN(len(st.orig)-1)]
	// On a rare path, a pending item is withdrawn and left in the
	// outbox for a step.
	lag := len(st.pending) > 0 && s.take(legitOutboxLag)
	if lag {
		x = st.pending[s.rng.IntN(len(st.pending))]
	}
	st.orig = sortedWithout(st.orig, x)
	st.known = sortedWithout(st.known, x)
	if !lag {
		st.pending = sortedWithout(st.pending, x)
	}
	nd.set(st)
	s.advertise(i, false)
	if lag {
		s.follow = func() {
			st := nd.st
			st.pending = sortedWithout(st.pending, x)
			nd.set(st)
		}
	}
}

// take reports whether the run takes the rare path k now, at most as
// many times as the run has it.
func (s *meshSim) take(k legitKind) bool {
	if s.legit[k] == 0 || s.rng.IntN(4) > 0 {
		return false
	}
	s.legit[k]--
	s.rare[s.now], s.rare[s.now+1] = true, true
	return true
}

// linkDown fails the session of a and b: both ends see it at once.
func (s *meshSim) linkDown(a, b int) {
	s.link[a][b], s.link[b][a] = linkDown, linkDown
	lazy := s.take(legitLazyTable)
	for _, x := range [2][2]int{{a, b}, {b, a}} {
		nd := &s.nodes[x[0]]
		st := nd.st
		st.peers = sortedWithout(st.peers, x[1])
		nd.set(st)
		s.advertise(x[0], lazy)
	}
	if lazy {
		s.follow = func() { s.recompute(a); s.recompute(b) }
	}
}

// open queues the session of a and b to come up after delay steps.
func (s *meshSim) open(a, b, delay int) {
	s.link[a][b], s.link[b][a] = linkOpening, linkOpening
	s.push(meshEvent{due: s.now + delay, kind: evLinkUp, from: a, to: b})
}

// linkUp brings up the session of a and b: each advertises anew and
// sends the other its whole database.
func (s *meshSim) linkUp(a, b int) {
	s.settle()
	s.link[a][b], s.link[b][a] = linkUp, linkUp
	up := func(x, y int) {
		nd := &s.nodes[x]
		st := nd.st
		st.peers = sortedWith(st.peers, y)
		nd.set(st)
		s.advertise(x, false)
		for o, l := range nd.db {
			if l != nil && o != x && o != y {
				s.send(x, y, l)
			}
		}
	}
	up(a, b)
	if s.take(legitHalfOpen) {
		s.follow = func() { up(b, a) }
		return
	}
	up(b, a)
}

// crash takes node i down: its neighbours see its sessions fail at once.
// It restarts after a while.
func (s *meshSim) crash(i int) {
	s.settle()
	for b := range s.nodes {
		if s.link[i][b] == linkUp {
			s.link[i][b], s.link[b][i] = linkDown, linkDown
			nd := &s.nodes[b]
			st := nd.st
			st.peers = sortedWithout(st.peers, i)
			nd.set(st)
			s.advertise(b, false)
		} else if s.link[i][b] == linkOpening {
			s.link[i][b], s.link[b][i] = linkDown, linkDown
		}
	}
	s.nodes[i].up = false
	s.push(meshEvent{due: s.now + 20 + s.rng.IntN(200), kind: evWake, to: i})
}

// wake restarts node i with its configured items, an empty table and
// its persisted version; its sessions come up one by one.
func (s *meshSim) wake(i int) {
	s.settle()
	nd := &s.nodes[i]
	nd.up = true
	nd.version++
	orig := nd.st.orig
	st := meshState{node: i, neighbors: nd.st.neighbors, orig: orig, known: orig, version: nd.version}
	nd.db = make([]*lsa, len(s.nodes))
	nd.db[i] = &lsa{origin: i, seq: nd.version, items: orig}
	switch {
	case s.take(legitColdStart):
		st.known = nil
		s.follow = func() { s.recompute(i) }
	}
	nd.set(st)
	for b := range s.nodes {
		if s.adj[i][b] && s.nodes[b].up && s.link[i][b] == linkDown {
			s.open(i, b, 2+s.rng.IntN(30))
		}
	}
}

// settle notes that a database exchange starts: the run is not calm
// until its messages are likely delivered.
func (s *meshSim) settle() {
	s.unsettle = max(s.unsettle, s.now+4*s.p.maxDelay+10)
}

// staleHorizon is how far back lastRoutes looks.
const staleHorizon = 1000

// lastRoutes returns the last routing table node i had, not empty,
// before step at, or nil.
func (s *meshSim) lastRoutes(i, at int) []meshRoute {
	n := s.p.nodes
	for t := at - 1; t >= 0 && t >= at-staleHorizon; t-- {
		if x := s.hist[t*n+i]; x >= 0 && len(s.states[x].routes) > 0 {
			return s.states[x].routes
		}
	}
	return nil
}

// isSteady reports whether nothing is in flight and every live node has
// the current advertisement of every live node.
func (s *meshSim) isSteady() bool {
	if s.inflight > 0 || s.follow != nil {
		return false
	}
	for i := range s.nodes {
		a := &s.nodes[i]
		if !a.up {
			continue
		}
		if len(a.st.pending) > 0 {
			return false
		}
		for j := range s.nodes {
			b := &s.nodes[j]
			if b.up && (a.db[j] == nil || a.db[j].seq != b.version) {
				return false
			}
		}
	}
	return true
}

// sortedWith returns the sorted set xs with x added, as a new slice.
func sortedWith(xs []int, x int) []int {
	i, found := slices.BinarySearch(xs, x)
	if found {
		return xs
	}
	return slices.Insert(slices.Clone(xs), i, x)
}

// sortedWithout returns the sorted set xs without x, as a new slice.
func sortedWithout(xs []int, x int) []int {
	i, found := slices.BinarySearch(xs, x)
	if !found {
		return xs
	}
	return slices.Delete(slices.Clone(xs), i, i+1)
}
