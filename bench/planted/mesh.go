package planted

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

// meshVar is a state variable a mesh system may expose, or a field of
// its routes.
type meshVar uint8

const (
	mvID        meshVar = iota // the node's own id
	mvNeighbors                // configured neighbours: set<N>
	mvPeers                    // neighbours with a session up: set<N>
	mvOrig                     // items the node originates: set<Item>
	mvKnown                    // items it has installed: set<Item>
	mvPending                  // originated items not yet advertised: set<Item>
	mvVersion                  // sequence number of its advertisement
	mvRound                    // its timer rounds since it started
	mvRoutes                   // its routing table: list<Route>
	mvOrigin                   // a route's origin: N
	mvSeq                      // a route's advertisement: Seq
	mvVia                      // a route's next hop: N
	numMeshVars
)

// meshVarInfo gives each variable its semantic type (N, Item, Seq, Count
// or Route, which the system names, or a container of them), its
// category and the names a system may give it.
var meshVarInfo = [numMeshVars]struct {
	typ   string
	cat   category
	names string
}{
	mvID:        {"N", catID, "id self name"},
	mvNeighbors: {"set<N>", catSet, "neighbors links adjacent"},
	mvPeers:     {"set<N>", catSet, "peers sessions up"},
	mvOrig:      {"set<Item>", catSet, "originated local announced"},
	mvKnown:     {"set<Item>", catSet, "known installed rib"},
	mvPending:   {"set<Item>", catSet, "pending outbox queued"},
	mvVersion:   {"Seq", catCounter, "version incarnation generation"},
	mvRound:     {"Count", catCounter, "round ticks rounds"},
	mvRoutes:    {"list<Route>", catList, "routes table paths"},
	mvOrigin:    {"N", catID, "origin owner src"},
	mvSeq:       {"Seq", catCounter, "seq seqno"},
	mvVia:       {"N", catID, "via nexthop hop"},
}

// meshTypeNames are the names a system may give its semantic types.
var meshTypeNames = map[string][]string{
	"N":     {"NodeID", "Router", "Host"},
	"Item":  {"Prefix", "Net", "Key"},
	"Seq":   {"Seq", "SeqNo", "Version"},
	"Count": {"Count", "Counter", "Rounds"},
	"Route": {"Route", "Entry", "Path"},
}

// meshOptional is the chance that a system has each variable its
// planted properties do not need.
var meshOptional = [numMeshVars]float64{
	mvID: 0.8, mvNeighbors: 0.35, mvPeers: 0.7, mvOrig: 0.7, mvKnown: 0.8, mvPending: 0.5,
	mvVersion: 0.5, mvRound: 0.4, mvRoutes: 0.5, mvSeq: 0.6, mvVia: 0.6,
}

// Bounds on the variables of a mesh system.
const (
	meshMinVars       = 5
	meshMinCategories = 3
)

// meshDesign is what a mesh system is made of: its variables, their
// names, and how node ids and items print.
type meshDesign struct {
	has, forbid [numMeshVars]bool
	name        [numMeshVars]string
	types       map[string]string
	nodeName    string // a format for node i+1
	prefixes    bool   // items print as IPv4 prefixes, else as node/k
	iterate     bool   // the routes are an iterator domain
}

func newMeshDesign(rng *rand.Rand) *meshDesign {
	d := &meshDesign{types: map[string]string{}, nodeName: []string{"n%d", "r%d"}[rng.IntN(2)], prefixes: rng.IntN(2) == 0}
	for k := range numMeshVars {
		names := strings.Fields(meshVarInfo[k].names)
		d.name[k] = names[rng.IntN(len(names))]
	}
	for _, t := range []string{"N", "Item", "Seq", "Count", "Route"} {
		d.types[t] = meshTypeNames[t][rng.IntN(len(meshTypeNames[t]))]
	}
	d.has[mvOrigin] = true
	return d
}

// admits reports whether t fits the variables the design is committed
// to and the templates already chosen.
func (d *meshDesign) admits(t *meshTemplate, chosen []*meshTemplate) bool {
	return !slices.ContainsFunc(t.needs, func(k meshVar) bool { return d.forbid[k] }) &&
		!slices.ContainsFunc(t.forbid, func(k meshVar) bool { return d.has[k] }) &&
		!slices.ContainsFunc(chosen, func(u *meshTemplate) bool { return slices.Contains(t.clash, u.name) })
}

// adopt commits the design to t's variables.
func (d *meshDesign) adopt(t *meshTemplate) {
	for _, k := range t.needs {
		d.has[k] = true
	}
	for _, k := range t.forbid {
		d.forbid[k] = true
	}
	d.iterate = d.iterate || t.shape == Iterator
}

// vars returns the state variables of the system, in spec order.
func (d *meshDesign) vars() []meshVar {
	var vs []meshVar
	for k := range mvOrigin {
		if d.has[k] {
			vs = append(vs, k)
		}
	}
	return vs
}

// fields returns the fields of the routes, in spec order.
func (d *meshDesign) fields() []meshVar {
	var fs []meshVar
	for _, k := range []meshVar{mvOrigin, mvSeq, mvVia} {
		if d.has[k] {
			fs = append(fs, k)
		}
	}
	return fs
}

func (d *meshDesign) categories() int {
	seen := map[category]bool{}
	for _, k := range d.vars() {
		seen[meshVarInfo[k].cat] = true
	}
	return len(seen)
}

// addOptional adds variables at random, then as needed to have at least
// meshMinVars of at least meshMinCategories categories.
func (d *meshDesign) addOptional(rng *rand.Rand) {
	var allowed []meshVar
	for k := range mvOrigin {
		if !d.has[k] && !d.forbid[k] {
			allowed = append(allowed, k)
		}
	}
	rng.Shuffle(len(allowed), func(i, j int) { allowed[i], allowed[j] = allowed[j], allowed[i] })
	for _, k := range allowed {
		if rng.Float64() < meshOptional[k] {
			d.has[k] = true
		}
	}
	for _, k := range allowed {
		if !d.has[k] && (len(d.vars()) < meshMinVars || d.categories() < meshMinCategories) {
			d.has[k] = true
		}
	}
	for _, k := range []meshVar{mvSeq, mvVia} {
		if d.has[mvRoutes] && !d.forbid[k] && rng.Float64() < meshOptional[k] {
			d.has[k] = true
		}
	}
}

// generateMesh generates a system of the mesh family: routers flooding
// link-state advertisements (meshSim), with properties of their sessions,
// items and routing tables planted (meshTemplates).
func generateMesh(seed int64, rng *rand.Rand, o Options) (*System, error) {
	d := newMeshDesign(rng)
	control := rng.IntN(controlOneIn) == 0
	nodes := o.MinNodes + rng.IntN(o.MaxNodes-o.MinNodes+1)
	steps := o.MinSnapshots + rng.IntN(o.MaxSnapshots-o.MinSnapshots+1)
	full := rng.IntN(4) == 0 || nodes <= 5 && rng.IntN(2) == 0
	var chosen []*meshTemplate
	if !control {
		want := 1 + rng.IntN(maxPlanted)
		for _, sh := range rng.Perm(int(numShapes) - 1) {
			if len(chosen) == want {
				break
			}
			for _, i := range rng.Perm(len(meshTemplates)) {
				t := meshTemplates[i]
				if t.shape == Shape(sh+1) && d.admits(t, chosen) && !(t.partial && (full || nodes < 4)) {
					d.adopt(t)
					chosen = append(chosen, t)
					break
				}
			}
		}
	}
	d.addOptional(rng)
	if control && d.has[mvRoutes] {
		d.iterate = rng.IntN(2) == 0
	}
	p := meshParams{nodes: nodes, steps: steps, full: full, maxDelay: 1 + rng.IntN(4), maxItems: 2 + rng.IntN(4)}
	// A change floods about two messages per session: leave the mesh
	// time to converge between changes, more or less of it.
	sessions := nodes - 1 + nodes/4
	if full {
		sessions = nodes * (nodes - 1) / 2
	}
	p.change = 1 / ((0.7 + 2*rng.Float64()) * float64(2*sessions+4))
	// Each router's timer: a round every 60 to 250 steps or so.
	p.tick = min(0.5, float64(nodes)*(0.004+0.012*rng.Float64()))
	// Some planted properties also fail at a legitimate rare moment of
	// the run: a rare path of the mesh that breaks them. A control has one
	// or two of these paths, so that its run has conditional
	// almost-invariants.
	for _, t := range chosen {
		if t.legit != legitNone && rng.IntN(legitOneIn) > 0 {
			p.legit[t.legit] = 1 + rng.IntN(2)
		}
	}
	if control {
		for range 1 + rng.IntN(2) {
			p.legit[1+rng.IntN(int(numMeshLegits)-1)] = 1 + rng.IntN(2)
		}
	}
	sim := newMeshSim(rng, p)
	sim.run()

	m := &meshPlanting{d: d, sim: sim, broken: map[int]meshBroken{}}
	chosen = slices.DeleteFunc(chosen, func(t *meshTemplate) bool { return !m.natural(t) })
	sys := &System{Seed: seed, Family: Mesh, Name: fmt.Sprintf("planted-%d", seed), Nodes: nodes, Snapshots: steps, Control: control}
	for _, t := range chosen {
		if pl, ok := m.plant(rng, t, chosen); ok {
			sys.Planted = append(sys.Planted, pl)
		}
	}
	if !control && len(sys.Planted) == 0 {
		return nil, nil
	}
	for _, st := range sim.steady {
		if st {
			sys.Steady++
		}
	}
	for _, k := range d.vars() {
		sys.Variables = append(sys.Variables, d.name[k])
	}
	sys.Spec = d.spec(sys.Name, full)
	sys.run = m.trace()
	for i := range o.GoodRuns {
		gs := newMeshSim(goodRNG(seed, i), p)
		gs.run()
		good := &meshPlanting{d: d, sim: gs, broken: map[int]meshBroken{}}
		sys.goods = append(sys.goods, &System{Name: sys.Name, run: good.trace()})
	}
	return sys, nil
}

// meshPlanting is a mesh run and the bugs planted in it.
type meshPlanting struct {
	d      *meshDesign
	sim    *meshSim
	broken map[int]meshBroken // step → the node state that breaks a planted property
}

// meshBroken is a node's state, broken by a bug.
type meshBroken struct {
	node int
	st   *meshState
	bug  string
}

// failures returns the steps of the natural run at which check fails.
func (m *meshPlanting) failures(check meshCheck) []int {
	n := m.sim.p.nodes
	var out []int
	var vs []*meshState
	held := true
	for s := range m.sim.p.steps {
		if s == 0 || !slices.Equal(m.sim.hist[s*n:(s+1)*n], m.sim.hist[(s-1)*n:s*n]) {
			vs = m.sim.at(s, vs)
			held = check(vs)
		}
		if !held {
			out = append(out, s)
		}
	}
	return out
}

// natural reports whether t holds at every step of the run but at most
// maxLegitMoments moments of its rare path, if the run has it, and each
// of its twins the system can express fails at some step.
func (m *meshPlanting) natural(t *meshTemplate) bool {
	if fails := m.failures(t.holds); len(fails) > 0 && (m.sim.p.legit[t.legit] == 0 || moments(fails) > maxLegitMoments) {
		return false
	}
	for _, tw := range t.twins {
		if !slices.ContainsFunc(tw.needs, func(k meshVar) bool { return !m.d.has[k] }) && len(m.failures(tw.holds)) == 0 {
			return false
		}
	}
	return true
}

// plant breaks t at each strike of its bug (drawStrikes) in one node's
// state, where no other property planted (or to be planted) in the
// system breaks as well, at calm steps (so that no rare state of the run
// makes some odd property fail only where t is broken), away from the
// run's rare paths and from t's legitimate failures. Half the bugs have an aftermath: the node stays
// broken through its own changes until the episode ends; the others
// break one state of the node, which its next change repairs. It
// reports false, leaving nothing broken, when not one strike fits or
// when t fails legitimately at as many snapshots as its bug breaks it.
func (m *meshPlanting) plant(rng *rand.Rand, t *meshTemplate, all []*meshTemplate) (Planted, bool) {
	text, err := canonical(t.text(m.d))
	if err != nil {
		panic(err) // the templates write valid properties
	}
	pl := Planted{Name: t.name, Text: text, Shape: t.shape, Aftermath: rng.IntN(2) == 0}
	legit := map[int]bool{}
	for _, s := range m.failures(t.holds) {
		legit[s] = true
		pl.Legit = append(pl.Legit, snapshotID(s))
	}
	n := m.sim.p.nodes
	row := func(s int) []int32 { return m.sim.hist[s*n : (s+1)*n] }
	free := func(s int) bool {
		_, taken := m.broken[s]
		return !taken && m.sim.calm[s] && !m.sim.rare[s] && !legit[s] && !legit[s-1] && !legit[s+1]
	}
	var vs, bad []*meshState
	var placed []int
	for _, st := range drawStrikes(rng, m.sim.p.steps, free) {
		vs = m.sim.at(st.from, vs)
		node, brk := t.begin(m, st.from, vs, rng)
		if node < 0 {
			continue
		}
		from := len(placed)
		var last *meshState // the broken state, kept while the node's state is
		for s := st.from; s < st.to; s++ {
			if s > st.from && row(s)[node] != row(s - 1)[node] {
				if !pl.Aftermath {
					break // the node's change repairs its state
				}
				last = nil
			}
			vs = m.sim.at(s, vs)
			if vs[node] == nil {
				break
			}
			if last == nil {
				if last = brk(vs, vs[node]); last == nil {
					break
				}
			}
			bad = append(bad[:0], vs...)
			bad[node] = last
			if t.holds(bad) || slices.ContainsFunc(all, func(u *meshTemplate) bool { return u != t && !u.holds(bad) }) {
				break
			}
			m.broken[s] = meshBroken{node: node, st: last, bug: t.name}
			placed = append(placed, s)
			pl.Snapshots = append(pl.Snapshots, snapshotID(s))
			if m.sim.steady[s] {
				pl.Steady++
			}
		}
		if len(placed) > from {
			pl.Strikes++
		}
	}
	if len(placed) == 0 || len(pl.Legit) >= len(placed) {
		for _, s := range placed {
			delete(m.broken, s)
		}
		return Planted{}, false
	}
	return pl, true
}

// trace builds the run's trace: the natural states, each stored once,
// the broken ones, and a state anew where a node is repaired without
// changing, so that each node's states follow one another in time.
func (m *meshPlanting) trace() *run {
	d, sim := m.d, m.sim
	r := &run{schema: d.schema()}
	names := make([]string, sim.p.nodes)
	for i := range names {
		names[i] = fmt.Sprintf(d.nodeName, i+1)
	}
	items := map[int]string{}
	for i := range sim.p.nodes {
		for k := range meshItemsPerNode {
			if d.prefixes {
				items[meshItem(i, k)] = fmt.Sprintf("10.%d.%d.0/24", i+1, k)
			} else {
				items[meshItem(i, k)] = fmt.Sprintf("%s/%d", names[i], k)
			}
		}
	}
	add := func(st *meshState, ts int) uint32 {
		r.states = append(r.states, runState{node: names[st.node], ts: uint64(ts), vals: d.values(st, names, items)})
		return uint32(len(r.states) - 1)
	}
	natural := make([]uint32, len(sim.states))
	for i := range sim.states {
		natural[i] = add(&sim.states[i], sim.ts[i])
	}
	n := sim.p.nodes
	type shown struct {
		nat    int32      // the natural state shown, or the one a broken state replaces
		broken *meshState // the broken state shown, or nil
		row    uint32
	}
	last := make([]shown, n)
	for s := range sim.p.steps {
		b, isBroken := m.broken[s]
		var sn runSnap
		for i, x := range sim.hist[s*n : (s+1)*n] {
			if x < 0 {
				last[i] = shown{nat: -1}
				continue
			}
			var cur shown
			switch {
			case isBroken && b.node == i:
				cur = shown{nat: x, broken: b.st}
				if last[i].broken != b.st {
					cur.row = add(b.st, s+1)
				} else {
					cur.row = last[i].row
				}
			case last[i].nat == x && last[i].broken != nil:
				cur = shown{nat: x, row: add(&sim.states[x], s+1)} // repaired
			case last[i].nat == x:
				cur = last[i]
			default:
				cur = shown{nat: x, row: natural[x]}
			}
			last[i] = cur
			sn.members = append(sn.members, cur.row)
		}
		if sim.steady[s] {
			sn.tags = append(sn.tags, SteadyTag)
		}
		if isBroken {
			sn.tags = append(sn.tags, BugTag(b.bug))
		}
		r.snaps = append(r.snaps, sn)
	}
	return r
}

// schema returns the trace columns of the system's variables.
func (d *meshDesign) schema() trace.Schema {
	var schema trace.Schema
	for _, k := range d.vars() {
		var t arrow.DataType
		switch k {
		case mvID:
			t = arrow.BinaryTypes.String
		case mvVersion, mvRound:
			t = arrow.PrimitiveTypes.Int64
		case mvRoutes:
			var fs []arrow.Field
			for _, f := range d.fields() {
				ft := arrow.DataType(arrow.BinaryTypes.String)
				if f == mvSeq {
					ft = arrow.PrimitiveTypes.Int64
				}
				fs = append(fs, arrow.Field{Name: d.name[f], Type: ft, Nullable: true})
			}
			t = arrow.ListOf(arrow.StructOf(fs...))
		default:
			t = arrow.ListOf(arrow.BinaryTypes.String)
		}
		schema = append(schema, trace.Column{Name: d.name[k], Type: t})
	}
	return schema
}

// values returns st's values in schema order, in the trace
// representation.
func (d *meshDesign) values(st *meshState, names []string, items map[int]string) []any {
	list := func(xs []int, name func(int) string) []any {
		l := make([]any, len(xs))
		for i, x := range xs {
			l[i] = name(x)
		}
		return l
	}
	node := func(i int) string { return names[i] }
	item := func(x int) string { return items[x] }
	var vals []any
	for _, k := range d.vars() {
		var v any
		switch k {
		case mvID:
			v = names[st.node]
		case mvNeighbors:
			v = list(st.neighbors, node)
		case mvPeers:
			v = list(st.peers, node)
		case mvOrig:
			v = list(st.orig, item)
		case mvKnown:
			v = list(st.known, item)
		case mvPending:
			v = list(st.pending, item)
		case mvVersion:
			v = st.version
		case mvRound:
			v = st.round
		case mvRoutes:
			l := make([]any, len(st.routes))
			for i, e := range st.routes {
				f := map[string]any{d.name[mvOrigin]: names[e.origin]}
				if d.has[mvSeq] {
					f[d.name[mvSeq]] = e.seq
				}
				if d.has[mvVia] {
					f[d.name[mvVia]] = names[e.via]
				}
				l[i] = f
			}
			v = l
		}
		vals = append(vals, v)
	}
	return vals
}

// spec returns the system's spec: its types and variables, and
// generation settings under which every planted property is in the pool.
func (d *meshDesign) spec(system string, full bool) string {
	var b strings.Builder
	topology := "a partial mesh"
	if full {
		topology = "a full mesh"
	}
	fmt.Fprintf(&b, "# A system of augur bench quality: routers flooding link-state advertisements\n")
	fmt.Fprintf(&b, "# over %s, sessions failing and nodes restarting (package bench/planted).\n", topology)
	fmt.Fprintf(&b, "system: %s\ntypes:\n", system)
	used := map[string]bool{}
	kinds := d.vars()
	if d.has[mvRoutes] {
		kinds = append(kinds, d.fields()...)
	}
	for _, k := range kinds {
		t := meshVarInfo[k].typ
		if i := strings.IndexByte(t, '<'); i >= 0 {
			t = t[i+1 : len(t)-1]
		}
		used[t] = true
	}
	for _, t := range []string{"N", "Item", "Seq", "Count"} {
		repr := "int64"
		if t == "N" || t == "Item" {
			repr = "string"
		}
		if used[t] {
			fmt.Fprintf(&b, "  %s: %s\n", d.types[t], repr)
		}
	}
	if d.has[mvRoutes] {
		var fs []string
		for _, f := range d.fields() {
			fs = append(fs, d.name[f]+": "+d.types[meshVarInfo[f].typ])
		}
		fmt.Fprintf(&b, "  %s: \"{%s}\"\n", d.types["Route"], strings.Join(fs, ", "))
	}
	b.WriteString("variables:\n")
	for _, k := range d.vars() {
		t := meshVarInfo[k].typ
		if i := strings.IndexByte(t, '<'); i >= 0 {
			t = `"` + t[:i+1] + d.types[t[i+1:len(t)-1]] + `>"` // a container
		} else {
			t = d.types[t]
		}
		fmt.Fprintf(&b, "  %s: %s\n", d.name[k], t)
	}
	iterate := ""
	if d.iterate {
		iterate = d.name[mvRoutes]
	}
	fmt.Fprintf(&b, "generate:\n  max_nodes: 2\n  max_literals: 2\n  max_per_class: %d   # no cap: every planted property is in the pool\n  iterate: [%s]\n  constants: {max_distinct: 2}\n",
		noCap, iterate)
	b.WriteString("filter: {hold_ratio: 0.95, every: 500}\nreport: {size: 10, min_support: 30}\n")
	return b.String()
}
