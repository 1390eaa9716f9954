// Package predict is CrystalBall's online predictor (Yabandeh et al.,
// NSDI 2009): from a copy of a running system, a [Model], it explores the
// events that can come next and reports the event sequences that lead to
// a violation of the checks, and chooses the filters that steer the
// system away from them.
//
// [Explore] runs the paper's consequence prediction (its Figure 5): a
// breadth-first search over event chains, where an in-flight message can
// be delivered, dropped or duplicated, a live node's timer can fire, a
// live node can be reset (it crashes and restarts at once) and a node
// that is down can restart. Two hashes keep it small. A global state
// already explored is skipped. A node's local events (its timer and its
// reset) are explored only the first time the search meets the node's
// local state, so the search follows chains of messages from a changed
// node rather than every interleaving of timers: the paper's trade of
// completeness for depth. The checks, compiled by package checker, are
// evaluated on every explored state: as an event changes one node at
// most, at the bindings of that node, whose failing ones replace the
// node's in its parent's count, and on the whole state only when it
// violates. The model's own state may violate
// them already; a state violates when it adds failing bindings to the
// model's, and that ends its chain, which is reported as a [Path] with
// the witness. The violating paths of an earlier search can be replayed
// first (Options.Prior), as the paper replays the error paths it found.
// The search is bounded by a depth (events per chain), a number of
// states and a wall-clock budget.
//
// [Steer] is the paper's execution steering: from the violating paths it
// picks [Filter]s (drop a message, refuse a sender's messages, suppress
// a timer) that cut them, and keeps only those that a search from the
// filtered state shows to help and to do no harm.
package predict
