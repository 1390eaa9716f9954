// Package evaluator computes how often properties hold over the snapshots
// of a trace.
//
// [Compile] type-checks properties against a spec and resolves their
// variables once. [Run] streams the trace in blocks of snapshots, spreads
// the blocks over worker goroutines, and merges their partial [Stats] in
// block order, so that results do not depend on the number of workers.
// Between chunks of snapshots an optional [Pruner] drops properties that
// no longer look like invariants.
//
// The reference evaluator interprets each property binding by binding,
// directly from the semantics of the property language: it is the oracle
// the faster evaluators are tested against.
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
// without bindings is vacuous and does not count.
package evaluator
