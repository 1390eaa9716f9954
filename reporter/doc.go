// Package reporter turns evaluator stats into a report of the anomalies a
// trace holds, each shown by the property a person would write for it,
// and of its invariants.
//
// [Build], in order:
//
//  1. selects the candidates ([NotCandidate], the one rule the filter and
//     the pipeline's extra passes share): holding rate at least the hold
//     ratio, enough non-vacuous snapshots;
//  2. drops the or-effects (below);
//  3. groups the almost-invariants into anomalies by the snapshots at
//     which they fail: a property joins one simpler in every count (node
//     variables, iterators, literals) whose violating snapshots hold
//     (almost) all of its own and are not many more, as a ratio
//     ([Grouping]), and one equally simple, or simpler in another way,
//     that fails at (almost) the same moments; a syntactic weakening
//     (P = Q or R) joins its Q whatever the ratio, unless R explains Q's
//     violations. One rare bug breaks a simple property and hundreds of
//     weaker ones, each failing at some of its moments with a higher
//     holding rate; the simplest represents the anomaly (fewest node
//     variables, then iterators, then literals; of equally simple ones,
//     the one covering the most moments, then failing at the fewest
//     bindings) and the others are listed under it as equivalents or
//     "also fails here";
//  4. ranks the anomalies by a score comparable across quantifier scopes:
//     the lower confidence bound of the share of non-vacuous snapshots
//     where no violation event of the representative begins, at a level
//     Bonferroni-corrected for the number of properties of its shape in
//     the pool (Thresholds.RankLevel): rare violations backed by many
//     snapshots first, and of two equally rare, the simpler, of which
//     fewer were tried; a run of consecutive violating snapshots is one
//     event, or one per Thresholds.EpisodeShare of the run it lasts.
//     With a steady tag asked for (Options.SteadyTag), anomalies seen in
//     steady state come first, as the Avenger paper looked at
//     steady-state violations;
//  5. leaves out only the anomalies violated through a large share of
//     the run, whose temporal rate is below the hold ratio: a bug that
//     strikes once and one that strikes twenty times are both rare, and
//     the ranking, not a count, puts the recurring one lower;
//  6. ranks after the others what also fails in a baseline run, and lists
//     the baseline's invariants that this run breaks in a section of
//     their own, simplest first, whatever their violation rate;
//  7. lists apart, in the same order, the rare values: anomalies whose
//     property states only that a value is rare (one variable against a
//     constant, or alone: n0.state != "candidate"), which relate nothing,
//     while a bug breaks a relation;
//  8. keeps the witnesses, and the report's warnings (expressions that
//     failed at run time) and each entry's (or-effect not tested).
//
// Every decision rule is relative or a stated test, and lives in
// [Thresholds]. Build records, for the properties asked for, what it
// made of them ([Fate]): augur explain prints it. The report writes
// itself as text for people, JSON for machines, Markdown for documents
// and a self-contained HTML page with a violation timeline per entry.
//
// # Or-effect
//
// A disjunction never holds less often than any of its parts, so long
// disjunctions reach high rates cheaply. For a candidate P:
//
//  1. if a strict sub-disjunction Q of P is itself a candidate, P is
//     dropped in favour of the simpler Q, unless the other literals R of P
//     explain Q's violations: on the 2×2 table of "Q violated" against "R
//     holds" over P's bindings, a one-sided test (Bonferroni-corrected)
//     and an odds ratio of at least Thresholds.MinOddsRatio, which reads
//     the table from both sides, so that the usually-true guard of an
//     implication (n0.role != "primary" or …), whose failing side
//     excludes Q's violations, counts. Then Q is marked "explained by" P,
//     and P stays: a co-symptom of the same bug also "explains" Q, and Q
//     is what a person wants to read;
//  2. otherwise P is dropped when its literals split into two groups whose
//     truth values over the bindings are independent (chi-square test on
//     the 2×2 table, or Fisher's exact test when an expected count is
//     below 5): a rate that comes from OR-ing unrelated facts means
//     nothing.
//
// The tests read the literal truth patterns of the candidates, which
// follow from the violations of their pattern properties
// ([PatternProperties], [Patterns]): a second pass over the trace limited
// to the candidates counts them.
package reporter
