package planted

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

// pbVar is a state variable a primary/backup system may expose.
type pbVar uint8

const (
	pbID      pbVar = iota // the node's own id
	pbRoleVar              // primary or backup
	pbEpoch                // the epoch the node is in
	pbPrim                 // the node it believes primary
	pbLease                // the epoch of the lease it holds or granted
	pbCommit               // commit point
	pbApplied              // applied point
	pbConfig               // configuration version
	pbInSync               // a primary's in-sync backups
	pbNumVars
)

// pbVarInfo describes the variables of the family as varInfo does those
// of the replicated log: category, semantic type (N, E, I, V, or a set
// of N) and the names a system may give it.
var pbVarInfo = [pbNumVars]struct {
	cat        category
	typ, names string
}{
	pbID:      {catID, "N", "id self name"},
	pbRoleVar: {catEnum, "", "role mode state"},
	pbEpoch:   {catCounter, "E", "epoch view era"},
	pbPrim:    {catID, "N", "primary owner believed_primary"},
	pbLease:   {catCounter, "E", "lease lease_epoch granted"},
	pbCommit:  {catIndex, "I", "commit committed commit_index"},
	pbApplied: {catIndex, "I", "applied executed applied_index"},
	pbConfig:  {catCounter, "V", "config conf_version cfg"},
	pbInSync:  {catSet, "set<N>", "in_sync isr synced"},
}

// Names of the family's semantic types and of its two roles.
var (
	pbTypeNames = map[string][]string{
		"N": {"NodeID", "Addr", "Host"},
		"E": {"Epoch", "View", "Era"},
		"I": {"Index", "Seq", "Offset"},
		"V": {"Version", "ConfID", "Generation"},
	}
	pbRoleNames = [][2]string{{"primary", "backup"}, {"primary", "secondary"}, {"master", "replica"}}
)

// pbOptional is the chance that a system has each variable its planted
// properties do not need.
var pbOptional = [pbNumVars]float64{
	pbID: 0.7, pbPrim: 0.6, pbLease: 0.6, pbCommit: 0.8, pbApplied: 0.6, pbConfig: 0.5, pbInSync: 0.4,
}

// Bounds on a primary/backup system's variables: a lean one, with a
// three-literal property planted, keeps its pool small.
const (
	pbMinVars       = 5
	pbLeanVars      = 6
	pbMinCategories = 4
)

// pbView is a node's state as the trace shows it.
type pbView struct {
	id, prim                              string
	role                                  pbRole
	epoch, lease, commit, applied, config int64
	insync                                []string
}

// pbDesign is what a primary/backup system is made of: its variables,
// their names, its roles' names and how its primaries fail.
type pbDesign struct {
	has, forbid [pbNumVars]bool
	name        [pbNumVars]string
	types       map[string]string
	roles       [2]string
	style       int
	lean        bool
}

func newPBDesign(rng *rand.Rand) *pbDesign {
	d := &pbDesign{types: map[string]string{}, roles: pbRoleNames[rng.IntN(len(pbRoleNames))]}
	for k := range pbNumVars {
		names := strings.Fields(pbVarInfo[k].names)
		d.name[k] = names[rng.IntN(len(names))]
	}
	for _, k := range slices.Sorted(maps.Keys(pbTypeNames)) {
		d.types[k] = pbTypeNames[k][rng.IntN(len(pbTypeNames[k]))]
	}
	d.has[pbRoleVar], d.has[pbEpoch] = true, true
	return d
}

// vars returns the system's variables, in spec order.
func (d *pbDesign) vars() []pbVar {
	var vs []pbVar
	for k := range pbNumVars {
		if d.has[k] {
			vs = append(vs, k)
		}
	}
	return vs
}

// categories counts the semantic categories of the system's variables.
func (d *pbDesign) categories() int {
	seen := map[category]bool{}
	for _, k := range d.vars() {
		seen[pbVarInfo[k].cat] = true
	}
	return len(seen)
}

// admits reports whether t fits what the design is committed to.
func (d *pbDesign) admits(t *pbTemplate) bool {
	for _, k := range t.needs {
		if d.forbid[k] {
			return false
		}
	}
	for _, k := range t.forbid {
		if d.has[k] {
			return false
		}
	}
	if t.lean && len(slices.DeleteFunc(d.vars(), func(k pbVar) bool { return slices.Contains(t.needs, k) }))+len(t.needs) > pbLeanVars {
		return false
	}
	if d.lean && len(d.vars())+len(slices.DeleteFunc(slices.Clone(t.needs), func(k pbVar) bool { return d.has[k] })) > pbLeanVars {
		return false
	}
	return t.style == pbAnyStyle || d.style == pbAnyStyle || t.style == d.style
}

// choose picks a template of shape that the design admits, and adopts
// it; nil when there is none.
func (d *pbDesign) choose(rng *rand.Rand, shape Shape) *pbTemplate {
	for _, i := range rng.Perm(len(pbTemplates)) {
		t := pbTemplates[i]
		if t.shape != shape || !d.admits(t) {
			continue
		}
		for _, k := range t.needs {
			d.has[k] = true
		}
		for _, k := range t.forbid {
			d.forbid[k] = true
		}
		if t.style != pbAnyStyle {
			d.style = t.style
		}
		d.lean = d.lean || t.lean
		return t
	}
	return nil
}

// addOptional adds variables at random, then as needed to have at least
// pbMinVars of at least pbMinCategories categories; a lean system stops
// at pbLeanVars.
func (d *pbDesign) addOptional(rng *rand.Rand) {
	most := int(pbNumVars)
	if d.lean {
		most = pbLeanVars
	}
	var allowed []pbVar
	for k := range pbNumVars {
		if !d.has[k] && !d.forbid[k] && pbOptional[k] > 0 {
			allowed = append(allowed, k)
		}
	}
	rng.Shuffle(len(allowed), func(i, j int) { allowed[i], allowed[j] = allowed[j], allowed[i] })
	for _, k := range allowed {
		if len(d.vars()) < most && rng.Float64() < pbOptional[k] {
			d.has[k] = true
		}
	}
	for _, k := range allowed {
		if !d.has[k] && len(d.vars()) < most && (len(d.vars()) < pbMinVars || d.categories() < pbMinCategories) {
			d.has[k] = true
		}
	}
}

// text formats a property: args are variables, printed as the system
// names them, and roles, quoted as its enum names them.
func (d *pbDesign) text(format string, args ...any) string {
	vals := make([]any, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case pbVar:
			vals[i] = d.name[a]
		case pbRole:
			vals[i] = d.roles[a]
		}
	}
	return fmt.Sprintf(format, vals...)
}

// value returns variable k of v in the trace representation.
func (d *pbDesign) value(k pbVar, v *pbView) any {
	switch k {
	case pbID:
		return v.id
	case pbRoleVar:
		return d.roles[v.role]
	case pbEpoch:
		return v.epoch
	case pbPrim:
		return v.prim
	case pbLease:
		return v.lease
	case pbCommit:
		return v.commit
	case pbApplied:
		return v.applied
	case pbConfig:
		return v.config
	case pbInSync:
		return strs(v.insync)
	}
	panic(fmt.Sprintf("planted: no primary/backup variable %d", k))
}

// schema returns the trace columns of the system's variables.
func (d *pbDesign) schema() trace.Schema {
	var s trace.Schema
	for _, k := range d.vars() {
		typ := arrow.DataType(arrow.PrimitiveTypes.Int64)
		switch k {
		case pbID, pbRoleVar, pbPrim:
			typ = arrow.BinaryTypes.String
		case pbInSync:
			typ = arrow.ListOf(arrow.BinaryTypes.String)
		}
		s = append(s, trace.Column{Name: d.name[k], Type: typ})
	}
	return s
}

// spec returns the system's spec: its types and variables, and
// generation limits under which every planted property is in the pool.
func (d *pbDesign) spec(system string, maxLiterals int) string {
	var b strings.Builder
	b.WriteString("# A system of augur bench quality: a primary/backup store with leases,\n")
	b.WriteString("# epochs and failover (package bench/planted).\n")
	fmt.Fprintf(&b, "system: %s\ntypes:\n", system)
	used := map[string]bool{}
	for _, k := range d.vars() {
		used[strings.TrimSuffix(strings.TrimPrefix(pbVarInfo[k].typ, "set<"), ">")] = true
	}
	for _, short := range []string{"N", "E", "I", "V"} {
		repr := "int64"
		if short == "N" {
			repr = "string"
		}
		if used[short] {
			fmt.Fprintf(&b, "  %s: %s\n", d.types[short], repr)
		}
	}
	b.WriteString("variables:\n")
	for _, k := range d.vars() {
		typ := pbVarInfo[k].typ
		switch {
		case k == pbRoleVar:
			typ = "{enum: [" + d.roles[pbPrimary] + ", " + d.roles[pbBackup] + "]}"
		case k == pbInSync:
			typ = `"set<` + d.types["N"] + `>"`
		default:
			typ = d.types[typ]
		}
		fmt.Fprintf(&b, "  %s: %s\n", d.name[k], typ)
	}
	fmt.Fprintf(&b, "generate:\n  max_nodes: 2\n  max_literals: %d\n  max_per_class: %d   # no cap: every planted property is in the pool\n  iterate: []\n  constants: {max_distinct: 2}\n",
		maxLiterals, noCap)
	b.WriteString("filter: {hold_ratio: 0.95, every: 500}\nreport: {size: 10, min_support: 30}\n")
	return b.String()
}

// pbSystem is a primary/backup system being generated: the design, the
// natural run as views, and the broken views planted in it.
type pbSystem struct {
	d      *pbDesign
	views  [][]*pbView // per step, per node: nil when down
	steady []bool
	calm   []bool
	broken map[int]pbBroken // step → the view that breaks a property
}

// pbBroken is one node's view at one step, changed to break a planted
// property; bug is empty at a legitimate moment, which is not tagged.
type pbBroken struct {
	node int
	v    *pbView
	bug  string
}

// generatePrimaryBackup generates a system of its family (see Family): a
// primary/backup store (pbSim) whose nodes expose five to nine of id,
// role, epoch, the primary they follow, lease epoch, commit and applied
// points, configuration version and in-sync set, with planted templates
// (pbTemplates) of one or two nodes and one to three literals.
func generatePrimaryBackup(seed int64, rng *rand.Rand, o Options) (*System, error) {
	d := newPBDesign(rng)
	control := rng.IntN(controlOneIn) == 0
	nodes := o.MinNodes + rng.IntN(o.MaxNodes-o.MinNodes+1)
	steps := o.MinSnapshots + rng.IntN(o.MaxSnapshots-o.MinSnapshots+1)
	var chosen []*pbTemplate
	if !control {
		want := 1 + rng.IntN(maxPlanted)
		shapes := []Shape{OneNodeOneLiteral, OneNodeTwoLiterals, TwoNodesTwoLiterals, TwoNodesThreeLiterals}
		rng.Shuffle(len(shapes), func(i, j int) { shapes[i], shapes[j] = shapes[j], shapes[i] })
		// Three literals need a lean system: decide it first, if at all.
		if i := slices.Index(shapes[:want], TwoNodesThreeLiterals); i > 0 {
			shapes[0], shapes[i] = shapes[i], shapes[0]
		}
		for _, sh := range shapes {
			if len(chosen) == want {
				break
			}
			if t := d.choose(rng, sh); t != nil {
				chosen = append(chosen, t)
			}
		}
	}
	d.addOptional(rng)
	if d.style == pbAnyStyle {
		d.style = pbCrash + rng.IntN(2)
	}
	// A template is planted only in a run where it is the answer: some
	// (those that need a backup to know more committed than a promoted
	// primary) are in one run in five or so. Try a few runs of the design.
	var (
		sim *pbSim
		ps  *pbSystem
		p   pbParams
	)
	for attempt := 0; ; attempt++ {
		if attempt == pbRunAttempts {
			return nil, nil
		}
		p = pbParams{
			nodes: nodes, steps: steps, style: d.style,
			maxDelay: 1 + rng.IntN(4), heartbeat: 15 + rng.IntN(40), busy: 0.1 + 0.3*rng.Float64(),
			failovers: 4 + rng.IntN(3) + steps/3000, crashes: 1 + rng.IntN(3) + steps/6000,
			firstEpoch: 2 + rng.Int64N(8),
		}
		sim = newPBSim(rng, p)
		sim.run()
		ps = &pbSystem{d: d, views: pbViews(sim), steady: sim.steady, calm: sim.calm, broken: map[int]pbBroken{}}
		if !slices.ContainsFunc(chosen, func(t *pbTemplate) bool { return !ps.natural(t) }) {
			break
		}
	}
	sys := &System{
		Seed: seed, Family: PrimaryBackup, Name: fmt.Sprintf("planted-%d", seed), Nodes: nodes, Snapshots: steps,
		Control: control, Elections: [...]string{pbCrash: "crash", pbLapse: "partition"}[d.style], Episodes: sim.next,
	}
	// A template that finds no room to break sends the generator to
	// another design.
	for _, t := range chosen {
		pl, ok := ps.plant(rng, t, chosen)
		if !ok {
			return nil, nil
		}
		sys.Planted = append(sys.Planted, pl)
	}
	for _, st := range sim.steady {
		if st {
			sys.Steady++
		}
	}
	maxLiterals := 2
	for _, t := range chosen {
		if t.shape == TwoNodesThreeLiterals {
			maxLiterals = 3
		}
	}
	for _, k := range d.vars() {
		sys.Variables = append(sys.Variables, d.name[k])
	}
	sys.Spec = d.spec(sys.Name, maxLiterals)
	sys.run = ps.run()
	for i := range o.GoodRuns {
		gs := newPBSim(goodRNG(seed, i), p)
		gs.run()
		good := &pbSystem{d: d, views: pbViews(gs), steady: gs.steady, calm: gs.calm, broken: map[int]pbBroken{}}
		sys.goods = append(sys.goods, &System{Name: sys.Name, run: good.run()})
	}
	return sys, nil
}

// pbViews turns the history of a run into what the trace shows, one view
// per state, shared by the steps at which the node's state is the same.
func pbViews(s *pbSim) [][]*pbView {
	names := make([]string, len(s.n))
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i+1)
	}
	cache := map[*pbState]*pbView{}
	out := make([][]*pbView, len(s.hist))
	for t, row := range s.hist {
		if t > 0 && &row[0] == &s.hist[t-1][0] {
			out[t] = out[t-1] // no node changed
			continue
		}
		out[t] = make([]*pbView, len(row))
		for i, st := range row {
			if st == nil {
				continue
			}
			v, ok := cache[st]
			if !ok {
				v = &pbView{id: names[i], role: st.role, epoch: st.epoch, lease: st.lease, commit: st.commit, applied: st.applied, config: st.config}
				if st.prim >= 0 {
					v.prim = names[st.prim]
				}
				v.insync = nameList(names, st.insync)
				cache[st] = v
			}
			out[t][i] = v
		}
	}
	return out
}

// at returns the views of step s, with a broken view where one was
// planted.
func (ps *pbSystem) at(s int) []*pbView {
	b, ok := ps.broken[s]
	if !ok {
		return ps.views[s]
	}
	vs := slices.Clone(ps.views[s])
	vs[b.node] = b.v
	return vs
}

// natural reports whether t holds at every step of the run and each of
// its twins that the system can express fails at some step.
func (ps *pbSystem) natural(t *pbTemplate) bool {
	for _, vs := range ps.views {
		if !t.holds(vs) {
			return false
		}
	}
	for _, tw := range t.twins {
		if slices.ContainsFunc(tw.needs, func(k pbVar) bool { return !ps.d.has[k] }) {
			continue
		}
		if !slices.ContainsFunc(ps.views, func(vs []*pbView) bool { return !tw.holds(vs) }) {
			return false
		}
	}
	return true
}

// pbRunAttempts bounds the runs simulated for one design.
const pbRunAttempts = 8

// pbLegitOneIn: one planted property in pbLegitOneIn also fails at one or
// two legitimate moments.
const pbLegitOneIn = 4

// plant breaks t at each strike of its bug (drawStrikes), in one node's
// state, where no other planted property breaks as well, on calm steps
// (no failover or crash under way). With an aftermath the node stays
// broken through its own changes until the episode ends; without, the
// broken state lasts until the node's next change. One property in
// pbLegitOneIn also shows the broken state, untagged, at one or two
// unsettled steps (a failover or a crash under way): the rare transient
// of a node caught mid-update, which a run may legitimately show.
func (ps *pbSystem) plant(rng *rand.Rand, t *pbTemplate, all []*pbTemplate) (Planted, bool) {
	text, err := canonical(ps.d.text(t.text, t.args...))
	if err != nil {
		panic(err) // the templates write valid properties
	}
	pl := Planted{Name: t.name, Text: text, Alts: ps.alts(t), Shape: t.shape, Aftermath: rng.IntN(2) == 0}
	// breaks returns whether v, as node i's view at step s, breaks t and
	// no other planted property.
	breaks := func(s, i int, v *pbView) bool {
		bad := slices.Clone(ps.views[s])
		bad[i] = v
		return !t.holds(bad) && !slices.ContainsFunc(all, func(u *pbTemplate) bool { return u != t && !u.holds(bad) })
	}
	// breakAt breaks t at step s in node (any node when negative) and
	// returns the node, or -1 if it cannot.
	breakAt := func(s, node int, bug string) int {
		if prev, ok := ps.broken[s-1]; ok && node >= 0 && ps.views[s][node] == ps.views[s-1][node] && breaks(s, node, prev.v) {
			ps.broken[s] = pbBroken{node, prev.v, bug}
			return node
		}
		for range 4 * len(ps.views[s]) {
			i, v := t.inject(ps.views[s], rng)
			if i < 0 {
				return -1
			}
			if node >= 0 && i != node {
				continue
			}
			if !breaks(s, i, v) {
				return -1
			}
			ps.broken[s] = pbBroken{i, v, bug}
			return i
		}
		return -1
	}
	// untaken reports whether step s and its neighbours break nothing.
	untaken := func(s int) bool {
		for d := -1; d <= 1; d++ {
			if _, taken := ps.broken[s+d]; taken {
				return false
			}
		}
		return true
	}
	for _, st := range drawStrikes(rng, len(ps.views), func(s int) bool { return ps.calm[s] && untaken(s) }) {
		node, from := -1, len(pl.Snapshots)
		for s := st.from; s < st.to; s++ {
			if node >= 0 && !pl.Aftermath && ps.views[s][node] != ps.views[s-1][node] {
				break // the node's change repairs its state
			}
			if node = breakAt(s, node, t.name); node < 0 {
				break
			}
			pl.Snapshots = append(pl.Snapshots, snapshotID(s))
			if ps.steady[s] {
				pl.Steady++
			}
		}
		if len(pl.Snapshots) > from {
			pl.Strikes++
		}
	}
	if pl.Strikes == 0 {
		return Planted{}, false
	}
	// Fewer legitimate failures than the bug's, or they would be the
	// property's story.
	if rng.IntN(pbLegitOneIn) == 0 {
		for range min(1+rng.IntN(maxLegitMoments), len(pl.Snapshots)-1) {
			for range maxPlacementAttempts {
				s := rng.IntN(len(ps.views))
				if ps.calm[s] || !untaken(s) {
					continue
				}
				if breakAt(s, -1, "") >= 0 {
					pl.Legit = append(pl.Legit, snapshotID(s))
					break
				}
			}
		}
		slices.Sort(pl.Legit)
	}
	return pl, true
}

// pbRoleLit matches the literals that say a node's role is not a value.
var pbRoleLit = regexp.MustCompile(`(n\d)\.(\w+) != "(\w+)"`)

// alts returns the other texts of t's property: its equivalent forms,
// each with every choice of spelling "role != r" as "role == s", s the
// other value of the two-valued role.
func (ps *pbSystem) alts(t *pbTemplate) []string {
	d := ps.d
	var out []string
	for _, format := range append([]string{t.text}, t.alts...) {
		src := d.text(format, t.args...)
		locs := slices.DeleteFunc(pbRoleLit.FindAllStringSubmatchIndex(src, -1), func(l []int) bool {
			return src[l[4]:l[5]] != d.name[pbRoleVar]
		})
		for mask := range 1 << len(locs) {
			var b strings.Builder
			prev := 0
			for j, l := range locs {
				if mask&(1<<j) == 0 {
					continue
				}
				other := d.roles[pbPrimary]
				if src[l[6]:l[7]] == other {
					other = d.roles[pbBackup]
				}
				fmt.Fprintf(&b, "%s%s.%s == %q", src[prev:l[0]], src[l[2]:l[3]], d.name[pbRoleVar], other)
				prev = l[1]
			}
			b.WriteString(src[prev:])
			text, err := canonical(b.String())
			if err != nil {
				panic(err) // the templates write valid properties
			}
			out = append(out, text)
		}
	}
	return out[1:] // the first is the property's own text
}

// run returns the trace: each view stored once, from the step at which
// it first appears, and the snapshots, tagged steady and bug:NAME.
func (ps *pbSystem) run() *run {
	r := &run{schema: ps.d.schema()}
	kinds := ps.d.vars()
	rows := map[*pbView]uint32{}
	for s := range ps.views {
		var sn runSnap
		for _, v := range ps.at(s) {
			if v == nil {
				continue
			}
			row, ok := rows[v]
			if !ok {
				vals := make([]any, len(kinds))
				for i, k := range kinds {
					vals[i] = ps.d.value(k, v)
				}
				row = uint32(len(r.states))
				r.states = append(r.states, runState{node: v.id, ts: uint64(s) + 1, vals: vals})
				rows[v] = row
			}
			sn.members = append(sn.members, row)
		}
		if ps.steady[s] {
			sn.tags = append(sn.tags, SteadyTag)
		}
		if b, ok := ps.broken[s]; ok && b.bug != "" {
			sn.tags = append(sn.tags, BugTag(b.bug))
		}
		r.snaps = append(r.snaps, sn)
	}
	return r
}
