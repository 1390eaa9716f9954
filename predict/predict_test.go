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
	notify  bool // a message dropped sets its sender's y to 100
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
		if r.notify {
			r.nodes[r.msgs[e.Index].From].Y = 100
		}
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

// TestSteer checks the choice of steering: the delivery that starts a
// violating path is filtered when dropping it leads to no violation; when
// another copy of the message still leads to it, the sender is refused
// instead; and no filter is installed when dropping the message would
// itself break the check (here the sender notices the loss).
func TestSteer(t *testing.T) {
	c := compile(t, "forall n0 in nodes: n0.y < 3")
	for _, tt := range []struct {
		name     string
		copies   int
		notify   bool
		filters  []Filter
		rejected int
	}{
		{"one copy", 1, false, []Filter{{Event: Event{Kind: Deliver, From: 0, Node: 1, Index: 0}}}, 0},
		{"two copies", 2, false, []Filter{{Event: Event{Kind: Deliver, From: 0, Node: 1, Index: 0}, Sender: true}}, 1},
		{"harmful", 1, true, nil, MaxCandidates}, // every candidate rejected
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newRing(2, 4, true)
			m.notify = tt.notify
			m.nodes[0].X = 3
			for range tt.copies {
				m.add(Message{Event: Event{Kind: Deliver, From: 0, Node: 1, Msg: int64(3), Hash: 3}})
			}
			plan, err := Steer(m, c, Options{Depth: 3, Budget: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if res := plan.Result; len(res.Paths) == 0 || len(res.Paths[0].Events) != 1 {
				t.Fatalf("%d paths; want the delivery of 3 first", len(res.Paths))
			}
			for i := range plan.Filters {
				plan.Filters[i].Msg, plan.Filters[i].Hash = nil, 0
			}
			if !slices.Equal(plan.Filters, tt.filters) || plan.Rejected != tt.rejected {
				t.Errorf("filters %+v, %d rejected; want %+v, %d", plan.Filters, plan.Rejected, tt.filters, tt.rejected)
			}
		})
	}
}

// TestSteerTimers checks timer filters: a node's timer that breaks a
// check by itself is suppressed, each node's in turn.
func TestSteerTimers(t *testing.T) {
	c := compile(t, "forall n0 in nodes: n0.x < 1")
	plan, err := Steer(newRing(2, 0, false), c, Options{Depth: 2, Budget: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := []Filter{{Event: Event{Kind: Timer, Node: 0, From: -1}}, {Event: Event{Kind: Timer, Node: 1, From: -1}}}
	if !slices.Equal(plan.Filters, want) {
		t.Errorf("filters %+v, want %+v", plan.Filters, want)
	}
}

// TestBase checks that a model whose own state violates a check is
// explored still, and that only states adding failing bindings violate:
// n1's y is 5 already; the path found makes n2's y 3.
func TestBase(t *testing.T) {
	c := compile(t, "forall n0 in nodes: n0.y < 3")
	m := newRing(2, 0, true)
	m.nodes[0].Y = 5
	res, err := Explore(m, c, Options{Depth: 4, Budget: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Base) != 1 || res.Base[0].Failing != 1 {
		t.Fatalf("base %v, want the one failing binding of n1", res.Base)
	}
	if len(res.Paths) == 0 || len(res.Paths[0].Events) != 4 {
		t.Fatalf("%d paths; want the 4 events that make n2's y 3", len(res.Paths))
	}
	if v := res.Paths[0].Violations[0]; v.Failing != 2 || v.Witness.Values["n0.y"] != int64(5) {
		t.Errorf("violation %s, failing %d; want 2 failing", v.Error(), v.Failing)
	}
}

// TestPrior checks that the violating paths of an earlier search are
// replayed first, found by a search whose budget does not reach them,
// with the indexes of the messages they deliver matched anew.
func TestPrior(t *testing.T) {
	c := compile(t, "forall n0 in nodes: n0.y < 3")
	m := newRing(2, 0, true)
	first, err := Explore(m, c, Options{Depth: 4, Budget: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Paths) == 0 {
		t.Fatal("no path to replay")
	}
	// An unrelated message in flight shifts the indexes of the others.
	m.add(Message{Event: Event{Kind: Deliver, From: 1, Node: 0, Msg: int64(0), Hash: 0}})
	again, err := Explore(m, c, Options{Depth: 4, MaxStates: 1, Budget: 10 * time.Second, Prior: first.Paths[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if again.Replayed != 1 || len(again.Paths) != 1 || again.States != 1 {
		t.Fatalf("%d replayed, %d paths in %d states; want the prior path alone", again.Replayed, len(again.Paths), again.States)
	}
	got, want := again.Paths[0].Events, first.Paths[0].Events
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = got[i].Kind == want[i].Kind && got[i].From == want[i].From && got[i].Node == want[i].Node && got[i].Hash == want[i].Hash
	}
	if last := len(got) - 1; !same || got[last].Index != want[last].Index+1 {
		t.Errorf("replayed %s, want %s, its message's index one more", &again.Paths[0], &first.Paths[0])
	}
	// A path whose message is gone is not replayed.
	gone := Path{Events: []Event{{Kind: Deliver, From: 0, Node: 1, Hash: 99}}, Violations: first.Paths[0].Violations}
	again, err = Explore(m, c, Options{Depth: 4, MaxStates: 1, Budget: 10 * time.Second, Prior: []Path{gone}})
	if err != nil {
		t.Fatal(err)
	}
	if again.Replayed != 0 || len(again.Paths) != 0 {
		t.Errorf("%d replayed, %d paths; want none", again.Replayed, len(again.Paths))
	}
}
