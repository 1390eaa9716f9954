package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/augur-dev/augur/diag"
)

// record is one decoded global-snapshot line.
type record struct {
	snapshot uint64
	ts       uint64
	tags     []string
	nodes    []nodeState // sorted by name
}

type nodeState struct {
	name  string
	state map[string]any
}

// topKeys are the keys of a global-snapshot line.
var topKeys = []string{"snapshot", "ts", "tags", "nodes"}

// errNodeLocal is the message for node-local input.
const errNodeLocal = `node-local input ({"node": …, "ts": …, "state": …}): ` +
	`CollectJSONL reads global snapshots ({"snapshot": N, "nodes": {…}}); Collect reads both`

// parseRecord checks the shape of a decoded line and fills rec. first
// reports whether this is the first record of the input.
func parseRecord(at pos, v any, first bool, rec *record) error {
	errf := func(field, format string, args ...any) error {
		return &Error{Pos: diag.Position{Filename: at.file, Line: at.line}, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return errf("", "want a JSON object {\"snapshot\": N, \"nodes\": {…}}, got %s", kindName(v))
	}
	if _, ok := m["node"]; ok {
		if _, global := m["nodes"]; !global {
			if first {
				return errf("", "%s", errNodeLocal)
			}
			return errf("", "node-local record in global-snapshot input (a file is all one mode)")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(topKeys, k) {
			return errf("", "unknown key %q (want snapshot, ts, tags and nodes)", k)
		}
	}
	sv, ok := m["snapshot"]
	if !ok {
		return errf("", `missing "snapshot" (want a non-negative integer)`)
	}
	var err error
	if rec.snapshot, err = parseUint(sv); err != nil {
		return errf("snapshot", "%v", err)
	}
	rec.ts = rec.snapshot
	if tv := m["ts"]; tv != nil {
		if rec.ts, err = parseUint(tv); err != nil {
			return errf("ts", "%v", err)
		}
	}
	rec.tags = rec.tags[:0]
	tags := m["tags"]
	if l, ok := tags.([]string); ok { // as parseLine reads tags
		rec.tags, tags = append(rec.tags, l...), nil
	}
	switch tv := boxScalars(tags).(type) {
	case nil:
	case []any:
		for i, t := range tv {
			s, ok := t.(string)
			if !ok {
				return errf(fmt.Sprintf("tags[%d]", i), "want a string, got %s", kindName(t))
			}
			rec.tags = append(rec.tags, s)
		}
	default:
		return errf("tags", "want a list of strings, got %s", kindName(tv))
	}
	nv, ok := m["nodes"]
	if !ok {
		return errf("", `missing "nodes" (want an object mapping node names to states)`)
	}
	nodes, ok := nv.(map[string]any)
	if !ok {
		return errf("nodes", "want an object mapping node names to states, got %s", kindName(nv))
	}
	rec.nodes = rec.nodes[:0]
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		field := fieldPath([]seg{{key: "nodes", idx: -1}, {key: name, idx: -1}})
		if name == "" {
			return errf(field, "empty node name")
		}
		st, ok := nodes[name].(map[string]any)
		if !ok {
			return errf(field, "want the node's state as an object, got %s", kindName(nodes[name]))
		}
		rec.nodes = append(rec.nodes, nodeState{name, st})
	}
	return nil
}

// parseUint reads a non-negative integer that fits uint64.
func parseUint(v any) (uint64, error) {
	n, ok := v.(json.Number)
	if ok {
		if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
			return u, nil
		}
		return 0, fmt.Errorf("want a non-negative integer, got %s", n)
	}
	return 0, fmt.Errorf("want a non-negative integer, got %s", kindName(v))
}

// kindName names the kind of a decoded JSON value.
func kindName(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case json.Number:
		if isInteger(v) {
			return "integer"
		}
		return "float"
	case string:
		return "string"
	case []any, []int64, []float64, []string:
		return "list"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// isInteger reports whether a JSON number has neither fraction nor
// exponent.
func isInteger(n json.Number) bool {
	return !strings.ContainsAny(string(n), ".eE")
}

// scanInputs reads the inputs in order as one stream of global-snapshot
// records and calls fn for each. It checks that snapshot numbers strictly
// increase, and stops once ctx is done, as a collection into out that
// ctx stopped (see interrupted). The record passed to fn is reused.
func scanInputs(ctx context.Context, out string, inputs []string, fn func(at pos, rec *record) error) (int, error) {
	var (
		rec    record
		n      int
		prev   uint64
		prevAt pos
	)
	for _, name := range inputs {
		f, err := openInput(name)
		if err != nil {
			return n, err
		}
		lr := newLineReader(name, f)
		for {
			if err := interrupted(ctx, out); err != nil {
				f.Close()
				return n, err
			}
			line, err := lr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return n, err
			}
			if isBlank(line) {
				continue
			}
			at := pos{name, lr.line}
			v, err := decodeLine(at, line)
			if err == nil {
				err = parseRecord(at, v, n == 0, &rec)
			}
			if err == nil && n > 0 && rec.snapshot <= prev {
				err = &Error{Pos: diag.Position{Filename: at.file, Line: at.line}, Field: "snapshot",
					Msg: fmt.Sprintf("snapshot %d does not increase (previous %d at %s)", rec.snapshot, prev, prevAt.relative(at))}
			}
			if err == nil {
				err = fn(at, &rec)
			}
			if err != nil {
				f.Close()
				return n, err
			}
			n++
			prev, prevAt = rec.snapshot, at
		}
		if err := f.Close(); err != nil {
			return n, &Error{Pos: diag.Position{Filename: name}, Msg: "close input", Err: err}
		}
	}
	return n, nil
}
