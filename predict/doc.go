// Package predict is CrystalBall's online predictor (Yabandeh et al.,
// NSDI 2009): from a copy of a running system, a [Model], it explores the
// events that can come next and reports the event sequences that lead to
// a violation of the checks.
//
// [Explore] runs the paper's consequence prediction (its Figure 5): a
// breadth-first search over event chains, where an in-flight message can
// be delivered, dropped or duplicated, a node's timer can fire and a node
// can be reset. Two hashes keep it small. A global state already explored
// is skipped. A node's local events (its timer and its reset) are
// explored only the first time the search meets the node's local state,
// so the search follows chains of messages from a changed node rather
// than every interleaving of timers: the paper's trade of completeness
// for depth. The checks, compiled by package checker, are evaluated on
// every explored state; a state that violates one ends its chain, which
// is reported as a [Path] with the witness. The search is bounded by a
// depth (events per chain), a number of states and a wall-clock budget.
package predict
