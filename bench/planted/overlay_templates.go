package planted

import (
	"fmt"
	"slices"
)

// An ovTemplate is a property of the overlay that holds in every run of
// the simulator styles it admits, with a way to break it in one node's
// state: the planted almost-invariants of the overlay family.
type ovTemplate struct {
	name  string // the bug: the snapshots where it is broken are tagged bug:NAME
	shape Shape
	needs []ovVar // variables the property reads
	// eager and fast are the simulator styles the property needs to hold
	// or to differ from its twins: 1 on, -1 off, 0 either.
	eager, fast int8

	text  func(d *ovDesign) string
	holds ovCheck
	// twins are the properties at most as complex that a broken state
	// may break too: where one holds in the whole natural run, the
	// broken states must not break it, or it would fail exactly where
	// the property does and be as good an answer.
	twins []ovTwin
	// inject breaks the property in node i's state, or returns nil.
	inject func(vs []*ovNode, i int) *ovNode
	// legit returns node i's state at a step where the run passes, for a
	// moment, through a legitimate state that fails the property (prev
	// is the step before), or nil; nil when the property has no such
	// moment.
	legit func(prev, cur []*ovNode, i int) *ovNode
}

// An ovTwin is a property close to a template's, expressible when the
// system has the variables it needs.
type ovTwin struct {
	needs []ovVar
	holds ovCheck
}

// An ovCheck evaluates a property at one step: the nodes' states, nil
// for the nodes that are down.
type ovCheck func(vs []*ovNode) bool

// ovEach returns the check "ok holds for every live node".
func ovEach(ok func(a *ovNode) bool) ovCheck {
	return func(vs []*ovNode) bool {
		for _, a := range vs {
			if a != nil && !ok(a) {
				return false
			}
		}
		return true
	}
}

// ovPairs returns the check "ok holds for every ordered pair of distinct
// live nodes".
func ovPairs(ok func(a, b *ovNode) bool) ovCheck {
	return func(vs []*ovNode) bool {
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

// pointsTo reports whether a's parent is b; lists, whether b lists a
// among its children.
func pointsTo(a, b *ovNode) bool { return a.parent == b.id }
func lists(b, a *ovNode) bool    { return slices.Contains(b.children, a.id) }

// dropChild has node i forget one of its children, when it has at
// least two that point to it: forgetting the only one would empty the
// list, which a simpler property notices.
func dropChild(vs []*ovNode, i int) *ovNode {
	b := vs[i]
	if b == nil {
		return nil
	}
	var kids []string
	for _, a := range vs {
		if a != nil && a != b && pointsTo(a, b) && lists(b, a) {
			kids = append(kids, a.id)
		}
	}
	if len(kids) < 2 {
		return nil
	}
	c := *b
	c.children = slices.DeleteFunc(slices.Clone(b.children), func(x string) bool { return x == kids[0] })
	return &c
}

// setStatus returns the injector that gives a joined node with a parent
// status to, when its children satisfy kids.
func setStatus(to ovStatus, kids func(n int) bool) func(vs []*ovNode, i int) *ovNode {
	return func(vs []*ovNode, i int) *ovNode {
		b := vs[i]
		if b == nil || b.status != ovJoined || b.parent == "" || !kids(len(b.children)) {
			return nil
		}
		c := *b
		c.status = to
		return &c
	}
}

// restarted is the check "every joining node has restarted": true in a
// run where no node rejoins without a crash, and the incarnation then
// tells the joiners as well as the status does.
var restarted = ovEach(func(a *ovNode) bool { return a.status != ovJoining || a.gen > 1 })

func noKids(n int) bool   { return n == 0 }
func someKids(n int) bool { return n > 0 }

// treeTemplates are the properties that may be planted in a tree
// overlay.
var treeTemplates = []*ovTemplate{
	{
		name: "own-parent", shape: OneNodeOneLiteral, needs: []ovVar{ovID, ovParent},
		text:  ovText("forall n0 in nodes: n0.%s != n0.%s", ovID, ovParent),
		holds: ovEach(func(a *ovNode) bool { return a.parent != a.id }),
		inject: func(vs []*ovNode, i int) *ovNode {
			b := vs[i]
			if b == nil || b.status != ovJoined || b.parent == "" {
				return nil
			}
			c := *b
			c.parent = c.id
			return &c
		},
	},
	{
		name: "joining-with-parent", shape: OneNodeTwoLiterals, needs: []ovVar{ovParent, ovState}, eager: -1,
		text:  ovText(`forall n0 in nodes: n0.%s == "" or n0.%s != %q`, ovParent, ovState, ovJoining),
		holds: ovEach(func(a *ovNode) bool { return a.parent == "" || a.status != ovJoining }),
		twins: []ovTwin{
			// A leaving node keeps its parent until its children have
			// detached.
			{holds: ovEach(func(a *ovNode) bool { return a.parent == "" || a.status == ovJoined })},
			// A node that rejoins keeps the root it knew.
			{[]ovVar{ovRoot}, ovEach(func(a *ovNode) bool { return a.root == "" || a.status != ovJoining })},
			{[]ovVar{ovGen}, restarted},
		},
		// A leaf, so that no property about the children of joining
		// nodes (which keep them while they rejoin) notices.
		inject: setStatus(ovJoining, noKids),
		// The handler of an adoption shows the new parent a step before
		// the status.
		legit: func(prev, cur []*ovNode, i int) *ovNode {
			a, b := prev[i], cur[i]
			if a == nil || b == nil || a.status != ovJoining || b.status != ovJoined {
				return nil
			}
			c := *b
			c.status = ovJoining
			return &c
		},
	},
	{
		name: "leaving-with-children", shape: OneNodeTwoLiterals, needs: []ovVar{ovChildren, ovState}, eager: 1,
		text:  ovText(`forall n0 in nodes: empty(n0.%s) or n0.%s != %q`, ovChildren, ovState, ovLeaving),
		holds: ovEach(func(a *ovNode) bool { return len(a.children) == 0 || a.status != ovLeaving }),
		twins: []ovTwin{
			// A rejoining node keeps its subtree.
			{holds: ovEach(func(a *ovNode) bool { return len(a.children) == 0 || a.status == ovJoined })},
			{holds: ovEach(func(a *ovNode) bool { return len(a.children) == 0 || a.status != ovJoining })},
		},
		// As it leaves, the node forgets its parent but not its children.
		inject: func(vs []*ovNode, i int) *ovNode {
			c := setStatus(ovLeaving, someKids)(vs, i)
			if c != nil {
				c.parent = ""
			}
			return c
		},
		// The handler of a departure shows the status a step before it
		// forgets the children.
		legit: func(prev, cur []*ovNode, i int) *ovNode {
			a, b := prev[i], cur[i]
			if a == nil || b == nil || a.status != ovJoined || b.status != ovLeaving || len(a.children) == 0 {
				return nil
			}
			c := *b
			c.children = a.children
			return &c
		},
	},
	{
		name: "child-unknown", shape: TwoNodesTwoLiterals, needs: []ovVar{ovID, ovParent, ovChildren}, eager: -1, fast: -1,
		text:  ovText("forall n0, n1 in nodes: n0.%s != n1.%s or n0.%s in n1.%s", ovParent, ovID, ovID, ovChildren),
		holds: ovPairs(func(a, b *ovNode) bool { return !pointsTo(a, b) || lists(b, a) }),
		twins: []ovTwin{
			// A parent adopts its child before the child knows.
			{holds: ovPairs(func(a, b *ovNode) bool { return !lists(b, a) || pointsTo(a, b) })},
			// In a flat tree, the root lists every node that knows it.
			{[]ovVar{ovRoot}, ovPairs(func(a, b *ovNode) bool { return a.root != b.id || lists(b, a) })},
		},
		inject: dropChild,
		// A false suspicion: a parent drops a slow child, and adopts it
		// again at the child's next heartbeat.
		legit: func(_, cur []*ovNode, i int) *ovNode { return dropChild(cur, i) },
	},
}

// ringTemplates are the properties that may be planted in a ring.
var ringTemplates = []*ovTemplate{
	{
		name: "own-successor", shape: OneNodeOneLiteral, needs: []ovVar{ovID, ovSucc},
		text:  ovText("forall n0 in nodes: n0.%s != n0.%s", ovID, ovSucc),
		holds: ovEach(func(a *ovNode) bool { return a.succ != a.id }),
		inject: func(vs []*ovNode, i int) *ovNode {
			b := vs[i]
			if b == nil || b.status != ovJoined || b.succ == "" {
				return nil
			}
			c := *b
			c.succ = c.id
			return &c
		},
	},
	{
		name: "joining-with-pred", shape: OneNodeTwoLiterals, needs: []ovVar{ovPred, ovState},
		text:  ovText(`forall n0 in nodes: not set(n0.%s) or n0.%s != %q`, ovPred, ovState, ovJoining),
		holds: ovEach(func(a *ovNode) bool { return a.pred == "" || a.status != ovJoining }),
		twins: []ovTwin{
			// A leaving node keeps its predecessor.
			{holds: ovEach(func(a *ovNode) bool { return a.pred == "" || a.status == ovJoined })},
			// A joiner knows its successor, and their list, before its
			// first stabilisation round.
			{holds: ovEach(func(a *ovNode) bool { return a.succ == "" || a.status != ovJoining })},
			{[]ovVar{ovSuccs}, ovEach(func(a *ovNode) bool { return len(a.succs) == 0 || a.status != ovJoining })},
			{[]ovVar{ovGen}, restarted},
		},
		inject: func(vs []*ovNode, i int) *ovNode {
			b := vs[i]
			if b == nil || b.status != ovJoined || b.pred == "" {
				return nil
			}
			c := *b
			c.status = ovJoining
			return &c
		},
	},
	{
		name: "self-in-successors", shape: Iterator, needs: []ovVar{ovID, ovSuccs},
		text: ovText("forall n0 in nodes: forall e0 in n0.%s: e0.id != n0.%s", ovSuccs, ovID),
		holds: ovEach(func(a *ovNode) bool {
			return !slices.ContainsFunc(a.succs, func(e ovEntry) bool { return e.id == a.id })
		}),
		// The last entry names the node itself, at the key it had.
		inject: func(vs []*ovNode, i int) *ovNode {
			b := vs[i]
			if b == nil || len(b.succs) < 2 {
				return nil
			}
			c := *b
			c.succs = slices.Clone(b.succs)
			c.succs[len(c.succs)-1].id = c.id
			return &c
		},
	},
	{
		name: "successors-out-of-order", shape: Predicate, needs: []ovVar{ovKey, ovSuccs},
		text:  ovText("forall n0 in nodes: clockwise(n0.%s, n0.%s)", ovSuccs, ovKey),
		holds: ovEach(func(a *ovNode) bool { return clockwise(a.succs, a.key) }),
		// The last two entries swap places.
		inject: func(vs []*ovNode, i int) *ovNode {
			b := vs[i]
			if b == nil || len(b.succs) < 2 {
				return nil
			}
			c := *b
			c.succs = slices.Clone(b.succs)
			n := len(c.succs)
			c.succs[n-2], c.succs[n-1] = c.succs[n-1], c.succs[n-2]
			return &c
		},
	},
}

// clockwise reports whether the entries of l go round the ring from
// key k, each further than the one before, without passing k.
func clockwise(l []ovEntry, k int64) bool {
	dist := func(e ovEntry) int64 { return (e.key - k + ovCircle) % ovCircle }
	for i := 1; i < len(l); i++ {
		if dist(l[i-1]) >= dist(l[i]) {
			return false
		}
	}
	return true
}

// ovText returns the text of a template: format with args, which are
// variables (printed as the system names them) and statuses (as its
// enum names them, quoted by %q).
func ovText(format string, args ...any) func(*ovDesign) string {
	return func(d *ovDesign) string {
		vals := make([]any, len(args))
		for i, a := range args {
			switch a := a.(type) {
			case ovVar:
				vals[i] = d.name[a]
			case ovStatus:
				vals[i] = d.status[a]
			}
		}
		return fmt.Sprintf(format, vals...)
	}
}
