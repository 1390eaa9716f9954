package reporter

import (
	"slices"
	"testing"
)

// TestStartUpLast checks which anomalies fail only while the run starts
// up: one episode from the run's first snapshot, every moment known.
func TestStartUpLast(t *testing.T) {
	const (
		boot  = `forall n0 in nodes: n0.applied <= n0.commit`
		twice = `forall n0 in nodes: n0.term <= n0.commit`
		later = `forall n0, n1 in nodes: n0.commit <= n1.commit or n0.term != n1.term`
		again = `forall n0 in nodes: n0.applied == n0.commit or n0.state == "leader"`
		broad = `forall n0 in nodes: n0.commit <= n0.term`
	)
	props := map[string][]uint64{
		boot:  span(100, 104),              // the run's start-up
		twice: {300, 600},                  // two episodes elsewhere
		later: span(101, 103),              // not from the first snapshot
		again: append(span(100, 102), 500), // from the start, and again
		broad: span(100, 110),              // from the start, moments cut
	}
	es := ordered(t, props, []string{boot, twice, later, again, broad})
	moments := map[*Entry][]uint64{}
	for _, e := range es {
		moments[e] = props[e.Text]
	}
	moments[es[4]] = moments[es[4]][:4] // broad: only its first moments kept
	startUpLast(es, moments, 100)
	if got, want := texts(es), []string{twice, later, again, broad, boot}; !slices.Equal(got, want) {
		t.Errorf("order\n%q\nwant\n%q", got, want)
	}
	for _, e := range es {
		if want := e.Text == boot; e.StartUp != want {
			t.Errorf("%s: StartUp = %t, want %t", e.Text, e.StartUp, want)
		}
	}
}
