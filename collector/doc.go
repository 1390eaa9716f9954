// Package collector records augur traces: it turns what a system exposes
// into the trace format of package [trace].
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
// of strings (a null ts or tags counts as absent). Other keys are errors. Each node's state is a JSON object whose keys are the state
// variables. Blank lines are skipped, and so is a UTF-8 byte order mark at
// the start of a file. Lines may be up to 64 MiB long.
//
// A node's state is stored once and its row reused in later snapshots until
// the state changes; the ts of a stored state is the ts of the first
// snapshot that holds it. Node-local input ({"node": "n1", "ts": 17,
// "state": {…}}) is recognised and rejected: building snapshots from it is
// not implemented yet.
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
//     holds both integers and such numbers is float64 (integers beyond 2^53
//     lose precision there);
//   - a string is utf8, true and false are bool;
//   - an array is list<T>, T merged over all elements of all values;
//   - an object is a struct whose fields are the union of the keys seen,
//     sorted by name; a missing field is null;
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
package collector
