package planted

import (
	"math/rand/v2"
	"slices"
)

// pbRole is a node's role in the primary/backup store: two values only.
type pbRole uint8

const (
	pbPrimary pbRole = iota
	pbBackup
)

// How a primary loses its place in a primary/backup run.
const (
	pbAnyStyle = iota
	pbCrash    // the primary crashes; it restarts later as a backup
	pbLapse    // the primary is cut off and its lease lapses: it stays primary, in its old epoch, until it hears of the new one
)

// pbState is the true state of one node of the primary/backup store. A
// state in the history is never modified: the simulator copies a node's
// state before its first change in a step.
type pbState struct {
	role          pbRole
	epoch         int64
	lease         int64 // the epoch of the lease the node holds (a primary) or last granted (a backup); 0 after a restart
	prim          int   // the node it believes primary, -1 when none
	commit        int64
	applied       int64
	config        int64 // version of the configuration: epoch and in-sync set
	insync        []int // sorted: the backups a primary waits for; nil on a backup
	last, stable  int64 // not exposed: entries held, and the index every in-sync node knows is committed
	incarnation   int   // not exposed: restarts, so that a crashed node's queued messages are lost
	cut, promoted bool  // not exposed: partitioned away; a primary not yet reconciled with its backups
}

// pbParams are the knobs of one primary/backup run.
type pbParams struct {
	nodes      int
	steps      int
	style      int     // pbCrash or pbLapse
	maxDelay   int     // message delay: 1…maxDelay ticks
	heartbeat  int     // ticks between a primary's lease renewals
	busy       float64 // chance of a client write per tick in a busy period
	failovers  int     // epoch changes
	crashes    int     // backup crashes
	firstEpoch int64
}

// pbSim runs a primary/backup store. As the replicated log's simulator
// does, it advances in ticks, and a step (one snapshot) is the delivery
// of one due event or, when none is due, the next tick with what starts
// at it: a client's write, a lease renewal, a failure. Writes go to the
// primary, which sends them with its commit and stable points to the
// backups; it commits an entry once every in-sync backup holds it, and
// each node applies, a few ticks later, what every in-sync backup knows
// is committed. A configuration service hands out epochs: when the
// primary crashes, or is cut off and its lease lapses, it promotes an
// in-sync backup in the next epoch and tells the others; backups grant
// the new primary its lease when it first renews it.
type pbSim struct {
	rng     *rand.Rand
	p       pbParams
	n       []*pbState
	dirty   []bool
	live    []bool
	fifo    []int             // tick at which the last message to each node arrives
	due     map[int][]pbEvent // events by the tick they are due at, in order
	pending int               // messages in flight and applies due: work under way
	now     int
	primary int     // the configuration service's primary
	epoch   int64   // the configuration service's epoch
	match   []int64 // the primary's knowledge of each backup's entries
	cmatch  []int64 // and of its commit point
	busy    int     // ticks left in the current busy or idle period
	busyNow bool
	plan    []pbEpisode
	next    int
	inEp    bool

	hist   [][]*pbState // per recorded step, per node: nil when down
	steady []bool
	calm   []bool
}

// pbDowntime is the least number of ticks a crashed node stays down, or
// a primary cut off.
const pbDowntime = 8

// pbEpisode is a planned disturbance: a failover or a backup's crash,
// from the step it may start.
type pbEpisode struct {
	step     int
	failover bool
}

// newPBSim returns a run of p with node 0 primary and its episodes
// spread over the recorded steps.
func newPBSim(rng *rand.Rand, p pbParams) *pbSim {
	s := &pbSim{rng: rng, p: p, due: map[int][]pbEvent{}, epoch: p.firstEpoch,
		dirty: make([]bool, p.nodes), live: make([]bool, p.nodes), fifo: make([]int, p.nodes),
		match: make([]int64, p.nodes), cmatch: make([]int64, p.nodes)}
	var backups []int
	for i := 1; i < p.nodes; i++ {
		backups = append(backups, i)
	}
	for i := range p.nodes {
		st := &pbState{role: pbBackup, epoch: p.firstEpoch, lease: p.firstEpoch, config: 1}
		if i == 0 {
			st.role, st.insync = pbPrimary, backups
		}
		s.n = append(s.n, st)
		s.live[i] = true
	}
	var kinds []bool
	for range p.failovers {
		kinds = append(kinds, true)
	}
	for range p.crashes {
		kinds = append(kinds, false)
	}
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	for k, f := range kinds {
		s.plan = append(s.plan, pbEpisode{warmup + (k+1)*p.steps/(len(kinds)+1) + rng.IntN(40) - 20, f})
	}
	return s
}

// run simulates warmup+steps steps and records the last steps.
func (s *pbSim) run() {
	for step := 0; step < warmup+s.p.steps; step++ {
		if q := s.due[s.now]; len(q) > 0 {
			s.due[s.now] = q[1:]
			if q[0].work {
				s.pending--
			}
			q[0].f()
		} else {
			delete(s.due, s.now)
			s.now++
			s.tick(step)
		}
		clear(s.dirty)
		if step < warmup {
			continue
		}
		s.hist = append(s.hist, s.row())
		s.steady = append(s.steady, s.pending == 0 && s.agreed())
		s.calm = append(s.calm, !s.inEp && s.settled())
	}
}

// row returns the states of the live nodes, nil for those down: the
// last step's row when no node changed, so that a long run holds a row
// per change rather than per step.
func (s *pbSim) row() []*pbState {
	if n := len(s.hist); n > 0 {
		last := s.hist[n-1]
		same := true
		for i, st := range s.n {
			if s.live[i] && last[i] != st || !s.live[i] && last[i] != nil {
				same = false
				break
			}
		}
		if same {
			return last
		}
	}
	row := make([]*pbState, len(s.n))
	for i, st := range s.n {
		if s.live[i] {
			row[i] = st
		}
	}
	return row
}

// mut returns node i's state, copied first if this step has not changed
// it yet.
func (s *pbSim) mut(i int) *pbState {
	if !s.dirty[i] {
		c := *s.n[i]
		s.n[i], s.dirty[i] = &c, true
	}
	return s.n[i]
}

// A pbEvent is due at some tick: work (a message or an apply, which
// keeps the run from being steady) or a timer.
type pbEvent struct {
	f    func()
	work bool
}

// at runs the work f d ≥ 1 ticks from now.
func (s *pbSim) at(d int, f func()) {
	s.due[s.now+d] = append(s.due[s.now+d], pbEvent{f, true})
	s.pending++
}

// after runs the timer f d ≥ 1 ticks from now.
func (s *pbSim) after(d int, f func()) {
	s.due[s.now+d] = append(s.due[s.now+d], pbEvent{f, false})
}

// send delivers f to node to after a random delay, in order with the
// other messages to it. A message is lost when either end is cut off or
// crashes before it arrives.
func (s *pbSim) send(from, to int, f func()) {
	if s.n[from].cut || s.n[to].cut {
		return
	}
	t := max(s.now+1+s.rng.IntN(s.p.maxDelay), s.fifo[to])
	s.fifo[to] = t
	incFrom, incTo := s.n[from].incarnation, s.n[to].incarnation
	s.at(t-s.now, func() {
		if s.live[to] && !s.n[to].cut && !s.n[from].cut && s.n[from].incarnation == incFrom && s.n[to].incarnation == incTo {
			f()
		}
	})
}

// tick starts what no message causes: client writes in busy periods,
// lease renewals, and the planned episodes.
func (s *pbSim) tick(step int) {
	if s.busy == 0 {
		s.busyNow = !s.busyNow
		s.busy = 20 + s.rng.IntN(100)
		if s.busyNow {
			s.busy = 5 + s.rng.IntN(40)
		}
	}
	s.busy--
	p := s.primary
	if p >= 0 && s.busyNow && s.rng.Float64() < s.p.busy {
		s.mut(p).last++
		s.recompute()
		s.syncAll()
	}
	if p >= 0 && s.now%s.p.heartbeat == 0 {
		s.syncAll() // renews the lease and catches up the laggards
	}
	// Backups fail at any time, and primaries under load (a lease
	// lapses when the primary stalls), once the last episode is over and
	// the primary has reconciled.
	if !s.inEp && s.next < len(s.plan) && step >= s.plan[s.next].step && p >= 0 && !s.n[p].promoted &&
		(s.busyNow || !s.plan[s.next].failover) {
		s.inEp = true
		if s.plan[s.next].failover {
			s.failover()
		} else {
			s.crashBackup()
		}
		s.next++
	}
}

// syncAll sends the primary's state to every other node.
func (s *pbSim) syncAll() {
	for i := range s.n {
		if i != s.primary && s.live[i] {
			s.sync(i)
		}
	}
}

// sync sends node i the primary's entries, commit and stable points,
// configuration and epoch; the backup grants it its lease in return.
func (s *pbSim) sync(i int) {
	p := s.primary
	w := s.n[p]
	epoch, last, commit, stable, config := w.epoch, w.last, w.commit, w.stable, w.config
	s.send(p, i, func() {
		st := s.n[i]
		if st.epoch > epoch {
			return
		}
		b := s.mut(i)
		if b.role == pbPrimary && epoch > b.epoch {
			b.role, b.insync, b.promoted = pbBackup, nil, false // an old primary steps down
		}
		b.epoch, b.prim, b.lease, b.config = epoch, p, epoch, config
		b.last = last // entries past the primary's, which no one committed, are dropped
		b.commit = max(b.commit, min(commit, last))
		s.applyLater(i, min(stable, b.commit))
		got, known := b.last, b.commit
		s.send(i, p, func() { s.ack(p, i, epoch, got, known) })
	})
}

// ack is primary p learning that backup i holds its entries up to last
// and knows them committed up to commit.
func (s *pbSim) ack(p, i int, epoch, last, commit int64) {
	if s.primary != p || s.n[p].epoch != epoch {
		return
	}
	s.match[i], s.cmatch[i] = last, commit
	w := s.n[p]
	if !slices.Contains(w.insync, i) && last == w.last && s.live[i] {
		w = s.mut(p)
		w.insync = insert(w.insync, i)
		w.config++
	}
	if s.recompute() {
		s.syncAll()
	}
}

// recompute moves the primary's commit point to what every in-sync
// backup holds and its stable point to what every one of them knows is
// committed, and reports whether either moved. A promoted primary
// reconciles first: it commits nothing past its own commit point until
// its in-sync backups hold all its entries in its epoch.
func (s *pbSim) recompute() bool {
	p := s.primary
	w := s.n[p]
	commit, stable := w.last, w.last
	for _, b := range w.insync {
		commit, stable = min(commit, s.match[b]), min(stable, s.cmatch[b])
	}
	stable = min(stable, commit)
	moved := commit > w.commit || stable > w.stable
	if !moved && !(w.promoted && commit == w.last) {
		return false
	}
	w = s.mut(p)
	w.promoted = w.promoted && commit < w.last
	w.commit, w.stable = max(w.commit, commit), max(w.stable, stable)
	s.applyLater(p, w.stable)
	return moved
}

// applyLater makes node i apply up to index x in 1 to 3 ticks.
func (s *pbSim) applyLater(i int, x int64) {
	if x <= s.n[i].applied {
		return
	}
	inc := s.n[i].incarnation
	s.at(1+s.rng.IntN(3), func() {
		if s.live[i] && s.n[i].incarnation == inc && s.n[i].applied < x {
			s.mut(i).applied = x
		}
	})
}

// failover takes the primary away, by a crash or a cut, and has the
// configuration service promote an in-sync backup once its lease lapses.
func (s *pbSim) failover() {
	old := s.primary
	if s.p.style == pbCrash {
		s.crash(old)
	} else {
		s.mut(old).cut = true
	}
	s.primary = -1
	s.after(4+s.rng.IntN(8), func() { s.promote(old) })
}

// promote makes a live in-sync backup of the old primary the primary of
// the next epoch, with the old in-sync set but itself and the nodes that
// are down, and tells the other nodes of the new epoch.
func (s *pbSim) promote(old int) {
	var cands []int
	for _, b := range s.n[old].insync {
		if s.live[b] {
			cands = append(cands, b)
		}
	}
	if len(cands) == 0 {
		for i := range s.n {
			if i != old && s.live[i] {
				cands = append(cands, i)
			}
		}
	}
	p := cands[s.rng.IntN(len(cands))]
	s.epoch++
	w := s.mut(p)
	w.role, w.epoch, w.prim, w.lease, w.promoted = pbPrimary, s.epoch, p, s.epoch, true
	w.config = s.n[old].config + 1
	w.insync = slices.DeleteFunc(slices.Clone(s.n[old].insync), func(b int) bool { return b == p || !s.live[b] })
	clear(s.match)
	clear(s.cmatch)
	s.primary = p
	s.recompute() // a primary without in-sync backups commits alone
	epoch, config := w.epoch, w.config
	for i := range s.n {
		if i == p || !s.live[i] {
			continue
		}
		s.send(p, i, func() { s.learnEpoch(i, p, epoch, config) })
	}
	s.after(1+s.rng.IntN(3), func() {
		if s.primary == p {
			s.syncAll()
		}
	})
	if s.p.style == pbCrash {
		s.after(pbDowntime+s.rng.IntN(pbDowntime*4), func() { s.restart(old) })
	} else {
		s.after(pbDowntime+s.rng.IntN(pbDowntime*3), func() {
			s.mut(old).cut = false
			s.inEp = false
		})
	}
}

// learnEpoch is node i hearing from the configuration service that p is
// the primary of epoch: it follows p, but grants it no lease before p
// renews one.
func (s *pbSim) learnEpoch(i, p int, epoch, config int64) {
	if s.n[i].epoch >= epoch {
		return
	}
	w := s.mut(i)
	if w.role == pbPrimary {
		w.role, w.insync, w.promoted = pbBackup, nil, false
	}
	w.epoch, w.prim, w.config = epoch, p, config
}

// crashBackup crashes a backup; the primary drops it from its in-sync set
// when its failure detector notices, and it restarts later.
func (s *pbSim) crashBackup() {
	var bs []int
	for i := range s.n {
		if i != s.primary && s.live[i] {
			bs = append(bs, i)
		}
	}
	b := bs[s.rng.IntN(len(bs))]
	s.crash(b)
	p := s.primary
	s.after(2+s.rng.IntN(6), func() {
		if s.primary != p || s.live[b] || !slices.Contains(s.n[p].insync, b) {
			return
		}
		w := s.mut(p)
		w.insync = slices.DeleteFunc(slices.Clone(w.insync), func(x int) bool { return x == b })
		w.config++
		if s.recompute() {
			s.syncAll()
		}
	})
	s.after(pbDowntime+s.rng.IntN(pbDowntime*4), func() { s.restart(b) })
}

// crash takes node i down: the messages it has not sent yet are lost.
func (s *pbSim) crash(i int) {
	s.live[i] = false
	s.mut(i).incarnation++
}

// restart brings node i back as a backup with its persistent state:
// epoch, the primary it knew, commit and applied points, entries. Its
// lease and in-sync set were in memory only.
func (s *pbSim) restart(i int) {
	s.live[i] = true
	w := s.mut(i)
	w.role, w.lease, w.insync, w.promoted = pbBackup, 0, nil, false
	s.inEp = false
}

// settled reports whether there is a primary, reconciled, and every live
// node has its epoch and configuration: writes may be in flight.
func (s *pbSim) settled() bool {
	p := s.primary
	if p < 0 || s.n[p].promoted {
		return false
	}
	for i, st := range s.n {
		if s.live[i] && (st.cut || st.epoch != s.n[p].epoch || st.prim != p || st.config != s.n[p].config) {
			return false
		}
	}
	return true
}

// agreed reports whether the run is settled and every live node holds,
// has committed and has applied what the primary has, under its lease.
func (s *pbSim) agreed() bool {
	if !s.settled() {
		return false
	}
	l := s.n[s.primary]
	for i, st := range s.n {
		if s.live[i] && (st.last != l.last || st.commit != l.last || st.applied != l.last || st.lease != l.epoch) {
			return false
		}
	}
	return true
}
