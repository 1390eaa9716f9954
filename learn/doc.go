// Package learn learns the checks that guard a live system from runs of
// it believed good (augur learn): the properties of the spec's pool that
// hold in every run, with enough support, minimized so that each says
// something no other kept check or the spec itself already says, and
// vetted against more good runs so that a guard made of them does not
// stall the system it protects.
//
// [Learn], in order:
//
//  1. generates the pool of the spec (with Options.Iterate, over more
//     containers) with the constants mined from the first run, and
//     evaluates it over each run in turn, each run
//     evaluating only what the runs before it kept;
//  2. keeps a property that, in every run, is non-vacuous (some binding
//     exists) in at least Options.MinSupport of the run's snapshots,
//     and is never violated; with Options.Almost set, one violated in at
//     most that share of the run's non-vacuous snapshots is kept too, as
//     an almost-invariant. Both rules are shares, never counts: they
//     decide the same way on runs of any length;
//  3. drops the properties true by the spec alone: those that hold on
//     every one of [SpecStates] random states drawn from the spec's
//     types (with the constants mined from the first run), derived
//     variables computed as the spec defines them. A check that cannot
//     fail guards nothing;
//  4. minimizes the rest with the reporter ([reporter.Build]) over the
//     runs' stats merged: a disjunction one of whose sub-disjunctions is
//     kept is implied by it and dropped, as is one that holds only by
//     OR-ing independent literals (the or-effect); the almost-invariants
//     failing at the same moments are one anomaly, which its simplest
//     member represents, the others dropped.
//
// Each check carries its provenance in its source: the runs, the least
// share of a run's snapshots where it was non-vacuous, and its least
// holding rate over the runs.
//
// [Vet] replays runs believed good, held out from learning, against the
// checks as the immediate safety check does (checker.Snapshot.Guard):
// every change of a live node's state from one snapshot to the next must
// pass. A check that would refuse one refuses a legitimate change, and
// is reported, so that the caller drops it.
package learn
