package planted

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// A meshTemplate is a property of every mesh run, with the bug that
// breaks it in one node's state.
type meshTemplate struct {
	name   string // the bug: its snapshots are tagged bug:NAME
	shape  Shape
	needs  []meshVar // variables (and route fields) the property reads
	forbid []meshVar // variables under which a property as simple breaks with it
	// clash names the templates its bug breaks as well: they are not
	// planted together.
	clash []string
	// partial: the bug needs a partial mesh, where some nodes are not
	// neighbours.
	partial bool
	// legit is the rare path of the mesh at which the property fails
	// legitimately, if any.
	legit legitKind
	text  func(d *meshDesign) string
	holds meshCheck
	// twins are properties at most as complex that hold wherever it
	// does in some runs and that its bug breaks as well: they must fail
	// somewhere in the natural run.
	twins []meshTwin
	// begin starts an episode of the bug at the states vs of the step
	// at: it returns the node broken and how to break its state at each
	// step of the episode (nil where it cannot), or -1.
	begin func(m *meshPlanting, at int, vs []*meshState, rng *rand.Rand) (int, meshBreak)
}

// A meshCheck evaluates a property on the states of one snapshot (nil
// for the nodes that are down).
type meshCheck func(vs []*meshState) bool

// A meshBreak returns node's state st broken, given the states vs of the
// step, or nil.
type meshBreak func(vs []*meshState, st *meshState) *meshState

// A meshTwin is a property close to a template's, expressible when the
// system has the variables it needs.
type meshTwin struct {
	needs []meshVar
	holds meshCheck
}

// eachState returns the check "ok holds for every live node".
func eachState(ok func(a *meshState) bool) meshCheck {
	return func(vs []*meshState) bool {
		for _, a := range vs {
			if a != nil && !ok(a) {
				return false
			}
		}
		return true
	}
}

// eachPair returns the check "ok holds for every ordered pair of
// distinct live nodes".
func eachPair(ok func(a, b *meshState) bool) meshCheck {
	return func(vs []*meshState) bool {
		for i, a := range vs {
			for j, b := range vs {
				if a != nil && b != nil && i != j && !ok(a, b) {
					return false
				}
			}
		}
		return true
	}
}

// eachRoute returns the check "ok holds for every route of every live
// node".
func eachRoute(ok func(a *meshState, e meshRoute) bool) meshCheck {
	return eachState(func(a *meshState) bool {
		return !slices.ContainsFunc(a.routes, func(e meshRoute) bool { return !ok(a, e) })
	})
}

// eachRouteOf returns the check "ok holds for every route of every live
// node a and every other live node b".
func eachRouteOf(ok func(a, b *meshState, e meshRoute) bool) meshCheck {
	return eachPair(func(a, b *meshState) bool {
		return !slices.ContainsFunc(a.routes, func(e meshRoute) bool { return !ok(a, b, e) })
	})
}

// subset reports whether the sorted set xs is a subset of the sorted set ys.
func subset(xs, ys []int) bool {
	for _, x := range xs {
		if _, ok := slices.BinarySearch(ys, x); !ok {
			return false
		}
	}
	return true
}

// has reports whether the sorted set xs holds x.
func has(xs []int, x int) bool {
	_, ok := slices.BinarySearch(xs, x)
	return ok
}

// pickNode returns a random live node of vs that ok accepts, or -1.
func pickNode(vs []*meshState, rng *rand.Rand, ok func(a *meshState) bool) int {
	for _, i := range rng.Perm(len(vs)) {
		if vs[i] != nil && ok(vs[i]) {
			return i
		}
	}
	return -1
}

// pickOf returns a random element of xs that ok accepts, or -1.
func pickOf(xs []int, rng *rand.Rand, ok func(x int) bool) int {
	for _, i := range rng.Perm(len(xs)) {
		if ok(xs[i]) {
			return xs[i]
		}
	}
	return -1
}

// edited returns a copy of st changed by edit.
func edited(st *meshState, edit func(c *meshState)) *meshState {
	c := *st
	edit(&c)
	return &c
}

// withRoute returns routes with e in origin order, as a new slice.
func withRoute(routes []meshRoute, e meshRoute) []meshRoute {
	i, _ := slices.BinarySearchFunc(routes, e.origin, func(r meshRoute, o int) int { return r.origin - o })
	return slices.Insert(slices.Clone(routes), i, e)
}

// meshTemplates are the properties that may be planted in a mesh.
var meshTemplates = []*meshTemplate{
	{
		// A node's own items are installed: a bug evicts one.
		name: "own-item-evicted", shape: OneNodeOneLiteral, needs: []meshVar{mvOrig, mvKnown}, legit: legitColdStart,
		text:  meshText("forall n0 in nodes: n0.%s subset n0.%s", mvOrig, mvKnown),
		holds: eachState(func(a *meshState) bool { return subset(a.orig, a.known) }),
		begin: func(_ *meshPlanting, _ int, vs []*meshState, rng *rand.Rand) (int, meshBreak) {
			// Not a pending item, which would break pending subset known,
			// nor the last item installed but pending, without which the
			// installed items would be empty or pending only.
			evictable := func(a *meshState, x int) bool {
				return has(a.orig, x) && !has(a.pending, x) &&
					slices.ContainsFunc(a.known, func(y int) bool { return y != x && !has(a.pending, y) })
			}
			i := pickNode(vs, rng, func(a *meshState) bool {
				return pickOf(a.orig, rng, func(x int) bool { return evictable(a, x) }) >= 0
			})
			if i < 0 {
				return -1, nil
			}
			x := pickOf(vs[i].orig, rng, func(x int) bool { return evictable(vs[i], x) })
			return i, func(_ []*meshState, st *meshState) *meshState {
				if !evictable(st, x) {
					return nil
				}
				return edited(st, func(c *meshState) { c.known = sortedWithout(c.known, x) })
			}
		},
	},
	{
		// The outbox holds only the node's own items: a bug queues a
		// learned one, leaking it as the node's own.
		name: "learned-item-queued", shape: OneNodeOneLiteral, needs: []meshVar{mvPending, mvOrig}, legit: legitOutboxLag,
		text:  meshText("forall n0 in nodes: n0.%s subset n0.%s", mvPending, mvOrig),
		holds: eachState(func(a *meshState) bool { return subset(a.pending, a.orig) }),
		twins: []meshTwin{{holds: eachState(func(a *meshState) bool { return len(a.pending) == 0 })}},
		begin: func(_ *meshPlanting, _ int, vs []*meshState, rng *rand.Rand) (int, meshBreak) {
			learned := func(a *meshState) func(int) bool { return func(x int) bool { return !has(a.orig, x) } }
			i := pickNode(vs, rng, func(a *meshState) bool { return pickOf(a.known, rng, learned(a)) >= 0 })
			if i < 0 {
				return -1, nil
			}
			x := pickOf(vs[i].known, rng, learned(vs[i]))
			return i, func(_ []*meshState, st *meshState) *meshState {
				if !has(st.known, x) || has(st.orig, x) {
					return nil
				}
				return edited(st, func(c *meshState) { c.pending = sortedWith(c.pending, x) })
			}
		},
	},
	{
		// No node has a session with itself. With neighbours, peers
		// subset neighbors would break as well.
		name: "session-with-self", shape: OneNodeOneLiteral, needs: []meshVar{mvID, mvPeers}, forbid: []meshVar{mvNeighbors},
		text:  meshText("forall n0 in nodes: not n0.%s in n0.%s", mvID, mvPeers),
		holds: eachState(func(a *meshState) bool { return !has(a.peers, a.node) }),
		begin: func(_ *meshPlanting, _ int, vs []*meshState, rng *rand.Rand) (int, meshBreak) {
			i := pickNode(vs, rng, func(*meshState) bool { return true })
			return i, func(_ []*meshState, st *meshState) *meshState {
				return edited(st, func(c *meshState) { c.peers = sortedWith(c.peers, c.node) })
			}
		},
	},
	{
		// Sessions are with configured neighbours only: a bug accepts
		// one from a stranger.
		name: "session-with-stranger", shape: OneNodeOneLiteral, needs: []meshVar{mvPeers, mvNeighbors},
		clash: []string{"one-sided-session"}, partial: true,
		text:  meshText("forall n0 in nodes: n0.%s subset n0.%s", mvPeers, mvNeighbors),
		holds: eachState(func(a *meshState) bool { return subset(a.peers, a.neighbors) }),
		begin: func(_ *meshPlanting, _ int, vs []*meshState, rng *rand.Rand) (int, meshBreak) {
			stranger := func(a int) int {
				return pickOf(rng.Perm(len(vs)), rng, func(b int) bool { return b != a && !has(vs[a].neighbors, b) })
			}
			i := pickNode(vs, rng, func(a *meshState) bool { return stranger(a.node) >= 0 })
			if i < 0 {
				return -1, nil
			}
			b := stranger(i)
			return i, func(_ []*meshState, st *meshState) *meshState {
				return edited(st, func(c *meshState) { c.peers = sortedWith(c.peers, b) })
			}
		},
	},
	{
		// Sessions are symmetric: a bug keeps a session on one side
		// after it failed, or opens it on one side only.
		name: "one-sided-session", shape: TwoNodesTwoLiterals, needs: []meshVar{mvID, mvPeers}, legit: legitHalfOpen,
		// In a full mesh, n0.peers subset n1.neighbors says n1.id is not
		// in n0.peers, and other properties of the sessions say as much.
		clash: []string{"session-with-stranger"}, partial: true,
		text:  meshText("forall n0, n1 in nodes: n0.%s in n1.%s or not n1.%s in n0.%s", mvID, mvPeers, mvID, mvPeers),
		holds: eachPair(func(a, b *meshState) bool { return has(b.peers, a.node) || !has(a.peers, b.node) }),
		twins: []meshTwin{
			{holds: eachPair(func(a, b *meshState) bool { return has(b.peers, a.node) || subset(a.peers, b.peers) })},
			{[]meshVar{mvNeighbors}, eachPair(func(a, b *meshState) bool { return has(b.peers, a.node) || subset(a.peers, b.neighbors) })},
			// A peer is reached through itself once its advertisement
			// lists the session.
			{[]meshVar{mvVia}, eachRoute(func(a *meshState, e meshRoute) bool { return e.via == e.origin || !has(a.peers, e.origin) })},
		},
		begin: func(m *meshPlanting, _ int, vs []*meshState, rng *rand.Rand) (int, meshBreak) {
			// A node with sessions, and a configured neighbour b, live,
			// whose session is down and which shows its sessions as a
			// peer's would: some, not all of them the node's, and a route
			// to the node where the system shows routes.
			peerlike := func(a, b *meshState) bool {
				return len(a.peers) > 0 && len(b.peers) > 0 && !subset(b.peers, a.peers) &&
					(!m.d.has[mvRoutes] || slices.ContainsFunc(b.routes, func(e meshRoute) bool { return e.origin == a.node }))
			}
			ok := func(a *meshState, b int) bool {
				return vs[b] != nil && !has(a.peers, b) && !has(vs[b].peers, a.node) && peerlike(a, vs[b])
			}
			down := func(a *meshState) int { return pickOf(a.neighbors, rng, func(b int) bool { return ok(a, b) }) }
			i := pickNode(vs, rng, func(a *meshState) bool { return down(a) >= 0 })
			if i < 0 {
				return -1, nil
			}
			b := down(vs[i])
			return i, func(vs []*meshState, st *meshState) *meshState {
				if vs[b] == nil || has(vs[b].peers, i) || has(st.peers, b) || !peerlike(st, vs[b]) {
					return nil
				}
				return edited(st, func(c *meshState) { c.peers = sortedWith(c.peers, b) })
			}
		},
	},
	{
		// A node without sessions reaches no one: a bug keeps the table
		// it had. With known items, the properties that say it by
		// known subset originated would break as well.
		name: "stale-table", shape: OneNodeTwoLiterals, needs: []meshVar{mvRoutes, mvPeers}, forbid: []meshVar{mvKnown},
		clash: []string{"route-via-down-peer"}, legit: legitLazyTable,
		text:  meshText("forall n0 in nodes: empty(n0.%s) or not empty(n0.%s)", mvRoutes, mvPeers),
		holds: eachState(func(a *meshState) bool { return len(a.routes) == 0 || len(a.peers) > 0 }),
		begin: func(m *meshPlanting, at int, vs []*meshState, rng *rand.Rand) (int, meshBreak) {
			i := pickNode(vs, rng, func(a *meshState) bool { return len(a.peers) == 0 && m.sim.lastRoutes(a.node, at) != nil })
			if i < 0 {
				return -1, nil
			}
			stale := m.sim.lastRoutes(i, at)
			return i, func(_ []*meshState, st *meshState) *meshState {
				if len(st.peers) > 0 {
					return nil
				}
				return edited(st, func(c *meshState) { c.routes = stale })
			}
		},
	},
	{
		// A node has no route to itself: a bug installs its own
		// advertisement, flooded back to it.
		name: "route-to-self", shape: Iterator, needs: []meshVar{mvRoutes, mvID},
		text:  meshText("forall n0 in nodes: forall e0 in n0.%s: e0.%s != n0.%s", mvRoutes, mvOrigin, mvID),
		holds: eachRoute(func(a *meshState, e meshRoute) bool { return e.origin != a.node }),
		twins: []meshTwin{
			// In a full mesh, every origin is a neighbour.
			{[]meshVar{mvNeighbors}, eachRoute(func(a *meshState, e meshRoute) bool { return has(a.neighbors, e.origin) })},
			{[]meshVar{mvPeers}, eachRoute(func(a *meshState, e meshRoute) bool { return has(a.peers, e.origin) })},
			{[]meshVar{mvSeq, mvVersion}, eachRoute(func(a *meshState, e meshRoute) bool { return e.seq != a.version })},
			{[]meshVar{mvSeq, mvVersion}, eachRoute(func(a *meshState, e meshRoute) bool { return a.version <= e.seq })},
		},
		begin: func(_ *meshPlanting, _ int, vs []*meshState, rng *rand.Rand) (int, meshBreak) {
			i := pickNode(vs, rng, func(a *meshState) bool { return len(a.routes) > 0 && len(a.peers) > 0 })
			if i < 0 {
				return -1, nil
			}
			// An advertisement of its own, a few versions old, from a peer.
			e := meshRoute{origin: i, seq: max(1, vs[i].version-rng.Int64N(3)), via: vs[i].peers[rng.IntN(len(vs[i].peers))]}
			return i, func(_ []*meshState, st *meshState) *meshState {
				if len(st.routes) == 0 || !has(st.peers, e.via) || e.seq > st.version {
					return nil
				}
				return edited(st, func(c *meshState) { c.routes = withRoute(c.routes, e) })
			}
		},
	},
	{
		// No node has a newer advertisement of an origin than the origin
		// itself: a bug corrupts a sequence number.
		name: "seq-from-future", shape: Iterator, needs: []meshVar{mvRoutes, mvSeq, mvID, mvVersion},
		text: meshText("forall n0, n1 in nodes: forall e0 in n0.%s: e0.%s != n1.%s or e0.%s <= n1.%s",
			mvRoutes, mvOrigin, mvID, mvSeq, mvVersion),
		holds: eachRouteOf(func(_, b *meshState, e meshRoute) bool { return e.origin != b.node || e.seq <= b.version }),
		twins: []meshTwin{
			{holds: eachRoute(func(a *meshState, e meshRoute) bool { return e.seq <= a.version })},
			{holds: eachRouteOf(func(_, b *meshState, e meshRoute) bool { return e.origin != b.node || e.seq < b.version })},
			{holds: eachRouteOf(func(_, b *meshState, e meshRoute) bool { return e.origin != b.node || e.seq == b.version })},
			// Other ways to tell the origin from the other nodes, where the
			// sequence numbers of one origin do not pass another's version.
			{[]meshVar{mvVia}, eachRouteOf(func(_, b *meshState, e meshRoute) bool { return e.via != b.node || e.seq <= b.version })},
			{holds: eachRouteOf(func(a, b *meshState, e meshRoute) bool { return e.seq <= a.version || a.version <= b.version })},
			{[]meshVar{mvNeighbors}, eachRouteOf(func(_, b *meshState, e meshRoute) bool { return has(b.neighbors, e.origin) || e.seq <= b.version })},
			{[]meshVar{mvPeers}, eachRouteOf(func(_, b *meshState, e meshRoute) bool { return has(b.peers, e.origin) || e.seq <= b.version })},
		},
		begin: func(_ *meshPlanting, _ int, vs []*meshState, rng *rand.Rand) (int, meshBreak) {
			i := pickNode(vs, rng, func(a *meshState) bool {
				return slices.ContainsFunc(a.routes, func(e meshRoute) bool { return vs[e.origin] != nil })
			})
			if i < 0 {
				return -1, nil
			}
			var live []meshRoute
			for _, e := range vs[i].routes {
				if vs[e.origin] != nil {
					live = append(live, e)
				}
			}
			o := live[rng.IntN(len(live))].origin
			seq := vs[o].version + 1 + rng.Int64N(3)
			return i, func(vs []*meshState, st *meshState) *meshState {
				k := slices.IndexFunc(st.routes, func(e meshRoute) bool { return e.origin == o })
				if k < 0 || vs[o] == nil || seq <= vs[o].version {
					return nil
				}
				return edited(st, func(c *meshState) {
					c.routes = slices.Clone(c.routes)
					c.routes[k].seq = seq
				})
			}
		},
	},
	{
		// Every route goes through a peer: a bug keeps a route through a
		// neighbour whose session failed.
		name: "route-via-down-peer", shape: Iterator, needs: []meshVar{mvRoutes, mvVia, mvPeers}, legit: legitLazyTable,
		clash: []string{"stale-table"},
		text:  meshText("forall n0 in nodes: forall e0 in n0.%s: e0.%s in n0.%s", mvRoutes, mvVia, mvPeers),
		holds: eachRoute(func(a *meshState, e meshRoute) bool { return has(a.peers, e.via) }),
		begin: func(_ *meshPlanting, _ int, vs []*meshState, rng *rand.Rand) (int, meshBreak) {
			// A neighbour whose session is down, so that e0.via in
			// n0.neighbors still holds.
			down := func(a *meshState) int {
				return pickOf(a.neighbors, rng, func(b int) bool { return !has(a.peers, b) })
			}
			i := pickNode(vs, rng, func(a *meshState) bool { return len(a.routes) > 0 && len(a.peers) > 0 && down(a) >= 0 })
			if i < 0 {
				return -1, nil
			}
			o, via := vs[i].routes[rng.IntN(len(vs[i].routes))].origin, down(vs[i])
			return i, func(_ []*meshState, st *meshState) *meshState {
				k := slices.IndexFunc(st.routes, func(e meshRoute) bool { return e.origin == o })
				if k < 0 || has(st.peers, via) || len(st.peers) == 0 {
					return nil
				}
				return edited(st, func(c *meshState) {
					c.routes = slices.Clone(c.routes)
					c.routes[k].via = via
				})
			}
		},
	},
}

// meshText returns the text of a template: format with the names the
// system gives the variables and fields args.
func meshText(format string, args ...meshVar) func(*meshDesign) string {
	return func(d *meshDesign) string {
		vals := make([]any, len(args))
		for i, a := range args {
			vals[i] = d.name[a]
		}
		return fmt.Sprintf(format, vals...)
	}
}
