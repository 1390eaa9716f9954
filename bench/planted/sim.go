package planted

import (
	"math/rand/v2"
	"slices"
)

// role is a node's role. Learners replicate the log but never vote or
// lead.
type role uint8

const (
	roleLeader role = iota
	roleFollower
	roleLearner
	roleCandidate
)

// state is the true state of one node. A state in the history is never
// modified: the simulator copies a node's state before its first change
// in a step, and replaces slices rather than changing them.
type state struct {
	role                  role
	term                  int64
	lead                  int // node index, -1 when the node knows no leader
	commit, applied, last int64
	config                int64
	members               []int // sorted node indices
	acked                 []int // sorted node indices: a leader's caught-up followers, a candidate's voters
	sent, recv            int64
	// extra holds the terms of the entries that a leader cut off by a
	// partition appended alone, past the log the others share; the
	// next leader's log replaces them.
	extra []int64
}

// simNode is a node of the simulator.
type simNode struct {
	st       *state
	dirty    bool // st was copied in this step: it may be changed in place
	live     bool
	learner  bool
	isolated bool // partitioned away: messages to and from it are lost
	fifo     int  // tick at which the last message to it arrives
}

// params are the knobs of one simulated run.
type params struct {
	nodes     int
	learners  int     // nodes 1…learners are learners
	steps     int     // recorded steps, one snapshot each
	partition bool    // a leader is deposed by a partition (it stays, stale, until healed) rather than a crash
	maxDelay  int     // message delay: 1…maxDelay ticks (learners: up to 2 more)
	busy      float64 // chance of a client request per tick in a busy period
	episodes  []episode
	firstTerm int64
	legit     [numLogLegits]bool // the legitimate rare moments the run has
}

// A logLegit is a legitimate rare moment of a replicated log's run,
// which a planted property may fail at without a bug: real systems have
// such moments, and a reporter must still find the bug's property among
// them.
type logLegit uint8

const (
	logLegitNone logLegit = iota
	// logLegitLinger: a follower removed from the membership hears of it
	// and stops a tick or two later, a node outside its own membership.
	logLegitLinger
	// logLegitLostCommit: a node crashed after applying entries but
	// before persisting its commit index, and restarts with its applied
	// index past its commit index until the leader tells it more.
	logLegitLostCommit
	// logLegitOrphan: a leader crashed or was cut off while sending an
	// entry, which one follower stored: until the next leader's first
	// message replaces it, that follower's log is longer than the
	// leader's, in the same term once it has voted.
	logLegitOrphan
	numLogLegits
)

// maxLegitEvents bounds the episodes of a run that take a legitimate
// rare turn.
const maxLegitEvents = 2

// episode is a disturbance of the steady run.
type episode uint8

const (
	episodeElection episode = iota // the leader fails and another is elected
	episodeCrash                   // a follower crashes and restarts
	episodeMove                    // a follower is removed from the membership and added back, fresh
)

// warmup is the number of steps simulated before recording starts.
const warmup = 200

// sim runs a replicated log with leader election, membership changes and
// crashes. Time advances in ticks; a step, which the trace records as a
// snapshot, is either the delivery of one message (or one timer) due by
// now or, when none is, the next tick with what happens at it: a client's
// request, the start of an episode. Every change reaches the other nodes
// by messages with random delays, so nodes disagree while it propagates;
// a step is steady when no message is in flight and all live nodes
// agree.
type sim struct {
	rng      *rand.Rand
	p        params
	n        []*simNode
	due      map[int][]func() // events (messages, timers) by the tick they are due at, in order
	pending  int              // events not run yet
	now      int              // the current tick
	log      []int64          // term of each entry, by index-1: every node's log is a prefix, but for its extra
	leader   int              // -1 during an election
	electing bool
	match    []int64 // the leader's knowledge of each node's last index
	busyLeft int
	busyNow  bool
	next     int   // next episode
	plan     []int // step at which each episode may start
	inEp     bool  // an episode is under way
	legits   int   // episodes that took a legitimate rare turn

	hist   [][]*state // per recorded step, per node: nil when the node is down
	steady []bool
	calm   []bool // no episode under way: all live nodes share the leader's term and membership
}

func newSim(rng *rand.Rand, p params) *sim {
	s := &sim{rng: rng, p: p, due: map[int][]func(){}, leader: 0, match: make([]int64, p.nodes)}
	members := make([]int, p.nodes)
	for i := range members {
		members[i] = i
	}
	for i := range p.nodes {
		st := &state{role: roleFollower, term: p.firstTerm, lead: 0, config: 1, members: members}
		st.sent, st.recv = s.counterStart(), s.counterStart()
		learner := i >= 1 && i <= p.learners
		if learner {
			st.role = roleLearner
		}
		if i == 0 {
			st.role = roleLeader
		}
		s.n = append(s.n, &simNode{st: st, live: true, learner: learner})
	}
	for k := range p.episodes {
		s.plan = append(s.plan, warmup+(k+1)*p.steps/(len(p.episodes)+1)+rng.IntN(40)-20)
	}
	return s
}

// run simulates warmup+steps steps and records the last steps.
func (s *sim) run() {
	for step := 0; step < warmup+s.p.steps; step++ {
		// Events are never due now when scheduled: those of this tick
		// are all in its bucket.
		if q := s.due[s.now]; len(q) > 0 {
			s.due[s.now], s.pending = q[1:], s.pending-1
			q[0]()
		} else {
			delete(s.due, s.now)
			s.now++
			s.spontaneous(step)
		}
		s.repair()
		steady := s.agreed() && s.pending == 0
		for _, n := range s.n {
			n.dirty = false
		}
		if step < warmup {
			continue
		}
		row := make([]*state, len(s.n))
		for i, n := range s.n {
			if n.live {
				row[i] = n.st
			}
		}
		s.hist = append(s.hist, row)
		s.steady = append(s.steady, steady)
		s.calm = append(s.calm, s.calmNow())
	}
}

// counterStart returns where a node's message counters start: processes
// start at different times, so no two nodes count alike.
func (s *sim) counterStart() int64 { return s.rng.Int64N(100_000) }

// mut returns node i's state, copied first if this step has not changed
// it yet.
func (s *sim) mut(i int) *state {
	n := s.n[i]
	if !n.dirty {
		c := *n.st
		n.st, n.dirty = &c, true
	}
	return n.st
}

// at runs f d ≥ 1 ticks from now, after the events scheduled before it
// for that tick.
func (s *sim) at(d int, f func()) {
	s.due[s.now+d] = append(s.due[s.now+d], f)
	s.pending++
}

// send delivers f to node to after a random delay, in order with the
// other messages to it, unless either end is partitioned away.
func (s *sim) send(from, to int, f func()) {
	if s.n[from].isolated || s.n[to].isolated {
		return
	}
	d := 1 + s.rng.IntN(s.p.maxDelay)
	if s.n[to].learner {
		d += s.rng.IntN(3) // learners are often far away
	}
	t := max(s.now+d, s.n[to].fifo)
	s.n[to].fifo = t
	s.at(t-s.now, func() {
		if s.n[to].live && !s.n[to].isolated {
			f()
		}
	})
}

// spontaneous starts what no message causes, at a new tick: client
// requests, in busy periods, and the planned episodes, each when the
// step it was planned for has come.
func (s *sim) spontaneous(step int) {
	if s.busyLeft == 0 {
		// Busy periods of a few ticks, each with a few requests whose
		// messages take many steps, and longer idle ones, which settle.
		s.busyNow = !s.busyNow
		s.busyLeft = 50 + s.rng.IntN(250)
		if s.busyNow {
			s.busyLeft = 5 + s.rng.IntN(35)
		}
	}
	s.busyLeft--
	if s.busyNow && s.leader >= 0 && s.rng.Float64() < s.p.busy {
		s.request()
	}
	if !s.inEp && s.next < len(s.plan) && step >= s.plan[s.next] && s.agreed() && s.pending == 0 {
		s.inEp = true
		switch s.p.episodes[s.next] {
		case episodeElection:
			s.depose()
		case episodeCrash:
			s.crashFollower()
		case episodeMove:
			s.move()
		}
		s.next++
	}
}

// request appends a client's entry at the leader and replicates it.
func (s *sim) request() {
	l := s.leader
	w := s.mut(l)
	s.log = append(s.log, w.term)
	w.last = int64(len(s.log))
	s.match[l] = w.last
	s.leaderChanged()
	s.broadcast()
}

// appendAlone makes the partitioned old leader i append a client's
// entry that no other node will ever see.
func (s *sim) appendAlone(i int) {
	w := s.mut(i)
	if w.role != roleLeader {
		return
	}
	w.extra = append(slices.Clone(w.extra), w.term)
	w.last++
	w.acked = nil // no follower holds the new entry
}

// broadcast sends the leader's log and commit index to every other node.
func (s *sim) broadcast() {
	for i, n := range s.n {
		if i != s.leader && n.live {
			s.sendAppend(i)
		}
	}
}

func (s *sim) sendAppend(to int) {
	l := s.leader
	w := s.mut(l)
	w.sent++
	term, u, c := w.term, w.last, w.commit
	s.send(l, to, func() { s.onAppend(to, l, term, u, c) })
}

// onAppend is node i receiving the log up to u and commit index c from
// leader l of term term.
func (s *sim) onAppend(i, l int, term, u, c int64) {
	if s.n[i].st.term > term {
		return
	}
	w := s.mut(i)
	w.recv++
	if len(w.extra) > 0 {
		w.last -= int64(len(w.extra))
		w.extra = nil
	}
	if w.term < term || w.lead != l || w.role == roleCandidate || w.role == roleLeader {
		w.term, w.lead, w.acked = term, l, nil
		w.role = roleFollower
		if s.n[i].learner {
			w.role = roleLearner
		}
	}
	w.last = max(w.last, u)
	if nc := min(c, w.last); nc > w.commit {
		w.commit = nc
		s.apply(i, 2+s.rng.IntN(2))
	}
	w.sent++
	last := w.last
	s.send(i, l, func() { s.onAck(l, i, term, last) })
}

// onAck is leader l learning that node i holds the log up to u.
func (s *sim) onAck(l, i int, term, u int64) {
	if s.leader != l || s.n[l].st.term != term {
		return
	}
	s.mut(l).recv++
	if u > s.match[i] {
		s.match[i] = u
		s.leaderChanged()
	}
}

// leaderChanged recomputes the leader's caught-up followers and commit
// index, and tells the others when the commit index moves.
func (s *sim) leaderChanged() {
	l := s.leader
	w := s.mut(l)
	var acked []int
	var votes []int64
	for _, m := range w.members {
		if m != l && s.match[m] >= w.last {
			acked = append(acked, m)
		}
		if !s.n[m].learner {
			votes = append(votes, s.match[m])
		}
	}
	if !slices.Equal(acked, w.acked) {
		w.acked = acked
	}
	slices.Sort(votes)
	c := votes[(len(votes)-1)/2] // the largest index a majority holds
	if c > w.commit {
		w.commit = c
		s.apply(l, 1+s.rng.IntN(2)) // before any follower can: they apply 2 or 3 steps after hearing of it
		s.broadcast()
	}
}

// apply makes node i apply what it knows is committed, d steps from now.
func (s *sim) apply(i, d int) {
	s.at(d, func() {
		if s.n[i].live && s.n[i].st.applied < s.n[i].st.commit {
			w := s.mut(i)
			w.applied = w.commit
		}
	})
}

// depose takes the leader away, by a crash or a partition, and elects
// another after a timeout.
func (s *sim) depose() {
	old := s.leader
	if s.p.legit[logLegitOrphan] && s.legits < maxLegitEvents {
		// The leader's last entry reached one follower before the leader
		// went: a crashed leader had not stored it yet, a cut-off one has.
		s.legits++
		w := s.mut(s.pickFollower())
		w.extra = append(slices.Clone(w.extra), s.n[old].st.term)
		w.last++
		if s.p.partition {
			s.appendAlone(old)
		}
	}
	if s.p.partition {
		s.n[old].isolated = true
		// Clients still reach the old leader, which appends entries
		// no other node will see: its log grows past its successor's.
		for range 1 + s.rng.IntN(2) {
			s.at(1, func() { s.appendAlone(old) })
		}
	} else {
		s.n[old].live = false
	}
	s.leader, s.electing = -1, true
	s.at(2+s.rng.IntN(4), func() { s.campaign(old) })
}

// voters returns the number of voting members.
func (s *sim) voters(members []int) int {
	v := 0
	for _, m := range members {
		if !s.n[m].learner {
			v++
		}
	}
	return v
}

// campaign makes a reachable voter a candidate and asks the others for
// their votes.
func (s *sim) campaign(old int) {
	var cands []int
	for i, n := range s.n {
		if n.live && !n.isolated && !n.learner && slices.Contains(n.st.members, i) {
			cands = append(cands, i)
		}
	}
	c := cands[s.rng.IntN(len(cands))]
	w := s.mut(c)
	w.term++
	w.role, w.lead, w.acked = roleCandidate, -1, nil
	term, members := w.term, w.members
	need := s.voters(members)/2 + 1
	for _, v := range members {
		if v == c || s.n[v].learner || !s.n[v].live {
			continue
		}
		s.send(c, v, func() {
			if s.n[v].st.term >= term {
				return
			}
			vw := s.mut(v)
			vw.term, vw.role, vw.lead, vw.acked = term, roleFollower, -1, nil
			vw.sent++
			s.send(v, c, func() {
				cw := s.n[c].st
				if cw.role != roleCandidate || cw.term != term {
					return
				}
				cw = s.mut(c)
				cw.recv++
				cw.acked = insert(cw.acked, v)
				if len(cw.acked)+1 >= need {
					s.win(c, old)
				}
			})
		})
	}
}

// win makes candidate c the leader and schedules the return of the old
// one.
func (s *sim) win(c, old int) {
	w := s.mut(c)
	w.role, w.lead, w.acked = roleLeader, c, nil
	if len(w.extra) > 0 {
		// It holds the entry its crashed predecessor sent it alone: its
		// log is the longest, and the entry everyone's. No entry has
		// been appended since, with no leader.
		s.log = append(s.log, w.extra...)
		w.extra = nil
	}
	for i, n := range s.n {
		if n.live && !n.isolated {
			w.commit = max(w.commit, n.st.commit)
		}
		s.match[i] = 0
	}
	w.applied = w.commit
	s.match[c] = w.last
	s.leader, s.electing = c, false
	s.broadcast()
	if s.p.partition {
		// The new leader takes more requests than the old one did before
		// the partition heals.
		heal := 8 + s.rng.IntN(25)
		for range 3 + s.rng.IntN(3) {
			s.at(1+s.rng.IntN(heal-1), func() {
				if s.leader == c {
					s.request()
				}
			})
		}
		s.at(heal, func() {
			s.n[old].isolated = false
			s.inEp = false
			if s.leader >= 0 {
				s.sendAppend(old)
			}
		})
	} else {
		s.at(10+s.rng.IntN(140), func() { s.restart(old) })
	}
}

// crashFollower crashes a follower; it restarts later.
func (s *sim) crashFollower() {
	i := s.pickFollower()
	s.n[i].live = false
	s.at(10+s.rng.IntN(140), func() { s.restart(i) })
}

// restart brings node i back with its persistent state: term, log,
// commit and applied index, membership. It has lost its leader and its
// message counters.
func (s *sim) restart(i int) {
	n := s.n[i]
	n.live = true
	w := s.mut(i)
	w.role, w.lead, w.acked, w.sent, w.recv = roleFollower, -1, nil, 0, 0 // the counters of a new process
	if n.learner {
		w.role = roleLearner
	}
	if s.p.legit[logLegitLostCommit] && s.legits < maxLegitEvents && w.applied > 0 {
		s.legits++
		w.commit = w.applied - 1 - s.rng.Int64N(min(w.applied, 3))
	}
	if w.applied < w.commit {
		s.apply(i, 1+s.rng.IntN(3))
	}
	s.inEp = false
}

// move removes a follower from the membership; it comes back later as a
// fresh node with an empty log.
func (s *sim) move() {
	i := s.pickFollower()
	members := slices.DeleteFunc(slices.Clone(s.n[s.leader].st.members), func(m int) bool { return m == i })
	if s.p.legit[logLegitLinger] && s.legits < maxLegitEvents {
		s.legits++
		w := s.mut(i)
		w.config, w.members = s.n[s.leader].st.config+1, members
		s.at(1+s.rng.IntN(2), func() { s.n[i].live = false })
	} else {
		s.n[i].live = false
	}
	s.reconfigure(members)
	s.at(10+s.rng.IntN(140), func() {
		l := s.n[s.leader].st // no election overlaps an episode
		members := insert(slices.Clone(l.members), i)
		n := s.n[i]
		n.live = true
		w := s.mut(i)
		*w = state{role: roleFollower, term: l.term, lead: s.leader, config: l.config + 1, members: members}
		w.sent, w.recv = s.counterStart(), s.counterStart()
		if n.learner {
			w.role = roleLearner
		}
		s.match[i] = 0
		s.reconfigure(members)
		s.inEp = false
	})
}

// reconfigure makes the leader adopt a new membership and tell the
// others.
func (s *sim) reconfigure(members []int) {
	l := s.leader
	w := s.mut(l)
	w.config++
	w.members = members
	s.leaderChanged()
	s.broadcastConfig()
}

func (s *sim) broadcastConfig() {
	l := s.leader
	w := s.mut(l)
	cfg, members := w.config, w.members
	for i, n := range s.n {
		if i == l || !n.live {
			continue
		}
		w.sent++
		s.send(l, i, func() {
			if s.n[i].st.config < cfg {
				r := s.mut(i)
				r.recv++
				r.config, r.members = cfg, members
			}
		})
	}
}

// pickFollower returns a random live node other than the leader.
func (s *sim) pickFollower() int {
	var fs []int
	for i, n := range s.n {
		if i != s.leader && n.live {
			fs = append(fs, i)
		}
	}
	return fs[s.rng.IntN(len(fs))]
}

// agreed reports whether there is a leader and every live node agrees
// with it.
func (s *sim) agreed() bool {
	if s.leader < 0 || s.electing {
		return false
	}
	l := s.n[s.leader].st
	if l.applied != l.commit {
		return false
	}
	for i, n := range s.n {
		if !n.live || i == s.leader {
			continue
		}
		st := n.st
		if n.isolated || st.term != l.term || st.lead != s.leader || st.last != l.last || st.commit != l.commit ||
			st.applied != l.commit || st.config != l.config || !slices.Equal(st.members, l.members) {
			return false
		}
	}
	return true
}

// calmNow reports whether no episode is under way and every live node
// has the leader's term and membership, though entries may be in flight.
func (s *sim) calmNow() bool {
	if s.inEp || s.leader < 0 || s.electing {
		return false
	}
	l := s.n[s.leader].st
	for _, n := range s.n {
		if n.live && (n.isolated || n.st.term != l.term || n.st.config != l.config || !slices.Equal(n.st.members, l.members)) {
			return false
		}
	}
	return true
}

// repair, when nothing is in flight but some live node lags behind the
// leader, sends it what it misses.
func (s *sim) repair() {
	if s.pending > 0 || s.leader < 0 || s.agreed() {
		return
	}
	l := s.n[s.leader].st
	config := false
	for i, n := range s.n {
		if i == s.leader || !n.live || n.isolated {
			continue
		}
		st := n.st
		config = config || st.config != l.config || !slices.Equal(st.members, l.members)
		if st.term != l.term || st.lead != s.leader || st.last != l.last || st.commit != l.commit {
			s.sendAppend(i)
		}
	}
	if config {
		s.broadcastConfig()
	}
}

// insert adds x to the sorted slice xs, returning a new slice.
func insert(xs []int, x int) []int {
	i, found := slices.BinarySearch(xs, x)
	if found {
		return xs
	}
	return slices.Insert(slices.Clone(xs), i, x)
}
