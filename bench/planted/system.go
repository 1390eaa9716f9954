package planted

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/augur-dev/augur/grammar"
)

// Shape is the form of a planted property.
type Shape uint8

// The shapes of planted properties.
const (
	ShapeInvalid          Shape = iota
	OneNodeOneLiteral           // forall n0 in nodes: one literal
	OneNodeTwoLiterals          // forall n0 in nodes: two literals
	TwoNodesTwoLiterals         // forall n0, n1 in nodes: two literals
	TwoNodesThreeLiterals       // forall n0, n1 in nodes: three literals
	Iterator                    // an iterator over a container of a node
	Predicate                   // a predicate of the spec
	numShapes
)

var shapeText = [numShapes]string{"invalid", "1n1l", "1n2l", "2n2l", "2n3l", "iter", "pred"}

// String returns the shape's short label: "1n1l" (one node, one
// literal), "1n2l", "2n2l", "2n3l", "iter" or "pred".
func (s Shape) String() string {
	if s >= numShapes {
		return fmt.Sprintf("Shape(%d)", s)
	}
	return shapeText[s]
}

// MarshalText returns the shape's label, as String does.
func (s Shape) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Shapes lists the valid shapes.
func Shapes() []Shape {
	return []Shape{OneNodeOneLiteral, OneNodeTwoLiterals, TwoNodesTwoLiterals, TwoNodesThreeLiterals, Iterator, Predicate}
}

// Sizes of the generated systems.
const (
	MinNodes             = 3
	MaxNodes             = 16
	maxPlanted           = 3
	controlOneIn         = 5 // one system in controlOneIn is a control
	legitOneIn           = 3 // one run in legitOneIn lacks the legitimate moment a planted property could fail at
	maxGenerateAttempts  = 50
	maxPlacementAttempts = 400
)

// Length is the range of trace lengths of a benchmark run: the targets
// hold at two lengths, since a longer run has more legitimate rare
// moments for a planted bug to hide among.
type Length uint8

// The trace lengths.
const (
	Short Length = iota // 2,000 to 5,000 snapshots
	Long                // 20,000 to 50,000 snapshots
	numLengths
)

var lengths = [numLengths]struct {
	text     string
	min, max int
}{
	Short: {"short", 2000, 5000},
	Long:  {"long", 20000, 50000},
}

// String returns the length's label: "short" or "long".
func (l Length) String() string {
	if l >= numLengths {
		return fmt.Sprintf("Length(%d)", l)
	}
	return lengths[l].text
}

// MarshalText returns the length's label, as String does.
func (l Length) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// Snapshots returns the range of snapshots of a system of length l.
func (l Length) Snapshots() (lo, hi int) { return lengths[l].min, lengths[l].max }

// ParseLength returns the length labelled s.
func ParseLength(s string) (Length, error) {
	for l := range numLengths {
		if lengths[l].text == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("planted: unknown length %q (want short or long)", s)
}

// Options configure Generate. The zero value makes systems of 3 to 16
// nodes and 2,000 to 5,000 snapshots.
type Options struct {
	MinNodes, MaxNodes int // 0: MinNodes and MaxNodes
	// Length gives the range of snapshots, unless MinSnapshots and
	// MaxSnapshots, when not 0, say otherwise.
	Length                     Length
	MinSnapshots, MaxSnapshots int
	// GoodRuns asks for that many good runs of each system as well
	// (System.WriteGoodRun): the same system, the same design and
	// parameters, run again with other random choices and nothing
	// planted. The system itself does not change with them, nor a good
	// run with how many others are asked for.
	GoodRuns int
}

func (o Options) withDefaults() (Options, error) {
	if o.Length >= numLengths {
		return o, fmt.Errorf("planted: %v: no such length", o.Length)
	}
	lo, hi := o.Length.Snapshots()
	if o.MinNodes == 0 {
		o.MinNodes = MinNodes
	}
	if o.MaxNodes == 0 {
		o.MaxNodes = max(MaxNodes, o.MinNodes)
	}
	if o.MinSnapshots == 0 {
		o.MinSnapshots = lo
	}
	if o.MaxSnapshots == 0 {
		o.MaxSnapshots = max(hi, o.MinSnapshots)
	}
	switch {
	case o.MinNodes < MinNodes || o.MaxNodes < o.MinNodes:
		return o, fmt.Errorf("planted: nodes %d to %d: want at least %d, in increasing order", o.MinNodes, o.MaxNodes, MinNodes)
	case o.MinSnapshots < 200 || o.MaxSnapshots < o.MinSnapshots:
		return o, fmt.Errorf("planted: snapshots %d to %d: want at least 200, in increasing order", o.MinSnapshots, o.MaxSnapshots)
	}
	return o, nil
}

// Planted is a property planted in a system: it holds at every snapshot
// of the trace but those of Snapshots, which are tagged bug:Name, and
// those of Legit, which are not.
type Planted struct {
	Name string `json:"name"`
	Text string `json:"text"` // canonical text (grammar.Property.Text)
	// Alts are other texts of the same property, which a report may show
	// instead: the other spelling of a two-valued enum (role == "backup"
	// for role != "primary").
	Alts      []string `json:"alts,omitempty"`
	Shape     Shape    `json:"shape"`
	Snapshots []uint64 `json:"snapshots"` // the snapshots where it is broken by the bug, in order
	Steady    int      `json:"steady"`    // how many of them are in steady state
	// Strikes is the number of separate episodes in Snapshots: the
	// times the bug struck.
	Strikes int `json:"strikes"`
	// Legit lists the snapshots, not tagged, where the property fails
	// although no bug struck: a legitimate moment or two of the run.
	Legit []uint64 `json:"legit,omitempty"`
	// Aftermath reports whether the broken state outlives the change
	// that broke it: the broken node goes on taking part in the run, its
	// state changing with the system's while the property stays broken,
	// until the episode ends. Without aftermath an episode is one broken
	// state of the node, gone with the node's next change.
	Aftermath bool `json:"aftermath"`
}

// System is a generated system: its spec, its trace (written by
// WriteTrace) and the properties planted in it.
type System struct {
	Seed      int64
	Family    Family
	Name      string // the spec's system
	Nodes     int
	Learners  int
	Snapshots int
	Steady    int    // snapshots in steady state
	Spec      string // the spec, YAML
	Control   bool   // nothing is planted
	Planted   []Planted
	Variables []string // the state variables, in spec order
	Elections string   // the replicated log's: how leaders fail, "crash" or "partition"
	Episodes  int      // the replicated log's elections, crashes and membership changes

	run   *run      // the trace, in every family but the replicated log
	goods []*System // the good runs Options.GoodRuns asked for

	legit  [numLogLegits]bool // the legitimate rare moments the run has
	d      *design
	views  [][]*view
	broken map[int]brokenView // step → the node view that breaks a planted property
	steady []bool
	calm   []bool
}

// brokenView is one node's view, changed to break a planted property.
type brokenView struct {
	node int
	v    *view
	bug  string
}

// Generate makes the system of seed, of family Families()[seed mod 4]:
// the same seed and options always give the same system. One system in
// five is a control, with nothing planted; the others have one to three
// planted properties of different shapes, each broken in one node's
// state at each strike of its bug (see drawStrikes).
func Generate(seed int64, opts Options) (*System, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	gen := generate
	switch fam := familyOf(seed); fam {
	case PrimaryBackup:
		gen = generatePrimaryBackup
	case Mesh:
		gen = generateMesh
	case Overlay:
		gen = generateOverlay
	}
	for attempt := range uint64(maxGenerateAttempts) {
		rng := rand.New(rand.NewPCG(uint64(seed), attempt))
		sys, err := gen(seed, rng, o)
		if err != nil {
			return nil, fmt.Errorf("planted: seed %d: %w", seed, err)
		}
		if sys != nil {
			return sys, nil
		}
	}
	return nil, fmt.Errorf("planted: seed %d: no system in %d attempts", seed, maxGenerateAttempts)
}

// goodStream is the PCG stream of the first good run's random choices
// (see Options.GoodRuns), the next ones the others', apart from those of
// the attempts to generate the system (0 to maxGenerateAttempts-1),
// which it must not change.
const goodStream = 1 << 62

// goodRNG returns the random source of the i-th good run of seed's
// system, from 0.
func goodRNG(seed int64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), goodStream+uint64(i)))
}

// generate makes a system of the replicated-log family from rng, or
// returns nil when the properties chosen for it cannot be planted in the
// run it simulated.
func generate(seed int64, rng *rand.Rand, o Options) (*System, error) {
	d := newDesign(rng)
	control := rng.IntN(controlOneIn) == 0
	nodes := o.MinNodes + rng.IntN(o.MaxNodes-o.MinNodes+1)
	steps := o.MinSnapshots + rng.IntN(o.MaxSnapshots-o.MinSnapshots+1)
	for _, k := range []varKind{varRole, varTerm} {
		d.has[k] = true
	}
	var chosen []*template
	if !control {
		want := 1 + rng.IntN(maxPlanted)
		shapes := rng.Perm(int(numShapes) - 1)
		// Three literals need a lean system: decide it first, if at all.
		if i := slices.Index(shapes[:want], int(TwoNodesThreeLiterals)-1); i > 0 {
			shapes[0], shapes[i] = shapes[i], shapes[0]
		}
		for _, sh := range shapes {
			if len(chosen) == want {
				break
			}
			if t := d.choose(rng, Shape(sh+1)); t != nil {
				chosen = append(chosen, t)
			}
		}
	}
	d.addOptional(rng)
	if d.iterator {
		d.window = 2 // iterators cost time per element
	}
	if d.style == styleAny {
		d.style = styleCrash
		if rng.IntN(2) == 0 {
			d.style = stylePartition
		}
	}
	p := params{
		nodes:     nodes,
		steps:     steps,
		partition: d.style == stylePartition,
		maxDelay:  1 + rng.IntN(4),
		busy:      0.1 + 0.2*rng.Float64(),
		firstTerm: 1 + rng.Int64N(9),
	}
	if d.learners && nodes < 6 {
		if o.MaxNodes < 6 {
			return nil, nil
		}
		p.nodes, nodes = 6, 6 // room for a learner
	}
	if nodes >= 6 && (d.learners || rng.IntN(2) == 0) {
		p.learners = 1 + rng.IntN(min(2, nodes-5))
	}
	p.episodes = plan(rng, steps, d.has[varMembers] || d.has[varConfig])
	// Some planted properties also fail at a legitimate rare moment of
	// the run, where the system has one that breaks them.
	for _, t := range chosen {
		if t.legit != logLegitNone && rng.IntN(legitOneIn) > 0 {
			p.legit[t.legit] = true
		}
	}
	s := newSim(rng, p)
	s.run()

	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i+1)
	}
	sys := &System{
		Seed: seed, Family: ReplicatedLog, Name: fmt.Sprintf("planted-%d", seed), Nodes: nodes, Learners: p.learners, Snapshots: steps,
		Control: control, Elections: "crash",
		Episodes: len(p.episodes), d: d, views: d.views(s, names), broken: map[int]brokenView{}, steady: s.steady, calm: s.calm,
		legit: p.legit,
	}
	if p.partition {
		sys.Elections = "partition"
	}
	for _, st := range s.steady {
		if st {
			sys.Steady++
		}
	}

	// Keep the templates that are natural in this run and whose twins are
	// not, then break each at a few snapshots.
	chosen = slices.DeleteFunc(chosen, func(t *template) bool { return !sys.natural(t) })
	for _, t := range chosen {
		pl, ok := sys.plant(rng, t, chosen)
		if !ok {
			continue
		}
		sys.Planted = append(sys.Planted, pl)
	}
	if !control && len(sys.Planted) == 0 {
		return nil, nil
	}
	for _, k := range d.vars() {
		sys.Variables = append(sys.Variables, d.name[k])
	}
	sys.Spec = d.spec(sys.Name, p.learners > 0, sys.settings())
	for i := range o.GoodRuns {
		gs := newSim(goodRNG(seed, i), p)
		gs.run()
		sys.goods = append(sys.goods, &System{Name: sys.Name, d: d, views: d.views(gs, names), steady: gs.steady, calm: gs.calm})
	}
	return sys, nil
}

// choose picks a template of shape that the design admits, and adopts
// it; nil when there is none.
func (d *design) choose(rng *rand.Rand, shape Shape) *template {
	for _, i := range rng.Perm(len(templates)) {
		t := templates[i]
		if t.shape != shape || !d.admits(t) {
			continue
		}
		for _, k := range t.needs {
			d.has[k] = true
		}
		for _, k := range t.forbid {
			d.forbid[k] = true
		}
		if t.style != styleAny {
			d.style = t.style
		}
		d.lean = d.lean || t.lean
		d.learners = d.learners || t.learners
		d.iterator = d.iterator || t.shape == Iterator
		return t
	}
	return nil
}

// admits reports whether t fits the variables and election style the
// design is committed to.
func (d *design) admits(t *template) bool {
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
	// A lean system has few variables, one index variable and no
	// iterator.
	isIndex := func(k varKind) bool { return varInfo[k].cat == catIndex }
	if t.lean {
		others := slices.DeleteFunc(d.vars(), func(k varKind) bool { return slices.Contains(t.needs, k) })
		if d.iterator || len(others) > leanVars-len(t.needs) || slices.ContainsFunc(others, isIndex) {
			return false
		}
	}
	if d.lean && (t.shape == Iterator || slices.ContainsFunc(t.needs, func(k varKind) bool { return isIndex(k) && !d.has[k] })) {
		return false
	}
	return t.style == styleAny || d.style == styleAny || d.style == t.style
}

// optional is the chance that a system has each variable the planted
// properties do not need.
var optional = [numVarKinds]float64{
	varID: 0.7, varLead: 0.5, varCommit: 0.8, varApplied: 0.6, varLast: 0.5, varLog: 0.35,
	varMembers: 0.35, varConfig: 0.3, varAcked: 0.3, varSent: 0.25, varRecv: 0.25,
}

// Bounds on the number of state variables of a system, and on their
// semantic categories.
const (
	minVars       = 5
	maxVars       = 12
	leanVars      = 7 // at most, in a lean system
	iterVars      = 7 // at most, in a system with an iterator: each costs time per element
	minCategories = 4
)

// addOptional adds variables at random, then as needed to have at least
// minVars of at least minCategories categories.
func (d *design) addOptional(rng *rand.Rand) {
	// Index variables compare with each other and with the log's
	// indices: each one adds many literals. Lean systems add none, and
	// systems with an iterator, whose literals cost most, few.
	most, indices := maxVars, maxVars
	if d.iterator {
		most, indices = iterVars, 2
	}
	if d.lean {
		most, indices = leanVars, 0
	}
	fits := func(k varKind) bool {
		if varInfo[k].cat != catIndex {
			return true
		}
		n := 0
		for _, v := range d.vars() {
			if varInfo[v].cat == catIndex {
				n++
			}
		}
		return n < indices
	}
	var allowed []varKind
	for k := range numVarKinds {
		if !d.has[k] && !d.forbid[k] && optional[k] > 0 {
			allowed = append(allowed, k)
		}
	}
	rng.Shuffle(len(allowed), func(i, j int) { allowed[i], allowed[j] = allowed[j], allowed[i] })
	for _, k := range allowed {
		if len(d.vars()) < most && fits(k) && rng.Float64() < optional[k] {
			d.has[k] = true
		}
	}
	for _, k := range allowed {
		if !d.has[k] && fits(k) && (len(d.vars()) < minVars || d.categories() < minCategories && d.newCategory(k)) {
			d.has[k] = true
		}
	}
}

// newCategory reports whether variable k would add a category.
func (d *design) newCategory(k varKind) bool {
	for _, v := range d.vars() {
		if varInfo[v].cat == varInfo[k].cat {
			return false
		}
	}
	return true
}

// plan returns the episodes of a run of the given length, in random
// order: at least four elections (so that terms take more values than
// the spec mines constants for), some crashes and, with a membership,
// some moves.
func plan(rng *rand.Rand, steps int, membership bool) []episode {
	var eps []episode
	for range 4 + rng.IntN(3) + steps/4000 {
		eps = append(eps, episodeElection)
	}
	for range rng.IntN(3) {
		eps = append(eps, episodeCrash)
	}
	moves := rng.IntN(2)
	if membership {
		moves = 1 + rng.IntN(2)
	}
	for range moves {
		eps = append(eps, episodeMove)
	}
	rng.Shuffle(len(eps), func(i, j int) { eps[i], eps[j] = eps[j], eps[i] })
	return eps
}

// at returns the views of the nodes at step t, with a broken view where
// one was planted.
func (sys *System) at(t int) []*view {
	b, ok := sys.broken[t]
	if !ok {
		return sys.views[t]
	}
	vs := slices.Clone(sys.views[t])
	vs[b.node] = b.v
	return vs
}

// natural reports whether t holds at every step of the run, but at the
// legitimate moments of its legit mechanism, if the run has them, and
// each of its twins fails at some step.
func (sys *System) natural(t *template) bool {
	var fails []int
	for s, vs := range sys.views {
		if !t.holds(sys.d, vs) {
			fails = append(fails, s)
		}
	}
	if len(fails) > 0 && (!sys.legit[t.legit] || moments(fails) > maxLegitMoments) {
		return false
	}
	for _, tw := range t.twins {
		if slices.ContainsFunc(tw.needs, func(k varKind) bool { return !sys.d.has[k] }) {
			continue // not expressible in this system
		}
		if !slices.ContainsFunc(sys.views, func(vs []*view) bool { return !tw.holds(sys.d, vs) }) {
			return false
		}
	}
	return true
}

// maxLegitMoments bounds the legitimate moments at which a planted
// property fails: one or two, or it would not be an almost-invariant
// whose rare violations are a bug's.
const maxLegitMoments = 2

// moments counts the runs of consecutive steps in steps, which are in
// increasing order.
func moments(steps []int) int {
	n := 0
	for i, s := range steps {
		if i == 0 || s != steps[i-1]+1 {
			n++
		}
	}
	return n
}

// plant breaks t in one node's state at each strike of its bug (see
// drawStrikes), where no other property planted (or to be planted) in the
// system breaks as well. Half the bugs have an aftermath: the node stays
// broken through its own changes until the episode ends, as a corrupted
// value is carried forward; the others break one state of the node,
// which the node's next change repairs. That is how the testbeds' bugs
// show: a check, once it fails, mostly stays failed for a while, and the
// failing snapshots are not steady more often than the run's others. The
// steps are calm (no election, crash or membership change is under way)
// so that no rare state of the run makes some odd property fail only
// where t is broken, and away from t's legitimate failures. It reports
// false, leaving nothing broken, when not one strike fits or when t
// fails legitimately at as many snapshots as its bug breaks it: most of
// a planted property's failures are its bug's.
func (sys *System) plant(rng *rand.Rand, t *template, all []*template) (Planted, bool) {
	pl := Planted{Name: t.name, Shape: t.shape, Aftermath: rng.IntN(2) == 0}
	text, err := canonical(t.text(sys.d))
	if err != nil {
		panic(err) // the templates write valid properties
	}
	pl.Text = text
	legitStep := map[int]bool{}
	for s, vs := range sys.views {
		if !t.holds(sys.d, vs) {
			legitStep[s] = true
			pl.Legit = append(pl.Legit, snapshotID(s))
		}
	}
	// breakAt breaks t at step s in the node asked for, or in any node
	// when node is negative, and returns the node, or -1 if it cannot.
	// A node whose state has not changed since the step before keeps its
	// broken state.
	breakAt := func(s, node int) int {
		vs := sys.views[s]
		breaks := func(i int, v *view) bool {
			bad := slices.Clone(vs)
			bad[i] = v
			return !t.holds(sys.d, bad) && !slices.ContainsFunc(all, func(u *template) bool { return u != t && !u.holds(sys.d, bad) })
		}
		if prev, ok := sys.broken[s-1]; ok && node >= 0 && vs[node] == sys.views[s-1][node] && breaks(node, prev.v) {
			sys.broken[s] = prev
			return node
		}
		// The injectors pick the node at random: ask again for the one
		// already broken.
		for range 4 * len(vs) {
			i, v := t.inject(sys.d, vs, rng)
			if i < 0 {
				return -1
			}
			if node >= 0 && i != node {
				continue
			}
			if !breaks(i, v) {
				return -1
			}
			sys.broken[s] = brokenView{node: i, v: v, bug: t.name}
			return i
		}
		return -1
	}
	free := func(s int) bool {
		_, taken := sys.broken[s]
		return sys.calm[s] && !taken && !legitStep[s] && !legitStep[s-1] && !legitStep[s+1]
	}
	for _, st := range drawStrikes(rng, len(sys.views), free) {
		node, from := -1, len(pl.Snapshots)
		for s := st.from; s < st.to; s++ {
			if node >= 0 && !pl.Aftermath && sys.views[s][node] != sys.views[s-1][node] {
				break // the node's change repairs its state
			}
			if node = breakAt(s, node); node < 0 {
				break
			}
			pl.Snapshots = append(pl.Snapshots, snapshotID(s))
			if sys.steady[s] {
				pl.Steady++
			}
		}
		if len(pl.Snapshots) > from {
			pl.Strikes++
		}
	}
	// Most of its failures must be the bug's, or its anomaly is not.
	if len(pl.Legit) >= len(pl.Snapshots) {
		for _, id := range pl.Snapshots {
			delete(sys.broken, int(id)-1)
		}
		return Planted{}, false
	}
	return pl, true
}

// snapshotID is the ID of the snapshot of step s.
func snapshotID(s int) uint64 { return uint64(s) + 1 }

// canonical returns the canonical text of the property src.
func canonical(src string) (string, error) {
	p, err := grammar.Parse(src)
	if err != nil {
		return "", err
	}
	return p.Text(), nil
}

// settings returns the generate section of the spec: enough literals
// and iterators for the planted properties, and no more, since each
// costs time. No class is capped, so that every planted property is in
// the pool; three literals are allowed only in lean systems, whose pool
// stays small.
func (sys *System) settings() generateSettings {
	g := generateSettings{maxLiterals: 2}
	if slices.ContainsFunc(sys.Planted, func(p Planted) bool { return p.Shape == TwoNodesThreeLiterals }) {
		g.maxLiterals = 3
	}
	if sys.d.iterator {
		g.iterate = []varKind{varLog}
	}
	return g
}

// Describe returns a line saying what the system is.
func (sys *System) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d (%s): %d nodes", sys.Seed, sys.Family, sys.Nodes)
	if sys.Learners > 0 {
		fmt.Fprintf(&b, " (%d learners)", sys.Learners)
	}
	fmt.Fprintf(&b, ", %d snapshots (%d steady), %d variables (%s)",
		sys.Snapshots, sys.Steady, len(sys.Variables), strings.Join(sys.Variables, " "))
	if sys.Elections != "" {
		fmt.Fprintf(&b, ", %s elections, %d episodes", sys.Elections, sys.Episodes)
	}
	if sys.Control {
		b.WriteString("; control")
	}
	for _, p := range sys.Planted {
		fmt.Fprintf(&b, "; %s %s at %d snapshots in %d strikes", p.Shape, p.Name, len(p.Snapshots), p.Strikes)
		if p.Aftermath {
			b.WriteString(" with aftermath")
		}
		if len(p.Legit) > 0 {
			fmt.Fprintf(&b, ", failing legitimately at %d", len(p.Legit))
		}
	}
	return b.String()
}
