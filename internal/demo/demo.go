// Package demo embeds the example that augur demo runs the whole pipeline
// on: the trace of a simulated five-node replicated log with leader
// election, three rare bugs planted in it, and its spec. The command in
// ./gen makes the trace; see its documentation for the system and the bugs.
package demo

import _ "embed"

//go:generate go run ./gen -seed 1 -o demo.jsonl

// Names of the embedded files, for writing them out.
const (
	TraceName = "demo.jsonl"
	SpecName  = "demo.yaml"
)

// Trace is the demo trace in augur's JSONL global-snapshot format. The
// snapshots where a planted bug shows carry one of the tags in Bugs.
//
//go:embed demo.jsonl
var Trace []byte

// Spec is the demo spec: the nodes' state variables and the settings of
// each stage, with nothing that points at the bugs.
//
//go:embed demo.yaml
var Spec []byte

// Bugs lists the ground-truth tags of the bugs planted in Trace.
var Bugs = []string{"bug:two-leaders", "bug:apply-before-commit", "bug:commit-beyond-log"}
