// Package trace reads and writes augur traces (format version 1).
//
// A trace is a directory NAME.trace/ holding three files:
//
//   - states.arrow: an Arrow IPC file with one row per exposed node state:
//     the columns node (utf8) and ts (uint64), then one column per state
//     variable;
//   - snapshots.arrow: an Arrow IPC file with one row per consistent global
//     snapshot: snapshot (uint64, strictly increasing), ts (uint64),
//     members (list<uint32>, rows of states.arrow sorted by node) and
//     tags (list<utf8>);
//   - manifest.json: format, version, counts and the SHA-256 of both files.
//
// A node whose state did not change is stored once, however many snapshots
// it appears in.
//
// # Values
//
// State variables are decoded into plain Go values: nil (null), bool,
// int64, uint64, float64, string, []any (list) and map[string]any (struct,
// or map with utf8 keys). The same representation is accepted by
// [Writer.AddState], which also takes a list of int64, uint64, float64
// or utf8 as a []int64, []uint64, []float64 or []string (values without
// an interface each, which takes 16 bytes more and, for most values, an
// allocation) and appends it at once. [Trace.TypedStates] and
// [SharedValue] decode such a list without nulls to the same typed
// slices.
package trace
