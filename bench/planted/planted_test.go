package planted

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/augur-dev/augur/trace"
)

// small makes systems small enough for the reference evaluator and the
// full pool.
var small = Options{MaxNodes: 8, MinSnapshots: 800, MaxSnapshots: 1200}

// mustGenerate generates the system of seed or fails t.
func mustGenerate(t *testing.T, seed int64, opts Options) *System {
	t.Helper()
	sys, err := Generate(seed, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// seedsOf returns the first n seeds of family f, from FirstDevSeed on.
func seedsOf(f Family, n int) []int64 {
	var seeds []int64
	for s := int64(FirstDevSeed); len(seeds) < n; s++ {
		if familyOf(s) == f {
			seeds = append(seeds, s)
		}
	}
	return seeds
}

// write writes sys's spec and trace into a test directory and returns
// their paths.
func write(t *testing.T, sys *System) (spec, tr string) {
	t.Helper()
	dir := t.TempDir()
	spec, tr = filepath.Join(dir, "spec.yaml"), filepath.Join(dir, "run.trace")
	if err := sys.WriteSpec(spec); err != nil {
		t.Fatal(err)
	}
	if err := sys.WriteTrace(tr); err != nil {
		t.Fatal(err)
	}
	return spec, tr
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, 4, LastDevSeed} {
		t.Run(fmt.Sprintf("%s/%d", familyOf(seed), seed), func(t *testing.T) {
			a, b := mustGenerate(t, seed, small), mustGenerate(t, seed, small)
			if a.Spec != b.Spec || fmt.Sprint(a.Planted) != fmt.Sprint(b.Planted) || a.Describe() != b.Describe() {
				t.Fatalf("two systems:\n%s\n%s", a.Describe(), b.Describe())
			}
			_, ta := write(t, a)
			_, tb := write(t, b)
			ma, _ := os.ReadFile(filepath.Join(ta, trace.ManifestFile))
			mb, _ := os.ReadFile(filepath.Join(tb, trace.ManifestFile))
			if !bytes.Equal(ma, mb) {
				t.Errorf("the traces differ:\n%s\n%s", ma, mb)
			}
		})
	}
}

// TestPlantedAreTheAnswer checks, over the whole pool of each spec, that
// every planted property is in the pool and that no other property is as
// good an answer (see rivals), in systems of every family, and in the
// first replicated logs with a property that also fails legitimately.
func TestPlantedAreTheAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates whole pools")
	}
	seeds := map[Family][]int64{ReplicatedLog: seedsOf(ReplicatedLog, 6)}
	for _, f := range Families()[1:] {
		seeds[f] = seedsOf(f, 2)
	}
	legit := 0
	for _, seed := range seedsOf(ReplicatedLog, 200)[6:] {
		if legit == 3 {
			break
		}
		sys := mustGenerate(t, seed, small)
		if slices.ContainsFunc(sys.Planted, func(p Planted) bool { return len(p.Legit) > 0 }) {
			seeds[ReplicatedLog] = append(seeds[ReplicatedLog], seed)
			legit++
		}
	}
	if legit < 3 {
		t.Errorf("%d of 200 replicated logs with a property failing legitimately", legit)
	}
	for _, f := range Families() {
		for _, seed := range seeds[f] {
			t.Run(fmt.Sprintf("%s/%d", f, seed), func(t *testing.T) {
				for pl, rs := range rivals(t, mustGenerate(t, seed, small)) {
					t.Errorf("%s has rivals %q", pl, rs)
				}
			})
		}
	}
}

// TestFamilies checks that each seed makes a system of its family, of a
// size within the ranges of its length.
func TestFamilies(t *testing.T) {
	for _, length := range []Length{Short, Long} {
		lo, hi := length.Snapshots()
		for seed := int64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("%s/%s/%d", length, familyOf(seed), seed), func(t *testing.T) {
				if length == Long && testing.Short() {
					t.Skip("long systems")
				}
				sys := mustGenerate(t, seed, Options{Length: length})
				if sys.Family != familyOf(seed) || sys.Nodes < MinNodes || sys.Nodes > MaxNodes || sys.Snapshots < lo || sys.Snapshots > hi {
					t.Errorf("%s; want family %s, %d to %d nodes, %d to %d snapshots", sys.Describe(), familyOf(seed), MinNodes, MaxNodes, lo, hi)
				}
			})
		}
	}
}

// TestLogSystems checks what the systems of the replicated-log family
// are made of, over its first development seeds: every shape planted,
// small and large systems, bugs striking once and many times, with and
// without aftermath, properties failing at legitimate moments too,
// controls, variables within bounds.
func TestLogSystems(t *testing.T) {
	shapes := map[Shape]int{}
	var controls, small, once, many, aftermath, legit int
	seeds := seedsOf(ReplicatedLog, 40)
	for _, seed := range seeds {
		sys := mustGenerate(t, seed, Options{})
		if sys.Control {
			controls++
			if len(sys.Planted) > 0 {
				t.Errorf("seed %d: a control with planted properties", seed)
			}
		} else if n := len(sys.Planted); n < 1 || n > maxPlanted {
			t.Errorf("seed %d: %d planted properties", seed, n)
		}
		if sys.Nodes < 5 {
			small++
		}
		for _, p := range sys.Planted {
			shapes[p.Shape]++
			switch {
			case p.Strikes == 1:
				once++
			case p.Strikes >= 5:
				many++
			}
			if p.Aftermath {
				aftermath++
			}
			if len(p.Legit) > 0 {
				legit++
			}
		}
		if n := len(sys.Variables); n < minVars || n > maxVars || sys.d.categories() < minCategories {
			t.Errorf("seed %d: variables %v of %d categories", seed, sys.Variables, sys.d.categories())
		}
		if sys.Steady == 0 || sys.Steady == sys.Snapshots {
			t.Errorf("seed %d: %d of %d snapshots steady", seed, sys.Steady, sys.Snapshots)
		}
	}
	for _, sh := range Shapes() {
		if shapes[sh] == 0 {
			t.Errorf("no %s property planted in %d systems (%v)", sh, len(seeds), shapes)
		}
	}
	if controls == 0 || controls > len(seeds)/3 || small == 0 || once == 0 || many == 0 || aftermath == 0 || legit == 0 {
		t.Errorf("in %d systems: %d controls, %d of 3 or 4 nodes; planted bugs striking once %d, 5 times or more %d, with aftermath %d, failing legitimately too %d",
			len(seeds), controls, small, once, many, aftermath, legit)
	}
}

// TestSimIsSound checks the replicated log's simulator at the smallest
// sizes and beyond, both ways leaders fail: at most one leader per term,
// each elected by a majority of the voting members, no node's term going
// back, and every commit index, when the leader moves to it, held by a
// majority of the voting members, whose quorum is smallest at 3 nodes, or
// at 2 while one of 3 is moved out.
func TestSimIsSound(t *testing.T) {
	for _, nodes := range []int{3, 4, 5, 8} {
		for _, partition := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d nodes, partition %v", nodes, partition), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(nodes), 1))
				p := params{nodes: nodes, steps: 20000, partition: partition, maxDelay: 3, busy: 0.3, firstTerm: 1}
				if nodes >= 6 {
					p.learners = 1
				}
				p.episodes = plan(rng, p.steps, true)
				s := newSim(rng, p)
				s.run()
				checkSim(t, s)
			})
		}
	}
}

func checkSim(t *testing.T, s *sim) {
	t.Helper()
	leaders := map[int64]int{} // term → its leader
	terms := make([]int64, s.p.nodes)
	commits := 0
	for step, row := range s.hist {
		for i, st := range row {
			if st == nil {
				continue
			}
			if st.term < terms[i] {
				t.Fatalf("step %d: node %d from term %d back to %d", step, i, terms[i], st.term)
			}
			terms[i] = st.term
			if st.role != roleLeader {
				continue
			}
			if l, ok := leaders[st.term]; ok && l != i {
				t.Fatalf("step %d: nodes %d and %d both lead term %d", step, l, i, st.term)
			}
			leaders[st.term] = i
			voters := func() int {
				n := 0
				for _, m := range st.members {
					if m == 0 || m > s.p.learners {
						n++
					}
				}
				return n
			}
			// The vote that makes a candidate the leader arrives in the
			// step it wins: the others are in its state before.
			if prev := s.hist[max(step-1, 0)][i]; prev != nil && prev.role == roleCandidate && 2*(len(prev.acked)+2) <= voters() {
				t.Fatalf("step %d: node %d leads term %d with %d votes of %d voters", step, i, st.term, len(prev.acked)+2, voters())
			}
			if step == 0 || s.hist[step-1][i] == nil || s.hist[step-1][i].commit >= st.commit {
				continue
			}
			commits++
			holding := 0
			for _, m := range st.members {
				if (m == 0 || m > s.p.learners) && row[m] != nil && row[m].last >= st.commit {
					holding++
				}
			}
			if 2*holding <= voters() {
				t.Fatalf("step %d: leader %d commits %d, which %d of %d voters hold", step, i, st.commit, holding, voters())
			}
		}
	}
	if len(leaders) < 5 || commits < 100 {
		t.Errorf("%d terms with a leader, %d commits: the run hardly moved", len(leaders), commits)
	}
}
