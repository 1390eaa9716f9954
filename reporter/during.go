package reporter

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// A protocol's legitimate rare event (an election, a failover) breaks a
// simple property and, while it lasts or just after, many longer ones: a
// two-node, three-literal property that fails only while the new leader
// catches up, say. They fail at other snapshots than the simple one, so
// they are not its shadows, and each is an anomaly of its own; listed by
// rarity, they push a bug that strikes a dozen times out of the report.
// This file ranks such an anomaly after the others: one whose episodes
// (almost) all lie near the episodes of a recurring anomaly listed above
// it, at most as complex, and that one's near its, far nearer than chance
// places them. It hides nothing: a bug that strikes in every election
// ranks after the anomalies with moments of their own, and says during
// which one it fails.

// A spread is a nonempty list of episodes, in order, with what nearness
// needs to count the places near them in O(log k) for k episodes: the
// gaps between consecutive episodes, sorted, and their running sums.
type spread struct {
	eps    []episode
	length uint64   // the snapshots the episodes hold
	gaps   []uint64 // eps[i+1].first - eps[i].last, for each i, sorted
	sums   []uint64 // sums[j] is the sum of gaps[:j]
}

// newSpread returns the spread of eps, nonempty and in order.
func newSpread(eps []episode) *spread {
	s := &spread{eps: eps, gaps: make([]uint64, 0, len(eps)-1), sums: make([]uint64, len(eps))}
	for i, e := range eps {
		s.length += e.last - e.first + 1
		if i > 0 {
			s.gaps = append(s.gaps, e.first-eps[i-1].last)
		}
	}
	slices.Sort(s.gaps)
	for j, g := range s.gaps {
		s.sums[j+1] = s.sums[j] + g
	}
	return s
}

// nearness returns the chance that an episode as long as ep, placed at
// random among n snapshots, lies as near to one of s's episodes as ep
// does: the share of the places where it would. The distance between two
// episodes is 0 when they meet, else the gap between them plus one.
func nearness(ep episode, s *spread, n uint64) float64 {
	return s.nearness(ep, ending(s.eps, 0, ep.first), n)
}

// ending returns the index of the first of eps, in order, to end at or
// after x, given that none before i does. It gallops from i, so that a
// walk over episodes in order costs O(log) of the distance covered at
// each step.
func ending(eps []episode, i int, x uint64) int {
	if i >= len(eps) || eps[i].last >= x {
		return i
	}
	// eps[lo] ends before x; the answer is in (lo, hi].
	lo, hi := i, i+1
	for step := 1; hi < len(eps) && eps[hi].last < x; step *= 2 {
		lo, hi = hi, hi+step
	}
	hi = min(hi, len(eps))
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if eps[mid].last < x {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// nearness is the package's nearness, given i, the index of the first of
// s's episodes to end at or after ep's start (ending).
func (s *spread) nearness(ep episode, i int, n uint64) float64 {
	eps := s.eps
	d := uint64(math.MaxUint64)
	if i < len(eps) { // the first of eps ending at or after ep's start
		d = eps[i].first - min(eps[i].first, ep.last)
	}
	if i > 0 { // the last ending before it
		d = min(d, ep.first-eps[i-1].last)
	}
	// An episode of length l starting at x lies within d of e when
	// [x-d, x+l-1+d] meets e: x in [e.first-w, e.last+d], w = l-1+d.
	// The places are the starts in [0, n-l] that some e covers.
	l := ep.last - ep.first + 1
	last := n - min(n, l)
	w := l - 1 + d
	k := uint64(len(eps))
	first, end := eps[0], eps[k-1]
	if d > n || end.first > last+w {
		// Far ids, or episodes whose ranges start past the places:
		// count them one by one.
		return float64(placesNear(eps, l, d, last)) / float64(last+1)
	}
	// The ranges, of the episodes' lengths plus w+d each, less where
	// consecutive ones overlap: by c - g when the gap g between their
	// episodes is below c = w+d+1. The ranges start and end in order, so
	// a range meets no earlier one that its predecessor does not.
	c := w + d + 1
	j := below(s.gaps, c)
	places := s.length + k*(w+d) - (uint64(j)*c - s.sums[j])
	// Less what lies outside [0, last]: below 0 only the first range
	// reaches, which holds all of it, as the last range holds all that
	// lies past last (it starts at or before last+1, and ends last).
	if w > first.first {
		places -= w - first.first
	}
	if end.last+d > last {
		places -= end.last + d - last
	}
	return float64(places) / float64(last+1)
}

// below returns how many of xs, increasing, are below x. It gallops from
// the start: a near episode's ranges overlap across few gaps.
func below(xs []uint64, x uint64) int {
	if len(xs) == 0 || xs[0] >= x {
		return 0
	}
	// xs[lo] is below x; the answer is in (lo, hi].
	lo, hi := 0, 1
	for step := 1; hi < len(xs) && xs[hi] < x; step *= 2 {
		lo, hi = hi, hi+step
	}
	hi = min(hi, len(xs))
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if xs[mid] < x {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// placesNear counts the starts in [0, last] of an episode of length l
// that lie within d of one of eps, in order, merging their ranges one by
// one.
func placesNear(eps []episode, l, d, last uint64) uint64 {
	var places, next uint64 // next: the first start not yet counted
	for _, e := range eps {
		from := max(e.first-min(e.first, l-1+d), next)
		to := min(e.last+d, last)
		if from > to {
			continue
		}
		places += to - from + 1
		next = to + 1
	}
	return places
}

// mostNear returns the p-value of "at least m of the episodes lie as near
// as the m-th nearest does", for episodes with chances ps of lying as
// near as each does: P(Binomial(k, p₍m₎) ≥ m), p₍m₎ the m-th smallest of
// the k chances. Unlike a combination of all the chances (Fisher's), it
// is not moved by one episode that lies near by chance: most must. It
// reorders ps.
func mostNear(ps []float64, m int) float64 {
	return distuv.Binomial{N: float64(len(ps)), P: nth(ps, m-1)}.Survival(float64(m) - 1)
}

// nth returns the (i+1)-th smallest of xs, reordering them: Hoare's
// selection, in time linear in len(xs) on average.
func nth(xs []float64, i int) float64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		a, b, c := xs[lo], xs[lo+(hi-lo)/2], xs[hi]
		pivot := max(min(a, b), min(max(a, b), c)) // the median of the three
		l, r := lo, hi
		for l <= r {
			for xs[l] < pivot {
				l++
			}
			for xs[r] > pivot {
				r--
			}
			if l <= r {
				xs[l], xs[r] = xs[r], xs[l]
				l++
				r--
			}
		}
		// xs[lo:r+1] are at most pivot, xs[l:hi+1] at least, and those
		// between equal it.
		switch {
		case i <= r:
			hi = r
		case i >= l:
			lo = l
		default:
			return xs[i]
		}
	}
	return xs[i]
}

// nearer reports whether all but misses of the episodes xs lie as near
// to ys, among n snapshots, far more often than chance: mostNear below
// alpha. It appends the chances to ps, whose storage it reuses, and
// returns them. It stops as soon as the answer is no. With k episodes,
// m = k - misses of them to be near, mostNear is P(Binomial(k, p₍m₎) ≥ m),
// the Beta(m, k-m+1) distribution function at p₍m₎, below alpha exactly
// when p₍m₎ is below that distribution's alpha-quantile, crit (nearer
// takes it a hair higher, against the quantile's rounding): once more
// than misses episodes have a chance of crit or more, p₍m₎ is too. Most
// pairs of anomalies lie far apart, and this spares their every
// episode's chance and the binomial.
func nearer(ps []float64, xs []episode, ys *spread, n uint64, misses int, alpha, crit float64) ([]float64, bool) {
	m := len(xs) - misses
	far, i := 0, 0
	for _, ep := range xs {
		i = ending(ys.eps, i, ep.first)
		p := ys.nearness(ep, i, n)
		if p >= crit {
			if far++; far > misses {
				return ps, false
			}
		}
		ps = append(ps, p)
	}
	return ps, mostNear(ps, m) < alpha
}

// critical returns the chance at or above which, for k episodes of which
// all but misses must lie near, an episode counts against the test at
// alpha (see nearer): the alpha-quantile of Beta(m, k-m+1), taken a
// millionth higher.
func critical(k, misses int, alpha float64) float64 {
	m := float64(k - misses)
	return distuv.Beta{Alpha: m, Beta: float64(k) - m + 1}.Quantile(alpha) * (1 + 1e-6)
}

// duringLast moves after the others each anomaly A of es,
// representatives in rank order, whose episodes lie near those of an
// anomaly B above it that recurs (two episodes or more), stands out at
// holdRatio and is at most as complex, and B's near A's: both ways, at
// least Grouping.Within of the episodes, far nearer than chance
// (mostNear below level, Bonferroni-corrected for the anomalies A was
// compared with). Both ways, because a bug that strikes during some
// elections is not part of every election; B recurring, because one
// incident that breaks two properties is not a behaviour of the
// protocol, and its anomalies rank as they score. It sets the moved
// entries' During to B's text and keeps each group in rank order.
// moments are the entries' violating snapshots and n the number of
// snapshots in the run.
func duringLast(es []*Entry, moments map[*Entry][]uint64, n int, g Grouping, holdRatio, level float64) {
	eps := make(map[*Entry][]episode, len(es))
	spreads := make(map[*Entry]*spread, len(es))
	shapes := make(map[*Entry]shape, len(es))
	for _, e := range es {
		eps[e] = episodesOf(moments[e])
		if len(eps[e]) > 0 {
			spreads[e] = newSpread(eps[e])
		}
		shapes[e] = shapeOf(e.prop.Property)
	}
	var leads, moved, tried []*Entry
	var ps []float64
	type critKey struct{ k, tried int }
	crits := map[critKey]float64{} // critical, by episodes and anomalies tried
	for i, a := range es {
		if len(eps[a]) == 0 { // no moments kept: nothing to place near another's
			leads = append(leads, a)
			continue
		}
		tried = tried[:0]
		for _, b := range es[:i] {
			if compareShapes(shapes[b], shapes[a]) <= 0 && len(eps[b]) > 1 && standsOut(b, holdRatio) {
				tried = append(tried, b)
			}
		}
		alpha := level / float64(len(tried))
		near := func(x, y *Entry) bool {
			k := len(eps[x])
			misses := g.misses(k)
			c, ok := crits[critKey{k, len(tried)}]
			if !ok {
				c = critical(k, misses, alpha)
				crits[critKey{k, len(tried)}] = c
			}
			ps, ok = nearer(ps[:0], eps[x], spreads[y], uint64(n), misses, alpha, c)
			return ok
		}
		for _, b := range tried {
			if near(a, b) && near(b, a) {
				a.During = b.Text
				break
			}
		}
		if a.During != "" {
			moved = append(moved, a)
		} else {
			leads = append(leads, a)
		}
	}
	copy(es, append(leads, moved...))
}
