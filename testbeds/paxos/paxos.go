// Package paxos is a testbed running repeated single-decree Paxos, as in
// Lamport's "Paxos Made Simple" and as CrystalBall models it, driven by a
// testbeds.Sim. Every node is proposer, acceptor and learner.
//
// Nodes decide instances 1, 2, … one after the other. A client request
// (Propose) makes a node the proposer of a fresh value in its open
// instance, or in the next one when it has learned the open one's value.
// Phase 1 is Prepare(round) answered by Promise(round, accepted round,
// accepted value) or Nack(promised round); phase 2 is Accept(round, value)
// answered by Accepted, which acceptors send to every learner. A learner
// learns a value when a majority of acceptors accepted it in one round.
// Rounds are unique per proposer (round mod N is the proposer's index) and
// a proposer retries with a higher round on a timeout, sooner after a
// Nack. A node moves to the next instance once it has learned the open
// one and hears of the next; a node that lags behind asks the sender for
// the values it missed (CatchUp, answered by Decided).
//
// An acceptor persists its instance, promised round, accepted round and
// value, and every vote (round and value) it accepted in the instance (an
// instrumented acceptor keeps its history, which Paxos does not need but
// the checks do: a value stays chosen when its acceptors move on), a
// proposer the highest round it has used, and a learner the
// values it has learned; a crash keeps only that.
//
// Bugs, the two Paxos bugs of the CrystalBall paper:
//
//   - last-promise: the proposer takes the value for its Accept from the
//     last Promise that reports an accepted value, not from the one with
//     the highest accepted round.
//   - lost-promise: the acceptor's promised round is not part of what it
//     persists, so after a restart it accepts a round lower than one it
//     had promised to reject.
//
// Ground truth, checked after every event: agreement. At most one value is
// chosen per instance, a value being chosen once a majority of acceptors
// has accepted it in one round (a global history: it stays chosen when
// those acceptors move on), and learners learn only chosen values.
package paxos

import (
	"context"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strconv"

	"github.com/augur-dev/augur/predict"
	"github.com/augur-dev/augur/testbeds"
)

// Bugs.
const (
	BugLastPromise = "last-promise"
	BugLostPromise = "lost-promise"
)

// bugs are the injectable bugs.
var bugs = []string{BugLastPromise, BugLostPromise}

// defaultNodes is the testbed's node count when a run leaves it zero.
const defaultNodes = 3

// Testbed describes the testbed for augur testbed.
var Testbed = testbeds.Testbed{
	Name:   "paxos",
	Doc:    "repeated single-decree Paxos (Paxos Made Simple), every node proposer, acceptor and learner",
	Nodes:  defaultNodes,
	Bugs:   bugs,
	Faults: defaultFaults(),
	Run:    Run,
	Fork:   Fork,
}

// defaultFaults are the testbed's default faults. Both bugs need a message
// of an older round to arrive late: more messages are held back, and for
// longer, and more are lost, so that a learner misses a decision.
// Lost-promise also needs the acceptor that promised the newer round to
// crash and be up again before the old message arrives: crashes at writes
// are frequent, and a crashed node restarts after 1 ms.
func defaultFaults() testbeds.Faults {
	f := testbeds.DefaultFaults()
	f.Reorder, f.MaxDelay, f.Drop = 0.2, 150, 0.04
	f.CrashAt, f.Down = 0.15, 1
	return f
}

// Proposer timing in ticks, and sizes. A round takes four message delays,
// so it times out after one full tick at least.
const (
	timeoutMin, timeoutMax = 2, 4 // a round times out after this many ticks
	backoff                = 1    // after a Nack, a new round starts within backoff ticks
	maxQueue               = 4    // client values a node holds
	logTail                = 3    // decided values exposed
)

// Vote is a round and the value an acceptor accepted in it, as exposed.
type Vote struct {
	Round int64  `augur:"round"`
	Value string `augur:"value"`
}

// Decision is a decided instance as exposed.
type Decision struct {
	Instance int64  `augur:"instance"`
	Value    string `augur:"value"`
}

// State is the state a node exposes.
type State struct {
	ID            string     `augur:"id"`
	Instance      int64      `augur:"instance"` // the open instance
	Promised      int64      `augur:"promised"`
	AcceptedRound int64      `augur:"accepted_round"`
	AcceptedValue string     `augur:"accepted_value"`
	Votes         []Vote     `augur:"votes"` // every vote accepted in the open instance, in order
	Phase         string     `augur:"phase"` // of the proposer: idle, prepare or accept
	Round         int64      `augur:"round"` // the proposer's round, 0 when idle
	Proposal      string     `augur:"proposal"`
	Learned       string     `augur:"learned"` // the open instance's value, "" until learned
	Log           []Decision `augur:"log"`     // the last instances decided
}

// Messages. Each carries the instance it is about.
type (
	prepare struct{ inst, round int64 }
	promise struct {
		inst, round, accRound int64
		accValue              string
	}
	accept struct {
		inst, round int64
		value       string
	}
	accepted struct {
		inst, round int64
		value       string
	}
	nack    struct{ inst, round, promised int64 }
	catchUp struct{ inst int64 } // asks for the values of inst and later
	decided struct {             // the values of instances first, first+1, …
		inst   int64
		values []string
	}
)

type phase uint8

const (
	idle phase = iota
	preparing
	accepting
)

func (p phase) String() string { return [...]string{"idle", "prepare", "accept"}[p] }

// disk is what a node persists.
type disk struct {
	inst, promised, accRound int64
	accValue                 string
	ballot                   int64    // the highest round the proposer used
	log                      []string // log[i-1] is the value of instance i
	accVotes                 []vote   // the votes accepted in inst, in order
}

// vote is a round and value that acceptors accepted.
type vote struct {
	round int64
	value string
}

type node struct {
	id   int
	disk disk
	// Acceptor.
	inst, promised, accRound int64
	accValue                 string
	accVotes                 []vote // every vote accepted in inst, in order
	// Proposer: ballot is its highest round, seen the highest round a
	// Nack told of, proposal the value of round.
	ballot, seen, round int64
	phase               phase
	proposal            string
	queue               []string // the client values to propose, the first now
	promises            uint64   // acceptors that promised round, as bits
	best                vote     // the accepted vote reported by promises
	elapsed, timeout    int
	// Learner.
	log   []string
	votes map[vote]uint64 // the acceptors that accepted each vote
}

func (n *node) learned() bool { return int64(len(n.log)) >= n.inst }

type cluster struct {
	sim   *testbeds.Sim
	bug   string
	nodes []*node
	seq   int
	// history[inst][v] is the set of acceptors that accepted v in inst.
	history map[int64]map[vote]uint64
	chosen  map[int64][]string // the values chosen in each instance
	split   bool               // two values were chosen in one instance
	broken  bool               // a learner learned a value not chosen
	// journal, in a guarded run, holds what record changed in the
	// history since the last Checkpoint, to take it back.
	journal   []recorded
	journaled bool
	shared    bool // history and chosen are another copy's (see Own)
}

// recorded is one change record made to the history: the acceptors of
// v in inst before it (none when new), and the values chosen before.
type recorded struct {
	inst    int64
	v       vote
	before  uint64
	existed bool
	chosen  int
}

// Run runs the testbed with cfg and writes its trace to dir, until the
// run ends or ctx is done (see testbeds.Record).
func Run(ctx context.Context, cfg testbeds.Config, dir string) (testbeds.Stats, error) {
	cfg, err := cfg.WithDefaults(defaultNodes, defaultFaults())
	if err != nil {
		return testbeds.Stats{}, fmt.Errorf("paxos: %w", err)
	}
	if cfg.Nodes < 1 || cfg.Nodes > 64 {
		return testbeds.Stats{}, fmt.Errorf("paxos: %d nodes (want 1 to 64)", cfg.Nodes)
	}
	return testbeds.Record(ctx, "paxos", bugs, cfg, dir, func(sim *testbeds.Sim) testbeds.System[State] { return newCluster(sim, cfg) })
}

// Fork runs the testbed with cfg for steps events, or until ctx is done
// (see testbeds.Fork), and returns a copy of the state it reached, for
// the predictor.
func Fork(ctx context.Context, cfg testbeds.Config, steps int) (predict.Model, error) {
	cfg, err := cfg.WithDefaults(defaultNodes, defaultFaults())
	if err != nil {
		return nil, fmt.Errorf("paxos: %w", err)
	}
	return testbeds.Fork(ctx, "paxos", bugs, cfg, steps, func(sim *testbeds.Sim) testbeds.System[State] { return newCluster(sim, cfg) })
}

func newCluster(sim *testbeds.Sim, cfg testbeds.Config) *cluster {
	c := &cluster{sim: sim, bug: cfg.Bug, history: map[int64]map[vote]uint64{}, chosen: map[int64][]string{}}
	for i := range cfg.Nodes {
		n := &node{id: i, disk: disk{inst: 1}}
		c.nodes = append(c.nodes, n)
		c.load(n)
	}
	return c
}

func (c *cluster) majority() int { return len(c.nodes)/2 + 1 }

// nextRound is a round of the proposer with index id among nodes (a round
// r belongs to proposer r mod nodes) above round above.
func nextRound(id, nodes int, above int64) int64 {
	return (above/int64(nodes)+1)*int64(nodes) + int64(id)
}

// save persists n's state: a crash point. With lost-promise the promised
// round is not part of what is written.
func (c *cluster) save(n *node) {
	n.disk = disk{inst: n.inst, promised: n.promised, accRound: n.accRound, accValue: n.accValue,
		ballot: n.ballot, log: n.log, accVotes: n.accVotes}
	if c.bug == BugLostPromise {
		n.disk.promised = 0
	}
	c.sim.Wrote(n.id)
}

// load (re)starts n from its disk.
func (c *cluster) load(n *node) {
	d := n.disk
	*n = node{id: n.id, disk: d, inst: d.inst, promised: d.promised, accRound: d.accRound,
		accValue: d.accValue, accVotes: d.accVotes, ballot: d.ballot, log: d.log, votes: map[vote]uint64{}}
}

// send sends m from n to node to, itself included: a node's roles talk
// through the network like any two nodes.
func (c *cluster) send(n *node, to int, m any) { c.sim.Send(n.id, to, m) }

func (c *cluster) broadcast(n *node, m any) {
	for to := range c.nodes {
		c.send(n, to, m)
	}
}

func (c *cluster) Tick(i int) {
	n := c.nodes[i]
	if n.phase == idle {
		return
	}
	if n.elapsed++; n.elapsed >= n.timeout {
		c.startRound(n)
	}
}

func (c *cluster) Deliver(from, to int, m any) {
	c.handle(c.nodes[to], from, m)
}

// Propose queues a fresh client value at node i (unless its queue is
// full) and, when it was idle, starts proposing it.
func (c *cluster) Propose(i int) {
	n := c.nodes[i]
	if len(n.queue) == maxQueue {
		return
	}
	c.seq++
	n.queue = append(n.queue, "v"+strconv.Itoa(c.seq))
	if len(n.queue) > 1 {
		return
	}
	if n.learned() {
		c.advance(n)
	}
	c.startRound(n)
}

// Crash drops all of node i's state but its disk.
func (c *cluster) Crash(i int) { c.nodes[i] = &node{id: i, disk: c.nodes[i].disk} }

func (c *cluster) Restart(i int) { c.load(c.nodes[i]) }

// startRound starts phase 1 of a new round of n's proposal.
func (c *cluster) startRound(n *node) {
	n.ballot = nextRound(n.id, len(c.nodes), max(n.ballot, n.seen, n.promised))
	c.save(n)
	n.round, n.phase, n.proposal = n.ballot, preparing, n.queue[0]
	n.promises, n.best = 0, vote{}
	n.elapsed, n.timeout = 0, timeoutMin+c.sim.Rand().IntN(timeoutMax-timeoutMin+1)
	c.broadcast(n, prepare{n.inst, n.round})
}

// advance moves n, which has learned its open instance, to the next.
func (c *cluster) advance(n *node) {
	n.inst++
	n.promised, n.accRound, n.accValue, n.accVotes = 0, 0, "", nil
	clear(n.votes)
	c.save(n)
}

// learn makes n learn v for its open instance.
func (c *cluster) learn(n *node, v string) {
	n.log = append(slices.Clip(n.log), v)
	c.save(n)
	if !slices.Contains(c.chosen[n.inst], v) {
		c.broken = true
	}
	n.phase, n.round, n.proposal = idle, 0, ""
	if len(n.queue) > 0 && n.queue[0] == v {
		n.queue = n.queue[1:]
	}
	if len(n.queue) > 0 {
		// Propose the next value, or the one that lost, in the next instance.
		c.advance(n)
		c.startRound(n)
	}
}

// instance is the instance m is about.
func instance(m any) int64 {
	switch m := m.(type) {
	case prepare:
		return m.inst
	case promise:
		return m.inst
	case accept:
		return m.inst
	case accepted:
		return m.inst
	case nack:
		return m.inst
	}
	panic(fmt.Sprintf("paxos: message %T", m))
}

// isRequest reports whether m is a proposer's request to acceptors.
func isRequest(m any) bool {
	switch m.(type) {
	case prepare, accept:
		return true
	}
	return false
}

// handle handles message m from node from at n.
func (c *cluster) handle(n *node, from int, m any) {
	switch m := m.(type) {
	case catchUp:
		if m.inst <= int64(len(n.log)) {
			c.send(n, from, decided{m.inst, slices.Clone(n.log[m.inst-1:])})
		}
		return
	case decided:
		for i, v := range m.values {
			inst := m.inst + int64(i)
			if inst == n.inst+1 && n.learned() {
				c.advance(n)
			}
			if inst == n.inst && !n.learned() {
				c.learn(n, v)
			}
		}
		return
	}
	inst := instance(m)
	switch {
	case inst < n.inst:
		if isRequest(m) {
			// The proposer lags behind: tell it what was decided.
			c.send(n, from, decided{inst, slices.Clone(n.log[inst-1:])})
		}
		return
	case inst == n.inst+1 && n.learned():
		c.advance(n)
	case inst > n.inst:
		c.send(n, from, catchUp{n.inst})
		return
	}
	switch m := m.(type) {
	case prepare:
		if m.round < n.promised {
			c.send(n, from, nack{m.inst, m.round, n.promised})
			return
		}
		n.promised = m.round
		c.save(n)
		c.send(n, from, promise{m.inst, m.round, n.accRound, n.accValue})
	case accept:
		if m.round < n.promised {
			c.send(n, from, nack{m.inst, m.round, n.promised})
			return
		}
		n.promised, n.accRound, n.accValue = m.round, m.round, m.value
		if v := (vote{m.round, m.value}); !slices.Contains(n.accVotes, v) {
			n.accVotes = append(slices.Clip(n.accVotes), v) // the disk shares the old slice
		}
		c.save(n)
		c.record(n, m)
		c.broadcast(n, accepted{inst: m.inst, round: m.round, value: m.value})
	case promise:
		c.onPromise(n, from, m)
	case nack:
		n.seen = max(n.seen, m.promised)
		if m.round == n.round && n.phase != idle {
			n.elapsed = max(n.elapsed, n.timeout-backoff)
		}
	case accepted:
		v := vote{m.round, m.value}
		n.votes[v] |= 1 << from
		if bits.OnesCount64(n.votes[v]) >= c.majority() && !n.learned() {
			c.learn(n, m.value)
		}
	}
}

// onPromise handles a Promise at proposer n. With a majority of them it
// sends those acceptors an Accept of the value of the highest accepted
// round reported (with last-promise, of the last reported), or of its own.
func (c *cluster) onPromise(n *node, from int, m promise) {
	if n.phase != preparing || m.round != n.round {
		return
	}
	n.promises |= 1 << from
	if m.accRound > 0 && (m.accRound > n.best.round || c.bug == BugLastPromise) {
		n.best = vote{m.accRound, m.accValue}
	}
	if bits.OnesCount64(n.promises) < c.majority() {
		return
	}
	if n.best.round > 0 {
		n.proposal = n.best.value
	}
	n.phase, n.elapsed = accepting, 0
	for to := range c.nodes {
		if n.promises&(1<<to) != 0 {
			c.send(n, to, accept{n.inst, n.round, n.proposal})
		}
	}
}

// record adds acceptor n's acceptance of m to the history.
func (c *cluster) record(n *node, m accept) {
	h := c.history[m.inst]
	if h == nil {
		h = map[vote]uint64{}
		c.history[m.inst] = h
	}
	v := vote{m.round, m.value}
	if c.journaled {
		before, existed := h[v]
		c.journal = append(c.journal, recorded{m.inst, v, before, existed, len(c.chosen[m.inst])})
	}
	h[v] |= 1 << n.id
	if bits.OnesCount64(h[v]) >= c.majority() && !slices.Contains(c.chosen[m.inst], m.value) {
		c.chosen[m.inst] = append(c.chosen[m.inst], m.value)
		c.split = c.split || len(c.chosen[m.inst]) > 1
	}
}

// Checkpoint saves node i and the ground truth for a guarded run
// (testbeds.Checkpointer): a handler changes its node, the history of
// acceptances and the agreement flags. Client values are never reused: a
// refused Propose consumes its value's number.
func (c *cluster) Checkpoint(i int) func() {
	saved := c.nodes[i].clone()
	split, broken := c.split, c.broken
	c.journal, c.journaled = c.journal[:0], true
	return func() {
		c.nodes[i] = saved
		for j := len(c.journal) - 1; j >= 0; j-- {
			r := c.journal[j]
			if r.existed {
				c.history[r.inst][r.v] = r.before
			} else {
				delete(c.history[r.inst], r.v)
			}
			c.chosen[r.inst] = c.chosen[r.inst][:r.chosen]
		}
		c.journal = c.journal[:0]
		c.split, c.broken = split, broken
	}
}

// clone returns a deep copy of n.
func (n *node) clone() *node {
	c := *n
	c.queue, c.log = slices.Clone(n.queue), slices.Clone(n.log)
	c.disk.log = slices.Clone(n.disk.log)
	c.accVotes, c.disk.accVotes = slices.Clone(n.accVotes), slices.Clone(n.disk.accVotes)
	c.votes = maps.Clone(n.votes)
	return &c
}

// Copy returns a copy of the cluster on sim that shares its nodes and
// the ground truth's history until Own, for the predictor
// (testbeds.Copier).
func (c *cluster) Copy(sim *testbeds.Sim) testbeds.Copier[State] {
	return &cluster{sim: sim, bug: c.bug, seq: c.seq, split: c.split, broken: c.broken,
		nodes: slices.Clone(c.nodes), history: c.history, chosen: c.chosen, shared: true}
}

// Own copies node i and, once per copy, the history (testbeds.Copier):
// what a handler of i changes.
func (c *cluster) Own(i int) {
	c.nodes[i] = c.nodes[i].clone()
	if !c.shared {
		return
	}
	h, chosen := c.history, c.chosen
	c.history, c.chosen, c.shared = make(map[int64]map[vote]uint64, len(h)), make(map[int64][]string, len(chosen)), false
	for inst, votes := range h {
		c.history[inst] = maps.Clone(votes)
	}
	for inst, v := range chosen {
		c.chosen[inst] = slices.Clone(v)
	}
}

// Hash hashes node i's acceptor, proposer and learner state and its disk
// (testbeds.Copier); the ticks of the proposer's timeout are left out.
func (c *cluster) Hash(i int) uint64 {
	n := c.nodes[i]
	var h testbeds.Hasher
	for _, x := range []int64{n.inst, n.promised, n.accRound, n.ballot, n.seen, n.round, int64(n.phase),
		int64(n.promises), n.best.round, n.disk.inst, n.disk.promised, n.disk.accRound, n.disk.ballot} {
		h.Int(x)
	}
	for _, s := range []string{n.accValue, n.proposal, n.best.value, n.disk.accValue} {
		h.String(s)
	}
	for _, l := range [][]string{n.queue, n.log, n.disk.log} {
		h.Int(int64(len(l)))
		for _, s := range l {
			h.String(s)
		}
	}
	for _, l := range [][]vote{n.accVotes, n.disk.accVotes} {
		h.Int(int64(len(l)))
		for _, v := range l {
			h.Int(v.round)
			h.String(v.value)
		}
	}
	var votes uint64 // a sum, in no order
	for v, by := range n.votes {
		var e testbeds.Hasher
		e.Int(v.round)
		e.String(v.value)
		e.Int(int64(by))
		votes += e.Sum()
	}
	h.Int(int64(votes))
	return h.Sum()
}

func (c *cluster) State(i int) State {
	n := c.nodes[i]
	s := State{
		ID: testbeds.Name(n.id), Instance: n.inst, Promised: n.promised,
		AcceptedRound: n.accRound, AcceptedValue: n.accValue,
		Phase: n.phase.String(), Round: n.round, Proposal: n.proposal,
		Votes: make([]Vote, 0, len(n.accVotes)), Log: []Decision{},
	}
	for _, v := range n.accVotes {
		s.Votes = append(s.Votes, Vote{v.round, v.value})
	}
	if n.learned() {
		s.Learned = n.log[n.inst-1]
	}
	for j := max(0, len(n.log)-logTail); j < len(n.log); j++ {
		s.Log = append(s.Log, Decision{int64(j + 1), n.log[j]})
	}
	return s
}

// Progress counts the instances in which a value was chosen
// (testbeds.Progresser).
func (c *cluster) Progress() int {
	n := 0
	for _, v := range c.chosen {
		if len(v) > 0 {
			n++
		}
	}
	return n
}

// Check returns the ground-truth checks failing: agreement.
func (c *cluster) Check() []string {
	if c.split || c.broken {
		return []string{"agreement"}
	}
	return nil
}
