// Package collector is what a recorded process links: the instrumentation
// API, with which a node exposes its states, and the JSONL sink that
// records them. Package ingest turns what the sinks write into the trace
// format of package trace (augur collect).
//
// # Instrumenting a node
//
// A [Node] stands for one node of a real system. It owns a Lamport
// [Clock] and a [Sink], and records the node's state after each change:
//
//	sink, err := collector.CreateJSONLSink("n1.jsonl", collector.SinkOptions{})
//	node := collector.NewNode("n1", sink)
//	defer node.Close()
//	defer node.Leave()
//	node.Expose(&state)            // after every change of state
//	msg.TS = node.Stamp()          // on every message sent, after exposing
//	node.Receive(msg.TS)           // on every message received
//
// [Node.Expose] turns any struct into a row: its exported fields are the
// state variables (see [Node.Expose] for the types and the augur tags).
// The reflection plan of a type is built once and cached, and exposing
// through the Arrow sink allocates nothing between flushes.
// [Node.Heartbeat] records progress without a change, so that snapshots
// complete while a node is idle, and [Node.Leave] an orderly departure. A
// nil *Node does nothing, so instrumentation can stay in a system that is
// not traced.
//
// # Sinks
//
// A [JSONLSink] writes node-local JSON lines, one record a line, flushed
// every [SinkOptions.FlushRecords] records or [SinkOptions.FlushInterval]:
//
//	{"node": "n1", "ts": 17, "state": {…}}     the node's state after a change
//	{"node": "n1", "ts": 19, "heartbeat": true} progress without a change
//	{"node": "n1", "ts": 25, "leave": true}     orderly departure
//
// The other sinks are packages of their own, so that a process links only
// the one it uses (neither Arrow nor an HTTP client comes with this
// package): collector/arrowsink writes an Arrow IPC stream per node, after
// a crash every flushed record can be read back and a batch torn by the
// crash is detected by the stream reader of package ingest;
// collector/httpsink pushes the JSON lines to augur monitor. A sink of
// one's own implements [Sink] and reads a record's state through
// [State.Visit], [State.Values] or [State.AppendJSON]. Package
// collector/recorder is for simulators that can pause the world: it
// writes global snapshots straight into a trace.
package collector
