// Package recorder writes global snapshots of a simulated system, one that
// can pause the world, straight into a trace. It is apart from package
// collector, whose node API a recorded process links, because it writes
// the trace format, and so links Arrow.
package recorder

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"slices"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/trace"
)

// A Recorder writes global snapshots of a simulated system, whose node
// states are values of type S (a struct or a pointer to one, exposed as
// by collector.Node.Expose), straight into a trace. A node's state is stored once
// and its row reused until it changes. Like the trace it writes, it
// appears at its directory only when Close succeeds.
//
// A Recorder is not safe for concurrent use.
type Recorder[S any] struct {
	w     *trace.Writer
	last  map[string]*lastState
	next  uint64
	names []string
	rows  []uint32
	key   []byte
}

// lastState is what a Recorder keeps of a node's last state.
type lastState struct {
	sum [sha256.Size]byte // of the state's key
	row uint32
}

// New starts a trace at dir whose state variables are the fields of S. An
// S that cannot be exposed is a [*collector.TypeError].
func New[S any](dir string, opts trace.Options) (*Recorder[S], error) {
	cols, err := collector.SchemaOf(reflect.TypeFor[S]())
	if err != nil {
		return nil, err
	}
	schema := make(trace.Schema, len(cols))
	for i, c := range cols {
		schema[i] = trace.Column{Name: c.Name, Type: trace.ArrowType(c.Type)}
	}
	if opts.CreatedBy == "" {
		opts.CreatedBy = "augur recorder.Recorder"
	}
	w, err := trace.Create(dir, schema, opts)
	if err != nil {
		return nil, err
	}
	return &Recorder[S]{w: w, last: map[string]*lastState{}}, nil
}

// Snapshot records a snapshot at logical time ts of the live nodes, by
// name, with optional tags (such as a testbed's "bug:NAME"). Snapshots
// are numbered from 0 in the order they are recorded.
func (r *Recorder[S]) Snapshot(ts uint64, nodes map[string]S, tags ...string) error {
	r.names = r.names[:0]
	for name := range nodes {
		r.names = append(r.names, name)
	}
	slices.Sort(r.names)
	r.rows = r.rows[:0]
	for _, name := range r.names {
		if name == "" {
			return fmt.Errorf("recorder: snapshot %d: empty node name", r.next)
		}
		st, err := collector.StateOf(nodes[name])
		if err != nil {
			return fmt.Errorf("snapshot %d: node %s: %w", r.next, name, err)
		}
		r.key = st.AppendKey(r.key[:0])
		sum := sha256.Sum256(r.key)
		l := r.last[name]
		if l == nil || l.sum != sum {
			row, err := r.w.AddState(name, ts, st.Values())
			if err != nil {
				return fmt.Errorf("recorder: snapshot %d: %w", r.next, err)
			}
			if l == nil {
				l = &lastState{}
				r.last[name] = l
			}
			l.sum, l.row = sum, row
		}
		r.rows = append(r.rows, l.row)
	}
	if err := r.w.AddSnapshot(trace.Snapshot{ID: r.next, TS: ts, Members: r.rows, Tags: tags}); err != nil {
		return fmt.Errorf("recorder: %w", err)
	}
	r.next++
	return nil
}

// Close finishes the trace and moves it into place.
func (r *Recorder[S]) Close() error { return r.w.Close() }

// Abort discards the trace.
func (r *Recorder[S]) Abort() { r.w.Abort() }
