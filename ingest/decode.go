package ingest

import (
	"errors"
	"maps"
	"slices"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/trace"
)

// A LocalRecord is a node-local JSON line decoded by a [LocalDecoder].
type LocalRecord struct {
	Node  string
	TS    uint64
	Event collector.Event
	// Vars holds, for collector.EventState, one value per column of the
	// decoder's schema in the representation of package trace (nil for a
	// variable the state lacks); nil for other events. It belongs to the
	// caller.
	Vars []any
}

// A LocalDecoder decodes node-local JSON lines against a fixed schema,
// exactly as [Collect] reads them with [Options.Schema] set: the same
// shape rules, the same conversions of values to column types and the
// same errors. A monitor decodes the lines pushed to it with one, so that
// a record means the same online as in augur collect --spec.
//
// A LocalDecoder is not safe for concurrent use; it is cheap to make one
// per goroutine.
type LocalDecoder struct {
	sw *snapshotWriter
}

// NewLocalDecoder returns a decoder for states with the variables of
// schema, whose values check, if not nil, checks as
// [Options.CheckValue] does.
func NewLocalDecoder(schema trace.Schema, check func(col int, v any) error) (*LocalDecoder, error) {
	if err := checkSchema(schema); err != nil {
		return nil, err
	}
	sw := newSnapshotWriter(nil, schema, false)
	sw.check = check
	return &LocalDecoder{sw: sw}, nil
}

// Decode decodes data, one line without its newline, found at line of
// file (both only name the position in errors). A blank line decodes to
// nil. A malformed line, a record of the wrong shape or a value that does
// not fit its column is an [*Error] naming file, line, node and field.
func (d *LocalDecoder) Decode(file string, line int, data []byte) (*LocalRecord, error) {
	s := string(data) // the values decoded may share it; data may not be kept
	if isBlank(s) {
		return nil, nil
	}
	at := pos{file, line}
	v, err := decodeLine(at, s)
	if err != nil {
		return nil, err
	}
	l, err := parseLocal(at, v)
	if err != nil {
		return nil, err
	}
	r := &LocalRecord{Node: l.name, TS: l.ts, Event: l.event}
	if l.event == collector.EventState {
		sw := d.sw
		sw.at = at
		sw.path = append(sw.path[:0], seg{key: "state", idx: -1})
		if err := sw.convertState(l.state); err != nil {
			if e := (*Error)(nil); errors.As(err, &e) {
				e.Node = l.name
			}
			return nil, err
		}
		r.Vars = slices.Clone(sw.vars)
		for i, v := range r.Vars {
			r.Vars[i], _ = boxLists(v)
		}
	}
	return r, nil
}

// boxLists returns v with its lists of scalars, which convert leaves as
// []int64, []uint64, []float64 or []string, as the []any of their values
// that package trace decodes a list to, which a monitor's checks and
// Options.CheckValue read; changed is false, and v returned, if it holds
// none. v is not changed: the lists and objects that hold such lists are
// copies.
func boxLists(v any) (_ any, changed bool) {
	switch v := v.(type) {
	case []string:
		return boxed(v), true
	case []int64:
		return boxed(v), true
	case []uint64:
		return boxed(v), true
	case []float64:
		return boxed(v), true
	case []any:
		var c []any
		for i, e := range v {
			if b, changed := boxLists(e); changed {
				if c == nil {
					c = slices.Clone(v)
				}
				c[i] = b
			}
		}
		if c != nil {
			return c, true
		}
	case map[string]any:
		var c map[string]any
		for k, e := range v {
			if b, changed := boxLists(e); changed {
				if c == nil {
					c = maps.Clone(v)
				}
				c[k] = b
			}
		}
		if c != nil {
			return c, true
		}
	}
	return v, false
}

func boxed[T int64 | uint64 | float64 | string](l []T) []any {
	b := make([]any, len(l))
	for i, x := range l {
		b[i] = x
	}
	return b
}
