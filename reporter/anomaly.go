package reporter

import (
	"cmp"
	"slices"

	"github.com/augur-dev/augur/grammar"
)

// One rare anomaly of a run (a corner-case bug striking at a few
// snapshots) breaks a simple property Q and many weakenings of it: Q or R,
// two-node forms that need a partner to break, forms that hold vacuously
// elsewhere. Each fails at a subset of Q's moments. This file groups the
// candidates by the moments at which they fail, so that the report shows
// each anomaly once, by its simplest property.

// Grouping says when a property belongs to the anomaly of a simpler one.
type Grouping struct {
	// Within is the least share of P's violating snapshots that must be
	// violating snapshots of Q for P to join Q's anomaly.
	Within float64
	// Factor and Slack bound how many more violating snapshots Q may
	// have than P: at most Factor×|V(P)| + Slack. A broad, noisy property
	// absorbs nothing rare; Slack lets a property failing at 3 snapshots
	// take in a weakening failing at 1 of them.
	Factor float64
	Slack  int
}

// DefaultGrouping is the grouping of reports.
var DefaultGrouping = Grouping{Within: 0.9, Factor: 2, Slack: 3}

// An anomaly is the candidates that fail at (almost) the same moments,
// shown by the simplest of them.
type anomaly struct {
	rep     *Entry   // the representative, the simplest member
	members []*Entry // the others, simplest first
	moments []uint64 // the representative's violating snapshots
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

func compareShapes(a, b shape) int {
	return cmp.Or(cmp.Compare(a.nodes, b.nodes), cmp.Compare(a.iters, b.iters), cmp.Compare(a.literals, b.literals))
}

// groupAnomalies groups es into anomalies. moments returns an entry's
// violating snapshots, in increasing order (all of them, or as many as
// were kept). An entry joins the anomaly of the first simpler
// representative whose moments hold (almost) all of its own and are not
// many more (g); a weakening of a representative (the representative is
// a sub-disjunction of it, up to the naming of node variables) joins it
// whatever their counts. Entries that join no anomaly start one. The
// anomalies come in the order of their representatives' simplicity.
func groupAnomalies(es []*Entry, moments func(*Entry) []uint64, g Grouping) []*anomaly {
	order := slices.Clone(es)
	shapes := make(map[*Entry]shape, len(es))
	for _, e := range es {
		shapes[e] = shapeOf(e.prop.Property)
	}
	slices.SortStableFunc(order, func(a, b *Entry) int {
		return cmp.Or(
			compareShapes(shapes[a], shapes[b]),
			-cmp.Compare(len(moments(a)), len(moments(b))),
			cmp.Compare(a.Text, b.Text),
		)
	})
	var out []*anomaly
	for _, e := range order {
		ms := moments(e)
		var subs map[string]bool // e's sub-disjunctions, computed once when needed
		joined := false
		for _, a := range out {
			if compareShapes(shapes[a.rep], shapes[e]) > 0 || !g.within(ms, a.moments) {
				continue
			}
			if !g.bounded(len(ms), len(a.moments)) {
				if subs == nil {
					subs = subDisjunctions(e.prop.Property)
				}
				if !subs[a.rep.sym] {
					continue
				}
			}
			a.members = append(a.members, e)
			joined = true
			break
		}
		if !joined {
			out = append(out, &anomaly{rep: e, moments: ms})
		}
	}
	return out
}

// within reports whether (almost) all of p's moments are q's.
func (g Grouping) within(p, q []uint64) bool {
	return len(p) > 0 && float64(shared(p, q)) >= g.Within*float64(len(p))
}

// bounded reports whether q violating snapshots are not many more than p.
func (g Grouping) bounded(p, q int) bool {
	return float64(q) <= g.Factor*float64(p)+float64(g.Slack)
}

// subDisjunctions returns the symmetric texts of the proper
// sub-disjunctions of p, each under the quantifiers it needs.
func subDisjunctions(p *grammar.Property) map[string]bool {
	n := len(p.Matrix)
	subs := make(map[string]bool, 1<<n)
	for mask := 1; mask < 1<<n-1; mask++ {
		subs[symmetricText(subProperty(p, mask))] = true
	}
	return subs
}
