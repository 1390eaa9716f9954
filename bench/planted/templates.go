package planted

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// A template is a property that holds in every run of the simulated
// system, with a way to break it in one node's state: the planted
// almost-invariants are templates broken at a few snapshots.
type template struct {
	name   string // the bug: the snapshots where it is broken are tagged bug:NAME
	shape  Shape
	needs  []varKind // variables the property reads
	forbid []varKind // variables that would let a simpler property fail at the same snapshots
	style  int       // the election style it needs to be natural, or to differ from a simpler twin
	// lean: the property has three literals, which only a small pool
	// can afford without a cap (and a cap would drop it, as it keeps
	// the properties that mention fewest variables).
	lean bool
	// learners: a twin differs from the property only on learners.
	learners bool
	// legit is the legitimate rare moment of a run at which the property
	// fails, when the run has it; logLegitNone if there is none.
	legit logLegit

	text  func(d *design) string
	holds check
	// twins are properties at most as complex as this one that hold
	// wherever it does in some runs: they must fail somewhere in the
	// natural run, or they would fail exactly where this one is broken
	// and be an equally good answer.
	twins []twin
	// inject breaks the property in one node's view.
	inject injector
}

// A twin is a property close to a template's, expressible when the
// system has the variables it needs.
type twin struct {
	needs []varKind
	holds check
}

// A check evaluates a property on one snapshot: the views of the nodes,
// nil for the nodes that are down.
type check func(d *design, vs []*view) bool

// each reports whether f holds for every live node.
func each(vs []*view, f func(a *view) bool) bool {
	for _, a := range vs {
		if a != nil && !f(a) {
			return false
		}
	}
	return true
}

// pairs reports whether f holds for every ordered pair of distinct live
// nodes.
func pairs(vs []*view, f func(a, b *view) bool) bool {
	for i, a := range vs {
		for j, b := range vs {
			if a != nil && b != nil && i != j && !f(a, b) {
				return false
			}
		}
	}
	return true
}

// breakOne tries the live nodes in random order and returns the first
// whose view f can break: f returns the broken copy, or nil.
func breakOne(vs []*view, rng *rand.Rand, f func(a *view) *view) (int, *view) {
	for _, i := range rng.Perm(len(vs)) {
		if vs[i] == nil {
			continue
		}
		if v := f(vs[i]); v != nil {
			return i, v
		}
	}
	return -1, nil
}

// someOther returns the id of a random live node other than a and not
// in skip, or "".
func someOther(vs []*view, rng *rand.Rand, a *view, skip ...string) string {
	for _, i := range rng.Perm(len(vs)) {
		if b := vs[i]; b != nil && b != a && b.id != a.id && !slices.Contains(skip, b.id) {
			return b.id
		}
	}
	return ""
}

// lengthen returns the injector that breaks a node's log: one entry past
// that of the leader picked by leaderOf, a node whose view is in vs.
func lengthen(leaderOf func(vs []*view, a *view) *view) injector {
	return editOne(func(_ *design, vs []*view, _ *rand.Rand, c *view) bool {
		l := leaderOf(vs, c)
		if l == nil || l.id == c.id {
			return false
		}
		// The log shows the entry past the leader's, so that it still
		// differs from every log that does not end there.
		c.last = l.last + 1
		c.log = append(slices.Clone(c.log[min(1, len(c.log)):]), entry{c.last, c.term})
		return true
	})
}

// leaderIn returns the live leader of the views vs whose term is term,
// or any live leader when term is negative.
func leaderIn(vs []*view, term int64) *view {
	for _, v := range vs {
		if v != nil && v.role == roleLeader && (term < 0 || v.term == term) {
			return v
		}
	}
	return nil
}

// lastBehind returns the check "a node whose view satisfies is has a
// log at least as long as every other node b with ok(a, b)".
func lastBehind(is func(d *design, a *view) bool, ok func(a, b *view) bool) check {
	return func(d *design, vs []*view) bool {
		return pairs(vs, func(a, b *view) bool { return !is(d, a) || !ok(a, b) || b.last <= a.last })
	}
}

// Conditions on a node for lastBehind, and on two nodes.
func isLeader(_ *design, a *view) bool      { return a.role == roleLeader }
func isNotFollower(_ *design, a *view) bool { return a.role != roleFollower }
func isSelfLed(_ *design, a *view) bool     { return a.lead == a.id }
func hasAcks(_ *design, a *view) bool       { return len(a.acked) > 0 }
func always(*design, *view) bool            { return true }
func anyPair(_, _ *view) bool               { return true }
func sameTerm(a, b *view) bool              { return a.term == b.term }
func noOlderTerm(a, b *view) bool           { return a.term >= b.term }
func noNewerTerm(a, b *view) bool           { return b.term >= a.term }
func acks(a, b *view) bool                  { return slices.Contains(a.acked, b.id) }

// roleOrder returns the check "a node whose role satisfies in has a log no
// longer than any other node b whose role satisfies of".
func roleOrder(in, of func(role) bool) check {
	return func(_ *design, vs []*view) bool {
		return pairs(vs, func(a, b *view) bool { return !in(a.role) || !of(b.role) || a.last <= b.last })
	}
}

func isRole(r role) func(role) bool    { return func(x role) bool { return x == r } }
func isNotRole(r role) func(role) bool { return func(x role) bool { return x != r } }

// templates are the properties that may be planted, by shape.
var templates = []*template{
	{
		name: "apply-past-commit", shape: OneNodeOneLiteral, needs: []varKind{varApplied, varCommit}, legit: logLegitLostCommit,
		text:  textOf("forall n0 in nodes: n0.%s <= n0.%s", varApplied, varCommit),
		holds: everyNode(func(a *view) bool { return a.applied <= a.commit }),
		inject: editOne(func(d *design, _ []*view, _ *rand.Rand, c *view) bool {
			switch {
			case !d.has[varLast]:
				c.applied = c.commit + 1
			case c.applied >= 1:
				// Not applied past the log's end: that would break
				// applied <= last as well.
				c.commit = c.applied - 1
			default:
				return false
			}
			return true
		}),
	},
	{
		name: "commit-past-end", shape: OneNodeOneLiteral, needs: []varKind{varCommit, varLast},
		text:   textOf("forall n0 in nodes: n0.%s <= n0.%s", varCommit, varLast),
		holds:  everyNode(func(a *view) bool { return a.commit <= a.last }),
		inject: editOne(func(_ *design, _ []*view, _ *rand.Rand, c *view) bool { c.commit = c.last + 1; return true }),
	},
	{
		name: "self-not-member", shape: OneNodeOneLiteral, needs: []varKind{varID, varMembers}, legit: logLegitLinger,
		text:  textOf("forall n0 in nodes: n0.%s in n0.%s", varID, varMembers),
		holds: everyNode(func(a *view) bool { return slices.Contains(a.members, a.id) }),
		inject: editOne(func(_ *design, _ []*view, _ *rand.Rand, c *view) bool {
			c.members = slices.DeleteFunc(slices.Clone(c.members), func(m string) bool { return m == c.id })
			return true
		}),
	},
	{
		name: "leader-follows-other", shape: OneNodeTwoLiterals, needs: []varKind{varID, varLead, varRole},
		// With acked, the other node would be one of the leader's
		// caught-up followers, and not n0.lead in n0.acked would fail too.
		forbid: []varKind{varAcked},
		text:   textOf("forall n0 in nodes: n0.%s == n0.%s or n0.%s != %q", varID, varLead, varRole, roleLeader),
		holds:  everyNode(func(a *view) bool { return a.role != roleLeader || a.lead == a.id }),
		twins:  []twin{{holds: everyNode(func(a *view) bool { return a.role == roleFollower || a.lead == a.id })}},
		inject: editOne(func(_ *design, vs []*view, rng *rand.Rand, c *view) bool {
			c.lead = someOther(vs, rng, c)
			return c.role == roleLeader && c.lead != ""
		}),
	},
	{
		name: "follower-with-acks", shape: OneNodeTwoLiterals, needs: []varKind{varAcked, varRole},
		text:  textOf("forall n0 in nodes: empty(n0.%s) or n0.%s != %q", varAcked, varRole, roleFollower),
		holds: everyNode(func(a *view) bool { return a.role != roleFollower || len(a.acked) == 0 }),
		twins: []twin{
			{holds: everyNode(func(a *view) bool { return a.role == roleLeader || len(a.acked) == 0 })},
			{holds: everyNode(func(a *view) bool { return a.role == roleCandidate || len(a.acked) == 0 })},
			{[]varKind{varID, varLead}, everyNode(func(a *view) bool { return a.lead == a.id || len(a.acked) == 0 })},
		},
		inject: editOne(func(_ *design, vs []*view, rng *rand.Rand, c *view) bool {
			other := someOther(vs, rng, c, c.lead)
			c.acked = []string{other}
			return c.role == roleFollower && other != ""
		}),
	},
	{
		name: "log-past-own-leader", shape: TwoNodesTwoLiterals, needs: []varKind{varID, varLead, varLast},
		style: stylePartition,
		text:  textOf("forall n0, n1 in nodes: n0.%s != n1.%s or n1.%s <= n0.%s", varID, varLead, varLast, varLast),
		holds: func(_ *design, vs []*view) bool {
			return pairs(vs, func(a, b *view) bool { return b.lead != a.id || b.last <= a.last })
		},
		// Other ways to say "the leader": they differ from the node's
		// leader while a cut-off old leader still thinks it leads.
		twins: []twin{
			{holds: lastBehind(isLeader, anyPair)}, {holds: lastBehind(isNotFollower, anyPair)},
			{holds: lastBehind(isSelfLed, anyPair)}, {[]varKind{varAcked}, lastBehind(hasAcks, anyPair)},
			{[]varKind{varAcked}, lastBehind(always, acks)},
		},
		inject: lengthen(func(vs []*view, a *view) *view {
			for _, l := range vs {
				if l != nil && a.lead == l.id {
					return l
				}
			}
			return nil
		}),
	},
	{
		name: "log-past-leader", shape: TwoNodesTwoLiterals, needs: []varKind{varLast},
		forbid: []varKind{varLead, varAcked}, style: styleCrash, learners: true, legit: logLegitOrphan,
		text:   textOf("forall n0, n1 in nodes: n0.%s != %q or n1.%s <= n0.%s", varRole, roleLeader, varLast, varLast),
		holds:  lastBehind(isLeader, anyPair),
		twins:  []twin{{holds: lastBehind(isNotFollower, anyPair)}},
		inject: lengthen(func(vs []*view, _ *view) *view { return leaderIn(vs, -1) }),
	},
	{
		name: "log-past-leader-in-term", shape: TwoNodesThreeLiterals, needs: []varKind{varTerm, varLast},
		// Containers bring many literals: no room for them in a lean pool.
		forbid: []varKind{varLead, varAcked, varLog, varMembers}, style: stylePartition, lean: true, learners: true,
		legit: logLegitOrphan,
		text: textOf("forall n0, n1 in nodes: n0.%s != %q or n0.%s != n1.%s or n1.%s <= n0.%s",
			varRole, roleLeader, varTerm, varTerm, varLast, varLast),
		holds: lastBehind(isLeader, sameTerm),
		// The old leader, cut off, appends entries its successor never
		// sees, and the successor commits entries the old one misses.
		twins: []twin{
			{holds: lastBehind(isLeader, anyPair)}, {holds: lastBehind(isLeader, noOlderTerm)},
			{holds: lastBehind(isLeader, noNewerTerm)}, {holds: lastBehind(isNotFollower, sameTerm)},
			// Learners usually lag, but not always behind every follower.
			{holds: roleOrder(isRole(roleFollower), isRole(roleLearner))},
			{holds: roleOrder(isNotRole(roleLeader), isRole(roleLearner))},
			{holds: roleOrder(isRole(roleFollower), isNotRole(roleFollower))},
		},
		inject: lengthen(func(vs []*view, a *view) *view { return leaderIn(vs, a.term) }),
	},
	{
		name: "entry-from-future-term", shape: Iterator, needs: []varKind{varLog, varTerm},
		text:   textOf("forall n0 in nodes: forall e0 in n0.%s: e0.term <= n0.%s", varLog, varTerm),
		holds:  everyEntry(func(a *view, e entry) bool { return e.term <= a.term }),
		inject: editLast(1, func(a *view, log []entry) { log[len(log)-1].term = a.term + 1 }),
	},
	{
		name: "entry-past-end", shape: Iterator, needs: []varKind{varLog, varLast},
		text:   textOf("forall n0 in nodes: forall e0 in n0.%s: e0.index <= n0.%s", varLog, varLast),
		holds:  everyEntry(func(a *view, e entry) bool { return e.index <= a.last }),
		inject: editLast(1, func(a *view, log []entry) { log[len(log)-1].index = a.last + 1 }),
	},
	{
		name: "term-goes-back", shape: Predicate, needs: []varKind{varLog},
		text:   textOf("forall n0 in nodes: monotone(n0.%s)", varLog),
		holds:  everyLog(func(x, y entry) bool { return x.term <= y.term }),
		inject: editLast(2, func(_ *view, log []entry) { log[len(log)-1].term = log[len(log)-2].term - 1 }),
	},
	{
		name: "log-out-of-order", shape: Predicate, needs: []varKind{varLog},
		text:  textOf("forall n0 in nodes: ordered(n0.%s)", varLog),
		holds: everyLog(func(x, y entry) bool { return x.index < y.index }),
		// A repeated index, in place of a swap, which would put the terms
		// out of order too.
		inject: editLast(2, func(_ *view, log []entry) { log[len(log)-1].index = log[len(log)-2].index }),
	},
}

// textOf returns the text of a template: format with args, which are
// variables (printed as the system names them) and roles (as its enum
// names them, quoted by %q).
func textOf(format string, args ...any) func(*design) string {
	return func(d *design) string {
		vals := make([]any, len(args))
		for i, a := range args {
			switch a := a.(type) {
			case varKind:
				vals[i] = d.name[a]
			case role:
				vals[i] = d.roles[a]
			}
		}
		return fmt.Sprintf(format, vals...)
	}
}

// everyNode returns the check "ok holds for every live node".
func everyNode(ok func(a *view) bool) check {
	return func(_ *design, vs []*view) bool { return each(vs, ok) }
}

// An injector breaks a property in one node's view of a snapshot: it
// returns the node's index and the broken copy of its view, or -1.
type injector func(d *design, vs []*view, rng *rand.Rand) (int, *view)

// editOne returns the injector that tries the live nodes in random order
// and breaks the first on which edit, given a copy of its view, succeeds.
func editOne(edit func(d *design, vs []*view, rng *rand.Rand, c *view) bool) injector {
	return func(d *design, vs []*view, rng *rand.Rand) (int, *view) {
		return breakOne(vs, rng, func(a *view) *view {
			c := *a
			if !edit(d, vs, rng, &c) {
				return nil
			}
			return &c
		})
	}
}

// everyEntry returns the check "every entry e of the log of every node a
// satisfies ok(a, e)".
func everyEntry(ok func(a *view, e entry) bool) check {
	return func(_ *design, vs []*view) bool {
		return each(vs, func(a *view) bool {
			return !slices.ContainsFunc(a.log, func(e entry) bool { return !ok(a, e) })
		})
	}
}

// everyLog returns the check "every two consecutive entries x, y of every
// node's log satisfy ok(x, y)".
func everyLog(ok func(x, y entry) bool) check {
	return func(_ *design, vs []*view) bool {
		return each(vs, func(a *view) bool { return increasing(a.log, ok) })
	}
}

// editLast returns the injector that breaks a node's log, of at least n
// entries, by edit on a copy of it.
func editLast(n int, edit func(a *view, log []entry)) injector {
	return editOne(func(_ *design, _ []*view, _ *rand.Rand, c *view) bool {
		if len(c.log) < n {
			return false
		}
		a := *c
		c.log = slices.Clone(c.log)
		edit(&a, c.log)
		return true
	})
}

// increasing reports whether ok holds for every two consecutive entries
// of log.
func increasing(log []entry, ok func(x, y entry) bool) bool {
	for i := 1; i < len(log); i++ {
		if !ok(log[i-1], log[i]) {
			return false
		}
	}
	return true
}
