// Package ingest turns recorded input into augur traces: it reads
// global snapshots and node-local records, infers their types, builds
// consistent cuts from node-local records, and writes the trace format of
// package [trace]. It is what augur collect does; the instrumentation that
// writes node-local records is package [collector].
//
// # JSONL input
//
// [CollectJSONL] reads newline-delimited JSON in global-snapshot mode, one
// object per line:
//
//	{"snapshot": 7, "ts": 120, "tags": ["steady"], "nodes": {"n1": {…}, "n2": {…}}}
//
// snapshot is a non-negative integer that strictly increases across the
// whole input (several files are read in order as one stream); ts, the
// logical time of the cut, defaults to the snapshot number; tags is a list
// of strings (a null ts or tags counts as absent). Other keys are errors.
// Each node's state is a JSON object whose keys are the state variables.
// Blank lines are skipped, and so is a UTF-8 byte order mark at the start
// of a file. Lines may be up to 64 MiB long.
//
// A node's state is stored once and its row reused in later snapshots until
// the state changes; the ts of a stored state is the ts of the first
// snapshot that holds it.
//
// # Node-local input
//
// [Collect] also reads node-local records, from JSONL files and from the
// Arrow streams of package collector/arrowsink (read by a
// [StreamReader]), one or several files, each node in one file:
//
//	{"node": "n1", "ts": 17, "state": {…}}     the node's state after a change
//	{"node": "n1", "ts": 19, "heartbeat": true} progress without a change
//	{"node": "n1", "ts": 25, "leave": true}     orderly departure
//
// ts is the node's Lamport time and increases strictly within a node. The
// snapshots are built as in D3S: the files are merged in timestamp order,
// and there is a cut at every time t at which some node exposed a state.
// The snapshot of the cut holds, for every node live at t, its latest
// state at or before t. A node is live from a state until it leaves (a
// later state makes it rejoin), and with [Options.FailAfter] only while
// its latest record is at most FailAfter old. A snapshot is written only
// when the cut is complete: every live node has a record at or after t.
// If the nodes expose a change before they stamp the messages that tell
// of it, such a cut is consistent: a node that received a message is
// never seen with a sender that has not yet sent it. Incomplete cuts are
// counted in [Result.Incomplete]; a snapshot is numbered by its cut, so
// the numbers skip the cuts not written. [Options.Collapse] drops a
// snapshot equal to the one before.
//
// A [Cutter] makes the cuts. It is a state machine without I/O that
// takes the records in, in timestamp order, and gives the complete cuts
// out: Collect drives it from files, and a monitor can drive it from
// records pushed over the network.
//
// Within a file, the records of different nodes may be out of order by up
// to [Options.Window] records. Memory is bounded by the nodes, the inputs
// times the window, and the cuts waiting for a node of a shared file that
// is silent for more than the window (in a file of one node, a cut never
// waits). A record out of order within its node, outside the window, of a
// node already seen in another file, or whose type conflicts with earlier
// states is an [*Error] naming the file, the line (or the offset of the
// Arrow record batch) and the node; with [Options.Lenient] it is skipped
// and counted instead. A torn end of an input, a last line cut short or an
// Arrow message cut short, is a warning in [Result.Warnings].
//
// # Type inference
//
// Unless [Options.Schema] fixes the column types, CollectJSONL reads its
// input twice: the first pass infers a type for every state variable from
// all its values, the second writes the trace. Memory stays bounded by one
// line, the schema and a hash of every node's last state. The rules:
//
//   - an integer is int64; a field whose integers include one beyond int64
//     becomes uint64 if all its values are non-negative integers, and is an
//     error otherwise; an integer beyond uint64 is an error;
//   - a number with a fraction or an exponent is float64, and a field that
//     holds both integers and such numbers is float64, unless one of the
//     integers is beyond 2^53, which float64 would round: that is an error
//     (a spec that says float64 accepts the rounding);
//   - a string is utf8, true and false are bool; a line that is not valid
//     UTF-8 is an error, and so is a key given twice in one object;
//   - an array is list<T>, T merged over all elements of all values;
//   - an object is a struct whose fields are the union of the keys seen,
//     sorted by name; a missing field is null; but objects whose keys
//     number more than 1,000 between them (at one field path, over all
//     lines) are keyed by data, not named fields: they are
//     map<utf8,T>, T merged over all their values as a list's elements
//     are, and values that do not merge are an error;
//   - null carries no information: a field that is only ever null is utf8,
//     a list that is always empty (or holds only nulls) is list<utf8>, and
//     an object that is always empty is map<utf8,utf8>;
//   - anything else is a mix of kinds (a string where other values are
//     integers, say): an [*Error] that names the file, the line and the
//     field.
//
// For example:
//
//	trace.jsonl:17: nodes.n3.log[2].term: string, but earlier lines (first at line 3: nodes.n1.log[0].term) hold integers
//
// State variables are top-level columns, sorted by name. The names node and
// ts are reserved for the columns every trace has, and an empty name is
// rejected.
//
// # Errors
//
// Every error about the input is an [*Error] carrying the file, line,
// byte column (for malformed JSON) and field path. Output is written to a
// temporary directory and renamed into place at the end, so after an error
// nothing is left at the output path and an existing trace there is
// untouched.
package ingest
