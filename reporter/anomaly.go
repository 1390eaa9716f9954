package reporter

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
)

// One rare anomaly of a run (a corner-case bug striking at a few
// snapshots) breaks a simple property Q and many weakenings of it: Q or R,
// two-node forms that need a partner to break, forms that hold vacuously
// elsewhere. Each fails at a subset of Q's moments. This file groups the
// candidates by the moments at which they fail, so that the report shows
// each anomaly once, by its simplest property.

// Grouping says when a property belongs to the anomaly of a simpler one,
// or of an equally simple one failing at the same moments. Both bounds
// are shares: whether a property is another's shadow does not depend on
// how often the bug struck or how long the run was.
//
// Two equally simple properties, or two each simpler in its own way (one
// with an iterator, the other with a second literal), are one anomaly
// only when each fails at (almost) the other's moments, Within both
// ways: co-symptoms of one bug. One that fails at a few of the other's
// moments pins down something the other does not (a long episode of
// which it singles out the bug's snapshots, say), and stands alone.
//
// A weakening P of a simpler Q (at least as many node variables,
// iterators and literals, more of one) joins Q when P's moments lie
// (almost) within Q's:
//
//   - a weakening by form whatever the ratio of their moments: a
//     syntactic weakening (P = Q or R, up to the naming of node
//     variables) unless R explains Q's violations (the or-effect test),
//     or one that Q implies by a step on equal values, order or
//     containers (impliers: n0.commit <= n1.last or n1.last <= n0.last
//     of n0.commit <= n0.last). Either fails only where Q does, at the
//     moments where its partner or its other literal happens to be
//     there: it catches some of a bug's strikes, as many as chance
//     gives, and stands for nothing Q does not;
//   - otherwise (one that explains Q's violations, or a two-node form
//     whose relation to Q takes more than a step, say) when Q has at
//     most Factor times P's violating snapshots or Factor times its
//     violation events. A co-symptom of the same bug explains Q too,
//     and Q is what a person wants to read (DESIGN §7.6); the few
//     moments where a broad Q's explained weakening still fails are an
//     anomaly of their own.
type Grouping struct {
	// Within is the least share of P's violating snapshots that must be
	// violating snapshots of Q for P to join Q's anomaly.
	Within float64
	// Factor bounds how many more violating snapshots, or violation
	// events (Entry.ViolationEvents, separate episodes), Q may have than
	// a weakening P that is not one by form, as a ratio. A broad, noisy
	// property absorbs nothing rare. A partner form fails at a few
	// moments of some of the strikes of a bug, with the chance that the
	// partner is there: it catches one strike in Factor, whatever the
	// number of strikes or how long the damage of each lasts.
	Factor float64
}

// DefaultGrouping is the grouping of reports.
var DefaultGrouping = Grouping{Within: 0.9, Factor: 4}

// An anomaly is the candidates that fail at (almost) the same moments,
// shown by the simplest of them.
type anomaly struct {
	rep     *Entry    // the representative, the simplest member
	members []*Entry  // the others, simplest first
	moments []uint64  // the representative's violating snapshots
	set     momentSet // the same, as a set
	shape   shape     // the representative's
}

// shape is what makes a property simple: fewer node variables, then fewer
// iterator variables, then fewer literals.
type shape struct{ nodes, iters, literals int }

func shapeOf(p *grammar.Property) shape {
	var s shape
	for _, q := range p.Quants {
		if q.Domain == nil {
			s.nodes += len(q.Vars)
		} else {
			s.iters += len(q.Vars)
		}
	}
	s.literals = len(p.Matrix)
	return s
}

// atMost reports whether s is at most t in every count: whether a
// property of shape t may be a weakening of one of shape s. One that has
// an iterator where the other has a second literal is not the other's
// weakening, though it comes after it in the order of compareShapes.
func (s shape) atMost(t shape) bool {
	return s.nodes <= t.nodes && s.iters <= t.iters && s.literals <= t.literals
}

func compareShapes(a, b shape) int {
	return cmp.Or(cmp.Compare(a.nodes, b.nodes), cmp.Compare(a.iters, b.iters), cmp.Compare(a.literals, b.literals))
}

// groupAnomalies groups es into anomalies. moments returns an entry's
// violating snapshots, in increasing order (all of them, or as many as
// were kept). Entries are taken simplest first (by shape, then relating
// fewer things: reads); of equally simple ones, those covering more
// moments first, then those failing at fewer bindings (of two failing at
// the same snapshots, the one that says more precisely what broke).
//
// An entry joins, of the anomalies of representatives taken before it
// that Grouping lets it join, the tightest: the one whose representative
// fails at the fewest snapshots, the first of those. "No two tokens of
// one generation" (23 snapshots) is what its weakening "not both
// holding, or of different generations" fails with, not "at most one
// holder" (46 snapshots, the stale holders' too), though both admit it.
// An entry that stands out at holdRatio (standsOut) never joins a
// representative that does not: that anomaly is left out of the report,
// and the rare one would vanish with it. Entries that join no anomaly
// start one. The anomalies come in the order of their representatives.
func groupAnomalies(es []*Entry, moments func(*Entry) []uint64, g Grouping, holdRatio float64) []*anomaly {
	shapes := make(map[*Entry]shape, len(es))
	for _, e := range es {
		shapes[e] = shapeOf(e.prop.Property)
	}
	order := groupOrder(es, moments, shapes)
	var out []*anomaly
	// The anomalies failing in each word of snapshots (momentSet), in
	// order, with their word.
	type holder struct {
		i    int
		word uint64
	}
	at := map[uint64][]holder{}
	texts := subTexts{}
	var near []int
	var seen []int // seen[i] is 1 + the index in order of the last entry to try anomaly i
	for k, e := range order {
		ms, sh := moments(e), shapes[e]
		var set momentSet // ms as a set, made once when needed
		// The texts of e's sub-disjunctions and of its impliers', each
		// computed once when needed.
		var subs, implied map[string]bool
		byForm := func(q *Entry) bool {
			if slices.Contains(q.ExplainedBy, e.Text) {
				return false
			}
			if subs == nil {
				subs = subDisjunctions(e.prop.Property, texts)
			}
			if subs[q.symText()] {
				return true
			}
			if implied == nil {
				implied = impliedTexts(e.prop.Property)
			}
			return implied[q.symText()]
		}
		// An anomaly holding (almost) all of ms holds one of its first
		// g.misses(len(ms))+1 moments: only those anomalies are tried.
		near = near[:0]
		first := ms[:min(len(ms), g.misses(len(ms))+1)]
		for j := 0; j < len(first); {
			key, w := first[j]/64, uint64(0)
			for ; j < len(first) && first[j]/64 == key; j++ {
				w |= 1 << (first[j] % 64)
			}
			for _, h := range at[key] {
				if h.word&w != 0 && seen[h.i] != k+1 {
					seen[h.i] = k + 1
					near = append(near, h.i)
				}
			}
		}
		slices.Sort(near)
		best := -1 // the tightest anomaly e may join so far
		for _, i := range near {
			a := out[i]
			// The cheap tests first: shapes, then moments, then text.
			simpler := compareShapes(a.shape, sh)
			if simpler > 0 || standsOut(e, holdRatio) && !standsOut(a.rep, holdRatio) {
				continue
			}
			if set.keys == nil {
				set = newMomentSet(ms)
			}
			if np, upto := kept(ms, a.moments, a.rep.ViolatingSnapshots); !g.within(set, np, upto, a.set, len(a.moments)) {
				continue
			}
			if simpler == 0 || !a.shape.atMost(sh) {
				// Equally simple, or each simpler in its own way (an
				// iterator for a literal): the same anomaly only when
				// each fails at (almost) the other's moments.
				if np, upto := kept(a.moments, ms, e.ViolatingSnapshots); !g.within(a.set, np, upto, set, len(ms)) {
					continue
				}
			} else {
				// A weakening of the representative.
				if !g.bounded(e.ViolatingSnapshots, a.rep.ViolatingSnapshots) && !g.bounded(e.ViolationEvents, a.rep.ViolationEvents) && !byForm(a.rep) {
					continue
				}
			}
			if best < 0 || a.rep.ViolatingSnapshots < out[best].rep.ViolatingSnapshots {
				best = i
			}
		}
		if best >= 0 {
			out[best].members = append(out[best].members, e)
		} else {
			if set.keys == nil {
				set = newMomentSet(ms)
			}
			for j, key := range set.keys {
				at[key] = append(at[key], holder{len(out), set.words[j]})
			}
			out = append(out, &anomaly{rep: e, moments: ms, set: set, shape: sh})
			seen = append(seen, 0)
		}
	}
	return out
}

// A momentSet is an increasing list of snapshot ids as a sparse bitset:
// its nonzero 64-bit words, in order, each with its index (an id over
// 64). Grouping compares candidates' lists of up to thousands of moments
// with hundreds of anomalies each; a lasting episode is a few words, and
// a word of each compares 64 snapshots at once.
type momentSet struct {
	keys  []uint64 // the words' indices, increasing
	words []uint64 // bit b of words[i] says whether keys[i]*64+b is in
}

// newMomentSet returns the set of ms, an increasing list.
func newMomentSet(ms []uint64) momentSet {
	const none = ^uint64(0) // no word's index: an id over 64 is far below it
	n, last := 0, none
	for _, m := range ms {
		if m/64 != last {
			n, last = n+1, m/64
		}
	}
	s := momentSet{keys: make([]uint64, n), words: make([]uint64, n)}
	i, last := -1, none
	for _, m := range ms {
		if m/64 != last {
			i, last = i+1, m/64
			s.keys[i] = last
		}
		s.words[i] |= 1 << (m % 64)
	}
	return s
}

// groupOrder returns es in the order groupAnomalies takes them:
// simplest first, by shape and then by what they relate (reads), then
// those covering more moments, then those failing at fewer bindings,
// then by text.
func groupOrder(es []*Entry, moments func(*Entry) []uint64, shapes map[*Entry]shape) []*Entry {
	order := slices.Clone(es)
	type relates struct{ vars, links int }
	rel := make(map[*Entry]relates, len(es))
	for _, e := range es {
		v, l := reads(e.prop.Property)
		rel[e] = relates{v, l}
	}
	slices.SortStableFunc(order, func(a, b *Entry) int {
		return cmp.Or(
			compareShapes(shapes[a], shapes[b]),
			cmp.Compare(rel[a].vars, rel[b].vars),
			cmp.Compare(rel[a].links, rel[b].links),
			-cmp.Compare(len(moments(a)), len(moments(b))),
			cmp.Compare(a.Violations, b.Violations),
			cmp.Compare(a.Text, b.Text),
		)
	})
	return order
}

// within reports whether (almost) all of p's moments up to upto, np of
// them, are q's, which has nq: at least Within of the np. It stops as
// soon as too many of p's are missing from q.
func (g Grouping) within(p momentSet, np int, upto uint64, q momentSet, nq int) bool {
	need := g.Within * float64(np)
	if np == 0 || float64(nq) < need {
		return false
	}
	// Walk q's words in step with p's when they are of a number; search
	// them when q has many more.
	search := len(q.keys) > 16*len(p.keys)
	missing, j := 0, 0
	for i, k := range p.keys {
		if k > upto/64 {
			break
		}
		w := p.words[i]
		if k == upto/64 {
			w &= ^uint64(0) >> (63 - upto%64) // the ids up to upto
		}
		if search {
			n, _ := slices.BinarySearch(q.keys[j:], k)
			j += n
		} else {
			for j < len(q.keys) && q.keys[j] < k {
				j++
			}
		}
		if j < len(q.keys) && q.keys[j] == k {
			w &^= q.words[j]
		}
		if missing += bits.OnesCount64(w); float64(np-missing) < need {
			return false
		}
	}
	return true
}

// kept returns how many of p's moments q's list can tell about, and the
// last id they may reach: all of them, or, when q's list holds only the
// first of its all moments, those up to the last it holds. The lists of
// broad properties are cut (Thresholds.FullMoments), and a moment past
// the cut is not a moment q does not fail at.
func kept(p, q []uint64, all int64) (int, uint64) {
	if int64(len(q)) >= all || len(q) == 0 {
		return len(p), math.MaxUint64
	}
	last := q[len(q)-1]
	n, _ := slices.BinarySearch(p, last+1)
	return n, last
}

// misses returns how many of p's n moments may be missing from q's for
// p to be within q.
func (g Grouping) misses(n int) int {
	k := 0
	for k < n && float64(n-k-1) >= g.Within*float64(n) {
		k++
	}
	return k
}

// bounded reports whether q violating snapshots (or events) are not many
// more than p: at most Factor×p.
func (g Grouping) bounded(p, q int64) bool {
	return float64(q) <= g.Factor*float64(p)
}

// symText returns e's text up to the order of node variables, worked
// out when first asked: most candidates never are.
func (e *Entry) symText() string {
	if e.sym == "" {
		e.sym = e.prop.Property.SymmetricText()
	}
	return e.sym
}

// subDisjunctions returns the symmetric texts of the proper
// sub-disjunctions of p, each under the quantifiers it needs, taken from
// texts or added to them.
func subDisjunctions(p *grammar.Property, texts subTexts) map[string]bool {
	n := len(p.Matrix)
	subs := make(map[string]bool, 1<<n)
	for mask := 1; mask < 1<<n-1; mask++ {
		subs[texts.text(p, mask)] = true
	}
	return subs
}

// fold lists the members of a under its representative: those failing at
// the same snapshots as often as equivalents, the others as also failing
// here. It returns the number of equivalents.
func (a *anomaly) fold(moments map[*Entry][]uint64) int {
	n := 0
	for _, e := range a.members {
		if e.ViolatingSnapshots == a.rep.ViolatingSnapshots && e.Violations == a.rep.Violations && slices.Equal(moments[e], a.moments) {
			a.rep.Equivalents = append(a.rep.Equivalents, e.Text)
			n++
		} else {
			a.rep.AlsoFailsHere = append(a.rep.AlsoFailsHere, e.Text)
		}
	}
	return n
}

// fullMoments returns the violating snapshots of each entry: those the
// evaluator kept, or, for the entries whose violating snapshots it did not
// all keep, the first max of them from a second pass, when there is one.
func fullMoments(es []*Entry, second func([]*grammar.Property, int) ([][]uint64, error), max int) (map[*Entry][]uint64, error) {
	moments := make(map[*Entry][]uint64, len(es))
	var again []*Entry
	for _, e := range es {
		moments[e] = e.stats.Moments
		if int64(len(e.stats.Moments)) < e.ViolatingSnapshots {
			again = append(again, e)
		}
	}
	if second == nil || len(again) == 0 {
		return moments, nil
	}
	props := make([]*grammar.Property, len(again))
	for i, e := range again {
		props[i] = e.prop.Property
	}
	ms, err := second(props, max)
	if err != nil {
		return nil, err
	}
	for i, e := range again {
		moments[e] = ms[i]
	}
	return moments, nil
}

// score is the statistic that ranks anomalies: the lower bound of the
// one-sided Wilson confidence interval, at normal quantile z, of the share
// of a property's n non-vacuous snapshots where it holds, v of them
// violating. Counting snapshots rather than bindings makes it comparable
// across quantifier scopes (a two-node property has n(n-1) bindings per
// snapshot, a one-node property n); the bound favours rare violations
// backed by many snapshots, as Kremenek and Engler's z-ranking does, and
// stays in [0, 1]. The reporter counts violation events as v (see
// events).
func score(n, v int64, z float64) float64 {
	if n <= 0 {
		return 0
	}
	fn := float64(n)
	p := float64(n-v) / fn
	z2 := z * z
	center := p + z2/(2*fn)
	margin := z * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn))
	return max(0, (center-margin)/(1+z2/fn))
}

// An episode is a run of consecutive violating snapshots, first to last.
type episode struct{ first, last uint64 }

// episodesOf returns the runs of consecutive snapshot ids in moments, an
// increasing list.
func episodesOf(moments []uint64) []episode {
	var out []episode
	for i, m := range moments {
		if i > 0 && m == moments[i-1]+1 {
			out[len(out)-1].last = m
			continue
		}
		out = append(out, episode{m, m})
	}
	return out
}

// episodes counts the runs of consecutive snapshot ids in moments, the
// first violating snapshots of a property failing at v in all. A broken
// state lasts until something repairs it (a testbed's failed check mostly
// stays failed until the run resets the system), so the snapshots of one
// lasting violation are one event, not many: counted as many, a bug that
// stays visible for a while would rank below a protocol's one-snapshot
// transient. When moments holds only the first of the v, the count is
// scaled up to all of them.
func episodes(moments []uint64, v int64) int64 {
	return events(moments, v, max(1, len(moments))) // no episode is longer
}

// events counts the violation events in moments, the first violating
// snapshots of a property failing at v in all: each episode is one
// event, or, when it lasts longer than span snapshots, one per span begun
// (see Thresholds.EpisodeShare). When moments holds only the first of the
// v, the count is scaled up to all of them.
func events(moments []uint64, v int64, span int) int64 {
	if len(moments) == 0 {
		return v
	}
	// The episodes, first to last, counted as episodesOf finds them but
	// without building their list: this runs for every candidate.
	var n int64
	first := moments[0]
	for i, m := range moments {
		if i+1 < len(moments) && moments[i+1] == m+1 {
			continue
		}
		n += int64((m - first + uint64(span)) / uint64(span))
		if i+1 < len(moments) {
			first = moments[i+1]
		}
	}
	if k := int64(len(moments)); k < v {
		n = (n*v + k - 1) / k
	}
	return n
}

// listed returns the entries of es that stand out, in order, and how
// many it left out: those violated through a large share of the run,
// whose temporal rate (the share of their non-vacuous snapshots without
// a violation) is below the hold ratio. The others are rare, whether
// they failed once or recur, and the ranking, not a count, puts the
// recurring ones lower.
func listed(es []*Entry, holdRatio float64) ([]*Entry, int) {
	out := es[:0:0]
	for _, e := range es {
		if standsOut(e, holdRatio) {
			out = append(out, e)
		}
	}
	return out, len(es) - len(out)
}

// standsOut reports whether e is violated rarely enough to be listed: at
// a share of its non-vacuous snapshots no larger than the share of
// bindings the hold ratio allows.
func standsOut(e *Entry, holdRatio float64) bool {
	return e.TemporalRate >= holdRatio
}

// byScore orders the representatives of anomalies by score, then fewer
// violating snapshots (of two equally rare anomalies, the one broken more
// briefly), then simpler first, then by text.
func byScore(a, b *Entry) int {
	return cmp.Or(
		-cmp.Compare(a.Score, b.Score),
		cmp.Compare(a.ViolatingSnapshots, b.ViolatingSnapshots),
		compareShapes(shapeOf(a.prop.Property), shapeOf(b.prop.Property)),
		cmp.Compare(a.Text, b.Text),
	)
}

// steadyFirst orders the entries seen in steady state before those seen
// only in transients, keeping each group in order.
func steadyFirst(es []*Entry) {
	slices.SortStableFunc(es, func(a, b *Entry) int {
		return -cmp.Compare(min(a.SteadyViolatingSnapshots, 1), min(b.SteadyViolatingSnapshots, 1))
	})
}

// markRareValues marks the entries whose property states only that a
// value is rare (RareValue) and returns how many there are.
func markRareValues(es []*Entry) int {
	n := 0
	for _, e := range es {
		if rareValue(e.prop.Property) {
			e.RareValue = true
			n++
		}
	}
	return n
}

// splitRareValues splits es, keeping their order, into the relations and
// the rare values.
func splitRareValues(es []*Entry) (relations, rare []*Entry) {
	relations, rare = []*Entry{}, []*Entry{}
	for _, e := range es {
		if e.RareValue {
			rare = append(rare, e)
		} else {
			relations = append(relations, e)
		}
	}
	return relations, rare
}

// rareValue reports whether p states only that a value is rare: its one
// literal compares a variable with a constant or tests one variable
// alone (a boolean, empty, set), relating nothing.
func rareValue(p *grammar.Property) bool {
	if len(p.Matrix) != 1 {
		return false
	}
	switch a := p.Matrix[0].Atom.(type) {
	case *grammar.Compare:
		_, x := a.X.(*grammar.Const)
		_, y := a.Y.(*grammar.Const)
		return x != y
	case *grammar.Empty, *grammar.IsSet, *grammar.Truth:
		return true
	}
	return false
}

// steadyTag returns the tag of steady-state snapshots: the one asked
// for, or "steady" when the trace's evaluated snapshots carry it.
func steadyTag(asked string, tags map[string]int64) string {
	if asked == "" && tags["steady"] > 0 {
		return "steady"
	}
	return asked
}

// WarnOrEffectUntested is the code of an entry's warning that its
// or-effect could not be tested.
const WarnOrEffectUntested diag.Code = "or-effect-untested"

// entryWarnings returns the caveats about a candidate.
func entryWarnings(p *evaluator.Prop) []diag.Warning {
	var ws []diag.Warning
	if p.Literals() >= 2 && !patterned(p) {
		ws = append(ws, diag.Warning{Code: WarnOrEffectUntested,
			Msg: fmt.Sprintf("or-effect not tested: the evaluator counts literal patterns only for flat disjunctions of at most %d literals", evaluator.MaxPatternLiterals)})
	}
	return ws
}

// reads returns what p relates, past its shape: the distinct variables
// it reads (n0.a == n1.a reads one, n0.a == n1.b two), and the sum over
// its literals of the quantified variables each reads (n0.a != "x" or
// n1.a != "x" two, n0.a != n1.a or n0.a != "x" three). Of two equally
// shaped properties, the one relating fewer things is simpler: "no two
// nodes are leader" is written with one variable, each literal about one
// node.
func reads(p *grammar.Property) (vars, links int) {
	iters := map[string]bool{} // the variables bound to a container's elements
	for _, v := range p.IterVars() {
		iters[v] = true
	}
	// A node's variable by its path, an element's field by its path
	// after a dot: e0.term is not n0.term.
	fields := map[string]bool{}
	for path := range grammar.Paths(p) {
		f := strings.Join(path.Fields, ".")
		if iters[path.Var] {
			f = "." + f
		}
		fields[f] = true
	}
	for _, l := range p.Matrix {
		in := map[string]bool{} // the quantified variables the literal reads
		for path := range l.Paths() {
			in[path.Var] = true
		}
		links += len(in)
	}
	return len(fields), links
}

// relations counts the literals of p that relate two or more paths
// (n0.epoch != n1.epoch, n0.applied <= n0.commit, e0.via in n0.up), as
// opposed to testing one against a constant or alone (n0.role !=
// "primary", empty(n0.log)).
func relations(p *grammar.Property) int {
	n := 0
	for _, l := range p.Matrix {
		paths := 0
		for range l.Paths() {
			paths++
		}
		if paths >= 2 {
			n++
		}
	}
	return n
}
