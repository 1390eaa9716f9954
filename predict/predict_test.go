package predict

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/specs"
)

// counter is the state of a node of ring.
type counter struct {
	X int64 `augur:"x"`
	Y int64 `augur:"y"`
}

// ring is a tiny hand-built system: a node's timer increments its x
// (modulo mod, when not 0) and, if send is set, sends x to the next node,
// which keeps the largest x it received as its y. A reset zeroes a node.
type ring struct {
	nodes   []counter
	msgs    []Message
	mod     int64
	send    bool
	applied *int // Apply calls, over all clones
}

func newRing(n int, mod int64, send bool) *ring {
	return &ring{nodes: make([]counter, n), mod: mod, send: send, applied: new(int)}
}

func (r *ring) Nodes() int          { return len(r.nodes) }
func (r *ring) Name(n int) string   { return fmt.Sprintf("n%d", n+1) }
func (r *ring) Live(int) bool       { return true }
func (r *ring) State(n int) any     { st := r.nodes[n]; return &st }
func (r *ring) Hash(n int) uint64   { return uint64(r.nodes[n].X)<<32 | uint64(r.nodes[n].Y) }
func (r *ring) Messages() []Message { return r.msgs }

func (r *ring) Apply(e Event) {
	*r.applied++
	c := &r.nodes[e.Node]
	switch e.Kind {
	case Timer:
		if c.X++; r.mod > 0 {
			c.X %= r.mod
		}
		if r.send {
			to := (e.Node + 1) % len(r.nodes)
			r.add(Message{Event: Event{Kind: Deliver, From: e.Node, Node: to, Msg: c.X, Hash: uint64(c.X)}, CanDuplicate: true})
		}
	case Reset:
		*c = counter{}
	case Deliver:
		c.Y = max(c.Y, e.Msg.(int64))
		r.remove(e.Index)
	case Drop:
		r.remove(e.Index)
	case Duplicate:
		m := r.msgs[e.Index]
		m.CanDuplicate = false
		r.add(m)
	}
}

func (r *ring) add(m Message) {
	m.Index = len(r.msgs)
	r.msgs = append(r.msgs, m)
}

func (r *ring) remove(i int) {
	r.msgs = slices.Delete(slices.Clone(r.msgs), i, i+1)
	for j := i; j < len(r.msgs); j++ {
		r.msgs[j].Index = j
	}
}

func (r *ring) Clone() Model {
	c := *r
	c.nodes, c.msgs = slices.Clone(r.nodes), slices.Clone(r.msgs)
	return &c
}

// compile compiles property against the variables of counter.
func compile(t testing.TB, property string) *checker.Checker {
	t.Helper()
	spec, err := specs.Parse("ring.yaml", []byte("system: ring\nvariables: {x: int64, y: int64}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := checker.Compile(spec, &checker.File{Checks: []checker.Check{{Name: "planted", Property: property}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPlanted checks that the search finds a planted violation at its
// depth, by the shortest paths, and not within a smaller depth.
func TestPlanted(t *testing.T) {
	c := compile(t, "forall n0 in nodes: n0.y < 3")
	for _, tt := range []struct {
		nodes, depth int
		found        bool
	}{
		{2, 3, false},
		{2, 4, true},
		{3, 4, true},
		{3, 6, true},
	} {
		t.Run(fmt.Sprintf("nodes=%d/depth=%d", tt.nodes, tt.depth), func(t *testing.T) {
			m := newRing(tt.nodes, 0, true)
			res, err := Explore(m, c, Options{Depth: tt.depth, Budget: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete || res.Depth > tt.depth {
				t.Errorf("complete %v, depth %d; want a complete search to depth %d", res.Complete, res.Depth, tt.depth)
			}
			if !tt.found {
				if len(res.Paths) > 0 {
					t.Errorf("found %s", &res.Paths[0])
				}
				return
			}
			if len(res.Paths) == 0 {
				t.Fatalf("no path in %d states", res.States)
			}
			p := res.Paths[0]
			if len(p.Events) != 4 {
				t.Fatalf("first path %s, want 4 events", &p)
			}
			from := p.Events[0].Node
			for _, e := range p.Events[:3] {
				if e.Kind != Timer || e.Node != from {
					t.Errorf("path %s: want 3 timers of one node, then a delivery", &p)
				}
			}
			if last := p.Events[3]; last.Kind != Deliver || last.From != from || last.Msg != int64(3) {
				t.Errorf("path %s: want the delivery of 3 from %s", &p, m.Name(from))
			}
			if v := p.Violations[0]; v.Check.Name != "planted" || v.Witness.Values["n0.y"] != int64(3) {
				t.Errorf("violation %v, want planted with y = 3", v.Error())
			}
			if len(m.msgs) != 0 || m.nodes[0] != (counter{}) {
				t.Error("the search changed the model")
			}
		})
	}
}

// TestPruning checks the two hashes on nodes that toggle x with their
// timer and send nothing: a global state is explored once, however many
// chains reach it, and a node's timer fires only in the first global
// state holding each of its local states, so that the state where both
// toggled is never reached (the paper's trade of completeness for depth).
func TestPruning(t *testing.T) {
	c := compile(t, "forall n0 in nodes: n0.x < 2")
	m := newRing(2, 2, false)
	res, err := Explore(m, c, Options{Depth: 10, Budget: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// (0,0) → timer n1 → (1,0), timer n2 → (0,1), and two resets back to
	// (0,0); in (1,0), n1's x=1 is new: its timer and its reset lead back
	// to (0,0); n2's x=0 is not, so (1,1) is not reached; (0,1) likewise.
	// 8 events applied, 6 of which lead to a state explored already.
	if res.States != 3 || !res.Complete || len(res.Paths) != 0 {
		t.Errorf("%d states (%d seen), complete %v, %d paths; want 3 states and none violating", res.States, res.Seen, res.Complete, len(res.Paths))
	}
	if res.Seen != 6 || *m.applied != 8 {
		t.Errorf("%d successors skipped, %d events applied; want 6 and 8", res.Seen, *m.applied)
	}
}

// TestBounds checks that the state bound and the budget stop a search
// that the depth does not.
func TestBounds(t *testing.T) {
	c := compile(t, "forall n0 in nodes: n0.y < 1000")
	for _, opts := range []Options{
		{Depth: 1000, MaxStates: 500, Budget: time.Minute},
		{Depth: 1000, Budget: 20 * time.Millisecond},
	} {
		start := time.Now()
		res, err := Explore(newRing(3, 0, true), c, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Complete || opts.MaxStates > 0 && res.States != opts.MaxStates || time.Since(start) > opts.Budget+time.Second {
			t.Errorf("%+v: %d states in %v, complete %v", opts, res.States, time.Since(start), res.Complete)
		}
	}
}

// TestFilters checks the choice of steering: the delivery that starts a
// violating path is filtered when dropping it leads to no violation, and
// is not when another path still leads to one (here a second copy of the
// message).
func TestFilters(t *testing.T) {
	c := compile(t, "forall n0 in nodes: n0.y < 3")
	for _, tt := range []struct {
		name   string
		copies int
		want   int // filters
	}{
		{"one copy", 1, 1},
		{"two copies", 2, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newRing(2, 4, true)
			m.nodes[0].X = 3
			for range tt.copies {
				m.add(Message{Event: Event{Kind: Deliver, From: 0, Node: 1, Msg: int64(3), Hash: 3}})
			}
			filters, res, err := Filters(m, c, Options{Depth: 3, Budget: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Paths) == 0 || len(res.Paths[0].Events) != 1 {
				t.Fatalf("%d paths; want the delivery of 3 first", len(res.Paths))
			}
			if len(filters) != tt.want {
				t.Fatalf("filters %v, want %d", filters, tt.want)
			}
			if tt.want > 0 && (filters[0].Kind != Deliver || filters[0].Index != 0 || filters[0].Msg != int64(3)) {
				t.Errorf("filter %+v, want the delivery of message 0", filters[0])
			}
		})
	}
}
