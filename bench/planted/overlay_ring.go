package planted

import (
	"math/rand/v2"
	"slices"
)

// The events of the ring's simulator.
const (
	rgFind      ovKind = ovRestart + 1 + iota // a lookup of the joiner's successor, forwarded along the ring
	rgFound                                   // the joiner's successor and its list
	rgGetPred                                 // stabilisation: what is your predecessor?
	rgPredIs                                  // the answer, with the successor list
	rgNotify                                  // I think I am your predecessor
	rgLeftPred                                // a leaving node hands its successor to its predecessor
	rgLeftSucc                                // and its predecessor to its successor
	rgStabilize                               // timer: a stabilisation round
	rgRetry                                   // timer: the joiner looks up again
	rgRestart                                 // timer: a node that went down comes back
)

// ovCircle is the number of keys on the ring.
const ovCircle = 1 << 16

// ringSim simulates a Chord-like ring: each node has a fixed key on a
// circle, a successor, a predecessor and a list of the next successors.
// Node 0 never fails and is where joiners look their successor up; a
// joiner becomes joined at its first stabilisation round, which asks
// its successor for its predecessor, adopts that node when it lies in
// between, copies the successor's list and notifies the successor. A
// leaving node hands its neighbours to each other; a crashed one is
// skipped, once noticed, for the next live entry of the list.
type ringSim struct {
	*ovNet
	keys []int64
}

func newRingSim(rng *rand.Rand, p ovParams) *ringSim {
	s := &ringSim{ovNet: newOvNet(rng, p)}
	taken := map[int64]bool{}
	for i := range p.nodes {
		k := rng.Int64N(ovCircle)
		for taken[k] {
			k = rng.Int64N(ovCircle)
		}
		taken[k] = true
		s.keys = append(s.keys, k)
		s.cur[i] = &ovNode{id: s.names[i], key: k, status: ovJoined, gen: 1}
	}
	ring := s.ring()
	for x, i := range ring {
		s.edit(i, func(n *ovNode) {
			n.pred = s.names[ring[(x+len(ring)-1)%len(ring)]]
			n.succs = s.listAfter(ring, x)
			n.succ = n.succs[0].id
		})
		s.timer(rgStabilize, i, 1+rng.IntN(p.beat), 1)
	}
	return s
}

// ring returns the live nodes in the order of their keys.
func (s *ringSim) ring() []int {
	var r []int
	for i, n := range s.cur {
		if n != nil {
			r = append(r, i)
		}
	}
	slices.SortFunc(r, func(a, b int) int { return int(s.cur[a].key - s.cur[b].key) })
	return r
}

// listAfter returns the successor list of the node at position x of
// ring: the next p.succs nodes, never the node itself.
func (s *ringSim) listAfter(ring []int, x int) []ovEntry {
	var l []ovEntry
	for y := 1; y < len(ring) && y <= s.p.succs; y++ {
		n := s.cur[ring[(x+y)%len(ring)]]
		l = append(l, ovEntry{n.id, n.key})
	}
	return l
}

// key returns the key of the node named name.
func (s *ringSim) key(name string) int64 { return s.keys[s.index[name]] }

// between reports whether x lies strictly between a and b going
// clockwise round the circle.
func between(a, x, b int64) bool {
	if a < b {
		return a < x && x < b
	}
	return x > a || x < b
}

// consistent reports whether every live node is joined, with the next
// live node as its successor, the previous as its predecessor, and the
// next ones as its list.
func (s *ringSim) consistent() bool {
	ring := s.ring()
	for x, i := range ring {
		n := s.cur[i]
		if n.status != ovJoined || n.pred != s.names[ring[(x+len(ring)-1)%len(ring)]] ||
			len(n.succs) == 0 || !slices.Equal(n.succs, s.listAfter(ring, x)) || n.succ != n.succs[0].id {
			return false
		}
	}
	return true
}

// disturb crashes a joined node other than node 0, or has it leave,
// while at least two nodes stay up.
func (s *ringSim) disturb() {
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
		s.down(i)
		return
	}
	// It goes at its next stabilisation round.
	s.edit(i, func(n *ovNode) { n.status = ovLeaving })
	n := s.cur[i]
	s.send(ovEvent{kind: rgLeftSucc, from: i, to: s.index[n.succ], name: n.pred})
	if n.pred != "" {
		s.send(ovEvent{kind: rgLeftPred, from: i, to: s.index[n.pred], name: n.succ, list: n.succs})
	}
}

// down takes node i down and sets the timer of its restart, once every
// list has had the time to forget it.
func (s *ringSim) down(i int) {
	s.last[i] = s.cur[i].gen
	s.cur[i], s.downAt[i] = nil, s.now
	s.timer(rgRestart, i, s.p.timeout+(s.p.succs+1)*s.p.beat+s.rng.IntN(s.p.beat), 0)
}

// find sends node i's lookup to node 0 and sets the timer of its next
// attempt.
func (s *ringSim) find(i int) {
	s.attempt[i]++
	s.send(ovEvent{kind: rgFind, from: i, to: 0, who: i, jgen: s.cur[i].gen})
	s.timer(rgRetry, i, 4*s.p.maxDelay*s.p.nodes+s.p.beat, s.attempt[i])
}

// gone reports whether node name has been down long enough for its
// neighbours to notice.
func (s *ringSim) gone(name string) bool {
	i := s.index[name]
	return s.cur[i] == nil && s.now-s.downAt[i] >= s.p.timeout
}

// trim returns the first p.succs distinct entries of list other than
// the node named self.
func (s *ringSim) trim(self string, list []ovEntry) []ovEntry {
	var l []ovEntry
	for _, e := range list {
		if len(l) < s.p.succs && e.id != self && !slices.Contains(l, e) {
			l = append(l, e)
		}
	}
	return l
}

func (s *ringSim) handle(e ovEvent) {
	to := e.to
	n := s.cur[to]
	if n == nil && e.kind != rgRestart {
		return // lost, or the timer of a node that went down
	}
	switch e.kind {
	case rgFind:
		s.onFind(e, n)
	case rgFound:
		if n.status == ovJoining && n.succ == "" && e.jgen == n.gen && e.name != n.id {
			s.edit(to, func(n *ovNode) {
				n.succs = s.trim(n.id, slices.Concat([]ovEntry{{e.name, s.key(e.name)}}, e.list))
				n.succ = n.succs[0].id
			})
		}
	case rgGetPred:
		s.send(ovEvent{kind: rgPredIs, from: to, to: e.from, name: n.pred, list: n.succs})
	case rgPredIs:
		s.onPredIs(e, n)
	case rgNotify:
		x := s.names[e.from]
		if n.status != ovJoining && x != n.id && (n.pred == "" || between(s.key(n.pred), s.key(x), n.key)) {
			s.edit(to, func(n *ovNode) { n.pred = x })
		}
	case rgLeftSucc:
		if n.pred == s.names[e.from] {
			s.edit(to, func(n *ovNode) {
				n.pred = e.name
				if n.pred == n.id { // the two were alone
					n.pred = ""
				}
			})
		}
	case rgLeftPred:
		if n.succ == s.names[e.from] && e.name != n.id {
			s.edit(to, func(n *ovNode) {
				n.succs = s.trim(n.id, slices.Concat([]ovEntry{{e.name, s.key(e.name)}}, e.list))
				n.succ = n.succs[0].id
			})
		}
	case rgStabilize:
		if n.gen == e.ticket { // not the round of an earlier incarnation
			s.stabilize(to, n)
		}
	case rgRetry:
		if n.status == ovJoining && n.succ == "" && s.attempt[to] == e.ticket {
			s.find(to)
		}
	case rgRestart:
		s.cur[to] = &ovNode{id: s.names[to], key: s.keys[to], status: ovJoining, gen: s.last[to] + 1}
		s.timer(rgStabilize, to, 1+s.rng.IntN(s.p.beat), s.cur[to].gen)
		s.find(to)
	}
}

// onFind answers a lookup when the joiner's key lies between the node
// and its successor, and passes it on otherwise.
func (s *ringSim) onFind(e ovEvent, n *ovNode) {
	j := e.who
	k := s.key(s.names[j])
	switch {
	case n.status != ovJoined || e.depth > int64(2*s.p.nodes):
		return // the joiner asks again
	case n.succ == "" || n.succ == s.names[j] && len(n.succs) < 2:
		// Node 0, alone, or the joiner's predecessor, which knows
		// nothing past it.
		s.send(ovEvent{kind: rgFound, from: e.to, to: j, jgen: e.jgen, name: n.id})
	case n.succ == s.names[j]: // a joiner that was in the ring
		s.send(ovEvent{kind: rgFound, from: e.to, to: j, jgen: e.jgen, name: n.succs[1].id, list: n.succs[2:]})
	case between(n.key, k, s.key(n.succ)):
		s.send(ovEvent{kind: rgFound, from: e.to, to: j, jgen: e.jgen, name: n.succ, list: n.succs})
	default:
		e.from, e.to, e.depth = e.to, s.index[n.succ], e.depth+1
		s.send(e)
	}
}

// onPredIs ends a stabilisation round: the node adopts its successor's
// predecessor when it lies in between, or else its successor's list;
// it is joined from then on, and notifies its successor.
func (s *ringSim) onPredIs(e ovEvent, n *ovNode) {
	i, succ := e.to, s.names[e.from]
	if n.succ != succ {
		return // an answer to an earlier round
	}
	s.edit(i, func(n *ovNode) {
		if p := e.name; p != "" && p != n.id && between(n.key, s.key(p), s.key(succ)) {
			n.succs = s.trim(n.id, slices.Concat([]ovEntry{{p, s.key(p)}}, n.succs))
		} else {
			n.succs = s.trim(n.id, slices.Concat([]ovEntry{{succ, s.key(succ)}}, e.list))
		}
		n.succ = n.succs[0].id
		if n.status == ovJoining {
			n.status = ovJoined
		}
	})
	s.send(ovEvent{kind: rgNotify, from: i, to: s.index[s.cur[i].succ]})
}

// stabilize starts a stabilisation round of node i: a leaving node goes;
// the others skip the successors and forget the predecessor noticed
// down, and ask their successor for its predecessor.
func (s *ringSim) stabilize(i int, n *ovNode) {
	if n.status == ovLeaving {
		s.down(i)
		return
	}
	s.timer(rgStabilize, i, s.p.beat/2+s.rng.IntN(s.p.beat), n.gen)
	s.edit(i, func(n *ovNode) {
		n.round++
		if n.pred != "" && s.gone(n.pred) {
			n.pred = ""
		}
	})
	if i == 0 && n.succ == "" || n.succ != "" && s.gone(n.succ) {
		s.skip(i)
	}
	if succ := s.cur[i].succ; succ != "" {
		s.send(ovEvent{kind: rgGetPred, from: i, to: s.index[succ]})
	}
}

// skip drops node i's successor and the entries after it noticed down,
// for the next entry of its list. A node left with none falls back on
// its predecessor, which stabilisation corrects, or, knowing none
// either, joins again; node 0, where joiners look up, waits for a
// predecessor to notify it.
func (s *ringSim) skip(i int) {
	s.edit(i, func(n *ovNode) {
		l := n.succs[min(1, len(n.succs)):]
		for len(l) > 0 && s.gone(l[0].id) {
			l = l[1:]
		}
		if len(l) == 0 && n.pred != "" {
			l = []ovEntry{{n.pred, s.key(n.pred)}}
		}
		n.succs, n.succ = l, ""
		switch {
		case len(l) > 0:
			n.succ = l[0].id
		case i != 0:
			n.status = ovJoining
		}
	})
	if s.cur[i].status == ovJoining && s.cur[i].succ == "" {
		s.find(i)
	}
}
