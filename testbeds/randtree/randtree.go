// Package randtree is a testbed running RandTree, the random overlay tree
// of the Mace toolkit that MaceMC (Killian et al., NSDI'07) and CrystalBall
// (Yabandeh et al., NSDI'09) check, written from its description and
// driven by a testbeds.Sim.
//
// The nodes build one tree rooted at n1, the well-known root. A node joins
// by sending Join to n1; a node with fewer than maxChildren children adopts
// the joiner, any other forwards the Join to a random child. A parent tells
// its children the root and their siblings (UpdateSibling) whenever these
// change and, as its heartbeat, every beatEvery ms; children send their
// parent heartbeats, and a neighbour not heard from for failAfter ms is
// dropped. A node that loses its parent rejoins through n1 and tells its
// children that their root is unknown, which makes them rejoin too; a
// former child is dropped when it answers an UpdateSibling with Leave, or
// when its parent hears of it as a sibling. A node whose Joins go
// unanswered joins itself: it becomes the root of a tree of its own, and
// its recovery timer sends Join to n1 every recoverEvery ms until that
// tree merges back into n1's. A node takes a JoinReply only while it looks
// for a parent: while it joins, or as a stray root whose recovery timer
// runs.
//
// RandTree keeps nothing on disk: Crash loses all of a node's state and a
// restarted node joins afresh. Propose is a no-op, as the tree serves no
// client requests.
//
// Bugs, both from the papers:
//
//   - stale-child: on UpdateSibling a node adds its new siblings without
//     removing them from its children, so a child that rejoined under its
//     grandparent is both a child and a sibling (CrystalBall's "children
//     and siblings are disjoint").
//   - no-recovery-timer: the recovery timer is not scheduled when a node
//     joins itself, so the root of a new tree never rejoins the main one
//     (MaceMC's forest that never merges).
//
// Ground truth, checked on every snapshot over the live nodes: children
// and siblings are disjoint at every node; no node is its own parent, child
// or sibling; parent pointers form no cycle; and the nodes end up in a
// single tree. The last is a liveness property, checked as a dead state
// (MaceMC's term): there are several roots and one of them, not n1, looks
// for no parent (it is not joining and its recovery timer is off), so it
// refuses every JoinReply, late replies to its own earlier Joins included,
// and stays a root until it crashes. Several roots alone are no violation:
// they are what a partition or a lost Join leaves until recovery.
package randtree

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/augur-dev/augur/predict"
	"github.com/augur-dev/augur/testbeds"
)

// Bugs.
const (
	BugStaleChild      = "stale-child"
	BugNoRecoveryTimer = "no-recovery-timer"
)

// bugs are the injectable bugs.
var bugs = []string{BugNoRecoveryTimer, BugStaleChild}

// defaultNodes is the testbed's node count when a run leaves it zero.
const defaultNodes = 7

// Testbed describes the testbed for augur testbed.
var Testbed = testbeds.Testbed{
	Name:   "randtree",
	Doc:    "RandTree, the random overlay tree of MaceMC and CrystalBall",
	Nodes:  defaultNodes,
	Bugs:   bugs,
	Faults: testbeds.DefaultFaults(),
	Run:    Run,
	Fork:   Fork,
}

// Protocol parameters; times are in ms of logical time.
const (
	maxChildren  = 3
	joinTries    = 2 // Joins a node sends before it joins itself
	beatEvery    = 50
	failAfter    = 200
	joinTimeout  = 50
	recoverEvery = 20
	bootEvery    = 20 // nodes boot one after another
	wellKnown    = 0  // n1, the root every node joins through
	none         = -1
)

// State is the state a node exposes.
type State struct {
	ID       string   `augur:"id"`
	Parent   string   `augur:"parent"` // "" when the node has none
	Root     string   `augur:"root"`   // "" when the node knows none
	Children []string `augur:"children"`
	Siblings []string `augur:"siblings"`
	Joined   bool     `augur:"joined"`
	// RecoveryTimer is whether the node's recovery timer is armed, the
	// timer that has the root of a tree other than n1's send Join to n1
	// until the trees merge (a joined node keeps it armed; a joining one
	// has it off until it joins).
	RecoveryTimer bool `augur:"recovery_timer"`
}

// Messages. They are shared by duplicates and never mutated.
type (
	join      struct{ joiner int }
	joinReply struct {
		root     int
		siblings []int
	}
	updateSibling struct {
		root     int
		siblings []int
	}
	heartbeat struct{}
	leave     struct{} // the sender drops its link to the receiver
)

type node struct {
	id        int
	joined    bool
	parent    int
	root      int
	children  []int
	siblings  []int
	seen      map[int]int64 // neighbour → when last heard from
	joining   bool
	joinBy    int64 // when a pending Join times out
	recoverAt int64 // when the recovery timer fires; 0 when not scheduled
	beat      int64 // when the next heartbeats are due
	wake      int64 // when a fresh node starts to join
	tries     int   // Joins resent in the pending attempt
}

// isRoot reports whether n is the root of a tree.
func (n *node) isRoot() bool { return n.joined && n.parent == none && n.root == n.id }

// stray reports whether n is the root of a tree other than the well-known
// root's, a tree that must merge back into the well-known root's.
func (n *node) stray() bool { return n.isRoot() && n.id != wellKnown }

// seeking reports whether n looks for a parent, and so takes a JoinReply:
// it is joining, or it is a stray root with its recovery timer pending.
func (n *node) seeking() bool { return n.joining || n.stray() && n.recoverAt != 0 }

type cluster struct {
	sim   *testbeds.Sim
	bug   string
	nodes []*node
	whole int // ticks at which the live nodes formed one tree
}

// Run runs the testbed with cfg and writes its trace to dir, until the
// run ends or ctx is done (see testbeds.Record).
func Run(ctx context.Context, cfg testbeds.Config, dir string) (testbeds.Stats, error) {
	cfg, err := cfg.WithDefaults(defaultNodes, testbeds.DefaultFaults())
	if err != nil {
		return testbeds.Stats{}, fmt.Errorf("randtree: %w", err)
	}
	return testbeds.Record(ctx, "randtree", bugs, cfg, dir, func(sim *testbeds.Sim) testbeds.System[State] { return newCluster(sim, cfg) })
}

// Fork runs the testbed with cfg for steps events, or until ctx is done
// (see testbeds.Fork), and returns a copy of the state it reached, for
// the predictor.
func Fork(ctx context.Context, cfg testbeds.Config, steps int) (predict.Model, error) {
	cfg, err := cfg.WithDefaults(defaultNodes, testbeds.DefaultFaults())
	if err != nil {
		return nil, fmt.Errorf("randtree: %w", err)
	}
	return testbeds.Fork(ctx, "randtree", bugs, cfg, steps, func(sim *testbeds.Sim) testbeds.System[State] { return newCluster(sim, cfg) })
}

func newCluster(sim *testbeds.Sim, cfg testbeds.Config) *cluster {
	c := &cluster{sim: sim, bug: cfg.Bug, nodes: make([]*node, cfg.Nodes)}
	for i := range c.nodes {
		c.start(i, sim.Now()+int64(i)*bootEvery)
	}
	return c
}

// start boots node i with no state, as it is at boot and after a restart;
// it joins at its first tick from wake on.
func (c *cluster) start(i int, wake int64) {
	c.nodes[i] = &node{id: i, parent: none, root: none, seen: map[int]int64{}, wake: wake, beat: wake + beatEvery}
}

// startJoin sends Join to the well-known root, which joins itself. The
// recovery timer is off until the join succeeds.
func (c *cluster) startJoin(n *node) {
	n.joining, n.joinBy, n.recoverAt, n.tries = true, c.sim.Now()+joinTimeout, 0, 0
	if n.id == wellKnown {
		c.joinSelf(n)
		return
	}
	c.sim.Send(n.id, wellKnown, join{n.id})
}

// joinSelf makes n the root of its own tree. Unless n is the well-known
// root, its recovery timer will have it rejoin.
func (c *cluster) joinSelf(n *node) {
	n.joining, n.joined = false, true
	n.parent, n.root, n.siblings = none, n.id, nil
	c.tellChildren(n)
	if c.bug != BugNoRecoveryTimer {
		n.recoverAt = c.sim.Now() + recoverEvery
	}
}

// orphan is n's reaction to losing its parent: it rejoins, and tells its
// children that their root is unknown.
func (c *cluster) orphan(n *node) {
	n.parent, n.root, n.siblings = none, none, nil
	c.tellChildren(n)
	c.startJoin(n)
}

// tellChildren sends every child the root and its siblings.
func (c *cluster) tellChildren(n *node) {
	for _, ch := range n.children {
		c.sim.Send(n.id, ch, updateSibling{n.root, without(n.children, ch)})
	}
}

// setSiblings takes the siblings a parent announced and reports whether
// n's children changed, which they must hear of. The siblings are no
// longer children of n; the stale-child bug forgets to remove them.
func (c *cluster) setSiblings(n *node, sibs []int) bool {
	n.siblings = without(sibs, n.id)
	if c.bug == BugStaleChild {
		return false
	}
	kept := slices.DeleteFunc(slices.Clone(n.children), func(ch int) bool { return slices.Contains(sibs, ch) })
	changed := len(kept) < len(n.children)
	n.children = kept
	return changed
}

func without(s []int, x int) []int {
	return slices.DeleteFunc(slices.Clone(s), func(y int) bool { return y == x })
}

func (c *cluster) Tick(i int) {
	if c.first(i) && c.oneTree() {
		c.whole++
	}
	n, now := c.nodes[i], c.sim.Now()
	if !n.joined && !n.joining && now >= n.wake {
		c.startJoin(n)
	}
	if n.joining && now >= n.joinBy {
		if n.tries++; n.tries < joinTries {
			n.joinBy = now + joinTimeout
			c.sim.Send(n.id, wellKnown, join{n.id})
		} else {
			c.joinSelf(n)
		}
	}
	if n.parent != none && now-n.seen[n.parent] > failAfter {
		c.orphan(n)
	}
	if alive := slices.DeleteFunc(slices.Clone(n.children), func(ch int) bool { return now-n.seen[ch] > failAfter }); len(alive) < len(n.children) {
		n.children = alive
		c.tellChildren(n)
	}
	if now >= n.beat {
		n.beat = now + beatEvery
		if n.parent != none {
			c.sim.Send(n.id, n.parent, heartbeat{})
		}
		c.tellChildren(n)
	}
	if n.recoverAt != 0 && now >= n.recoverAt {
		n.recoverAt = now + recoverEvery
		if n.stray() {
			c.sim.Send(n.id, wellKnown, join{n.id})
		}
	}
}

func (c *cluster) Deliver(from, to int, m any) {
	n := c.nodes[to]
	switch m := m.(type) {
	case join:
		c.join(n, from, m.joiner)
	case joinReply:
		// Accept an adoption only while seeking a parent, and only into a
		// tree other than n's own.
		if !n.seeking() || m.root == none || m.root == n.id {
			if from != n.parent {
				c.sim.Send(n.id, from, leave{})
			}
			return
		}
		n.joining, n.joined, n.parent, n.root = false, true, from, m.root
		n.seen[from] = c.sim.Now()
		n.recoverAt = c.sim.Now() + recoverEvery
		c.setSiblings(n, m.siblings)
		c.tellChildren(n) // n's root changed
	case updateSibling:
		if from != n.parent {
			c.sim.Send(n.id, from, leave{})
			return
		}
		n.seen[from] = c.sim.Now()
		if m.root == none || m.root == n.id {
			c.orphan(n) // the parent lost its own parent, or a cycle
			return
		}
		if c.setSiblings(n, m.siblings) || m.root != n.root {
			n.root = m.root
			c.tellChildren(n)
		}
	case heartbeat:
		if !slices.Contains(n.children, from) {
			c.sim.Send(n.id, from, leave{})
			return
		}
		n.seen[from] = c.sim.Now()
	case leave:
		if from == n.parent {
			c.orphan(n)
		} else if slices.Contains(n.children, from) {
			n.children = without(n.children, from)
			c.tellChildren(n)
		}
	}
}

// join handles a Join of joiner that from sent n: from is the joiner, or
// n's parent forwarding it.
func (c *cluster) join(n *node, from, joiner int) {
	switch {
	case !n.joined || n.root == none || n.root == joiner || joiner == n.id || joiner == n.parent:
		return // not in a tree, or in the joiner's own
	case from != joiner && from != n.parent:
		return // forwarded by a node that n no longer is a child of
	case slices.Contains(n.children, joiner):
		// A child that rejoins, having lost n's messages or restarted.
	case len(n.children) < maxChildren:
		n.children = append(n.children, joiner)
		n.siblings = without(n.siblings, joiner)
		c.tellChildren(n)
	default:
		c.sim.Send(n.id, n.children[c.sim.Rand().IntN(len(n.children))], join{joiner})
		return
	}
	n.seen[joiner] = c.sim.Now()
	c.sim.Send(n.id, joiner, joinReply{n.root, without(n.children, joiner)})
}

// Checkpoint saves node i for a guarded run (testbeds.Checkpointer): a
// handler changes nothing but its node, and the ground truth is a
// function of the nodes' states.
func (c *cluster) Checkpoint(i int) func() {
	saved := c.nodes[i].clone()
	return func() { c.nodes[i] = saved }
}

// clone returns a deep copy of n; nil, a crashed node, stays nil.
func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := *n
	c.children, c.siblings, c.seen = slices.Clone(n.children), slices.Clone(n.siblings), maps.Clone(n.seen)
	return &c
}

// Copy returns a copy of the cluster on sim that shares its nodes until
// Own, for the predictor (testbeds.Copier).
func (c *cluster) Copy(sim *testbeds.Sim) testbeds.Copier[State] {
	return &cluster{sim: sim, bug: c.bug, nodes: slices.Clone(c.nodes)}
}

// Own copies node i, all that its handlers change (testbeds.Copier).
func (c *cluster) Own(i int) { c.nodes[i] = c.nodes[i].clone() }

// Hash hashes node i's links and join state (testbeds.Copier); the times
// it last heard from its neighbours and its timers' deadlines are left
// out, but whether its recovery timer runs is not.
func (c *cluster) Hash(i int) uint64 {
	n := c.nodes[i]
	var h testbeds.Hasher
	h.Ints([]int{n.id, n.parent, n.root, n.tries})
	h.Ints(n.children)
	h.Ints(n.siblings)
	h.Bool(n.joined)
	h.Bool(n.joining)
	h.Bool(n.recoverAt != 0)
	return h.Sum()
}

// Propose is a no-op: RandTree serves no client requests.
func (c *cluster) Propose(int) {}

// Crash loses all of node i's state: it has no storage. A crashed node
// gets no calls but Restart.
func (c *cluster) Crash(i int) { c.nodes[i] = nil }

// Restart boots node i afresh.
func (c *cluster) Restart(i int) { c.start(i, c.sim.Now()) }

// Rejoining reports whether node i is in no tree yet
// (testbeds.Rejoiner): a restarted node until it joins one.
func (c *cluster) Rejoining(i int) bool { return !c.nodes[i].joined }

func name(i int) string {
	if i == none {
		return ""
	}
	return testbeds.Name(i)
}

func names(ids []int) []string {
	s := make([]string, 0, len(ids))
	for _, i := range ids {
		s = append(s, name(i))
	}
	slices.Sort(s)
	return s
}

func (c *cluster) State(i int) State {
	n := c.nodes[i]
	return State{ID: name(n.id), Parent: name(n.parent), Root: name(n.root),
		Children: names(n.children), Siblings: names(n.siblings), Joined: n.joined,
		RecoveryTimer: n.recoverAt != 0}
}

// first reports whether i is the first live node, whose tick counts the
// ticks.
func (c *cluster) first(i int) bool {
	for j := range i {
		if c.sim.Live(j) {
			return false
		}
	}
	return true
}

// oneTree reports whether the live nodes have all joined one tree.
func (c *cluster) oneTree() bool {
	roots := 0
	for i, n := range c.nodes {
		if !c.sim.Live(i) {
			continue
		}
		if !n.joined {
			return false
		}
		if n.isRoot() {
			roots++
		}
	}
	return roots == 1
}

// Progress counts the ticks at which the live nodes formed one tree
// (testbeds.Progresser).
func (c *cluster) Progress() int { return c.whole }

// Check returns the ground-truth checks failing over the live nodes.
func (c *cluster) Check() []string {
	var failed []string
	disjoint, self, roots, stuck := true, true, 0, false
	for i, n := range c.nodes {
		if !c.sim.Live(i) {
			continue
		}
		for _, ch := range n.children {
			disjoint = disjoint && !slices.Contains(n.siblings, ch)
		}
		self = self && n.parent != n.id && !slices.Contains(n.children, n.id) && !slices.Contains(n.siblings, n.id)
		if n.isRoot() {
			roots++
		}
		stuck = stuck || n.stray() && !n.seeking()
	}
	if roots > 1 && stuck {
		failed = append(failed, "single-root")
	}
	if !disjoint {
		failed = append(failed, "children-siblings-disjoint")
	}
	if !self {
		failed = append(failed, "no-self-link")
	}
	if c.cyclic() {
		failed = append(failed, "acyclic")
	}
	return failed
}

// cyclic reports whether following parent pointers between live nodes
// loops.
func (c *cluster) cyclic() bool {
	for i := range c.nodes {
		if !c.sim.Live(i) {
			continue
		}
		p := i
		for range c.nodes {
			if p = c.nodes[p].parent; p == none || !c.sim.Live(p) {
				break
			}
		}
		if p != none && c.sim.Live(p) {
			return true
		}
	}
	return false
}
