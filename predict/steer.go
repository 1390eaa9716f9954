package predict

import (
	"fmt"
	"slices"

	"github.com/augur-dev/augur/checker"
)

// A Filter is an event that execution steering keeps from happening in
// the live system until the next prediction.
type Filter struct {
	// Event is the event kept from happening: a message's delivery (the
	// message is dropped) or a node's timer (it does not fire).
	Event
	// Sender, with a delivery, refuses every message from Event.From to
	// Event.Node, the ones in flight and those sent until the next
	// prediction: CrystalBall's filter that resets the connection.
	Sender bool
}

// refuses reports whether f keeps ev from happening in m.
func (f *Filter) refuses(m Model, ev Event) bool {
	switch f.Kind {
	case Deliver:
		// A single message is dropped before the search (see drops).
		return f.Sender && ev.Kind == Deliver && ev.From == f.From && ev.Node == f.Node
	case Timer:
		return ev.Kind == Timer && ev.Node == f.Node
	}
	return false
}

// isRefused reports whether a filter of the search keeps ev from
// happening in m.
func (e *explorer) isRefused(m Model, ev Event) bool {
	for i := range e.refused {
		if e.refused[i].refuses(m, ev) {
			return true
		}
	}
	return false
}

// A Plan is what a prediction tells execution steering to do.
type Plan struct {
	// Filters are the events to keep from happening.
	Filters []Filter
	// Rejected counts the filters considered and not installed, because
	// a search from the state they lead to found a violation.
	Rejected int
	// Result is the search from the model.
	Result *Result
}

// MaxCandidates bounds the filters that Steer considers, each of which
// costs a search.
const MaxCandidates = 4

// Steer is CrystalBall's execution steering's choice: it searches from m
// (as Explore does, with opts) and returns filters that keep the events
// that start the violating paths found from happening (see steerable): a
// message's delivery (the message is dropped, or else every message of
// its sender to its receiver is refused) or a node's timer.
//
// A filter is installed only when a second search, from m with it and
// the filters chosen before it in force, shows that it helps and does no
// harm: the state right after the filter (a message dropped, or a
// sender's messages) adds no violation to those of m, the violation of
// the path it cuts is not found again, and every violation found on a
// path that could be steered is one the first search found (a check
// failing at the same binding of its variables), so that the filter
// does not itself lead to a violation. At most
// MaxCandidates filters are considered, in the order of the paths,
// shortest first.
func Steer(m Model, c *checker.Checker, opts Options) (*Plan, error) {
	res, err := Explore(m, c, opts)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Result: res}
	known := map[string]bool{}
	for i := range res.Paths {
		for _, v := range res.Paths[i].Violations {
			known[signature(&v)] = true
		}
	}

	opts.Prior = nil
	considered := 0
	for _, p := range res.Paths {
		first, ok := steerable(&p)
		if !ok || plan.blocks(m, &p) {
			continue
		}
		// After faults, a message's index is another: it is matched in m.
		if first, ok = match(m, first); !ok {
			continue
		}
		if plan.covers(m, first) {
			continue
		}
		for _, f := range candidates(first) {
			if considered == MaxCandidates {
				return plan, nil
			}
			considered++
			try := append(slices.Clone(plan.Filters), f)
			o := opts
			o.Refused = append(slices.Clone(opts.Refused), try...)
			o.Base = res.Base
			if o.Base == nil {
				o.Base = []checker.Violation{} // m's, not the filtered state's
			}
			after, err := Explore(drops(m, try), c, o)
			if err != nil {
				return nil, err
			}
			if !helps(after, &p, known) {
				plan.Rejected++
				continue
			}
			plan.Filters = try
			break
		}
	}
	return plan, nil
}

// helps reports whether the search after a filter found no violation
// but those known, and not that of path p, on the paths it could steer.
func helps(after *Result, p *Path, known map[string]bool) bool {
	cut := signature(&p.Violations[0])
	for i := range after.Paths {
		if len(after.Paths[i].Events) == 0 {
			return false // the filter's own effect breaks a check
		}
		if _, ok := steerable(&after.Paths[i]); !ok {
			continue
		}
		for _, v := range after.Paths[i].Violations {
			if sig := signature(&v); sig == cut || !known[sig] {
				return false
			}
		}
	}
	return true
}

// signature names a violation by its check and the binding of its
// witness.
func signature(v *checker.Violation) string {
	return v.Check.Name + " " + fmt.Sprint(v.Witness.Binding)
}

// steerable returns the event of p that steering would keep from
// happening: its first delivery or timer, the system's own events, after
// the faults that may come first (messages lost or duplicated, crashes,
// restarts). A path on which a crash or a restart follows that event
// cannot be steered: the fault, which no filter prevents, breaks the
// check, and a filter that kept the system from every state where a
// crash would break a check would keep it from making progress.
func steerable(p *Path) (Event, bool) {
	for i, e := range p.Events {
		if e.Kind != Deliver && e.Kind != Timer {
			continue
		}
		for _, f := range p.Events[i+1:] {
			if f.Kind == Reset || f.Kind == Restart {
				return Event{}, false
			}
		}
		return e, true
	}
	return Event{}, false
}

// candidates returns the filters that keep ev, a delivery or a timer,
// from happening, the narrowest first.
func candidates(ev Event) []Filter {
	if ev.Kind == Timer {
		return []Filter{{Event: ev}}
	}
	return []Filter{{Event: ev}, {Event: ev, Sender: true}}
}

// blocks reports whether the plan's filters keep an event of p from
// happening: p is cut already.
func (p *Plan) blocks(m Model, path *Path) bool {
	for _, ev := range path.Events {
		for i := range p.Filters {
			f := &p.Filters[i]
			if f.refuses(m, ev) || f.Kind == Deliver && !f.Sender && (ev.Kind == Deliver || ev.Kind == Duplicate) &&
				ev.From == f.From && ev.Node == f.Node && ev.Hash == f.Hash {
				return true
			}
		}
	}
	return false
}

// covers reports whether the plan's filters keep ev from happening.
func (p *Plan) covers(m Model, ev Event) bool {
	for i := range p.Filters {
		f := &p.Filters[i]
		if f.refuses(m, ev) || f.Kind == Deliver && !f.Sender && ev.Kind == Deliver && f.Index == ev.Index {
			return true
		}
	}
	return false
}

// drops returns a copy of m without the messages in flight that filters
// drop.
func drops(m Model, filters []Filter) Model {
	var idx []int
	for _, msg := range m.Messages() {
		for i := range filters {
			f := &filters[i]
			if f.Kind == Deliver && (f.Sender && msg.From == f.From && msg.Node == f.Node || !f.Sender && msg.Index == f.Index) {
				idx = append(idx, msg.Index)
				break
			}
		}
	}
	d := m.Clone()
	// From the last, so that the indexes of the others hold.
	slices.Sort(idx)
	for _, i := range slices.Backward(idx) {
		d.Apply(Event{Kind: Drop, Index: i})
	}
	return d
}
