// Command gen writes augur's demo trace: a seeded simulation of a toy
// replicated log with leader election (a simplified Raft) in augur's JSONL
// global-snapshot format, with three rare bugs planted in it.
//
// Usage:
//
//	go run ./internal/demo/gen -seed 1 -o internal/demo/demo.jsonl
//
// A discrete-event scheduler driven by a PCG generator delivers messages
// (random delays, FIFO per link), fires election and heartbeat timers, feeds
// client proposals to the leader, and crashes and restarts nodes. Recording
// starts once the cluster has booted; from then on, whenever an event changes
// what the live nodes expose, the world is paused and one snapshot is written:
// every live node's id, term, vote, state, lead, commit, applied, the last
// two entries of its log (indexes keep growing, as after compaction) and its
// peers. A crashed node is absent until it restarts.
//
// The protocol is correct apart from three faults, each injected rarely by
// the same generator, so that each shows in a handful of snapshots:
//
//   - bug:two-leaders: two nodes time out at the same moment, and a voter
//     crashes right after granting its vote and restarts without it (the
//     vote was never persisted), so it votes for both candidates. When the
//     other voters split, both win the same term and rule it until one sees
//     the other's append and yields; followers disagree on the leader of the
//     term until the survivor's next append reaches them.
//   - bug:apply-before-commit: a follower applies entries as soon as it has
//     appended them, so its applied index passes its commit index until the
//     entries commit.
//   - bug:commit-beyond-log: a lagging follower takes the leader's commit
//     index before checking that its log matches, so its commit index passes
//     the last index of its log until the missing entries arrive.
//
// Snapshots where an injected bug shows carry its name as a tag, the ground
// truth for judging a report, and snapshots taken with no message in flight
// carry "steady". The same seed always yields the same bytes.
package main

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
)

// Ground-truth tags.
const (
	tagTwoLeaders   = "bug:two-leaders"
	tagApplyEarly   = "bug:apply-before-commit"
	tagCommitBeyond = "bug:commit-beyond-log"
	tagSteady       = "steady"
)

// Node roles, as exposed in the state variable "state".
const (
	follower  = "follower"
	candidate = "candidate"
	leader    = "leader"
)

// Timing of the simulation in milliseconds of logical time. Election
// timeouts are far longer than a heartbeat round trip, so a live leader is
// never challenged: elections follow crashes and split votes only.
const (
	heartbeatEvery           = 100
	electionMin, electionMax = 300, 600
	delayMin, delayMax       = 2, 10
	applyMin, applyMax       = 2, 15
	proposeMin, proposeMax   = 100, 400
	crashMin, crashMax       = 200, 600
	downMin, downMax         = 100, 350
	warmup                   = 1000 // the cluster boots before recording starts
)

// logWindow is how many entries at the tail of its log a node exposes: enough
// to show a log, few enough to keep the embedded trace small.
const logWindow = 2

// Fault probabilities: per election that starts with every node up, per
// append of new entries, and per rejected append that carries a commit index
// beyond the follower's log.
const (
	pSplitVote   = 0.2
	pApplyEarly  = 0.005
	pCommitEarly = 0.06
)

// config holds the generator's parameters.
type config struct {
	seed      uint64
	snapshots int
	nodes     int
}

// defaults is the configuration of the committed demo trace.
var defaults = config{seed: 1, snapshots: 1800, nodes: 5}

func (c config) validate() error {
	if c.snapshots < 1 {
		return errors.New("gen: -snapshots must be at least 1")
	}
	if c.nodes < 3 {
		return errors.New("gen: -nodes must be at least 3")
	}
	return nil
}

func main() {
	cfg := defaults
	flag.Uint64Var(&cfg.seed, "seed", cfg.seed, "seed of the scheduler and the fault injector")
	flag.IntVar(&cfg.snapshots, "snapshots", cfg.snapshots, "number of snapshots to write")
	flag.IntVar(&cfg.nodes, "nodes", cfg.nodes, "number of nodes (n1, n2, ...)")
	out := flag.String("o", "-", "output file, - for standard output")
	flag.Parse()
	if err := run(cfg, *out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run writes the trace to the file named out, or to standard output.
func run(cfg config, out string) error {
	if out == "-" {
		return generate(os.Stdout, cfg)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := generate(f, cfg); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// generate simulates the cluster and writes cfg.snapshots snapshots to w,
// one JSON object per line: one after each event that changes what the live
// nodes expose, as a collector of node-local exposures would cut them.
func generate(w io.Writer, cfg config) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	s := newSim(cfg)
	for s.now < warmup {
		s.step()
	}
	var last []byte
	for i := 0; i < cfg.snapshots; s.step() {
		nodes, err := json.Marshal(s.live())
		if err != nil {
			return err
		}
		if bytes.Equal(nodes, last) {
			continue
		}
		last = nodes
		if err := enc.Encode(snapshot{Snapshot: i, TS: s.now, Tags: s.tags(), Nodes: nodes}); err != nil {
			return err
		}
		i++
	}
	return bw.Flush()
}

// entry is a log entry; the payload is of no interest to the properties.
type entry struct {
	Term  int64 `json:"term"`
	Index int64 `json:"index"`
}

// nodeState is the state a node exposes in a snapshot.
type nodeState struct {
	ID      string   `json:"id"`
	Term    int64    `json:"term"`
	Vote    string   `json:"vote"`
	State   string   `json:"state"`
	Lead    string   `json:"lead"`
	Commit  int64    `json:"commit"`
	Applied int64    `json:"applied"`
	Log     []entry  `json:"log"`
	Peers   []string `json:"peers"`
}

// snapshot is one line of the trace.
type snapshot struct {
	Snapshot int             `json:"snapshot"`
	TS       int64           `json:"ts"`
	Tags     []string        `json:"tags"`
	Nodes    json.RawMessage `json:"nodes"`
}

// node is a simulated server. Term, vote, log, commit and applied survive a
// crash; the rest is volatile.
type node struct {
	idx     int
	id      string
	peers   []string
	up      bool
	term    int64
	vote    string
	state   string
	lead    string
	commit  int64
	applied int64
	log     []entry // the whole log; log[i-1] has index i

	timer    int    // generation of the pending timer; stale timers are ignored
	applying bool   // an apply event is pending
	granted  []bool // candidate: votes received, by node
	next     []int64
	match    []int64

	// Faults: the term whose vote this node will lose (bug:two-leaders), and
	// flags set when a bug fires here, cleared once it no longer shows.
	loseVote       int64
	appliedEarly   bool
	committedEarly bool
}

func (n *node) lastIndex() int64 { return int64(len(n.log)) }

// termAt returns the term of the entry at index i, 0 before the log, and -1
// past its end.
func (n *node) termAt(i int64) int64 {
	switch {
	case i == 0:
		return 0
	case i > n.lastIndex():
		return -1
	}
	return n.log[i-1].Term
}

func (n *node) lastTerm() int64 { return n.termAt(n.lastIndex()) }

func (n *node) expose() nodeState {
	tail := n.log[max(0, len(n.log)-logWindow):]
	if tail == nil {
		tail = []entry{}
	}
	return nodeState{
		ID: n.id, Term: n.term, Vote: n.vote, State: n.state, Lead: n.lead,
		Commit: n.commit, Applied: n.applied, Log: tail, Peers: n.peers,
	}
}

type msgKind int

const (
	msgVote msgKind = 1 + iota
	msgVoteResp
	msgApp
	msgAppResp
)

// message is a Raft RPC. For msgVote, index and logTerm describe the
// candidate's last entry; for msgApp they are the previous entry's; for
// msgAppResp, index is the follower's last matching index (on success) or a
// hint where to retry (on rejection).
type message struct {
	kind     msgKind
	from, to int
	term     int64
	index    int64
	logTerm  int64
	entries  []entry
	commit   int64
	ok       bool
}

type eventKind int

const (
	evDeliver eventKind = 1 + iota
	evTimer
	evApply
	evPropose
	evCrash
	evRestart
)

type event struct {
	at   int64
	kind eventKind
	node int
	gen  int
	msg  *message
}

// eventQueue is a min-heap of events by time; times are unique.
type eventQueue []event

func (q eventQueue) Len() int           { return len(q) }
func (q eventQueue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q eventQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)        { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// sim is the cluster and its scheduler.
type sim struct {
	rng      *rand.Rand
	nodes    []*node
	now      int64
	queue    eventQueue
	busy     map[int64]bool // times taken by queued events
	linkLast [][]int64      // last delivery time per link, for FIFO order
	inFlight int

	badTerms map[int64]bool // terms in which a voter forgot its vote
}

func newSim(cfg config) *sim {
	s := &sim{
		rng:      rand.New(rand.NewPCG(cfg.seed, 0x617567757264656d)), // "augurdem"
		busy:     map[int64]bool{},
		badTerms: map[int64]bool{},
	}
	for i := range cfg.nodes {
		s.linkLast = append(s.linkLast, make([]int64, cfg.nodes))
		n := &node{idx: i, id: name(i), up: true, state: follower}
		for j := range cfg.nodes {
			if j != i {
				n.peers = append(n.peers, name(j))
			}
		}
		s.nodes = append(s.nodes, n)
		s.resetElection(n)
	}
	s.schedule(event{at: s.between(proposeMin, proposeMax), kind: evPropose})
	s.schedule(event{at: s.between(crashMin, crashMax), kind: evCrash})
	return s
}

func name(i int) string { return fmt.Sprintf("n%d", i+1) }

// between returns now plus a uniform random delay in [lo, hi].
func (s *sim) between(lo, hi int64) int64 { return s.now + lo + s.rng.Int64N(hi-lo+1) }

// schedule queues ev at its time or, if that is taken, the next free one, so
// that every snapshot has its own timestamp.
func (s *sim) schedule(ev event) int64 {
	for s.busy[ev.at] {
		ev.at++
	}
	s.busy[ev.at] = true
	heap.Push(&s.queue, ev)
	return ev.at
}

func (s *sim) send(from *node, to int, m message) {
	m.from, m.to = from.idx, to
	at := max(s.between(delayMin, delayMax), s.linkLast[m.from][to]+1)
	s.linkLast[m.from][to] = s.schedule(event{at: at, kind: evDeliver, msg: &m})
	s.inFlight++
}

func (s *sim) setTimer(n *node, after int64) {
	n.timer++
	s.schedule(event{at: s.now + after, kind: evTimer, node: n.idx, gen: n.timer})
}

func (s *sim) resetElection(n *node) {
	s.setTimer(n, electionMin+s.rng.Int64N(electionMax-electionMin+1))
}

func (s *sim) scheduleApply(n *node) {
	if n.applying || n.commit <= n.applied {
		return
	}
	n.applying = true
	s.schedule(event{at: s.between(applyMin, applyMax), kind: evApply, node: n.idx})
}

// step runs the next event.
func (s *sim) step() {
	ev := heap.Pop(&s.queue).(event)
	delete(s.busy, ev.at)
	s.now = ev.at
	n := s.nodes[ev.node]
	switch ev.kind {
	case evDeliver:
		s.inFlight--
		if to := s.nodes[ev.msg.to]; to.up {
			s.receive(to, ev.msg)
		}
	case evTimer:
		if !n.up || ev.gen != n.timer {
			return
		}
		if n.state == leader {
			s.broadcastApp(n)
			s.setTimer(n, heartbeatEvery)
		} else {
			s.campaign(n)
			s.maybeSplitVote(n)
		}
	case evApply:
		n.applying = false
		if n.up {
			n.applied = max(n.applied, n.commit)
		}
	case evPropose:
		s.schedule(event{at: s.between(proposeMin, proposeMax), kind: evPropose})
		s.propose()
	case evCrash:
		s.schedule(event{at: s.between(crashMin, crashMax), kind: evCrash})
		s.crash()
	case evRestart:
		s.restart(n)
	}
}

// propose appends a client command at a leader, if there is one.
func (s *sim) propose() {
	var leaders []*node
	for _, n := range s.nodes {
		if n.up && n.state == leader {
			leaders = append(leaders, n)
		}
	}
	if len(leaders) == 0 {
		return
	}
	l := leaders[s.rng.IntN(len(leaders))]
	l.log = append(l.log, entry{Term: l.term, Index: l.lastIndex() + 1})
	s.broadcastApp(l)
}

// crash stops a node, the leader two times in three, while a majority stays
// up.
func (s *sim) crash() {
	var up []*node
	var lead *node
	for _, n := range s.nodes {
		if n.up {
			up = append(up, n)
			if n.state == leader {
				lead = n
			}
		}
	}
	if len(up)-1 <= len(s.nodes)/2 {
		return
	}
	n := up[s.rng.IntN(len(up))]
	if lead != nil && s.rng.IntN(3) > 0 {
		n = lead
	}
	n.up = false
	n.timer++
	s.schedule(event{at: s.between(downMin, downMax), kind: evRestart, node: n.idx})
}

// restart brings a node back with its persistent state only.
func (s *sim) restart(n *node) {
	n.up = true
	n.state = follower
	n.lead = ""
	n.applying = false
	n.granted, n.next, n.match = nil, nil, nil
	s.resetElection(n)
	s.scheduleApply(n)
}

func (s *sim) campaign(n *node) {
	n.term++
	n.state = candidate
	n.vote = n.id
	n.lead = ""
	n.granted = make([]bool, len(s.nodes))
	n.granted[n.idx] = true
	s.resetElection(n)
	for _, p := range s.nodes {
		if p != n {
			s.send(n, p.idx, message{kind: msgVote, term: n.term, index: n.lastIndex(), logTerm: n.lastTerm()})
		}
	}
}

func (s *sim) becomeLeader(n *node) {
	n.state = leader
	n.lead = n.id
	n.next = make([]int64, len(s.nodes))
	n.match = make([]int64, len(s.nodes))
	for i := range n.next {
		n.next[i] = n.lastIndex() + 1
	}
	n.log = append(n.log, entry{Term: n.term, Index: n.lastIndex() + 1}) // no-op of the new term
	s.broadcastApp(n)
	s.setTimer(n, heartbeatEvery)
}

func (s *sim) broadcastApp(l *node) {
	for _, p := range s.nodes {
		if p != l {
			s.sendApp(l, p.idx)
		}
	}
}

// sendApp sends the entries from next[p] on and then assumes they arrive
// (pipelining); a rejection moves next[p] back.
func (s *sim) sendApp(l *node, p int) {
	prev := l.next[p] - 1
	m := message{kind: msgApp, term: l.term, index: prev, logTerm: l.termAt(prev), commit: l.commit}
	m.entries = append([]entry(nil), l.log[prev:]...)
	l.next[p] = l.lastIndex() + 1
	s.send(l, p, m)
}

func (s *sim) receive(n *node, m *message) {
	if m.term > n.term {
		n.term = m.term
		n.vote = ""
		n.lead = ""
		if n.state != follower {
			n.state = follower
			s.resetElection(n)
		}
	}
	switch m.kind {
	case msgVote:
		s.handleVote(n, m)
	case msgVoteResp:
		if n.state == candidate && m.term == n.term && m.ok {
			n.granted[m.from] = true
			votes := 0
			for _, g := range n.granted {
				if g {
					votes++
				}
			}
			if votes > len(s.nodes)/2 {
				s.becomeLeader(n)
			}
		}
	case msgApp:
		s.handleApp(n, m)
	case msgAppResp:
		s.handleAppResp(n, m)
	}
}

func (s *sim) handleVote(n *node, m *message) {
	grant := false
	if m.term == n.term && n.state == follower {
		// Hearing from an election in progress holds off this node's own.
		s.resetElection(n)
		upToDate := m.logTerm > n.lastTerm() || m.logTerm == n.lastTerm() && m.index >= n.lastIndex()
		candidateID := s.nodes[m.from].id
		grant = upToDate && (n.vote == "" || n.vote == candidateID)
		if grant {
			n.vote = candidateID
		}
	}
	s.send(n, m.from, message{kind: msgVoteResp, term: n.term, ok: grant})
	if grant && n.loseVote == n.term {
		n.vote = "" // bug:two-leaders: crashed and restarted without the vote
		n.loseVote = 0
		s.resetElection(n)
	}
}

// maybeSplitVote injects bug:two-leaders when candidate a starts an
// election: a second node times out at the same moment, and a third will
// crash right after granting its vote and restart without it (the vote was
// never persisted), free to vote again in the same term.
func (s *sim) maybeSplitVote(a *node) {
	if s.rng.Float64() >= pSplitVote {
		return
	}
	var others []*node
	for _, n := range s.nodes {
		if n.up && n.state == follower && n.term == a.term-1 {
			others = append(others, n)
		}
	}
	if len(others) < len(s.nodes)-1 {
		return // with a node down, both candidates cannot win
	}
	s.rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	others[0].loseVote = a.term
	s.badTerms[a.term] = true
	s.campaign(others[1])
}

func (s *sim) handleApp(n *node, m *message) {
	if m.term < n.term {
		s.send(n, m.from, message{kind: msgAppResp, term: n.term, index: n.lastIndex()})
		return
	}
	// Same term. Two leaders of one term (only after bug:two-leaders)
	// settle it by their ids: the smaller yields.
	if n.state == leader && n.idx > m.from {
		s.send(n, m.from, message{kind: msgAppResp, term: n.term, index: m.index - 1})
		return
	}
	n.state = follower
	n.lead = s.nodes[m.from].id
	s.resetElection(n)

	if m.index > n.lastIndex() || n.termAt(m.index) != m.logTerm {
		if m.commit > n.lastIndex() && m.commit > n.commit && s.rng.Float64() < pCommitEarly {
			n.commit = m.commit // bug:commit-beyond-log
			n.committedEarly = true
			s.scheduleApply(n)
		}
		hint := min(n.lastIndex(), m.index-1)
		s.send(n, m.from, message{kind: msgAppResp, term: n.term, index: hint})
		return
	}
	appended := false
	for _, e := range m.entries {
		if e.Index <= n.lastIndex() {
			if n.termAt(e.Index) == e.Term {
				continue
			}
			n.log = n.log[:e.Index-1] // drop the conflicting suffix
		}
		n.log = append(n.log, e)
		appended = true
	}
	lastNew := m.index + int64(len(m.entries))
	n.commit = max(n.commit, min(m.commit, lastNew))
	if appended && n.lastIndex() > n.commit && s.rng.Float64() < pApplyEarly {
		n.applied = n.lastIndex() // bug:apply-before-commit
		n.appliedEarly = true
	}
	s.scheduleApply(n)
	s.send(n, m.from, message{kind: msgAppResp, term: n.term, index: lastNew, ok: true})
}

func (s *sim) handleAppResp(l *node, m *message) {
	if l.state != leader || m.term != l.term {
		return
	}
	p := m.from
	if !m.ok {
		l.next[p] = max(l.match[p], m.index) + 1
		s.sendApp(l, p)
		return
	}
	l.match[p] = max(l.match[p], m.index)
	s.advanceCommit(l)
}

// advanceCommit commits the last entry of the leader's term that a majority
// stores and tells the followers at once.
func (s *sim) advanceCommit(l *node) {
	for i := l.lastIndex(); i > l.commit && l.termAt(i) == l.term; i-- {
		acks := 1
		for p, m := range l.match {
			if p != l.idx && m >= i {
				acks++
			}
		}
		if acks > len(s.nodes)/2 {
			l.commit = i
			s.scheduleApply(l)
			s.broadcastApp(l)
			return
		}
	}
}

// live returns the states of the live nodes by name; encoding/json writes
// them in sorted order.
func (s *sim) live() map[string]nodeState {
	states := map[string]nodeState{}
	for _, n := range s.nodes {
		if n.up {
			states[n.id] = n.expose()
		}
	}
	return states
}

// tags returns the ground truth of the current moment: the injected bugs
// that show in it, and "steady" when no message is in flight. It clears the
// fault flags of bugs that no longer show.
func (s *sim) tags() []string {
	tags := []string{}
	if s.leadersDisagree() {
		tags = append(tags, tagTwoLeaders)
	}
	early, beyond := false, false
	for _, n := range s.nodes {
		if n.appliedEarly && n.applied <= n.commit {
			n.appliedEarly = false
		}
		if n.committedEarly && n.commit <= n.lastIndex() {
			n.committedEarly = false
		}
		early = early || n.up && n.appliedEarly
		beyond = beyond || n.up && n.committedEarly
	}
	if early {
		tags = append(tags, tagApplyEarly)
	}
	if beyond {
		tags = append(tags, tagCommitBeyond)
	}
	if s.inFlight == 0 {
		tags = append(tags, tagSteady)
	}
	return tags
}

// leadersDisagree reports whether two live nodes in a term where a vote was
// forgotten know different leaders for it.
func (s *sim) leadersDisagree() bool {
	for _, a := range s.nodes {
		for _, b := range s.nodes {
			if a.up && b.up && a.term == b.term && s.badTerms[a.term] &&
				a.lead != "" && b.lead != "" && a.lead != b.lead {
				return true
			}
		}
	}
	return false
}
