package planted

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/augur-dev/augur/trace"
)

// SteadyTag tags the snapshots in steady state: no message in flight and
// every live node agreeing with the leader.
const SteadyTag = "steady"

// BugTag returns the tag of the snapshots where the planted property
// named name is broken.
func BugTag(name string) string { return "bug:" + name }

// WriteTrace writes the system's trace to dir, which must not exist: one
// snapshot per step of the run, tagged steady in steady state and
// bug:NAME where planted property NAME is broken.
func (sys *System) WriteTrace(dir string) error {
	if sys.run != nil {
		return writeRun(dir, sys.Name, sys.run)
	}
	kinds := sys.d.vars()
	schema := make(trace.Schema, len(kinds))
	for i, k := range kinds {
		schema[i] = trace.Column{Name: sys.d.name[k], Type: arrowType(k)}
	}
	w, err := trace.Create(dir, schema, trace.Options{System: sys.Name, CreatedBy: "augur bench quality"})
	if err != nil {
		return err
	}
	rows := map[*view]uint32{}
	vals := make([]any, len(kinds))
	var members []uint32
	for s := range sys.views {
		members = members[:0]
		for _, v := range sys.at(s) {
			if v == nil {
				continue
			}
			row, ok := rows[v]
			if !ok {
				for i, k := range kinds {
					vals[i] = sys.d.value(k, v)
				}
				if row, err = w.AddState(v.id, uint64(s)+1, vals); err != nil {
					w.Abort()
					return err
				}
				rows[v] = row
			}
			members = append(members, row)
		}
		var tags []string
		if sys.steady[s] {
			tags = append(tags, SteadyTag)
		}
		if b, ok := sys.broken[s]; ok {
			tags = append(tags, BugTag(b.bug))
		}
		if err := w.AddSnapshot(trace.Snapshot{ID: snapshotID(s), TS: uint64(s) + 1, Members: members, Tags: tags}); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// WriteGoodRun writes the trace of the system's i-th good run (from 0)
// to dir, which must not exist: the same system run again with other
// random choices and nothing planted, tagged steady as the run is. The
// system must have been generated with Options.GoodRuns above i.
func (sys *System) WriteGoodRun(i int, dir string) error {
	if i < 0 || i >= len(sys.goods) {
		return fmt.Errorf("planted: %s: generated with %d good runs (Options.GoodRuns), not %d", sys.Name, len(sys.goods), i+1)
	}
	return sys.goods[i].WriteTrace(dir)
}

// WriteSpec writes the system's spec to path.
func (sys *System) WriteSpec(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(sys.Spec), 0o644)
}
