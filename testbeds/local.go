package testbeds

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/augur-dev/augur/collector"
)

// local writes the node-local records of a run (Config.Local): one
// collector.Node per node, whose Lamport clock the run's messages carry.
type local struct {
	nodes []*collector.Node
	last  []any  // the state each node last exposed, nil before its first
	sent  []bool // the node sent a message in the current step
}

// openLocal makes the nodes of a run that writes node-local records to
// the sinks newSink returns.
func openLocal(nodes int, newSink func(node string) (collector.Sink, error)) (*local, error) {
	l := &local{last: make([]any, nodes), sent: make([]bool, nodes)}
	for n := range nodes {
		sink, err := newSink(Name(n))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("local records of %s: %w", Name(n), err), l.close())
		}
		l.nodes = append(l.nodes, collector.NewNode(Name(n), sink))
	}
	return l, nil
}

// stamp returns the time a message that node from sends in the current
// step carries: the time of the record that ends the step at the sender
// (see expose), so that a cut holding the receiver's state after the
// message holds the sender's state after the send.
func (l *local) stamp(from int) uint64 {
	l.sent[from] = true
	return l.nodes[from].Clock().Now() + 1
}

// boot starts the nodes of a fresh system at one time, later than every
// record so far, as a message from whoever boots them would: the first
// records of the new nodes (each exposes its state at the end of the
// first step) then make one cut, and no cut mixes the old system with
// the new.
func (l *local) boot() {
	var t uint64
	for _, n := range l.nodes {
		t = max(t, n.Clock().Now())
	}
	for i, n := range l.nodes {
		n.Receive(t)
		l.last[i] = nil
	}
}

// expose ends a step: each live node whose state changed exposes it, and
// one that only sent messages ticks its clock past their stamp. A crashed
// node records nothing, as a real one would; its collector outlives the
// crash, as a clock kept on disk would, so that its records after the
// restart go on from its time.
func expose[S any](s *Sim, sys System[S]) error {
	l := s.loc
	for n, live := range s.live {
		if !live {
			l.sent[n] = false
			continue
		}
		st := sys.State(n)
		if l.last[n] == nil || !reflect.DeepEqual(l.last[n], st) {
			if err := l.nodes[n].Expose(&st); err != nil {
				return fmt.Errorf("local records of %s: %w", Name(n), err)
			}
			l.last[n] = st
		} else if l.sent[n] {
			l.nodes[n].Tick()
		}
		l.sent[n] = false
	}
	return nil
}

// leave ends the run: every node leaves, and its sink is closed.
func (l *local) leave() error {
	var errs []error
	for _, n := range l.nodes {
		errs = append(errs, n.Leave())
	}
	return errors.Join(errors.Join(errs...), l.close())
}

// close closes the nodes' sinks.
func (l *local) close() error {
	var errs []error
	for _, n := range l.nodes {
		errs = append(errs, n.Close())
	}
	return errors.Join(errs...)
}
