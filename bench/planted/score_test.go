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
}

func TestScore(t *testing.T) {
	sys := &System{Seed: 3, Nodes: 5, Snapshots: 2000, Planted: []Planted{
		{Name: "p", Text: "forall n0 in nodes: n0.applied <= n0.commit", Shape: OneNodeOneLiteral, Snapshots: []uint64{7}},
		{Name: "q", Text: "forall n0, n1 in nodes: n0.id != n1.lead or n1.last <= n0.last", Shape: TwoNodesTwoLiterals, Snapshots: []uint64{9, 10}},
		{Name: "r", Text: "forall n0 in nodes: forall e0 in n0.log: e0.term <= n0.term", Shape: Iterator, Snapshots: []uint64{5}},
		{Name: "s", Text: `forall n0 in nodes: n0.role != "primary" or n0.lease >= n0.epoch`, Shape: OneNodeTwoLiterals, Snapshots: []uint64{8},
			Alts: []string{`forall n0 in nodes: n0.role == "backup" or n0.lease >= n0.epoch`}},
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
		// s by its other text.
		entry(6, `forall n0 in nodes: n0.epoch <= n0.lease or n0.role == "backup"`, nil),
	}}
	sc, err := Score(rep, sys)
	if err != nil {
		t.Fatal(err)
	}
	want := []PlantedResult{{Planted: sys.Planted[0], Under: 4}, {Planted: sys.Planted[1], Rank: 2}, {Planted: sys.Planted[2]}, {Planted: sys.Planted[3], Rank: 6}}
	if !reflect.DeepEqual(sc.Planted, want) {
		t.Errorf("planted results %+v, want %+v", sc.Planted, want)
	}
	if sc.K != 6 || sc.Reported != 6 || sc.Steady != 3 || sc.Noise != 4 || sc.Recalled() {
		t.Errorf("K %d, reported %d, steady %d, noise %d, recalled %v; want 6, 6, 3, 4, false", sc.K, sc.Reported, sc.Steady, sc.Noise, sc.Recalled())
	}
	// With p and r reported at 3 and 5, noise counts what ranks above 6.
	rep.AlmostInvariants[2].Text = "forall n0 in nodes: n0.commit >= n0.applied"
	rep.AlmostInvariants[4].Text = "forall x in nodes: forall y in x.log: y.term <= x.term"
	if sc, err = Score(rep, sys); err != nil {
		t.Fatal(err)
	}
	if sc.Noise != 2 || !sc.Recalled() || sc.Planted[0].Rank != 3 || sc.Planted[2].Rank != 5 || sc.Planted[3].Rank != 6 {
		t.Errorf("noise %d, recalled %v, results %+v; want 2, true", sc.Noise, sc.Recalled(), sc.Planted)
	}
	// Under a baseline, a planted property listed among the broken
	// invariants within the top K counts, as one in the almost-invariants.
	rep.AlmostInvariants[2].Text = "forall n0 in nodes: n0.y != 2"
	rep.BrokenInvariants = []*reporter.Entry{entry(1, "forall a in nodes: a.commit >= a.applied", nil), entry(2, "forall n0 in nodes: n0.v != 1", nil)}
	if sc, err = Score(rep, sys); err != nil {
		t.Fatal(err)
	}
	if p := sc.Planted[0]; p.Rank != 0 || p.Broken != 1 || !p.Found(sc.K) || !sc.Recalled() {
		t.Errorf("planted p among the broken invariants: %+v, recalled %v; want broken 1, found", p, sc.Recalled())
	}
	if sc.Planted[0].Found(0) || (&PlantedResult{Broken: 7}).Found(6) {
		t.Error("a broken invariant below the top K is found")
	}
	sys.Planted, sys.Control = nil, true
	if sc, err = Score(rep, sys); err != nil {
		t.Fatal(err)
	}
	if sc.K != 2 || sc.Steady != 3 || sc.Noise != 6 {
		t.Errorf("control: K %d, steady %d, noise %d; want 2, 3, 6", sc.K, sc.Steady, sc.Noise)
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

// TestScores checks the tallies of a run and its verdict: every family
// run must have systems with planted properties, recall at least
// TargetRecall and no control above MaxControlSteady.
func TestScores(t *testing.T) {
	found := func(strikes int, legit, aftermath bool) PlantedResult {
		p := PlantedResult{Planted: Planted{Shape: OneNodeOneLiteral, Strikes: strikes, Aftermath: aftermath}, Rank: 1}
		if legit {
			p.Legit = []uint64{9}
		}
		return p
	}
	missed := func(strikes int) PlantedResult {
		return PlantedResult{Planted: Planted{Shape: Iterator, Strikes: strikes}}
	}
	system := func(f Family, ps ...PlantedResult) *Result { return &Result{Family: f, K: len(ps) + 2, Planted: ps} }
	control := func(f Family, steady int) *Result { return &Result{Family: f, Control: true, K: 2, Steady: steady} }
	recalled := func(f Family, n int) []*Result {
		var rs []*Result
		for range n {
			rs = append(rs, system(f, found(1, false, false)))
		}
		return rs
	}
	tests := []struct {
		name     string
		families []Family
		systems  []*Result
		pass     bool
	}{
		{"every family recalled", []Family{ReplicatedLog, Mesh}, slices.Concat(recalled(ReplicatedLog, 3), recalled(Mesh, 2), []*Result{control(Mesh, 2)}), true},
		{"a family below target", []Family{ReplicatedLog, Mesh}, slices.Concat(recalled(ReplicatedLog, 30), recalled(Mesh, 18), []*Result{system(Mesh, found(1, false, false), missed(3))}), false},
		{"19 of 20 is 95%", []Family{Mesh}, slices.Concat(recalled(Mesh, 19), []*Result{system(Mesh, missed(3))}), true},
		{"a family without systems", []Family{ReplicatedLog, Mesh}, recalled(ReplicatedLog, 3), false},
		{"a family of controls only", []Family{Overlay}, []*Result{control(Overlay, 0)}, false},
		{"a control above", []Family{ReplicatedLog}, slices.Concat(recalled(ReplicatedLog, 3), []*Result{control(ReplicatedLog, 3)}), false},
	}
	for _, tt := range tests {
		s := &Summary{Families: tt.families, Systems: tt.systems}
		if got := s.Pass(); got != tt.pass {
			t.Errorf("%s: pass %v, want %v (%+v)", tt.name, got, tt.pass, s.Scores().Families)
		}
	}

	s := &Summary{Families: []Family{PrimaryBackup}, Systems: []*Result{
		system(PrimaryBackup, found(1, true, true), missed(7)),
		system(PrimaryBackup, found(3, false, true)),
		control(PrimaryBackup, 1),
	}}
	got := s.Scores()
	want := Scores{
		Families: []FamilyScores{{Family: PrimaryBackup, Systems: Tally{1, 2}, Controls: Tally{1, 1},
			Shapes: map[Shape]Tally{OneNodeOneLiteral: {2, 2}, Iterator: {0, 1}}}},
		Strikes:   map[string]Tally{"1": {1, 1}, "2-4": {1, 1}, "5-20": {0, 1}},
		Legit:     map[string]Tally{"yes": {1, 1}, "no": {1, 2}},
		Aftermath: map[string]Tally{"yes": {2, 2}, "no": {0, 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scores %+v\nwant %+v", got, want)
	}

	// With good runs, the systems are tallied again over the planted
	// properties the good runs tell apart: a miss the good runs cannot
	// tell from the system's behaviour leaves its system found, one they
	// can does not, and a system with none such is not counted.
	apart := func(p PlantedResult, told bool) PlantedResult {
		p.Apart = &Apart{Events: 5, GoodEvents: 2, PValue: 0.23}
		if told {
			p.Apart = &Apart{Events: 14, GoodEvents: 1, PValue: 0.0005}
		}
		return p
	}
	s = &Summary{Families: []Family{Mesh}, Systems: []*Result{
		system(Mesh, apart(found(1, false, false), true), apart(missed(3), false)),
		system(Mesh, apart(missed(7), true)),
		system(Mesh, apart(missed(2), false)),
	}}
	got = s.Scores()
	if fs := got.Families[0]; fs.Systems != (Tally{0, 3}) || fs.ToldApart == nil || *fs.ToldApart != (Tally{1, 2}) {
		t.Errorf("systems %v, told apart %v; want 0/3 and 1/2", fs.Systems, fs.ToldApart)
	}
	if want := map[string]Tally{"yes": {1, 2}, "no": {0, 2}}; !reflect.DeepEqual(got.ToldApart, want) {
		t.Errorf("planted properties by told apart %v, want %v", got.ToldApart, want)
	}
}

func TestParseFamilies(t *testing.T) {
	got, err := ParseFamilies("mesh, log,mesh")
	if want := []Family{Mesh, ReplicatedLog}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseFamilies = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "log,", "ring"} {
		if _, err := ParseFamilies(bad); err == nil {
			t.Errorf("ParseFamilies(%q) succeeded", bad)
		}
	}
	seeds := []int64{1, 2, 3, 4, 5, 6, 7, 8}
	if got, want := FilterFamilies(seeds, []Family{ReplicatedLog, PrimaryBackup}), []int64{1, 4, 5, 8}; !slices.Equal(got, want) {
		t.Errorf("FilterFamilies = %v, want %v", got, want)
	}
	if got := FilterFamilies(seeds, nil); !slices.Equal(got, seeds) {
		t.Errorf("FilterFamilies without families = %v", got)
	}
}

func TestLength(t *testing.T) {
	for _, l := range []Length{Short, Long} {
		got, err := ParseLength(l.String())
		if lo, hi := l.Snapshots(); err != nil || got != l || lo < 2000 || hi > 50000 || lo >= hi {
			t.Errorf("%v: ParseLength = %v, %v; snapshots %d to %d", l, got, err, lo, hi)
		}
	}
	if _, err := ParseLength("medium"); err == nil {
		t.Error("ParseLength(medium) succeeded")
	}
	if _, err := Generate(4, Options{Length: numLengths}); err == nil {
		t.Error("Generate with no such length succeeded")
	}
}
