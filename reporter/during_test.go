package reporter

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEpisodesOf checks the runs of consecutive snapshots.
func TestEpisodesOf(t *testing.T) {
	got := episodesOf([]uint64{3, 4, 5, 9, 11, 12})
	want := []episode{{3, 5}, {9, 9}, {11, 12}}
	if !slices.Equal(got, want) {
		t.Errorf("episodesOf = %v, want %v", got, want)
	}
	if got := episodesOf(nil); len(got) != 0 {
		t.Errorf("episodesOf(nil) = %v", got)
	}
}

// distance is the distance between two episodes by its definition: 0
// when they meet, else the gap between them plus one.
func distance(a, b episode) uint64 {
	switch {
	case a.last < b.first:
		return b.first - a.last
	case b.last < a.first:
		return a.first - b.last
	}
	return 0
}

// TestNearness checks nearness against its definition, by placing an
// episode of the same length at every start and counting the places as
// near as the episode's own.
func TestNearness(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := uint64(20 + r.IntN(200))
		var eps []episode
		for x := uint64(r.IntN(10)); x < n; x += uint64(2 + r.IntN(40)) {
			l := uint64(1 + r.IntN(8))
			eps = append(eps, episode{x, min(x+l-1, n-1)})
			x += l
		}
		if len(eps) == 0 {
			continue
		}
		first := uint64(r.IntN(int(n)))
		ep := episode{first, min(n-1, first+uint64(r.IntN(6)))}
		near := func(e episode) uint64 {
			d := uint64(math.MaxUint64)
			for _, f := range eps {
				d = min(d, distance(e, f))
			}
			return d
		}
		l := ep.last - ep.first + 1
		d, places := near(ep), 0
		for x := uint64(0); x+l <= n; x++ {
			if near(episode{x, x + l - 1}) <= d {
				places++
			}
		}
		want := float64(places) / float64(n-l+1)
		if got := nearness(ep, newSpread(eps), n); math.Abs(got-want) > 1e-12 {
			t.Fatalf("nearness(%v, %v, %d) = %g, want %g", ep, eps, n, got, want)
		}
	}
}

// TestNearnessMerged checks the count of places in O(log k) against
// the merge of every episode's range (placesNear), over random episodes
// of random lengths and gaps, some lying past the run's n snapshots, for
// episodes of every length anywhere: the ranges reach below the first
// snapshot, past the last place, overlap or not.
func TestNearnessMerged(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		n := uint64(1 + r.IntN(400))
		var eps []episode
		gap := 2 + r.IntN(60)
		for x := uint64(r.IntN(gap)); x < n+uint64(r.IntN(3))*n/2; x += uint64(2 + r.IntN(gap)) {
			l := uint64(1 + r.IntN(1+r.IntN(30)))
			eps = append(eps, episode{x, x + l - 1})
			x += l
		}
		if len(eps) == 0 {
			continue
		}
		first := uint64(r.IntN(int(n) + 20))
		ep := episode{first, first + uint64(r.IntN(1+r.IntN(int(n))))}
		l := ep.last - ep.first + 1
		last := n - min(n, l)
		// The distance from ep to the nearest of eps, and the places as
		// near by the merge.
		d := uint64(math.MaxUint64)
		for _, e := range eps {
			d = min(d, distance(ep, e))
		}
		want := float64(placesNear(eps, l, d, last)) / float64(last+1)
		if got := nearness(ep, newSpread(eps), n); got != want {
			t.Fatalf("nearness(%v, %v, %d) = %g, want %g", ep, eps, n, got, want)
		}
	}
}

// TestNth checks the selection against sorting, over random lists with
// many ties.
func TestNth(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 5000 {
		xs := make([]float64, 1+r.IntN(60))
		for j := range xs {
			xs[j] = float64(r.IntN(1+r.IntN(20))) / 8
		}
		i := r.IntN(len(xs))
		sorted := slices.Sorted(slices.Values(xs))
		if got := nth(slices.Clone(xs), i); got != sorted[i] {
			t.Fatalf("nth(%v, %d) = %g, want %g", xs, i, got, sorted[i])
		}
	}
}

// TestEnding checks the galloping searches against binary search: the
// first episode ending at or after x, from any index before it, and how
// many of a sorted list are below x.
func TestEnding(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 5000 {
		var eps []episode
		var gaps []uint64
		for x := uint64(r.IntN(5)); len(eps) < r.IntN(80); x += uint64(2 + r.IntN(10)) {
			l := uint64(r.IntN(4))
			eps = append(eps, episode{x, x + l})
			gaps = append(gaps, uint64(r.IntN(50)))
			x += l
		}
		slices.Sort(gaps)
		x := uint64(r.IntN(500))
		want, _ := slices.BinarySearchFunc(eps, x, func(e episode, x uint64) int { return cmp.Compare(e.last, x) })
		from := r.IntN(want + 1)
		if got := ending(eps, from, x); got != want {
			t.Fatalf("ending(%v, %d, %d) = %d, want %d", eps, from, x, got, want)
		}
		want, _ = slices.BinarySearch(gaps, x/10)
		if got := below(gaps, x/10); got != want {
			t.Fatalf("below(%v, %d) = %d, want %d", gaps, x/10, got, want)
		}
	}
}

// TestMostNear checks the binomial tail against its sum, and that one
// episode lying near by chance does not make the others near.
func TestMostNear(t *testing.T) {
	binom := func(k, m int, p float64) float64 {
		s := 0.0
		for j := m; j <= k; j++ {
			s += math.Exp(lgamma(k+1)-lgamma(j+1)-lgamma(k-j+1)) * math.Pow(p, float64(j)) * math.Pow(1-p, float64(k-j))
		}
		return s
	}
	for _, tt := range []struct {
		ps []float64
		m  int
	}{
		{[]float64{0.1}, 1},
		{[]float64{0.3, 0.1, 0.2}, 3},
		{[]float64{0.3, 0.1, 0.2}, 2},
		{[]float64{0.05, 0.5, 0.02, 0.01, 0.9}, 4},
	} {
		ps := slices.Clone(tt.ps)
		slices.Sort(ps)
		want := binom(len(ps), tt.m, ps[tt.m-1])
		if got := mostNear(slices.Clone(tt.ps), tt.m); math.Abs(got-want) > 1e-9 {
			t.Errorf("mostNear(%v, %d) = %g, want %g", tt.ps, tt.m, got, want)
		}
	}
	if p := mostNear([]float64{1e-6, 0.4, 0.7, 0.5, 0.9, 0.3}, 6); p < 0.05 {
		t.Errorf("one near episode of six: p = %g, want no evidence", p)
	}
}

// TestNearer checks that stopping early never changes the answer: over
// random episodes, nearer, given the critical chance, says what mostNear
// over every episode's chance says, at levels from strict to lax, many
// misses allowed or none.
func TestNearer(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	randomEpisodes := func(n uint64, gap int) []episode {
		var eps []episode
		for x := uint64(r.IntN(gap)); x < n; x += uint64(2 + r.IntN(gap)) {
			l := uint64(1 + r.IntN(5))
			eps = append(eps, episode{x, min(x+l-1, n-1)})
			x += l
		}
		return eps
	}
	stopped := 0
	for range 2000 {
		n := uint64(100 + r.IntN(2000))
		xs, ys := randomEpisodes(n, 1+r.IntN(200)), randomEpisodes(n, 1+r.IntN(200))
		if len(xs) == 0 || len(ys) == 0 {
			continue
		}
		misses := r.IntN(len(xs))
		alpha := []float64{1e-6, 0.01, 0.05, 0.3, 0.6}[r.IntN(5)]
		var all []float64
		for _, ep := range xs {
			all = append(all, nearness(ep, newSpread(ys), n))
		}
		want := mostNear(all, len(xs)-misses) < alpha
		ps, got := nearer(nil, xs, newSpread(ys), n, misses, alpha, critical(len(xs), misses, alpha))
		if got != want {
			t.Fatalf("nearer(%v, %v, %d, %d, %g) = %t, want %t", xs, ys, n, misses, alpha, got, want)
		}
		if len(ps) < len(xs) {
			stopped++
		}
	}
	if stopped == 0 {
		t.Error("nearer never stopped early")
	}
}

func lgamma(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}

// TestDuringLast checks which anomalies go after the others: those
// whose episodes lie near a simpler anomaly's above them, and whose
// episodes that one's lie near in turn.
func TestDuringLast(t *testing.T) {
	const (
		election = `forall n0 in nodes: n0.state != "leader"`
		catchUp  = `forall n0, n1 in nodes: n0.commit <= n1.commit or n0.term <= n1.term`
		bug      = `forall n0 in nodes: n0.applied <= n0.commit`
		longer   = `forall n0, n1 in nodes: n0.applied <= n1.applied or n0.term != n1.term`
	)
	// Elections at 1000, 3000, 5000 and 7000 of 8,000 snapshots.
	elections := slices.Concat(span(1000, 1009), span(3000, 3009), span(5000, 5009), span(7000, 7009))
	for _, tt := range []struct {
		name  string
		props map[string][]uint64
		order []string // representatives in rank order
		want  []string // after duringLast
		// during names, for each anomaly moved, the one it fails during
		during map[string]string
	}{{
		name: "what follows each election goes after a bug at moments of its own",
		props: map[string][]uint64{
			election: elections,
			catchUp:  slices.Concat(span(1020, 1030), span(3015, 3030), span(5012, 5020), span(7025, 7040)),
			bug:      every(700, 11),
		},
		order:  []string{election, catchUp, bug},
		want:   []string{election, bug, catchUp},
		during: map[string]string{catchUp: election},
	}, {
		name: "a bug striking in two elections of four stays",
		props: map[string][]uint64{
			election: elections,
			longer:   slices.Concat(span(3002, 3004), span(5003, 5005)),
			bug:      every(700, 11),
		},
		order: []string{election, longer, bug},
		want:  []string{election, longer, bug},
	}, {
		name: "one incident that breaks two properties is no recurring event",
		props: map[string][]uint64{
			election: span(3000, 3009),
			catchUp:  span(3010, 3020),
			bug:      every(700, 11),
		},
		order: []string{election, catchUp, bug},
		want:  []string{election, catchUp, bug},
	}, {
		name: "a simpler anomaly below is not led by a longer one above",
		props: map[string][]uint64{
			catchUp:  slices.Concat(span(1020, 1030), span(3015, 3030), span(5012, 5020), span(7025, 7040)),
			election: elections,
		},
		order: []string{catchUp, election},
		want:  []string{catchUp, election},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			byText := map[string]*Entry{}
			moments := map[*Entry][]uint64{}
			for _, e := range entries(t, tt.props) {
				e.Support, e.TemporalRate = 8000, 0.99
				byText[e.Text] = e
				moments[e] = e.stats.Moments
			}
			var es []*Entry
			for _, s := range tt.order {
				es = append(es, byText[s])
			}
			duringLast(es, moments, 8000, DefaultGrouping, 0.95, DefaultThresholds.DuringLevel)
			var got []string
			for _, e := range es {
				got = append(got, e.Text)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("order %q, want %q", got, tt.want)
			}
			for _, e := range es {
				if want := tt.during[e.Text]; e.During != want {
					t.Errorf("%s: During = %q, want %q", e.Text, e.During, want)
				}
			}
		})
	}
}

// TestDuringLastNotStandingOut checks that an anomaly violated through a
// large share of the run leads nothing: it is not in the report.
func TestDuringLastNotStandingOut(t *testing.T) {
	const broad = `forall n0 in nodes: n0.state != "leader"`
	const rare = `forall n0, n1 in nodes: n0.commit <= n1.commit or n0.term <= n1.term`
	es := entries(t, map[string][]uint64{
		broad: slices.Concat(span(1000, 1009), span(3000, 3009)),
		rare:  slices.Concat(span(1012, 1015), span(3011, 3013)),
	})
	slices.SortFunc(es, func(a, b *Entry) int { return len(a.Text) - len(b.Text) })
	moments := map[*Entry][]uint64{}
	for _, e := range es {
		moments[e] = e.stats.Moments
		e.TemporalRate = 0.99
	}
	es[0].TemporalRate = 0.5
	duringLast(es, moments, 8000, DefaultGrouping, 0.95, DefaultThresholds.DuringLevel)
	if es[1].During != "" {
		t.Errorf("%s fails during %s, which does not stand out", es[1].Text, es[1].During)
	}
	es[0].TemporalRate = 0.99
	duringLast(es, moments, 8000, DefaultGrouping, 0.95, DefaultThresholds.DuringLevel)
	if es[1].During != broad {
		t.Errorf("%s: During = %q, want %q", es[1].Text, es[1].During, broad)
	}
}
