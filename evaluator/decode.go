package evaluator

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/augur-dev/augur/trace"
)

// decoder decodes the state rows of a window of snapshots once for every
// engine of a run, in parallel, while the engines evaluate the window
// before: each engine would otherwise decode every row it meets, so that
// at high churn, where most nodes change at every snapshot, the trace
// was decoded once per worker (trace decoding took a fifth of the CPU
// time of augur bench --workload periodic --churn 16 with two workers).
//
// The window is cut into one part per worker, each decoded by its own
// reference (a state reader, the failures of the derived variables):
// as an engine does, a part decodes a row only where it is not among the
// members of the part's previous snapshot. Windows are short
// (windowMembers), so that the states held at once stay few: those of
// the window evaluated and of the one decoded.
type decoder struct {
	refs   []*reference
	states [2][][]*nodeState // by buffer, by snapshot of its window, by member
	done   chan error        // the result of the decoding under way (start)
}

// windowMembers bounds the members of a window's snapshots, and so the
// decoded states a decoder holds at once: the last snapshot of a window
// is the first that reaches it. Tests lower it to cut short traces into
// many windows.
var windowMembers = 4096

func newDecoder(tr *trace.Trace, prog *Program, workers int) (*decoder, error) {
	d := &decoder{}
	for range workers {
		r, err := newReference(tr, prog)
		if err != nil {
			d.close()
			return nil, err
		}
		d.refs = append(d.refs, r)
	}
	return d, nil
}

func (d *decoder) close() {
	for _, r := range d.refs {
		r.close()
	}
}

// window returns the end of the window of snaps that starts at lo.
func window(snaps []trace.Snapshot, lo int) int {
	n := 0
	for i := lo; i < len(snaps); i++ {
		if n += len(snaps[i].Members); n >= windowMembers {
			return i + 1
		}
	}
	return len(snaps)
}

// start decodes the members of snaps, a window, into buffer b of
// d.states, in the background; wait returns the result.
func (d *decoder) start(ctx context.Context, b int, snaps []trace.Snapshot) {
	if d.done == nil {
		d.done = make(chan error, 1)
	}
	go func() { d.done <- d.decode(ctx, b, snaps) }()
}

// wait waits for the decoding that start began, and returns its error.
func (d *decoder) wait() error { return <-d.done }

// decode decodes the members of snaps, a window, into buffer b of
// d.states.
func (d *decoder) decode(ctx context.Context, b int, snaps []trace.Snapshot) error {
	states := d.states[b]
	for len(states) < len(snaps) {
		states = append(states, nil)
	}
	states = states[:len(snaps)]
	d.states[b] = states
	g, gctx := errgroup.WithContext(ctx)
	parts := len(d.refs)
	for w, r := range d.refs {
		lo, hi := w*len(snaps)/parts, (w+1)*len(snaps)/parts
		if lo == hi {
			continue
		}
		g.Go(func() error {
			for i := lo; i < hi; i++ {
				if err := gctx.Err(); err != nil {
					return err
				}
				if err := r.load(&snaps[i], nil); err != nil {
					return err
				}
				states[i] = append(states[i][:0], r.nodes...)
			}
			return nil
		})
	}
	return g.Wait()
}

// failures returns the failures of the derived variables the decoder
// met.
func (d *decoder) failures() []*failures {
	var fs []*failures
	for _, r := range d.refs {
		fs = append(fs, &r.fails)
	}
	return fs
}
