// Package evaluator computes how often properties hold over the snapshots
// of a trace.
//
// [Compile] type-checks properties against a spec and resolves their
// variables once. [Run] streams the trace in chunks of snapshots and cuts
// the properties into one span per worker goroutine; the state rows of
// the snapshots are decoded once for every engine, a window of snapshots
// while the engines evaluate the window before (decode.go), and each
// span's engine adds up its properties' [Stats] over every snapshot in
// trace order, carrying what it knows from one chunk into the next.
// Between chunks the bounds of the spans move so that the engines take
// as long; a property that changes engine starts a new run, so results
// depend neither on the number of workers nor on the spans. An optional
// [Pruner] also drops, between chunks, properties that no longer look
// like invariants.
//
// # Evaluators
//
// The reference evaluator interprets each property binding by binding,
// directly from the semantics of the property language: it is the oracle
// the fast evaluator is tested against, field by field of every Stats, on
// random specs, traces and properties (diff_test.go).
//
// The fast evaluator, the default, groups the properties by quantifier
// prefix (a scope). Per snapshot and scope it enumerates the bindings
// once and evaluates each distinct atom once per binding into a bitset; a
// property's holding count is the popcount of the OR of its literals'
// bitsets (a negated literal is XORed with ones), and its literal patterns
// come from popcounts of ANDs. Values are prepared once per state row:
// numbers unboxed, containers and structs interned to integers so that ==,
// in and subset compare integers, single-node atoms evaluated. A user
// predicate is a function of its arguments: its results are memoized by
// the ids of their exact values (bounded, across bindings and snapshots),
// so that expr's machine runs once per distinct argument tuple. Between
// consecutive snapshots, which mostly share their rows, it evaluates an
// atom again only at the bindings of the nodes whose values it reads
// changed, and counts a property again only when one of its bitsets
// changed. A scope whose bitsets over every binding would not fit in a
// fixed budget (two nodes of a cluster of thousands have millions of
// bindings) is evaluated in blocks of bindings instead, each counted and
// forgotten, so that memory does not grow with the number of nodes.
// Properties with exists, or with an iterator over an element's
// container, are evaluated binding by binding as the reference does.
//
// # Semantics
//
// A binding assigns distinct live nodes to the variables of one
// "forall … in nodes" group and elements to iterator variables. The
// bindings of a property are those of its leading forall quantifiers; any
// quantifier after the first exists is evaluated as part of the matrix.
// == and != are null-safe; <, <= and in are false when an operand is null;
// a null container is empty. The members of a map, for iterators and
// for in, are its keys. The spatial score of a property in a
// snapshot is the share of its bindings at which it holds; a snapshot
// without bindings is vacuous and does not count. Scores are summed
// exactly, in fixed point (Score), so the fast and the reference
// evaluator, and shards merged in any order, agree to the bit.
package evaluator
