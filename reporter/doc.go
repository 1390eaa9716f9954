// Package reporter turns evaluator stats into a ranked report of
// almost-invariants and invariants.
//
// [Build] selects the candidates (holding rate at least the hold ratio,
// enough support), ranks them by holding rate, removes the disjunctions
// whose high rate comes only from OR-ing (the or-effect), groups
// equivalent properties and then properties that fail at mostly the same
// snapshots (one anomaly breaks many properties; each is shown once, by
// its best-ranked property), and keeps witnesses. The report writes itself as
// text for people, JSON for machines and Markdown for documents.
//
// # Or-effect
//
// A disjunction never holds less often than any of its parts, so long
// disjunctions reach high rates cheaply. For a candidate P:
//
//  1. if a strict sub-disjunction Q of P is itself a candidate, P is
//     dropped in favour of the simpler Q, unless the other literals R of P
//     hold at Q's violating bindings far more often than elsewhere (a
//     one-sided test on the 2×2 table of "Q violated" against "R holds",
//     Bonferroni-corrected). Then P explains Q's violations: P stays and
//     Q is marked "explained by" P;
//  2. otherwise P is dropped when its literals split into two groups whose
//     truth values over the bindings are independent (chi-square test on
//     the 2×2 table, or Fisher's exact test when an expected count is
//     below 5): a rate that comes from OR-ing unrelated facts means
//     nothing.
//
// The tests use the literal truth patterns the evaluator counts for every
// flat property, so no second pass over the trace is needed.
package reporter
