// Package planted is augur's quality benchmark: a seeded generator of
// distributed-system traces with planted almost-invariants, the ground
// truth for the reporter as the reference evaluator is for the fast one,
// and the scoring of reports against it (augur bench quality).
//
//	sys, err := planted.Generate(seed, planted.Options{})
//	sys.WriteSpec("spec.yaml")       // the spec: variables, types, predicates, limits
//	sys.WriteTrace("run.trace")      // snapshots tagged steady and bug:NAME
//	rep, err := pipeline.Infer(ctx, "spec.yaml", "run.trace", pipeline.Options{})
//	res, err := planted.Score(rep, sys)
//
// [Run] does this for many seeds, one system after another (evaluation
// already uses every core), and returns a [Summary].
//
// # Systems
//
// A system is a replicated log of 5 to 16 nodes under a simulator that
// runs, like the testbeds, one event per snapshot: client requests at the
// leader, in busy periods between idle ones, replicated by messages with
// random delays, acknowledged, committed by a majority and applied;
// elections, in which the leader either crashes or is cut off by a
// partition and keeps leading, stale, appending entries its successor
// never sees, until the partition heals; followers that crash and restart
// with their persistent state; followers removed from the membership and
// added back with an empty log; learners, which replicate but never vote.
// Nodes disagree while an update propagates; a snapshot is tagged steady
// only when no message is in flight and every live node agrees with the
// leader, so these transients are never steady.
//
// Each system exposes 5 to 12 of the variables id, role (an enum), term,
// lead, commit, applied, last (indices), log (its last entries, of type
// list<{index, term}>), membership (a set), its version, the leader's
// caught-up followers (a list), and message counters, of at least four
// semantic categories, under names and type names drawn from a few
// synonyms each; its spec declares them, the predicates ordered and
// monotone over the log, and generation limits under which every planted
// property is in the pool: max_nodes 2, max_literals 2 (3 where a planted
// property has three), no cap per class, the log as iterator domain where
// a planted property iterates.
//
// # Planted properties
//
// Four systems in five have one to three planted properties of different
// shapes ([Shape]): one node and one literal (n0.applied <= n0.commit),
// one node and two literals (empty(n0.acked) or n0.role != "follower"),
// two nodes and two literals (n0.id != n1.lead or n1.last <= n0.last),
// two nodes and three, an iterator over the log (forall e0 in n0.log:
// e0.term <= n0.term), a predicate of the spec (ordered(n0.log)). The
// fifth system is a control with none. Each planted property holds in
// every snapshot of the simulated run and is broken in one node's state
// for a run of 1 to 10 consecutive snapshots, the node staying broken
// until it is repaired, as the testbeds' bugs show (a failed check
// mostly stays failed until the run resets the system, and is not steady
// more often than the run's other snapshots); those snapshots are tagged
// bug:NAME. A property is only
// planted where it is the answer: the generator checks that the simpler
// or equally simple properties that would say the same (the leader named
// by its role rather than as a node's lead, say) fail elsewhere in the
// run, and the tests check, over whole pools, that no property at most as
// complex fails at exactly its snapshots or, simpler, at some of them only.
//
// # Scores
//
// [Score] ranks each planted property among the report's
// almost-invariants: the entry whose text is the property's up to the
// naming of variables and the order of literals. K is the number of
// planted properties plus 2. Noise counts the entries above the last
// planted one; on a control, the almost-invariants that fail at a steady
// snapshot count. The targets ([TargetRecall], [MaxControlSteady]): every
// planted property within the top K in at least 95% of the systems, and
// no control with more than 2 almost-invariants failing in steady state.
//
// # Seeds
//
// The development seeds are 1 to 1,000: tune on these. The held-out seeds
// start at 1,000,001 ([FirstHeldOutSeed]): never tune on them; report them.
// augur bench quality takes --seeds dev, heldout or a range A-B.
package planted
