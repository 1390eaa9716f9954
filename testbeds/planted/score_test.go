package planted

import (
	"reflect"
	"slices"
	"testing"

	"github.com/augur-dev/augur/reporter"
)

func TestIdentity(t *testing.T) {
	same := [][2]string{
		{"forall n0, n1 in nodes: n0.a <= n1.b or n1.c == 1", "forall n0, n1 in nodes: n1.c == 1 or n0.a <= n1.b"},
		{"forall n0, n1 in nodes: n0.a <= n1.b or n1.c == 1", "forall n0, n1 in nodes: n0.c == 1 or n1.a <= n0.b"},
		{"forall x, y in nodes: y.b >= x.a", "forall n0, n1 in nodes: n0.a <= n1.b"},
		{"forall n0, n1 in nodes: forall e0 in n1.log: e0.t <= n0.t", "forall n0, n1 in nodes: forall e0 in n0.log: e0.t <= n1.t"},
		{"forall n0 in nodes: not (n0.a == n0.b)", "forall n0 in nodes: n0.b != n0.a"},
	}
	for _, c := range same {
		a, err := identity(c[0])
		if err != nil {
			t.Fatal(err)
		}
		b, err := identity(c[1])
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("identity(%q) = %q, identity(%q) = %q", c[0], a, c[1], b)
		}
	}
	a, _ := identity("forall n0, n1 in nodes: n0.a <= n1.b")
	b, _ := identity("forall n0, n1 in nodes: n0.b <= n1.a")
	if a == b {
		t.Errorf("%q and its converse have one identity", a)
	}
	if got := len(permutations([]string{"a", "b", "c"})); got != 6 {
		t.Errorf("3 variables have %d orders", got)
	}
}

func TestScore(t *testing.T) {
	sys := &System{Seed: 3, Nodes: 5, Snapshots: 2000, Planted: []Planted{
		{Name: "p", Text: "forall n0 in nodes: n0.applied <= n0.commit", Shape: OneNodeOneLiteral, Snapshots: []uint64{7}},
		{Name: "q", Text: "forall n0, n1 in nodes: n0.id != n1.lead or n1.last <= n0.last", Shape: TwoNodesTwoLiterals, Snapshots: []uint64{9, 10}},
		{Name: "r", Text: "forall n0 in nodes: forall e0 in n0.log: e0.term <= n0.term", Shape: Iterator, Snapshots: []uint64{5}},
	}}
	entry := func(rank int, text string, tags map[string]int64, equivalents ...string) *reporter.Entry {
		return &reporter.Entry{Rank: rank, Text: text, ViolatingTags: tags, Equivalents: equivalents}
	}
	steady := map[string]int64{SteadyTag: 1}
	rep := &reporter.Report{AlmostInvariants: []*reporter.Entry{
		entry(1, "forall n0, n1 in nodes: n0.x == n1.x", nil),
		// q with its node variables swapped and its literals reordered.
		entry(2, "forall n0, n1 in nodes: n0.last <= n1.last or n1.id != n0.lead", steady),
		entry(3, "forall n0 in nodes: n0.y != 2", steady),
		entry(4, "forall n0, n1 in nodes: n0.applied <= n1.commit", nil, "forall a in nodes: a.applied <= a.commit"),
		entry(5, "forall n0 in nodes: n0.z < n0.w", steady),
	}}
	sc, err := Score(rep, sys)
	if err != nil {
		t.Fatal(err)
	}
	want := []PlantedResult{{Planted: sys.Planted[0], Under: 4}, {Planted: sys.Planted[1], Rank: 2}, {Planted: sys.Planted[2]}}
	if !reflect.DeepEqual(sc.Planted, want) {
		t.Errorf("planted results %+v, want %+v", sc.Planted, want)
	}
	if sc.K != 5 || sc.Reported != 5 || sc.Steady != 3 || sc.Noise != 4 || sc.Recalled() {
		t.Errorf("K %d, reported %d, steady %d, noise %d, recalled %v; want 5, 5, 3, 4, false", sc.K, sc.Reported, sc.Steady, sc.Noise, sc.Recalled())
	}
	// With p and r reported at 3 and 5, noise counts what ranks above 5.
	rep.AlmostInvariants[2].Text = "forall n0 in nodes: n0.commit >= n0.applied"
	rep.AlmostInvariants[4].Text = "forall x in nodes: forall y in x.log: y.term <= x.term"
	if sc, err = Score(rep, sys); err != nil {
		t.Fatal(err)
	}
	if sc.Noise != 2 || !sc.Recalled() || sc.Planted[0].Rank != 3 || sc.Planted[2].Rank != 5 {
		t.Errorf("noise %d, recalled %v, results %+v; want 2, true", sc.Noise, sc.Recalled(), sc.Planted)
	}
	sys.Planted, sys.Control = nil, true
	if sc, err = Score(rep, sys); err != nil {
		t.Fatal(err)
	}
	if sc.K != 2 || sc.Steady != 3 || sc.Noise != 5 {
		t.Errorf("control: K %d, steady %d, noise %d; want 2, 3, 5", sc.K, sc.Steady, sc.Noise)
	}
}

func TestParseSeeds(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want []int64
	}{
		{"dev", 3, []int64{1, 2, 3}},
		{"heldout", 2, []int64{1_000_001, 1_000_002}},
		{"5-7", 50, []int64{5, 6, 7}},
	}
	for _, tt := range tests {
		got, err := ParseSeeds(tt.in, tt.n)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseSeeds(%q, %d) = %v, %v; want %v", tt.in, tt.n, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "dev2", "7-5", "0-3", "a-b", "3"} {
		if _, err := ParseSeeds(bad, 3); err == nil {
			t.Errorf("ParseSeeds(%q) succeeded", bad)
		}
	}
	if _, err := ParseSeeds("dev", LastDevSeed+1); err == nil {
		t.Error("more development seeds than there are")
	}
}
