// Package chord is a testbed running Chord's ring maintenance (Stoica et
// al., SIGCOMM 2001) as MaceMC and CrystalBall model it, driven by a
// testbeds.Sim.
//
// Each node has a key on a ring of 2^16 points (a hash of its number), a
// successor list of up to three nodes, nearest first, and a predecessor.
// An episode starts from a stable ring. Every tick a joined node
// stabilizes: it asks its successor for that node's predecessor and
// successor list, adopts the predecessor as its new successor when it lies
// between the two, refreshes its list from its successor's, and notifies
// its successor, which adopts the notifier as predecessor when it has none
// or the notifier lies between the old predecessor and itself. Every tick
// it also pings its predecessor. A successor that has not answered for
// failAfter ticks is dropped and the next in the list takes over; a silent
// predecessor is forgotten. A node whose list runs empty joins again.
//
// A node keeps nothing on disk: a crash loses its whole state, and the
// restarted node joins afresh through a random other node, which routes
// the request for the successor of its key along successor lists. A node
// that has not joined answers nothing. Client proposals are no-ops: Chord
// lookups read the ring but never change it, and their answers are not
// node state.
//
// Bugs:
//
//   - pred-self: a joining node initialises its predecessor to itself, as
//     when it creates a one-node ring, and notify never replaces a
//     predecessor equal to the node itself (the CrystalBall bug). Since
//     the node answers its own pings, a node that rejoins keeps itself as
//     predecessor while its successor list holds other nodes.
//
// Ground truth, checked after every event: no joined node whose successor
// list holds another node is its own predecessor (pred-self), and once
// every node has been joined for settle ticks, each node's successor and
// predecessor are its neighbours on the ring by key (ring). A crashed node
// counts as not joined until it has joined again.
//
// Chord does not merge rings that a partition has split apart (a node
// drops the successors it cannot reach and never meets them again), so the
// ring check is off for the rest of an episode once the network has
// split, and the default faults have no partitions.
package chord

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/augur-dev/augur/predict"
	"github.com/augur-dev/augur/testbeds"
)

// BugPredSelf is the testbed's injectable bug.
const BugPredSelf = "pred-self"

// bugs are the injectable bugs.
var bugs = []string{BugPredSelf}

// defaultNodes is the testbed's node count when a run leaves it zero.
const defaultNodes = 5

// Testbed describes the testbed for augur testbed.
var Testbed = testbeds.Testbed{
	Name:   "chord",
	Doc:    "Chord ring maintenance: successor lists, stabilize, notify, failure detection, rejoin",
	Nodes:  defaultNodes,
	Bugs:   bugs,
	Faults: defaultFaults(),
	Run:    Run,
	Fork:   Fork,
}

func defaultFaults() testbeds.Faults {
	f := testbeds.DefaultFaults()
	f.Partition = 0
	f.Down = 200 // past failAfter: crashed nodes leave the ring, and it must heal
	return f
}

// Protocol parameters; times are in ticks.
const (
	ringBits  = 16
	ringSize  = 1 << ringBits
	listLen   = 3  // successors a node keeps
	joinRetry = 3  // ticks between join requests
	settle    = 30 // calm ticks after which the ring must be consistent
	// failAfter is the number of silent ticks before a successor or
	// predecessor is deemed failed. It is shorter than the slowest round
	// trip under the default faults (2×64 ms), but a probe goes out every
	// tick, so a live peer is suspected only when the probes of all these
	// ticks are lost or held back.
	failAfter = 8
)

// none is the node number of no node.
const none = -1

// State is the state a node exposes. The key of an absent predecessor or
// successor is null.
type State struct {
	ID      string   `augur:"id"`
	Key     int64    `augur:"key"`
	Joined  bool     `augur:"joined"`
	Pred    string   `augur:"pred"` // "" when the node knows no predecessor
	PredKey *int64   `augur:"pred_key"`
	Succ    string   `augur:"succ"` // the head of succs, "" when empty
	SuccKey *int64   `augur:"succ_key"`
	Succs   []string `augur:"succs"`
}

// Messages. Node numbers stand for addresses: anyone can hash one into its
// key.
type (
	findSucc  struct{ key, origin int } // who succeeds key? answer origin
	foundSucc struct{ succ int }        // the answer to a findSucc
	getPred   struct{}                  // stabilize: who is your predecessor?
	predIs    struct {
		pred  int
		succs []int
	}
	notify struct{} // I might be your predecessor
	ping   struct{}
	pong   struct{}
)

type node struct {
	joined bool
	pred   int
	succs  []int
	// Ticks since the successor or predecessor last answered, and since
	// the last join request.
	succWait, predWait, joinWait int
}

type ring struct {
	sim        *testbeds.Sim
	bug        string
	keys       []int
	next, prev []int // each node's neighbours on the ring by key
	nodes      []*node
	calm       int64 // since when (ms) every node has been joined
	split      bool  // whether the network has split in this episode
	// The client lookups made and those answered right (see Propose).
	lookups, answered int
}

// Run runs the testbed with cfg and writes its trace to dir, until the
// run ends or ctx is done (see testbeds.Record).
func Run(ctx context.Context, cfg testbeds.Config, dir string) (testbeds.Stats, error) {
	cfg, err := cfg.WithDefaults(defaultNodes, defaultFaults())
	if err != nil {
		return testbeds.Stats{}, fmt.Errorf("chord: %w", err)
	}
	if cfg.Nodes < 2 || cfg.Nodes > ringSize {
		return testbeds.Stats{}, fmt.Errorf("chord: %d nodes, want 2 to %d", cfg.Nodes, ringSize)
	}
	return testbeds.Record(ctx, "chord", bugs, cfg, dir, func(sim *testbeds.Sim) testbeds.System[State] { return newRing(sim, cfg) })
}

// Fork runs the testbed with cfg for steps events, or until ctx is done
// (see testbeds.Fork), and returns a copy of the state it reached, for
// the predictor.
func Fork(ctx context.Context, cfg testbeds.Config, steps int) (predict.Model, error) {
	cfg, err := cfg.WithDefaults(defaultNodes, defaultFaults())
	if err != nil {
		return nil, fmt.Errorf("chord: %w", err)
	}
	return testbeds.Fork(ctx, "chord", bugs, cfg, steps, func(sim *testbeds.Sim) testbeds.System[State] { return newRing(sim, cfg) })
}

// ringKey places node i on the ring by Fibonacci hashing of its number,
// which spreads consecutive numbers evenly and, the factor being odd,
// never maps two of at most ringSize nodes to one point.
func ringKey(i int) int { return (i + 1) * 40503 % ringSize }

// newRing boots a stable ring: every node knows its true predecessor and
// successors.
func newRing(sim *testbeds.Sim, cfg testbeds.Config) *ring {
	size := cfg.Nodes
	r := &ring{sim: sim, bug: cfg.Bug, keys: make([]int, size), next: make([]int, size), prev: make([]int, size),
		nodes: make([]*node, size), calm: sim.Now()}
	order := make([]int, size)
	for i := range size {
		r.keys[i], order[i] = ringKey(i), i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(r.keys[a], r.keys[b]) })
	for j, i := range order {
		r.next[i], r.prev[i] = order[(j+1)%size], order[(j+size-1)%size]
		n := &node{joined: true, pred: r.prev[i]}
		for d := 1; d <= min(listLen, size-1); d++ {
			n.succs = append(n.succs, order[(j+d)%size])
		}
		r.nodes[i] = n
	}
	return r
}

// dist is the clockwise distance on the ring from key a to key b.
func dist(a, b int) int { return ((b-a)%ringSize + ringSize) % ringSize }

// between reports whether key x lies strictly inside the clockwise
// interval (a, b); (a, a) is the whole ring but a.
func between(a, x, b int) bool {
	d := dist(a, b)
	if d == 0 {
		d = ringSize
	}
	return 0 < dist(a, x) && dist(a, x) < d
}

// successorList makes node i's successor list from candidates, nearest
// first: it keeps them while each lies further clockwise from i than the
// one before, so the list stops where it would wrap past i.
func (r *ring) successorList(i int, cand []int) []int {
	var list []int
	last := 0
	for _, c := range cand {
		d := dist(r.keys[i], r.keys[c])
		if d <= last || len(list) == listLen {
			break
		}
		list, last = append(list, c), d
	}
	return list
}

// reset makes node i a node that has not joined and knows nobody.
func (r *ring) reset(i int) { r.nodes[i] = &node{pred: none} }

// join asks a random other node for the successor of i's key.
func (r *ring) join(i int) {
	n := r.nodes[i]
	n.joinWait = 0
	to := r.sim.Rand().IntN(len(r.nodes) - 1)
	if to >= i {
		to++
	}
	r.sim.Send(i, to, findSucc{key: r.keys[i], origin: i})
}

func (r *ring) Tick(i int) {
	n := r.nodes[i]
	if !n.joined {
		if n.joinWait++; n.joinWait >= joinRetry {
			r.join(i)
		}
		return
	}
	if n.succWait++; n.succWait > failAfter {
		n.succs, n.succWait = n.succs[1:], 0
		if len(n.succs) == 0 {
			r.reset(i)
			r.join(i)
			return
		}
	}
	if n.pred != none {
		if n.predWait++; n.predWait > failAfter {
			n.pred = none
		}
	}
	r.sim.Send(i, n.succs[0], getPred{})
	if n.pred != none {
		r.sim.Send(i, n.pred, ping{})
	}
}

func (r *ring) Deliver(from, to int, m any) {
	n := r.nodes[to]
	if !n.joined {
		if f, ok := m.(foundSucc); ok {
			// n is fresh from reset: it joins with no predecessor.
			n.joined, n.succs = true, []int{f.succ}
			if r.bug == BugPredSelf {
				n.pred = to
			}
		}
		return
	}
	switch m := m.(type) {
	case findSucc:
		r.route(to, m)
	case getPred:
		r.sim.Send(to, from, predIs{pred: n.pred, succs: slices.Clone(n.succs)})
	case predIs:
		if from != n.succs[0] {
			return // an answer from a former successor
		}
		cand := []int{from}
		if m.pred != none && between(r.keys[to], r.keys[m.pred], r.keys[from]) {
			cand = []int{m.pred, from}
		}
		n.succs = r.successorList(to, append(cand, m.succs...))
		n.succWait = 0
		r.sim.Send(to, n.succs[0], notify{})
	case notify:
		switch {
		case from == n.pred:
			n.predWait = 0
		case r.bug == BugPredSelf && n.pred == to:
			// The predecessor of a one-node ring is kept.
		case n.pred == none || between(r.keys[n.pred], r.keys[from], r.keys[to]):
			n.pred, n.predWait = from, 0
		}
	case ping:
		r.sim.Send(to, from, pong{})
	case pong:
		if from == n.pred {
			n.predWait = 0
		}
	}
}

// route answers a findSucc at node i when the key falls between i and its
// successor, and otherwise forwards it to the furthest node of i's list
// that precedes the key. The requester is joining, so entries naming it
// are stale pointers to its life before a crash, and are skipped.
func (r *ring) route(i int, m findSucc) {
	succs := slices.DeleteFunc(slices.Clone(r.nodes[i].succs), func(c int) bool { return c == m.origin })
	if len(succs) == 0 {
		r.sim.Send(i, m.origin, foundSucc{succ: i})
		return
	}
	if between(r.keys[i], m.key, r.keys[succs[0]]) {
		r.sim.Send(i, m.origin, foundSucc{succ: succs[0]})
		return
	}
	next := succs[0]
	for _, c := range succs {
		if between(r.keys[i], r.keys[c], m.key) {
			next = c
		}
	}
	r.sim.Send(i, next, m)
}

// Checkpoint saves node i for a guarded run (testbeds.Checkpointer): a
// handler changes nothing but its node (the ring's own bookkeeping moves
// only in Check).
func (r *ring) Checkpoint(i int) func() {
	saved := r.nodes[i].clone()
	return func() { r.nodes[i] = saved }
}

// clone returns a deep copy of n.
func (n *node) clone() *node {
	c := *n
	c.succs = slices.Clone(n.succs)
	return &c
}

// Copy returns a copy of the ring on sim that shares its nodes until Own,
// for the predictor (testbeds.Copier); the nodes' keys and neighbours
// never change.
func (r *ring) Copy(sim *testbeds.Sim) testbeds.Copier[State] {
	d := *r
	d.sim, d.nodes = sim, slices.Clone(r.nodes)
	return &d
}

// Own copies node i, all that its handlers change (testbeds.Copier).
func (r *ring) Own(i int) { r.nodes[i] = r.nodes[i].clone() }

// Hash hashes node i's links (testbeds.Copier); the ticks its failure
// detector and its join retries count are left out.
func (r *ring) Hash(i int) uint64 {
	n := r.nodes[i]
	var h testbeds.Hasher
	h.Bool(n.joined)
	h.Int(int64(n.pred))
	h.Ints(n.succs)
	return h.Sum()
}

// Propose is a no-op: see the package doc.
func (r *ring) Propose(i int) {
	r.lookups++
	if r.lookup(i, ringKey(r.lookups+len(r.nodes))) {
		r.answered++
	}
}

// lookup reports whether a lookup of key from node i, routed along the
// nodes' successors, ends at the key's successor among the live joined
// nodes: what a client of the ring gets right. It changes nothing.
func (r *ring) lookup(i, key int) bool {
	owner, best := none, ringSize
	for j, n := range r.nodes {
		if n.joined && r.sim.Live(j) && dist(key, r.keys[j]) < best {
			owner, best = j, dist(key, r.keys[j])
		}
	}
	cur := i
	for range r.nodes {
		n := r.nodes[cur]
		if !n.joined || !r.sim.Live(cur) || len(n.succs) == 0 {
			return false
		}
		if cur == owner && (n.pred == none || between(r.keys[n.pred], key, r.keys[cur]) || key == r.keys[cur]) {
			return true
		}
		s := n.succs[0]
		if between(r.keys[cur], key, r.keys[s]) || key == r.keys[s] {
			return s == owner
		}
		cur = s
	}
	return false
}

// Progress counts the client lookups answered right
// (testbeds.Progresser).
func (r *ring) Progress() int { return r.answered }

// Crash loses all of node i's state.
func (r *ring) Crash(i int) { r.reset(i) }

// Restart joins node i again.
func (r *ring) Restart(i int) { r.join(i) }

// Rejoining reports whether node i has yet to join the ring
// (testbeds.Rejoiner): a node that has not joined answers nothing.
func (r *ring) Rejoining(i int) bool { return !r.nodes[i].joined }

// name is the trace name of node i, "" for none.
func name(i int) string {
	if i == none {
		return ""
	}
	return testbeds.Name(i)
}

// key is the key of node i, nil for none.
func (r *ring) key(i int) *int64 {
	if i == none {
		return nil
	}
	k := int64(r.keys[i])
	return &k
}

func (r *ring) State(i int) State {
	n := r.nodes[i]
	s := State{ID: name(i), Key: int64(r.keys[i]), Joined: n.joined,
		Pred: name(n.pred), PredKey: r.key(n.pred), Succs: []string{}}
	if len(n.succs) > 0 {
		s.Succ, s.SuccKey = name(n.succs[0]), r.key(n.succs[0])
	}
	for _, c := range n.succs {
		s.Succs = append(s.Succs, name(c))
	}
	return s
}

// Check returns the ground-truth checks failing now. Called after every
// event, it also keeps track of when every node was last joined and of
// whether the network has split.
func (r *ring) Check() []string {
	joined, predSelf := true, false
	for i, n := range r.nodes {
		if !n.joined {
			joined = false
			continue
		}
		if n.pred == i && slices.ContainsFunc(n.succs, func(c int) bool { return c != i }) {
			predSelf = true
		}
	}
	if !joined {
		r.calm = r.sim.Now()
	}
	r.split = r.split || r.sim.Partitioned()
	var failed []string
	if predSelf {
		failed = append(failed, "pred-self")
	}
	if !r.split && r.sim.Now()-r.calm >= settle*testbeds.TickEvery && !r.consistent() {
		failed = append(failed, "ring")
	}
	return failed
}

// consistent reports whether every node is joined and knows its
// neighbours on the ring as its successor and predecessor.
func (r *ring) consistent() bool {
	for i, n := range r.nodes {
		if !n.joined || n.succs[0] != r.next[i] || n.pred != r.prev[i] {
			return false
		}
	}
	return true
}
