package reporter

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

const storeSpec = `
types:
  Index: int64
  NodeID: string
variables:
  id: NodeID
  applied: Index
  commit: Index
  term: Index
  state: {enum: [follower, leader]}
`

// entries compiles props against storeSpec and makes an entry of each,
// with the violating snapshots given.
func entries(t *testing.T, props map[string][]uint64) []*Entry {
	t.Helper()
	spec, err := specs.Parse("store.yaml", []byte(storeSpec))
	if err != nil {
		t.Fatal(err)
	}
	var ps []*grammar.Property
	var moments [][]uint64
	for src, ms := range props {
		p, err := grammar.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
		moments = append(moments, ms)
	}
	prog, err := evaluator.Compile(spec, ps)
	if err != nil {
		t.Fatal(err)
	}
	es := make([]*Entry, len(ps))
	for i, p := range prog.Props {
		n := int64(len(moments[i]))
		st := &evaluator.Stats{Moments: moments[i], ViolatingSnapshots: n, Violations: n, Support: 1000, Perfect: 1000 - n}
		es[i] = newEntry(p, st, "", DefaultThresholds)
		es[i].ViolationEvents = events(moments[i], st.ViolatingSnapshots, DefaultThresholds.span(st.Support))
	}
	return es
}

// every returns n moments, step apart: n separate episodes.
func every(step, n uint64) []uint64 {
	var s []uint64
	for i := uint64(1); i <= n; i++ {
		s = append(s, i*step)
	}
	return s
}

func span(lo, hi uint64) []uint64 {
	var s []uint64
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

// anomalyTexts renders anomalies as "rep <- member, member".
func anomalyTexts(as []*anomaly) []string {
	var out []string
	for _, a := range as {
		s := a.rep.Text
		if len(a.members) > 0 {
			var ms []string
			for _, m := range a.members {
				ms = append(ms, m.Text)
			}
			s += " <- " + strings.Join(ms, " | ")
		}
		out = append(out, s)
	}
	return out
}

func TestGroupAnomalies(t *testing.T) {
	const (
		q      = "forall n0 in nodes: n0.applied <= n0.commit"
		orRole = `forall n0 in nodes: n0.applied <= n0.commit or n0.state == "leader"`
		twoOr  = "forall n0, n1 in nodes: n0.applied != n1.applied or n0.applied <= n0.commit"
		twoAlt = "forall n0, n1 in nodes: n0.applied <= n1.commit or n0.id == n1.id"
		twoFar = "forall n0, n1 in nodes: n0.applied <= n1.commit"
		noisy  = "forall n0 in nodes: n0.term <= n0.commit"
		other  = "forall n0 in nodes: n0.term <= n0.applied"
		// chain holds wherever q does: where both its literals fail,
		// n0.commit < n1.applied <= n0.applied.
		chain = "forall n0, n1 in nodes: n0.applied <= n1.applied or n1.applied <= n0.commit"
		// orOther is simpler than twoFar in node variables, twoFar
		// simpler in literals.
		orOther = "forall n0 in nodes: n0.applied <= n0.commit or n0.term <= n0.applied"
	)
	tests := []struct {
		name      string
		props     map[string][]uint64
		explained map[string][]string // property → the weakenings explaining its violations
		want      []string
	}{{
		// The planted property and three weakenings that fail at some of
		// its moments: one anomaly, shown by the planted property. The
		// two-node form renamed to n1 is still a weakening of it.
		name: "property and weakenings",
		props: map[string][]uint64{
			q:      {10, 20, 30},
			orRole: {10},
			twoOr:  {20},
			"forall n0, n1 in nodes: n1.applied <= n1.commit or n0.term == n1.term": {30},
		},
		want: []string{q + " <- " + orRole + " | " + twoOr + " | forall n0, n1 in nodes: n0.term == n1.term or n1.applied <= n1.commit"},
	}, {
		// A syntactic weakening is its sub-disjunction's shadow whatever
		// the ratio of their moments; another property failing at 2 of 12
		// of them is beyond Factor.
		name: "weakening of a frequent property",
		props: map[string][]uint64{
			q:      every(10, 12),
			orRole: {50, 60},
			twoFar: {50, 60},
		},
		want: []string{q + " <- " + orRole, twoFar},
	}, {
		// A syntactic weakening failing at 2 of a broad property's 40
		// moments is still its shadow...
		name: "weakening of a broad property",
		props: map[string][]uint64{
			q:      every(10, 40),
			orRole: {50, 60},
		},
		want: []string{q + " <- " + orRole},
	}, {
		// ... unless its other literal explains the broad property's
		// violations: then the 2 moments where it still fails are an
		// anomaly of their own.
		name: "explaining weakening of a broad property",
		props: map[string][]uint64{
			q:      every(10, 40),
			orRole: {50, 60},
		},
		explained: map[string][]string{q: {orRole}},
		want:      []string{q, orRole},
	}, {
		// A bug striking 12 times breaks the simple property; a two-node
		// form that needs a partner to break fails at 3 of the strikes:
		// within Factor, it is the simple property's shadow, whatever
		// the number of strikes.
		name: "recurring bug and a partner form",
		props: map[string][]uint64{
			q:      {100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200},
			twoFar: {300, 700, 1100},
		},
		want: []string{q + " <- " + twoFar},
	}, {
		// A long episode that an equally simple property pins down to a
		// few of its moments does not absorb it: 27 snapshots to 2 is
		// beyond Factor.
		name: "pinned within a long episode",
		props: map[string][]uint64{
			q:     span(100, 126),
			other: {103, 104},
		},
		want: []string{q, other},
	}, {
		// Three strikes whose damage lasts 9 snapshots each; a two-node
		// form fails at 2 snapshots of one of them. 27 snapshots to 2 is
		// beyond Factor, but 3 strikes to 1 is not: the weakening is the
		// simple property's shadow.
		name: "weakening within lasting strikes",
		props: map[string][]uint64{
			q:      slices.Concat(span(100, 108), span(300, 308), span(500, 508)),
			twoFar: {303, 304},
		},
		want: []string{q + " <- " + twoFar},
	}, {
		// A two-node form that the simple property implies by a step of
		// order fails at 2 of its 12 strikes: beyond Factor, and still
		// its shadow.
		name: "implied weakening of a frequent property",
		props: map[string][]uint64{
			q:     every(10, 12),
			chain: {50, 60},
		},
		want: []string{q + " <- " + chain},
	}, {
		// A two-node property of one literal failing at half the moments
		// of a one-node disjunction is simpler in its own way, not the
		// disjunction's weakening: the disjunction's other moments are
		// not its, and it stands alone (as a one-literal iterator
		// property does beside a two-literal relation of counters).
		name: "simple in another way",
		props: map[string][]uint64{
			orOther: every(10, 6),
			twoFar:  {20, 40, 60},
		},
		want: []string{orOther, twoFar},
	}, {
		// ... but fails with it at the same moments: co-symptoms.
		name: "simple in another way, same moments",
		props: map[string][]uint64{
			orOther: {20, 40, 60},
			twoFar:  {20, 40, 60},
		},
		want: []string{orOther + " <- " + twoFar},
	}, {
		// A weakening of two simple properties joins the tighter one's
		// anomaly, though the other, failing at more moments, is taken
		// first.
		name: "tightest anomaly",
		props: map[string][]uint64{
			q:       {10, 20, 30, 40, 50, 60},
			other:   {10, 20, 30},
			orOther: {10, 20, 30},
		},
		want: []string{q, other + " <- " + orOther},
	}, {
		// A broad, noisy property absorbs nothing rare.
		name: "broad property",
		props: map[string][]uint64{
			noisy:  span(1, 100),
			twoFar: {50},
		},
		want: []string{noisy, twoFar},
	}, {
		name: "disjoint moments",
		props: map[string][]uint64{
			q:     {1, 2},
			other: {100, 200},
		},
		want: []string{q, other},
	}, {
		// Two symptoms of one bug, both simple, failing at the same
		// moments: one anomaly, and both are in it. So is their
		// disjunction.
		name: "co-symptoms",
		props: map[string][]uint64{
			q:     {5, 6, 7},
			other: {5, 6, 7},
			"forall n0 in nodes: n0.applied <= n0.commit or n0.term <= n0.applied": {5, 6},
		},
		want: []string{q + " <- " + other + " | forall n0 in nodes: n0.applied <= n0.commit or n0.term <= n0.applied"},
	}, {
		// Equally simple, one failing at the other's moments and one
		// more: each pins down something the other does not.
		name: "equally simple, one more moment",
		props: map[string][]uint64{
			q:     {10, 20, 30},
			other: {10, 20, 30, 40},
		},
		want: []string{other, q},
	}, {
		// A property within an equally simple one failing at five times
		// its moments stands alone.
		name: "rare within recurring",
		props: map[string][]uint64{
			q:     {30},
			other: {10, 20, 30, 40, 50},
		},
		want: []string{other, q},
	}, {
		// A rare weakening within a simpler property violated through a
		// large share of the run (200 of 1000 snapshots, a temporal rate
		// below the hold ratio), within Factor of it: that anomaly is left
		// out of the report, so the rare one stands alone rather than
		// vanish with it.
		name: "rare within broad",
		props: map[string][]uint64{
			twoFar: span(1, 60),
			other:  span(1, 200),
		},
		want: []string{other, twoFar},
	}, {
		// A property failing at more moments than the simpler one is not
		// within it.
		name: "not within",
		props: map[string][]uint64{
			q:      {1, 2},
			twoAlt: {1, 2, 3, 4, 5},
		},
		want: []string{q, twoAlt},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es := entries(t, tt.props)
			for _, e := range es {
				e.ExplainedBy = tt.explained[e.Text]
			}
			moments := func(e *Entry) []uint64 { return e.stats.Moments }
			got := anomalyTexts(groupAnomalies(es, moments, DefaultGrouping, 0.9))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("anomalies:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestRepresentativeFewestViolations checks that of two equally simple
// properties failing at the same snapshots, the one failing at fewer
// bindings represents the anomaly: it says the most precisely what
// broke.
func TestRepresentativeFewestViolations(t *testing.T) {
	const (
		q     = "forall n0 in nodes: n0.applied <= n0.commit"
		other = "forall n0 in nodes: n0.term <= n0.applied"
	)
	es := entries(t, map[string][]uint64{q: {5, 6}, other: {5, 6}})
	for _, e := range es {
		if e.Text == q {
			e.Violations = 7 // at more nodes than other
		}
	}
	moments := func(e *Entry) []uint64 { return e.stats.Moments }
	got := anomalyTexts(groupAnomalies(es, moments, DefaultGrouping, 0.9))
	if want := []string{other + " <- " + q}; !reflect.DeepEqual(got, want) {
		t.Errorf("anomalies = %v, want %v", got, want)
	}
}

// TestRepresentativeRelatesLeast checks that of equally shaped
// properties failing at (almost) the same snapshots, the one relating
// fewer things represents the anomaly, though the other fails at a few
// more (a blind user's SWIM lease: "no two nodes hold the lease" was
// listed under "a node holding the lease differs from a node that
// joined", failing at its 92 snapshots and 8 more), and that of
// equivalents, failing at the same snapshots and bindings, the one whose
// literals are each about fewer nodes represents: "no two nodes are
// leader" as a person writes it.
func TestRepresentativeRelatesLeast(t *testing.T) {
	const (
		oneVar     = "forall n0, n1 in nodes: n0.term != n1.term or n0.term <= n1.term"
		threeVar   = "forall n0, n1 in nodes: n0.applied <= n1.commit or n0.term <= n1.term"
		twoLeaders = `forall n0, n1 in nodes: n0.state != "leader" or n1.state != "leader"`
		crossed    = `forall n0, n1 in nodes: n0.state != "leader" or n0.state != n1.state`
	)
	moments := func(e *Entry) []uint64 { return e.stats.Moments }
	tests := []struct {
		name  string
		props map[string][]uint64
		want  []string
	}{
		{"fewer variables", map[string][]uint64{oneVar: span(10, 20), threeVar: append(span(10, 20), 30)}, []string{oneVar + " <- " + threeVar}},
		{"literals about fewer nodes", map[string][]uint64{crossed: {5, 6, 7}, twoLeaders: {5, 6, 7}}, []string{twoLeaders + " <- " + crossed}},
	}
	for _, tt := range tests {
		es := entries(t, tt.props)
		got := anomalyTexts(groupAnomalies(es, moments, DefaultGrouping, 0.9))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: anomalies = %v, want %v", tt.name, got, tt.want)
		}
	}
	for _, tc := range []struct {
		prop        string
		vars, links int
	}{
		{oneVar, 1, 4},
		{threeVar, 3, 4},
		{twoLeaders, 1, 2},
		{crossed, 1, 3},
		{"forall n0 in nodes: forall e0 in n0.log: e0.term <= n0.term", 3, 2},
	} {
		p, err := grammar.Parse(tc.prop)
		if err != nil {
			t.Fatal(err)
		}
		if vars, links := reads(p); vars != tc.vars || links != tc.links {
			t.Errorf("reads(%s) = %d, %d; want %d, %d", tc.prop, vars, links, tc.vars, tc.links)
		}
	}
}

// TestWithin checks the word-wise, early-stopping within against its
// definition: at least Within of p's moments up to a bound are q's. The
// lists span several words, from a few moments to hundreds, and q is
// sometimes far longer than p (within then searches q's words).
func TestWithin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	moments := func(n uint64, oneIn int) []uint64 {
		var ms []uint64
		for s := uint64(rng.IntN(3)); s < n; s++ {
			if rng.IntN(oneIn) == 0 {
				ms = append(ms, s)
			}
		}
		return ms
	}
	for _, within := range []float64{0.5, 0.9, 1} {
		g := Grouping{Within: within}
		for range 3000 {
			n := uint64(1 + rng.IntN(700))
			p, q := moments(n, 1+rng.IntN(40)), moments(n, 1+rng.IntN(4))
			if rng.IntN(2) == 0 { // make q hold most of p
				q = append(q, p[:len(p)*9/10]...)
				slices.Sort(q)
				q = slices.Compact(q)
			}
			upto := uint64(math.MaxUint64)
			if rng.IntN(3) == 0 {
				upto = uint64(rng.IntN(int(n)))
			}
			np, _ := slices.BinarySearch(p, upto)
			if np < len(p) && p[np] == upto {
				np++
			}
			want := np > 0 && float64(shared(p[:np], q)) >= within*float64(np)
			if got := g.within(newMomentSet(p), np, upto, newMomentSet(q), len(q)); got != want {
				t.Fatalf("Within %v: within(%v up to %d, %v) = %v, want %v", within, p, upto, q, got, want)
			}
			// groupAnomalies tries only the anomalies holding one of
			// p's first misses+1 moments.
			if first := p[:min(np, g.misses(np)+1)]; want && shared(first, q) == 0 {
				t.Fatalf("Within %v: %v is within %v, which holds none of %v", within, p[:np], q, first)
			}
		}
	}
}

// TestMomentSet checks that a set holds exactly its list's moments.
func TestMomentSet(t *testing.T) {
	ms := []uint64{0, 1, 63, 64, 200, 1 << 40, math.MaxUint64}
	s := newMomentSet(ms)
	var got []uint64
	for i, k := range s.keys {
		for b := range uint64(64) {
			if s.words[i]&(1<<b) != 0 {
				got = append(got, k*64+b)
			}
		}
	}
	if !slices.Equal(got, ms) {
		t.Errorf("newMomentSet(%v) holds %v", ms, got)
	}
}

// TestGroupAnomaliesNaive checks the grouping against the obvious one,
// which tries every anomaly in order for every entry and compares moment
// lists by their definition, over random entries: properties of every
// shape, weakenings of each other or not, failing at random moments and
// at noisy subsets of each other's, some lists cut, some standing out,
// some explained.
func TestGroupAnomaliesNaive(t *testing.T) {
	texts := []string{
		"forall n0 in nodes: n0.applied <= n0.commit",
		"forall n0 in nodes: n0.term <= n0.commit",
		"forall n0 in nodes: n0.term <= n0.applied",
		`forall n0 in nodes: n0.applied <= n0.commit or n0.state == "leader"`,
		`forall n0 in nodes: n0.term <= n0.commit or n0.state == "leader"`,
		"forall n0 in nodes: n0.applied <= n0.commit or n0.term <= n0.applied",
		"forall n0, n1 in nodes: n0.applied != n1.applied or n0.applied <= n0.commit",
		"forall n0, n1 in nodes: n0.applied <= n1.commit or n0.id == n1.id",
		"forall n0, n1 in nodes: n0.applied <= n1.commit",
		"forall n0, n1 in nodes: n0.term <= n1.term",
		"forall n0, n1 in nodes: n0.term <= n1.term or n1.applied <= n1.commit",
		"forall n0, n1 in nodes: n1.applied <= n1.commit or n0.term == n1.term",
	}
	rng := rand.New(rand.NewPCG(5, 6))
	randomMoments := func() []uint64 {
		var ms []uint64
		for s := uint64(rng.IntN(50)); s < 600; s += uint64(1 + rng.IntN(80)) {
			for l := rng.IntN(30); l >= 0; l-- {
				ms = append(ms, s)
				s++
			}
		}
		return ms
	}
	noisy := func(ms []uint64) []uint64 {
		var out []uint64
		keep := []int{100, 97, 90, 70}[rng.IntN(4)]
		for _, m := range ms {
			if rng.IntN(100) < keep {
				out = append(out, m)
			}
		}
		for range rng.IntN(3) {
			out = append(out, uint64(rng.IntN(600)))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	joins := 0
	for range 300 {
		props := map[string][]uint64{}
		var lists [][]uint64
		for _, i := range rng.Perm(len(texts))[:3+rng.IntN(len(texts)-2)] {
			ms := randomMoments()
			if len(lists) > 0 && rng.IntN(3) > 0 {
				ms = noisy(lists[rng.IntN(len(lists))])
			}
			if len(ms) == 0 {
				ms = []uint64{uint64(rng.IntN(600))}
			}
			lists = append(lists, ms)
			props[texts[i]] = ms
		}
		es := entries(t, props)
		for _, e := range es {
			if rng.IntN(5) == 0 { // a cut list
				e.stats.Moments = e.stats.Moments[:1+rng.IntN(len(e.stats.Moments))]
			}
			e.TemporalRate = []float64{0.5, 0.99}[rng.IntN(2)]
			if rng.IntN(8) == 0 {
				e.ExplainedBy = append(e.ExplainedBy, texts[rng.IntN(len(texts))])
			}
		}
		moments := func(e *Entry) []uint64 { return e.stats.Moments }
		g := Grouping{Within: []float64{0.5, 0.9, 1}[rng.IntN(3)], Factor: []float64{1.5, 4}[rng.IntN(2)]}
		got := anomalyTexts(groupAnomalies(es, moments, g, 0.9))
		want := naiveAnomalies(es, moments, g, 0.9)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("grouping %v = %q, want %q", props, got, want)
		}
		joins += len(es) - len(want)
	}
	if joins < 100 {
		t.Errorf("%d entries joined an anomaly: the cases try too little", joins)
	}
}

// naiveAnomalies groups es as groupAnomalies says, the obvious way, and
// renders the anomalies (anomalyTexts).
func naiveAnomalies(es []*Entry, moments func(*Entry) []uint64, g Grouping, holdRatio float64) []string {
	within := func(p, q []uint64) bool {
		return len(p) > 0 && float64(shared(p, q)) >= g.Within*float64(len(p))
	}
	kept := func(p, q []uint64, all int64) []uint64 {
		if int64(len(q)) >= all || len(q) == 0 {
			return p
		}
		var out []uint64
		for _, m := range p {
			if m <= q[len(q)-1] {
				out = append(out, m)
			}
		}
		return out
	}
	shapes := map[*Entry]shape{}
	for _, e := range es {
		shapes[e] = shapeOf(e.prop.Property)
	}
	var out []*anomaly
	for _, e := range groupOrder(es, moments, shapes) {
		ms := moments(e)
		var best *anomaly
		for _, a := range out {
			r, s := shapes[a.rep], shapes[e]
			weakening := r != s && r.nodes <= s.nodes && r.iters <= s.iters && r.literals <= s.literals
			switch {
			case compareShapes(r, s) > 0, standsOut(e, holdRatio) && !standsOut(a.rep, holdRatio):
				continue
			case !within(kept(ms, a.moments, a.rep.ViolatingSnapshots), a.moments):
				continue
			case !weakening && !within(kept(a.moments, ms, e.ViolatingSnapshots), ms):
				continue
			case weakening:
				byForm := (subDisjunctions(e.prop.Property, subTexts{})[a.rep.symText()] || impliedTexts(e.prop.Property)[a.rep.symText()]) && !slices.Contains(a.rep.ExplainedBy, e.Text)
				if !byForm && !g.bounded(e.ViolatingSnapshots, a.rep.ViolatingSnapshots) && !g.bounded(e.ViolationEvents, a.rep.ViolationEvents) {
					continue
				}
			}
			if best == nil || a.rep.ViolatingSnapshots < best.rep.ViolatingSnapshots {
				best = a
			}
		}
		if best != nil {
			best.members = append(best.members, e)
		} else {
			out = append(out, &anomaly{rep: e, moments: ms})
		}
	}
	return anomalyTexts(out)
}

// shared counts the elements common to two increasing sequences.
func shared(a, b []uint64) int {
	n := 0
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			a = a[1:]
		case a[0] > b[0]:
			b = b[1:]
		default:
			n++
			a, b = a[1:], b[1:]
		}
	}
	return n
}

func TestEpisodes(t *testing.T) {
	for _, tc := range []struct {
		moments []uint64
		v       int64
		want    int64
	}{
		{nil, 0, 0},
		{nil, 3, 3}, // no moments kept: each violation counts
		{[]uint64{7}, 1, 1},
		{[]uint64{7, 8, 9}, 3, 1},
		{[]uint64{7, 9, 11}, 3, 3},
		{[]uint64{1, 2, 5, 6, 7, 20}, 6, 3},
		{[]uint64{1, 2, 5, 6}, 8, 4}, // 2 episodes in the first half of 8: 4
		{[]uint64{1, 3, 5}, 10, 10},  // scaled up, rounding up
	} {
		if got := episodes(tc.moments, tc.v); got != tc.want {
			t.Errorf("episodes(%v, %d) = %d, want %d", tc.moments, tc.v, got, tc.want)
		}
	}
}

func TestEvents(t *testing.T) {
	for _, tc := range []struct {
		moments []uint64
		v       int64
		span    int
		want    int64
	}{
		{nil, 0, 30, 0},
		{nil, 3, 30, 3}, // no moments kept: each violation counts
		{[]uint64{7, 8, 9}, 3, 30, 1},
		{[]uint64{7, 8, 9}, 3, 3, 1},
		{[]uint64{7, 8, 9, 10}, 4, 3, 2}, // a second span begun
		{[]uint64{7, 9, 11}, 3, 1, 3},
		{[]uint64{1, 2, 3, 4, 5, 6, 7, 20}, 8, 2, 5},
		{[]uint64{1, 2, 5, 6}, 8, 30, 4}, // 2 events in the first half of 8: 4
	} {
		if got := events(tc.moments, tc.v, tc.span); got != tc.want {
			t.Errorf("events(%v, %d, %d) = %d, want %d", tc.moments, tc.v, tc.span, got, tc.want)
		}
	}
	// Against the definition, over the episodes episodesOf finds.
	r := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		var ms []uint64
		for m := uint64(r.IntN(5)); len(ms) < 1+r.IntN(60); m += uint64(1 + r.IntN(3)) {
			ms = append(ms, m)
		}
		span := 1 + r.IntN(10)
		var want int64
		for _, ep := range episodesOf(ms) {
			want += int64((ep.last - ep.first + uint64(span)) / uint64(span))
		}
		if got := events(ms, int64(len(ms)), span); got != want {
			t.Fatalf("events(%v, %d, %d) = %d, want %d", ms, len(ms), span, got, want)
		}
	}
}

// TestGroupCutMoments checks grouping when the moment lists of broad
// properties are cut (Thresholds.FullMoments): a weakening failing at
// 500 of 1000 snapshots is within its simpler form, failing at all
// 1000, though the first 100 moments of each reach different snapshots
// (half of the weakening's are past the simpler form's 100th).
func TestGroupCutMoments(t *testing.T) {
	const (
		q      = "forall n0 in nodes: n0.applied <= n0.commit"
		orRole = `forall n0 in nodes: n0.applied <= n0.commit or n0.state == "leader"`
	)
	var qs, ps []uint64
	for m := uint64(1); m <= 1000; m++ {
		qs = append(qs, m)
		if m%2 == 1 {
			ps = append(ps, m)
		}
	}
	es := entries(t, map[string][]uint64{q: qs, orRole: ps})
	for _, e := range es {
		e.ViolatingSnapshots = int64(len(e.stats.Moments))
		e.stats.Moments = e.stats.Moments[:100]
	}
	moments := func(e *Entry) []uint64 { return e.stats.Moments }
	got := anomalyTexts(groupAnomalies(es, moments, DefaultGrouping, 0))
	if want := []string{q + " <- " + orRole}; !reflect.DeepEqual(got, want) {
		t.Errorf("anomalies = %v, want %v", got, want)
	}
}

func TestRareValue(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{`forall n0 in nodes: n0.state != "candidate"`, true},
		{`forall n0 in nodes: "candidate" != n0.state`, true},
		{`forall n0 in nodes: n0.term <= 7`, true},
		{`forall n0 in nodes: n0.joined`, true},
		{`forall n0 in nodes: not n0.joined`, true},
		{`forall n0 in nodes: not empty(n0.log)`, true},
		{`forall n0 in nodes: set(n0.pred)`, true},
		{`forall n0 in nodes: forall e0 in n0.log: e0.term != 0`, true},
		{`forall n0 in nodes: n0.applied <= n0.commit`, false},
		{`forall n0, n1 in nodes: n0.term == n1.term`, false},
		{`forall n0 in nodes: n0.self in n0.peers`, false},
		{`forall n0 in nodes: monotone(n0.log)`, false},
		{`forall n0 in nodes: n0.state != "leaving" or empty(n0.kids)`, false},
	} {
		p, err := grammar.Parse(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := rareValue(p); got != tt.want {
			t.Errorf("rareValue(%s) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestRareValues checks that rare values are listed apart, marked,
// counted and ranked by score, and that a relation failing more often
// than one of them keeps rank 1 of the almost-invariants.
func TestRareValues(t *testing.T) {
	const (
		rare     = `forall n0 in nodes: n0.a`
		rarer    = `forall n0 in nodes: not n0.b`
		relation = `forall n0 in nodes: n0.a == n0.c`
	)
	r := build(t, []string{rare, relation, rarer}, []evaluator.Stats{at(5, 90), at(20, 40, 60), at(7)})
	if got, want := texts(r.AlmostInvariants), []string{relation}; !reflect.DeepEqual(got, want) {
		t.Errorf("almost-invariants = %v, want %v", got, want)
	}
	if got, want := texts(r.RareValues), []string{rarer, rare}; !reflect.DeepEqual(got, want) {
		t.Fatalf("rare values = %v, want %v", got, want)
	}
	if r.AlmostInvariants[0].RareValue || !r.RareValues[0].RareValue || r.Candidates.RareValues != 2 || r.Candidates.AlmostInvariants != 1 {
		t.Errorf("rare value marks %v %v, counts %+v; want false true, 2 rare values and 1 almost-invariant", r.AlmostInvariants[0].RareValue, r.RareValues[0].RareValue, r.Candidates)
	}
	if r.RareValues[1].Score <= r.AlmostInvariants[0].Score || r.RareValues[0].Rank != 1 {
		t.Errorf("scores %g and %g, rank %d: the rare value should score higher, to test the order, and rank 1 of its list", r.AlmostInvariants[0].Score, r.RareValues[1].Score, r.RareValues[0].Rank)
	}
}
