package planted

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

// ovVar is a state variable an overlay node may expose.
type ovVar uint8

const (
	ovID       ovVar = iota // the node's own id
	ovParent                // its parent, "" when it has none
	ovChildren              // the children it has adopted
	ovState                 // joining, joined or leaving
	ovDepth                 // hops from the root, as the node last heard
	ovRoot                  // the root, as the node knows it: "" until it first joins
	ovGen                   // its incarnation: one more at each restart
	ovRound                 // heartbeat or stabilisation rounds of this incarnation
	ovKey                   // its position on the ring
	ovSucc                  // its successor, "" when it has none
	ovPred                  // its predecessor, "" when it knows none
	ovSuccs                 // its successor list, nearest first
	numOvVars
)

// ovVarInfo describes each variable: its semantic type (N, D, V, R or
// K, which the system names, a set of N, a list of E, or "" for the
// status enum), the names a system may give it, the chance that a
// system exposes it when no planted property needs it, and the overlays
// that have it.
var ovVarInfo = [numOvVars]struct {
	typ, names   string
	optional     float64
	tree, ringed bool
}{
	ovID:       {"N", "id self name", 1, true, true},
	ovParent:   {"N", "parent up uplink", 1, true, false},
	ovChildren: {"set<N>", "children kids downlinks", 0.8, true, false},
	ovState:    {"", "status state phase", 0.8, true, true},
	ovDepth:    {"D", "depth level hops", 0.6, true, false},
	ovRoot:     {"N", "root root_id tree_root", 0.4, true, false},
	ovGen:      {"V", "gen incarnation epoch", 0.4, true, true},
	ovRound:    {"R", "round beats tick", 0.3, true, true},
	ovKey:      {"K", "key pos point", 0.6, false, true},
	ovSucc:     {"N", "succ successor next", 1, false, true},
	ovPred:     {"N", "pred predecessor prev", 0.8, false, true},
	ovSuccs:    {"list<E>", "succs successors succ_list", 0.6, false, true},
}

// Names of the semantic types and of the statuses a system picks from.
var (
	ovTypeNames = map[string][]string{
		"N": {"NodeID", "Addr", "Host"},
		"D": {"Depth", "Level", "Hops"},
		"V": {"Version", "Generation", "Incarnation"},
		"R": {"Round", "Beat", "Tick"},
		"K": {"Key", "Pos", "Point"},
		"E": {"Succ", "Contact", "Finger"},
	}
	ovStatusNames = [][3]string{
		{"joining", "joined", "leaving"},
		{"connecting", "connected", "departing"},
		{"pending", "active", "exiting"},
	}
)

// ovMinVars is the fewest variables a system has.
const ovMinVars = 4

// ovDesign is what an overlay system is made of: a tree or a ring, its
// variables, their names and the simulator's styles.
type ovDesign struct {
	ring        bool
	has         [numOvVars]bool
	name        [numOvVars]string
	types       map[string]string
	status      [3]string
	eager, fast int8 // as in ovTemplate: 1 on, -1 off, 0 not decided
}

func newOvDesign(rng *rand.Rand) *ovDesign {
	d := &ovDesign{ring: rng.IntN(2) == 0, types: map[string]string{}, status: ovStatusNames[rng.IntN(len(ovStatusNames))]}
	for k := range numOvVars {
		names := strings.Fields(ovVarInfo[k].names)
		d.name[k] = names[rng.IntN(len(names))]
	}
	for _, t := range slices.Sorted(maps.Keys(ovTypeNames)) {
		d.types[t] = ovTypeNames[t][rng.IntN(len(ovTypeNames[t]))]
	}
	d.has[ovID] = true
	if d.ring {
		d.has[ovSucc] = true
	} else {
		d.has[ovParent] = true
	}
	return d
}

// fits reports whether the design's overlay has variable k.
func (d *ovDesign) fits(k ovVar) bool {
	if d.ring {
		return ovVarInfo[k].ringed
	}
	return ovVarInfo[k].tree
}

// templates returns the templates of the design's overlay.
func (d *ovDesign) templates() []*ovTemplate {
	if d.ring {
		return ringTemplates
	}
	return treeTemplates
}

// vars returns the variables of the system, in spec order.
func (d *ovDesign) vars() []ovVar {
	var vs []ovVar
	for k := range numOvVars {
		if d.has[k] {
			vs = append(vs, k)
		}
	}
	return vs
}

// admits reports whether t fits the styles the design is committed to.
func (d *ovDesign) admits(t *ovTemplate) bool {
	clash := func(have, want int8) bool { return have != 0 && want != 0 && have != want }
	return !clash(d.eager, t.eager) && !clash(d.fast, t.fast)
}

// adopt commits the design to t.
func (d *ovDesign) adopt(t *ovTemplate) {
	for _, k := range t.needs {
		d.has[k] = true
	}
	d.eager = cmp.Or(d.eager, t.eager)
	d.fast = cmp.Or(d.fast, t.fast)
}

// addOptional adds the variables of the overlay that no planted
// property needs, each with its chance, then more to have at least
// ovMinVars.
func (d *ovDesign) addOptional(rng *rand.Rand) {
	order := slices.DeleteFunc(rng.Perm(int(numOvVars)), func(k int) bool { return !d.fits(ovVar(k)) })
	for _, k := range order {
		d.has[k] = d.has[k] || rng.Float64() < ovVarInfo[k].optional
	}
	for _, k := range order {
		d.has[k] = d.has[k] || len(d.vars()) < ovMinVars
	}
}

// generateOverlay generates a system of the overlay family: a
// RandTree-like tree whose nodes join, leave, crash and rejoin (see
// treeSim), or a Chord-like ring (see ringSim), with properties of its
// templates planted in it.
func generateOverlay(seed int64, rng *rand.Rand, o Options) (*System, error) {
	d := newOvDesign(rng)
	control := rng.IntN(controlOneIn) == 0
	nodes := o.MinNodes + rng.IntN(o.MaxNodes-o.MinNodes+1)
	steps := o.MinSnapshots + rng.IntN(o.MaxSnapshots-o.MinSnapshots+1)
	var chosen []*ovTemplate
	if !control {
		want := 1 + rng.IntN(maxPlanted)
		all := d.templates()
		for _, i := range rng.Perm(len(all)) {
			t := all[i]
			taken := slices.ContainsFunc(chosen, func(u *ovTemplate) bool { return u.shape == t.shape })
			if len(chosen) < want && !taken && d.admits(t) {
				d.adopt(t)
				chosen = append(chosen, t)
			}
		}
	}
	d.addOptional(rng)
	p := ovParams{nodes: nodes, steps: steps, maxDelay: 1 + rng.IntN(4)}
	if d.ring {
		// A stabilisation round sends three messages, and repairs the
		// ring slowly: fewer rounds, rarer crashes and leaves.
		p.beat = nodes * (8 + rng.IntN(8))
		p.gap = 150 + rng.IntN(350)
		p.timeout = 1 + p.beat/3 + rng.IntN(p.beat/3)
		p.succs = 3 + rng.IntN(2)
	} else {
		p.beat = nodes * (3 + rng.IntN(4))
		p.gap = 80 + rng.IntN(200)
		p.timeout = 1 + p.beat/3 + rng.IntN(p.beat/3)
		p.fanout = 2 + rng.IntN(3)
		p.eager = d.eager > 0 || d.eager == 0 && rng.IntN(2) == 0
		p.fast = d.fast > 0 || d.fast == 0 && rng.IntN(2) == 0
	}
	sim := d.simulate(rng, p)

	ovs := &ovSystem{d: d, views: sim.hist, steady: sim.steady, bug: map[int]string{}, legit: map[int]bool{}}
	sys := &System{
		Seed: seed, Family: Overlay, Name: fmt.Sprintf("planted-%d", seed), Nodes: nodes, Snapshots: steps,
		Control: control, Episodes: sim.episodes,
	}
	for _, st := range sim.steady {
		if st {
			sys.Steady++
		}
	}
	chosen = slices.DeleteFunc(chosen, func(t *ovTemplate) bool { return !ovs.natural(t) })
	for _, t := range chosen {
		if pl, ok := ovs.plant(rng, t, chosen); ok {
			sys.Planted = append(sys.Planted, pl)
		}
	}
	if !control && len(sys.Planted) == 0 {
		return nil, nil
	}
	for _, k := range d.vars() {
		sys.Variables = append(sys.Variables, d.name[k])
	}
	sys.Spec = d.spec(sys.Name, slices.ContainsFunc(sys.Planted, func(p Planted) bool { return p.Shape == Iterator }))
	sys.run = ovs.run()
	for i := range o.GoodRuns {
		gs := d.simulate(goodRNG(seed, i), p)
		good := &ovSystem{d: d, views: gs.hist, steady: gs.steady, bug: map[int]string{}, legit: map[int]bool{}}
		sys.goods = append(sys.goods, &System{Name: sys.Name, run: good.run()})
	}
	return sys, nil
}

// simulate runs the overlay of the design, a ring or a tree, with p.
func (d *ovDesign) simulate(rng *rand.Rand, p ovParams) *ovNet {
	if d.ring {
		rs := newRingSim(rng, p)
		rs.simulate(rs)
		return rs.ovNet
	}
	ts := newTreeSim(rng, p)
	ts.simulate(ts)
	return ts.ovNet
}

// ovSystem is an overlay run being planted: the nodes' states at each
// step, broken where a bug strikes.
type ovSystem struct {
	d      *ovDesign
	views  [][]*ovNode // per step, per node; a step's slice is its own
	steady []bool
	bug    map[int]string // step → the bug that strikes there
	legit  map[int]bool   // steps changed to a legitimate rare state
}

// natural reports whether t holds at every step of the run.
func (o *ovSystem) natural(t *ovTemplate) bool {
	return !slices.ContainsFunc(o.views, func(vs []*ovNode) bool { return !t.holds(vs) })
}

// silent returns the twins of t that the system can express and that
// hold at every step of the run: a broken state must not break them, or
// they would fail exactly where t does.
func (o *ovSystem) silent(t *ovTemplate) []ovCheck {
	var out []ovCheck
	for _, tw := range t.twins {
		if !slices.ContainsFunc(tw.needs, func(k ovVar) bool { return !o.d.has[k] }) && o.natural(&ovTemplate{holds: tw.holds}) {
			out = append(out, tw.holds)
		}
	}
	return out
}

// breaks reports whether node i in state b at step s breaks t, but no
// other property planted in the system and none of t's silent twins, at
// a step nothing else changed.
func (o *ovSystem) breaks(s, i int, b *ovNode, t *ovTemplate, all []*ovTemplate, silent []ovCheck) bool {
	if _, ok := o.bug[s]; ok || o.legit[s] || b == nil {
		return false
	}
	bad := slices.Clone(o.views[s])
	bad[i] = b
	return !t.holds(bad) && !slices.ContainsFunc(all, func(u *ovTemplate) bool { return u != t && !u.holds(bad) }) &&
		!slices.ContainsFunc(silent, func(c ovCheck) bool { return !c(bad) })
}

// plant breaks t at the strikes of its bug (drawStrikes), in one node's
// state per strike. With aftermath the node stays broken while its state
// goes on changing with the run's, until the episode ends; without, the
// broken state lasts until the node's next change. One property in
// ovLegitOneIn that has legitimate rare moments also fails at one, away
// from the bug's strikes and at fewer snapshots.
func (o *ovSystem) plant(rng *rand.Rand, t *ovTemplate, all []*ovTemplate) (Planted, bool) {
	silent := o.silent(t)
	broken := func(s, i int) *ovNode {
		if b := t.inject(o.views[s], i); o.breaks(s, i, b, t, all, silent) {
			return b
		}
		return nil
	}
	ok := func(s int) bool { return o.breakable(s, broken) }
	text, err := canonical(t.text(o.d))
	if err != nil {
		panic(err) // the templates write valid properties
	}
	pl := Planted{Name: t.name, Text: text, Shape: t.shape, Aftermath: rng.IntN(2) == 0}
	for _, st := range drawStrikes(rng, len(o.views), ok) {
		var nodes []int
		for i := range o.views[st.from] {
			if broken(st.from, i) != nil {
				nodes = append(nodes, i)
			}
		}
		i := nodes[rng.IntN(len(nodes))]
		first := o.views[st.from][i]
		b := broken(st.from, i)
		for s := st.from; s < st.to; s++ {
			if pl.Aftermath {
				b = broken(s, i)
			} else if o.views[s][i] != first || !o.breaks(s, i, b, t, all, silent) {
				b = nil // the node's change repairs its state
			}
			if b == nil {
				break
			}
			o.views[s][i], o.bug[s] = b, t.name
			pl.Snapshots = append(pl.Snapshots, snapshotID(s))
			if o.steady[s] {
				pl.Steady++
			}
		}
		pl.Strikes++
	}
	if pl.Strikes == 0 {
		return Planted{}, false
	}
	if t.legit != nil && rng.IntN(ovLegitOneIn) == 0 {
		pl.Legit = o.passThrough(rng, t, all, silent, len(pl.Snapshots)-1)
	}
	return pl, true
}

// ovLegitOneIn: one property in ovLegitOneIn that has legitimate rare
// moments fails at one.
const ovLegitOneIn = 3

// breakable reports whether broken breaks some node at step s.
func (o *ovSystem) breakable(s int, broken func(s, i int) *ovNode) bool {
	for i := range o.views[s] {
		if broken(s, i) != nil {
			return true
		}
	}
	return false
}

// passThrough has the run pass through a legitimate rare state that
// fails t, for one step or two but at most most, where t's legit
// finds one away from the bugs' strikes, and returns those snapshots.
func (o *ovSystem) passThrough(rng *rand.Rand, t *ovTemplate, all []*ovTemplate, silent []ovCheck, most int) []uint64 {
	quiet := func(s int) bool {
		_, bug := o.bug[s]
		return !bug && !o.legit[s]
	}
	type moment struct{ s, i int }
	var cands []moment
	for s := 1; s+1 < len(o.views); s++ {
		if !quiet(s-1) || !quiet(s+1) {
			continue
		}
		for i := range o.views[s] {
			if o.breaks(s, i, t.legit(o.views[s-1], o.views[s], i), t, all, silent) {
				cands = append(cands, moment{s, i})
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	m := cands[rng.IntN(len(cands))]
	b := t.legit(o.views[m.s-1], o.views[m.s], m.i)
	natural := o.views[m.s][m.i]
	var out []uint64
	for s := m.s; s < m.s+min(1+rng.IntN(2), most) && s+1 < len(o.views) && quiet(s+1); s++ {
		if o.views[s][m.i] != natural || !o.breaks(s, m.i, b, t, all, silent) {
			break
		}
		o.views[s][m.i], o.legit[s] = b, true
		out = append(out, snapshotID(s))
	}
	return out
}

// run returns the trace of the system: each node's state stored once
// and reused by the snapshots until what the trace shows of it changes.
func (o *ovSystem) run() *run {
	kinds := o.d.vars()
	r := &run{schema: make(trace.Schema, len(kinds)), snaps: make([]runSnap, len(o.views))}
	for i, k := range kinds {
		r.schema[i] = trace.Column{Name: o.d.name[k], Type: ovArrowType(k)}
	}
	last := map[int]*ovNode{} // node → its last stored state
	row := map[int]uint32{}
	for s, vs := range o.views {
		sn := &r.snaps[s]
		for i, v := range vs {
			if v == nil {
				continue
			}
			if prev, ok := last[i]; !ok || prev != v && !o.d.same(prev, v) {
				vals := make([]any, len(kinds))
				for j, k := range kinds {
					vals[j] = o.d.value(k, v)
				}
				row[i] = uint32(len(r.states))
				r.states = append(r.states, runState{node: v.id, ts: uint64(s) + 1, vals: vals})
			}
			last[i] = v
			sn.members = append(sn.members, row[i])
		}
		if o.steady[s] {
			sn.tags = append(sn.tags, SteadyTag)
		}
		if bug, ok := o.bug[s]; ok {
			sn.tags = append(sn.tags, BugTag(bug))
		}
	}
	return r
}

// same reports whether the trace shows a and b alike.
func (d *ovDesign) same(a, b *ovNode) bool {
	for _, k := range d.vars() {
		switch k {
		case ovChildren:
			if !slices.Equal(a.children, b.children) {
				return false
			}
		case ovSuccs:
			if !slices.Equal(a.succs, b.succs) {
				return false
			}
		default:
			if d.value(k, a) != d.value(k, b) {
				return false
			}
		}
	}
	return true
}

// value returns variable k of n in the trace representation.
func (d *ovDesign) value(k ovVar, n *ovNode) any {
	switch k {
	case ovID:
		return n.id
	case ovParent:
		return n.parent
	case ovChildren:
		return strs(n.children)
	case ovState:
		return d.status[n.status]
	case ovDepth:
		return n.depth
	case ovRoot:
		return n.root
	case ovGen:
		return n.gen
	case ovRound:
		return n.round
	case ovKey:
		return n.key
	case ovSucc:
		return orNull(n.succ)
	case ovPred:
		return orNull(n.pred)
	case ovSuccs:
		l := make([]any, len(n.succs))
		for i, e := range n.succs {
			l[i] = map[string]any{"id": e.id, "key": e.key}
		}
		return l
	}
	panic(fmt.Sprintf("planted: no overlay variable %d", k))
}

// orNull returns id, or nil (null in the trace) when it is "": a ring
// node that knows no successor or predecessor shows null, as Chord's
// implementations do.
func orNull(id string) any {
	if id == "" {
		return nil
	}
	return id
}

// ovArrowType returns the trace column type of variable k.
func ovArrowType(k ovVar) arrow.DataType {
	switch ovVarInfo[k].typ {
	case "N", "":
		return arrow.BinaryTypes.String
	case "set<N>":
		return arrow.ListOf(arrow.BinaryTypes.String)
	case "list<E>":
		return arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "key", Type: arrow.PrimitiveTypes.Int64, Nullable: true}))
	}
	return arrow.PrimitiveTypes.Int64
}

// spec returns the spec of the system: its variables and types, and
// generation settings under which every planted property is in the
// pool: two literals, the successor list as iterator domain only when
// a planted property iterates.
func (d *ovDesign) spec(system string, iterate bool) string {
	var b strings.Builder
	if d.ring {
		b.WriteString("# A system of augur bench quality: a Chord-like ring whose nodes join, leave,\n")
		b.WriteString("# crash and stabilise (package bench/planted).\n")
	} else {
		b.WriteString("# A system of augur bench quality: a tree overlay whose nodes join, leave,\n")
		b.WriteString("# crash and rejoin with their subtrees (package bench/planted).\n")
	}
	fmt.Fprintf(&b, "system: %s\ntypes:\n", system)
	used := map[string]bool{}
	for _, k := range d.vars() {
		t := ovVarInfo[k].typ
		if i := strings.IndexByte(t, '<'); i >= 0 {
			t = t[i+1 : len(t)-1] // the element type of a container
		}
		used[t] = true
	}
	if used["E"] {
		used["N"], used["K"] = true, true
	}
	for _, t := range []string{"N", "D", "V", "R", "K"} {
		if used[t] {
			repr := "int64"
			if t == "N" {
				repr = "string"
			}
			fmt.Fprintf(&b, "  %s: %s\n", d.types[t], repr)
		}
	}
	if used["E"] {
		fmt.Fprintf(&b, "  %s: \"{id: %s, key: %s}\"\n", d.types["E"], d.types["N"], d.types["K"])
	}
	b.WriteString("variables:\n")
	for _, k := range d.vars() {
		typ := ovVarInfo[k].typ
		switch typ {
		case "":
			typ = "{enum: [" + strings.Join(d.status[:], ", ") + "]}"
		case "set<N>":
			typ = "set<" + d.types["N"] + ">"
		case "list<E>":
			typ = "list<" + d.types["E"] + ">"
		default:
			typ = d.types[typ]
		}
		fmt.Fprintf(&b, "  %s: %s\n", d.name[k], typ)
	}
	if d.has[ovSuccs] && d.has[ovKey] {
		fmt.Fprintf(&b, "predicates:\n  - name: clockwise     # the list goes round the ring from key, without passing it\n")
		fmt.Fprintf(&b, "    params: [{l: \"list<%s>\"}, {k: %s}]\n", d.types["E"], d.types["K"])
		fmt.Fprintf(&b, "    expr: \"all(1..len(l)-1, {(l[# - 1].key - k + %[1]d) %% %[1]d < (l[#].key - k + %[1]d) %% %[1]d})\"\n", ovCircle)
	}
	domain := ""
	if iterate {
		domain = d.name[ovSuccs]
	}
	fmt.Fprintf(&b, "generate:\n  max_nodes: 2\n  max_literals: 2\n  max_per_class: %d   # no cap: every planted property is in the pool\n  iterate: [%s]\n  constants: {max_distinct: 2}\n", noCap, domain)
	b.WriteString("filter: {hold_ratio: 0.95, every: 500}\nreport: {size: 10, min_support: 30}\n")
	return b.String()
}
