package planted

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestApart checks, in every family, the counts apart takes: each strike
// of a planted property's bug and each of its legitimate episodes, which
// the generator keeps apart, is at least one violation event of the run,
// and there are no more than its violating snapshots; a good run that is
// the run itself, twice over, gives twice the run's events and a test
// that cannot tell them apart.
func TestApart(t *testing.T) {
	withGood := small
	withGood.GoodRuns = 1
	for _, f := range Families() {
		for _, seed := range seedsOf(f, 4) {
			sys := mustGenerate(t, seed, withGood)
			if sys.Control {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", f, seed), func(t *testing.T) {
				spec, _ := write(t, sys)
				dir := filepath.Dir(spec)
				if err := sys.WriteGoodRun(0, goodTrace(dir, 0)); err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				got, err := apart(ctx, sys, dir, RunOptions{GoodRuns: 1})
				if err != nil {
					t.Fatal(err)
				}
				self := t.TempDir() // the run as its own two good runs
				if err := sys.WriteSpec(filepath.Join(self, "spec.yaml")); err != nil {
					t.Fatal(err)
				}
				for _, path := range []string{filepath.Join(self, "run.trace"), goodTrace(self, 0), goodTrace(self, 1)} {
					if err := sys.WriteTrace(path); err != nil {
						t.Fatal(err)
					}
				}
				same, err := apart(ctx, sys, self, RunOptions{GoodRuns: 2})
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range sys.Planted {
					a, s := got[i], same[i]
					if least, most := int64(p.Strikes+len(episodesIn(p.Legit))), int64(len(p.Snapshots)+len(p.Legit)); a.Events < least || a.Events > most {
						t.Errorf("%s: %d events in the run, want %d to %d (%d strikes, legitimate failures at %v)", p.Name, a.Events, least, most, p.Strikes, p.Legit)
					}
					if s.Events != a.Events || s.GoodEvents != 2*a.Events {
						t.Errorf("%s: the run as its own two good runs: %d vs %d events, want %d vs %d", p.Name, s.Events, s.GoodEvents, a.Events, 2*a.Events)
					}
					if s.Told() || s.PValue < 0.5 {
						t.Errorf("%s: the run told apart from itself: p-value %g", p.Name, s.PValue)
					}
				}
			})
		}
	}
}

// episodesIn returns the runs of consecutive snapshot ids in ids, an
// increasing list.
func episodesIn(ids []uint64) [][]uint64 {
	var out [][]uint64
	for i, id := range ids {
		if i > 0 && id == ids[i-1]+1 {
			out[len(out)-1] = append(out[len(out)-1], id)
			continue
		}
		out = append(out, []uint64{id})
	}
	return out
}

func TestTold(t *testing.T) {
	for _, tt := range []struct {
		a    Apart
		told bool
	}{
		{Apart{Events: 1, GoodEvents: 0, PValue: 0.5}, true},     // never fails there
		{Apart{Events: 14, GoodEvents: 1, PValue: 0.0005}, true}, // far more often here
		{Apart{Events: 5, GoodEvents: 2, PValue: 0.23}, false},   // about as often
		{Apart{Events: 0, GoodEvents: 0, PValue: 1}, true},       // never fails: a bug that never struck is no transient
	} {
		if got := tt.a.Told(); got != tt.told {
			t.Errorf("%+v: told %v, want %v", tt.a, got, tt.told)
		}
	}
}
