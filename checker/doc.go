// Package checker runs checks, properties promoted from a report or
// written by hand, inside live processes.
//
// A checks file names a spec and holds the checks (any property of the
// language, exists included):
//
//	spec: ../specs/etcdraft.yaml
//	checks:
//	  - name: one-leader-per-term
//	    property: forall n0, n1 in nodes: n0.term != n1.term or n0.state != "leader" or n1.state != "leader"
//	    holding_rate: 0.9999
//	    source: report.json#1
//
// [Load] reads it. The offline check of every snapshot of a trace file
// (augur check) is pipeline.CheckFiles: it reads traces, which a live
// process has no need to link.
//
// # Live checking
//
// [Compile] (or [Open], which also loads the spec) compiles the checks
// once into a [Checker]. A [Snapshot] holds the states of the live
// nodes of a system: the structs a service already passes to
// collector.Node.Expose, read by the collector's rules so that a struct
// means the same variables here as in a trace, or decoded states as
// package trace and ingest produce them. [Snapshot.Check] returns the
// checks that fail, each with its first failing binding and the values
// read there, as augur check prints its witnesses.
//
// [Snapshot.Guard] is CrystalBall's immediate safety check: given one
// node's proposed next state, it evaluates the checks with that state
// substituted, only at the bindings that involve the node, and returns
// the violations as a [*GuardError] before the change is applied, so
// that the node can refuse it:
//
//	if err := snap.Guard(id, &next); err != nil {
//		return err // refused; errors.As finds the *checker.Violation
//	}
//	*state = next
//	snap.Set(id, state)
//
// A monitor, which builds consistent cuts from pushed records, prepares
// each record's state once ([Checker.Prepare]), fills a Snapshot with
// the members of each cut ([Snapshot.Reset], [Snapshot.Put]) and checks
// it.
//
// The semantics are the evaluator's, to the binding: null-safe
// comparisons, distinct nodes per quantifier group, derived variables and
// spec predicates, exists and iterators; the nodes are taken in the
// order of their names, as a trace's snapshots hold them, so a check
// fails on a live snapshot exactly when the evaluator counts violations
// on the same snapshot of a trace, with the same first failing binding.
//
// Checking allocates nothing once a snapshot's buffers have grown, for
// states given as pointers to structs of scalars, strings, slices and
// structs, or as decoded states; derived variables and spec predicates
// allocate (expr-lang takes Go values), and so do []byte fields, maps
// and fields tagged augur:",string" of a struct state. The package links
// nothing that reads or writes traces (Arrow and its codecs), no
// compression and no network client, neither the evaluator nor the
// reporter: at most 140 packages with the standard library, most of them
// the spec's expr-lang and YAML (TestDeps).
package checker
