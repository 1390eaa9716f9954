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
// # Families
//
// One family of systems is not a benchmark: held-out seeds of one
// generator test the seed, not the generalisation. Seed s makes a system
// of family Families()[s mod 4] ([Family]), so any four consecutive
// seeds cover them all:
//
//   - log: a replicated log (below);
//   - pb: a primary/backup store with leases, epochs and two-valued
//     roles, whose implication-shaped properties have a usually-true
//     guard (role != "primary" or …) and so a second spelling, [Planted]
//     Alts (role == "backup" or …);
//   - mesh: set propagation over a mesh or gossip membership, with
//     containers, iterators, subset and membership literals;
//   - overlay: a ring or tree overlay: ids, parents, successors.
//
// Every family draws 3 to 16 nodes and, by [Length], 2,000 to 5,000
// snapshots (short, the default) or 20,000 to 50,000 (long), and its
// systems have the same structure: a spec declaring several variables of
// several semantic types under names drawn from a few synonyms each,
// natural structure (values that move together, roles, membership,
// monotone counters, transient disagreement while updates propagate), a
// snapshot tagged steady only when no update is under way, generation
// limits under which every planted property is in the pool.
//
// # The replicated log
//
// A replicated log of 3 to 16 nodes under a simulator that runs, like
// the testbeds, one event per snapshot: client requests at the leader, in
// busy periods between idle ones, replicated by messages with random
// delays, acknowledged, committed by a majority and applied; elections,
// in which the leader either crashes or is cut off by a partition and
// keeps leading, stale, appending entries its successor never sees,
// until the partition heals; followers that crash and restart with their
// persistent state; followers removed from the membership and added back
// with an empty log; learners, which replicate but never vote. Nodes
// disagree while an update propagates; a snapshot is tagged steady only
// when no message is in flight and every live node agrees with the
// leader, so these transients are never steady.
//
// Each system exposes 5 to 12 of the variables id, role (an enum), term,
// lead, commit, applied, last (indices), log (its last entries, of type
// list<{index, term}>), membership (a set), its version, the leader's
// caught-up followers (a list), and message counters, of at least four
// semantic categories; its spec declares them, the predicates ordered and
// monotone over the log, and generation limits: max_nodes 2, max_literals
// 2 (3 where a planted property has three), no cap per class, the log as
// iterator domain where a planted property iterates.
//
// # Planted properties
//
// Four systems in five have one to three planted properties of different
// shapes ([Shape]): one node and one literal (n0.applied <= n0.commit),
// one node and two literals (empty(n0.acked) or n0.role != "follower"),
// two nodes and two literals (n0.id != n1.lead or n1.last <= n0.last),
// two nodes and three, an iterator over a container (forall e0 in
// n0.log: e0.term <= n0.term), a predicate of the spec (ordered(n0.log)).
// The fifth system is a control with none. Each planted property holds
// in every snapshot of the simulated run and is broken in one node's
// state wherever its bug strikes: 1 to [MaxStrikes] separate episodes
// (one bug in three strikes once) of 1 to [MaxEpisode] consecutive calm
// snapshots each, at most [MaxBrokenShare] of the run together, all
// tagged bug:NAME. Half the bugs have an aftermath: the broken node goes
// on changing with the system while the property stays broken, until the
// episode ends; in the others an episode is one broken state of the node,
// which its next change repairs. A failed check mostly stays failed for
// a while, as the testbeds' bugs show, and the failing snapshots are not
// steady more often than the run's others.
//
// Some planted properties also fail, untagged, at one or two legitimate
// moments of the run ([Planted] Legit), where the system has such a
// moment: in the replicated log, a follower removed from the membership
// that hears of it and lingers a tick or two (n0.id in n0.members), a
// node that crashed after applying entries but before persisting its
// commit index (n0.applied <= n0.commit), the last entry of a leader
// that crashed or was cut off, which one follower holds until the next
// leader replaces it (the leader's log is the longest, of all or of its
// term). Most of a planted property's failures are still its bug's.
//
// A property is only planted where it is the answer: the generator checks
// that the simpler or equally simple properties that would say the same
// (the leader named by its role rather than as a node's lead, say) fail
// elsewhere in the run, and the tests check, over whole pools, that no
// property at most as complex fails at some of its bug's snapshots and
// nowhere else but at its legitimate moments.
//
// # Scores
//
// [Score] ranks each planted property among the report's
// almost-invariants: the entry whose text is the property's, or one of
// its Alts, up to the naming of variables and the order of literals. K
// is the number of planted properties plus 2. Noise counts the entries
// above the last planted one; on a control, the almost-invariants that
// fail at a steady snapshot count. [Summary.Scores] tallies recall per
// family (systems whose every planted property is within the top K), per
// family and shape, by strikes (1, 2–4, 5–20), by legitimate failures and
// by aftermath (planted properties within the top K), and the controls
// per family. The targets ([TargetRecall], [MaxControlSteady]), at each
// length: in every family run, every planted property within the top K
// in at least 95% of the systems, and no control with more than 2
// almost-invariants failing in steady state.
//
// # Seeds
//
// The development seeds are 1 to 1,000: tune on these. The held-out seeds
// start at 1,000,001 ([FirstHeldOutSeed]): never tune on them; report them.
// augur bench quality takes --seeds dev, heldout or a range A-B, and
// --family LIST to run only the seeds of some families.
package planted
