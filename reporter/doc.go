// Package reporter turns evaluator stats into a report of the anomalies a
// trace holds, each shown by the property a person would write for it,
// and of its invariants.
//
// [Build], in order:
//
//  1. selects the candidates: holding rate at least the hold ratio, enough
//     non-vacuous snapshots;
//  2. drops the or-effects (below);
//  3. groups the almost-invariants into anomalies by the snapshots at
//     which they fail: a property joins a simpler one whose violating
//     snapshots hold (almost) all of its own and are not many more
//     ([Grouping]), unless it stands out (step 5) and that one does not:
//     a rare anomaly is never hidden in one left out. One rare bug
//     breaks a simple property and hundreds of weaker ones, each failing
//     at some of its moments with a higher holding rate; the simplest
//     represents the anomaly (fewest node variables, then iterators, then
//     literals; of equally simple ones, the one covering the most
//     moments, then failing at the fewest bindings) and the others are
//     listed under it as equivalents or "also fails here";
//  4. ranks the anomalies by a score comparable across quantifier scopes:
//     the lower confidence bound of the share of non-vacuous snapshots
//     where no violation event of the representative begins (rare
//     violations backed by many snapshots first; a run of consecutive
//     violating snapshots is one event, or one per Thresholds.EpisodeSpan
//     snapshots it lasts), then simplicity; with a steady tag asked for,
//     anomalies seen in steady state come first;
//  5. keeps only the anomalies that stand out, violated at most
//     Thresholds.StandOut times: a report may be shorter than its size,
//     or empty, when few anomalies are rare;
//  6. ranks after the others what also fails in a baseline run;
//  7. keeps the witnesses, and the report's warnings (expressions that
//     failed at run time) and each entry's (or-effect not tested).
//
// The fixed decision rules live in [Thresholds]. The report writes itself
// as text for people, JSON for machines, Markdown for documents and a
// self-contained HTML page with a violation timeline per entry.
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
//     Bonferroni-corrected). Then Q is marked "explained by" P, and P
//     stays, in Q's anomaly: a co-symptom of the same bug also "explains"
//     Q, and Q is what a person wants to read;
//  2. otherwise P is dropped when its literals split into two groups whose
//     truth values over the bindings are independent (chi-square test on
//     the 2×2 table, or Fisher's exact test when an expected count is
//     below 5): a rate that comes from OR-ing unrelated facts means
//     nothing.
//
// The tests use the literal truth patterns the evaluator counts for every
// flat property, so no second pass over the trace is needed for them.
package reporter
