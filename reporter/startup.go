package reporter

import (
	"cmp"
	"slices"
)

// A system starts in states set up before it ran: all counters zero, no
// leader yet, every lease expiring now. A trace recorded from boot begins
// with them, and they break relations the running system keeps, once, in
// one episode from the first snapshot. Ranked by rarity, such anomalies
// come first (the blind lock service's seed 4 had four in its top five),
// though they say how the system began, not what it does. This file ranks
// them after the others. It needs no count: an anomaly whose only
// episode begins at the run's first snapshot never failed once the
// system had moved on.

// startUpLast marks the entries of es, representatives in rank order,
// whose violating snapshots (moments, all kept) form one episode
// beginning at start, the id of the run's first snapshot, and moves
// them after the others, each group keeping its order.
func startUpLast(es []*Entry, moments map[*Entry][]uint64, start uint64) {
	for _, e := range es {
		ms := moments[e]
		e.StartUp = len(ms) > 0 && int64(len(ms)) == e.ViolatingSnapshots &&
			ms[0] == start && len(episodesOf(ms)) == 1
	}
	slices.SortStableFunc(es, func(a, b *Entry) int {
		return cmp.Compare(b2i(a.StartUp), b2i(b.StartUp))
	})
}
