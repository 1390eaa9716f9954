// Package monitor checks a live system: its nodes push their node-local
// records over HTTP (what httpsink.Sink sends), the monitor builds
// their consistent cuts as they arrive, with the cut builder of augur
// collect ([ingest.Cutter]), checks each cut with the live checker of
// package checker, and streams the violations. It is augur monitor.
//
// # HTTP API
//
//	POST /v1/records    node-local JSON lines, one record a line
//	GET  /v1/violations a stream of violation lines (chunked JSON lines)
//	GET  /metrics       counters in the Prometheus text format
//	GET  /healthz       "ok", or 503 and the reason
//
// Every request but GET /healthz carries "Authorization: Bearer TOKEN";
// without it or with another token the answer is 401. The token is
// compared in constant time.
//
// A push is node-local JSON lines, as augur collect reads them, for one
// node or many, in order per node:
//
//	{"node": "n1", "ts": 17, "state": {…}}
//	{"node": "n1", "ts": 19, "heartbeat": true}
//	{"node": "n1", "ts": 25, "leave": true}
//
// A push is taken whole or not at all. It is refused, with a one-line
// reason, when its body is over the limit (413), when a line is
// malformed or a state does not fit the spec's variables and types (400,
// naming the line), when a state holds a string outside its enum (422,
// naming the line), when a node's timestamp does not increase (409), or
// when it would bring the nodes over the limit (422). An accepted push
// gets 200 and {"records": N, "late": L, "cuts": C}.
//
// A violation line is one check failing on one cut, with its first
// failing binding, as augur check reports it on the same snapshot:
//
//	{"check": NAME, "property": TEXT, "snapshot": N, "ts": T, "binding": {…}, "values": {…}}
//
// A stream that falls behind by more than [Options.SubscriberBuffer]
// lines is ended, after a last line {"error": …}; checking never waits
// for a stream.
//
// # Cuts
//
// The cuts are those of augur collect on the same records: a cut at every
// time a node exposed a state, holding the latest state of every live
// node, and checked when every live node has a record at or after it.
// The records are applied to the Cutter in timestamp order, as augur
// collect merges its inputs: a record is held back until every node the
// cuts wait for has pushed a record at or past its time (each node's
// records come in order, so nothing earlier can come). The cuts wait for
// every node that has pushed, until it leaves or fails.
//
// So for the same records the monitor streams exactly the violations
// that augur collect --spec and augur check report, provided that no
// record is late: a record of a node the cuts did not wait for (one that
// had not pushed yet, had left or had failed) whose time the cuts have
// passed is dropped and counted. [Options.Nodes] holds the first cut
// back until the nodes that start together have all pushed.
//
// # Liveness and memory
//
// A node that stops pushing without leaving holds the cuts back. With
// [Options.FailAfter], a node silent for that long while the cuts wait
// for it is declared failed: it leaves the cuts at the current time. In
// any case, when more than [Options.MaxBuffered] records are held back,
// the node the cuts wait for is declared failed. The monitor's memory is
// so bounded by the records held back, the nodes ([Options.MaxNodes])
// and one state per node; a failure is counted by reason in the metrics
// and logged.
//
// # Recording
//
// With [Options.Record], the monitor writes the trace of the cuts it
// checked, put in place when it closes; augur check finds on it the
// violations the monitor streamed. While it runs, the records it takes
// go to a journal beside it, DIR.journal.jsonl, written out after every
// push. After the monitor is killed, augur collect rebuilds the trace
// from the journal: every cut the monitor checked, and those the records
// it held back complete:
//
//	augur collect --spec SPEC --window $(wc -l < DIR.journal.jsonl) DIR.journal.jsonl -o DIR
//
// (with the monitor's --collapse and --fail-after-ts, if it had them).
// A monitor refuses to start when the trace or its journal exists: an
// earlier recording is never replaced.
package monitor
