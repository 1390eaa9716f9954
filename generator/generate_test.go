package generator

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/combin"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

var update = flag.Bool("update", false, "update golden files")

func loadSpec(t testing.TB, name string) *specs.Spec {
	t.Helper()
	spec, err := specs.Load(filepath.Join("testdata", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func generate(t testing.TB, spec *specs.Spec, consts Constants) *Pool {
	t.Helper()
	pool, err := Generate(spec, consts)
	if err != nil {
		t.Fatal(err)
	}
	return pool
}

// generateWithin is generate with the enumeration budget b.
func generateWithin(t testing.TB, spec *specs.Spec, consts Constants, b budget) *Pool {
	t.Helper()
	pool, err := generatePool(spec, consts, b)
	if err != nil {
		t.Fatal(err)
	}
	return pool
}

// tinyConsts are constants for testdata/tiny.yaml, as MineConstants
// would find them.
var tinyConsts = Constants{"term": {uint64(2), uint64(3)}, "id": {"c"}}

// listing prints the classes of a pool and, if props, its properties.
func listing(pool *Pool, props bool) string {
	var b strings.Builder
	b.WriteString("# classes\n")
	for _, c := range pool.Classes {
		fmt.Fprintln(&b, c)
	}
	if props {
		b.WriteString("# properties\n")
		for _, p := range pool.Props {
			fmt.Fprintln(&b, p)
		}
	}
	return b.String()
}

// TestGolden compares the pools of the specs in testdata with golden
// files: the full listing for tiny.yaml, the class counts for rich.yaml.
// Run with -update to rewrite them; only commit the changes if you
// understand what caused them.
func TestGolden(t *testing.T) {
	tests := []struct {
		spec   string
		consts Constants
		props  bool
	}{
		{"tiny", tinyConsts, true},
		{"rich", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got := listing(generate(t, loadSpec(t, tt.spec), tt.consts), tt.props)
			golden := filepath.Join("testdata", tt.spec+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Fatalf("%s: line %d:\ngot  %s\nwant %s\n(run with -update to accept)", golden, i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("%s: got %d lines, want %d (run with -update to accept)", golden, len(gl), len(wl))
			}
		})
	}
}

// wellFormedCases are the pools the structural tests run on: uncapped, so
// that permutation duplicates cannot hide behind the cap.
func wellFormedCases(t *testing.T) map[string]*Pool {
	tiny := loadSpec(t, "tiny")
	tiny.Generate.MaxPerClass = 0
	tiny.Generate.MaxLiterals = 3
	rich := loadSpec(t, "rich")
	rich.Generate.MaxPerClass = 0
	rich.Generate.MaxLiterals = 2
	tiny3 := loadSpec(t, "tiny")
	tiny3.Generate.MaxNodes = 3
	tiny3.Generate.MaxPerClass = 0
	return map[string]*Pool{
		"tiny":           generate(t, tiny, tinyConsts),
		"rich":           generate(t, rich, nil),
		"tiny/maxnodes3": generate(t, tiny3, tinyConsts),
	}
}

func TestWellFormed(t *testing.T) {
	for name, pool := range wellFormedCases(t) {
		t.Run(name, func(t *testing.T) {
			checkWellFormed(t, pool)
		})
	}
}

// checkWellFormed checks that every property of pool is canonical, parses
// back to itself, uses all its variables, has no literal twice and is in
// its class, that texts are unique also up to renaming of node variables,
// and that the order is by class, then text.
func checkWellFormed(t *testing.T, pool *Pool) {
	t.Helper()
	texts := make(map[string]bool, len(pool.Props))
	for _, p := range pool.Props {
		texts[p.String()] = true
	}
	if len(texts) != len(pool.Props) {
		t.Errorf("%d properties, %d distinct texts", len(pool.Props), len(texts))
	}
	total := 0
	for i, cc := range pool.Classes {
		if i > 0 && !(pool.Classes[i-1].Class.compare(cc.Class) < 0) {
			t.Errorf("classes out of order: %v then %v", pool.Classes[i-1].Class, cc.Class)
		}
		if cc.Kept > cc.Generated || cc.Kept == 0 {
			t.Errorf("%v", cc)
		}
		props := pool.Props[total : total+cc.Kept]
		total += cc.Kept
		for j, p := range props {
			if c := classOf(p); c != cc.Class {
				t.Errorf("%s: class %v, listed in %v", p, c, cc.Class)
			}
			if j > 0 && props[j-1].String() >= p.String() {
				t.Errorf("out of order: %s then %s", props[j-1], p)
			}
		}
	}
	if total != len(pool.Props) {
		t.Fatalf("classes keep %d properties, pool has %d", total, len(pool.Props))
	}
	for _, p := range pool.Props {
		text := p.String()
		if c := grammar.Canonical(p).String(); c != text {
			t.Errorf("not canonical: %s\n  canonical: %s", text, c)
		}
		q, err := grammar.Parse(text)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if q.Text() != text || !grammar.Equal(p, q) {
			t.Errorf("does not parse back: %s\n  parsed: %s", text, q.Text())
		}
		checkVarsUsed(t, p)
		atoms := make(map[string]bool)
		for _, l := range p.Matrix {
			a := atomText(l)
			if atoms[a] {
				t.Errorf("%s: atom %s twice", text, a)
			}
			atoms[a] = true
		}
		for _, r := range renamings(p) {
			if r != text && texts[r] {
				t.Errorf("%s and its renaming %s are both in the pool", text, r)
			}
		}
	}
}

func classOf(p *grammar.Property) Class {
	return Class{Nodes: len(p.NodeVars()), Iters: len(p.IterVars()), Literals: len(p.Matrix)}
}

// atomText returns the text of l's atom, with == for !=.
func atomText(l *grammar.Literal) string {
	if c, ok := l.Atom.(*grammar.Compare); ok && c.Op == grammar.OpNe {
		return (&grammar.Compare{Op: grammar.OpEq, X: c.X, Y: c.Y}).String()
	}
	return l.Atom.String()
}

// checkVarsUsed checks that every node variable of p occurs in its matrix
// or in an iterator's domain, and every iterator variable in its matrix.
func checkVarsUsed(t *testing.T, p *grammar.Property) {
	t.Helper()
	used := make(map[string]bool)
	for _, q := range p.Quants {
		if q.Domain != nil {
			used[q.Domain.Var] = true
		}
	}
	for _, l := range p.Matrix {
		for path := range grammar.Paths(&grammar.Property{Matrix: []*grammar.Literal{l}}) {
			used[path.Var] = true
		}
	}
	for _, v := range append(p.NodeVars(), p.IterVars()...) {
		if !used[v] {
			t.Errorf("%s: %s unused", p, v)
		}
	}
}

// renamings returns the canonical texts of p under every permutation of
// its node variables, computed by grammar alone: the node quantifier lists
// the variables in another order and Canonical renames them.
func renamings(p *grammar.Property) []string {
	vars := p.Quants[0].Vars
	var out []string
	for _, perm := range combin.Permutations(len(vars), len(vars)) {
		q := &grammar.Property{Matrix: p.Matrix}
		nq := *p.Quants[0]
		nq.Vars = make([]string, len(vars))
		for i, j := range perm {
			nq.Vars[i] = vars[j]
		}
		q.Quants = append([]*grammar.Quantifier{&nq}, p.Quants[1:]...)
		out = append(out, q.Text())
	}
	return out
}

// rankOf is the measure the cap prefers low: loose set(x) literals,
// then focus.
func rankOf(p *grammar.Property) int {
	return LooseSets(p)<<16 | Focus(p)
}

func TestCap(t *testing.T) {
	spec := loadSpec(t, "tiny")
	const capN = 40
	spec.Generate.MaxPerClass = capN
	capped := generate(t, spec, tinyConsts)
	again := generate(t, spec, tinyConsts)
	if listing(capped, true) != listing(again, true) {
		t.Fatal("two runs differ")
	}
	spec.Generate.MaxPerClass = 0
	full := generate(t, spec, tinyConsts)
	if len(full.Classes) != len(capped.Classes) {
		t.Fatalf("classes: %d capped, %d uncapped", len(capped.Classes), len(full.Classes))
	}
	byClass := func(pool *Pool) map[Class][]*grammar.Property {
		m := make(map[Class][]*grammar.Property)
		for _, p := range pool.Props {
			m[classOf(p)] = append(m[classOf(p)], p)
		}
		return m
	}
	kept, all := byClass(capped), byClass(full)
	sawCap := false
	for i, cc := range capped.Classes {
		fc := full.Classes[i]
		if cc.Class != fc.Class || cc.Generated != fc.Generated || fc.Kept != fc.Generated {
			t.Errorf("capped %v, uncapped %v", cc, fc)
		}
		if want := min(cc.Generated, capN); cc.Kept != want {
			t.Errorf("%v: kept %d, want %d", cc.Class, cc.Kept, want)
		}
		if cc.Generated <= capN {
			continue
		}
		sawCap = true
		in := make(map[string]bool)
		maxKept := 0
		for _, p := range kept[cc.Class] {
			in[p.String()] = true
			maxKept = max(maxKept, rankOf(p))
		}
		for _, p := range all[cc.Class] {
			if !in[p.String()] && rankOf(p) < maxKept {
				t.Errorf("%v: dropped %s (rank %#x) but kept one of rank %#x", cc.Class, p, rankOf(p), maxKept)
				break
			}
		}
		for text := range in {
			if !slices.ContainsFunc(all[cc.Class], func(p *grammar.Property) bool { return p.String() == text }) {
				t.Errorf("%v: kept %s, not generated without the cap", cc.Class, text)
			}
		}
	}
	if !sawCap {
		t.Error("no class reached the cap; the test needs a smaller one")
	}
}

// TestSampled lowers the enumeration budget so that classes are sampled,
// and checks the sample against the exhaustive enumeration.
func TestSampled(t *testing.T) {
	spec := loadSpec(t, "tiny")
	spec.Generate.MaxLiterals = 3
	spec.Generate.MaxPerClass = 0
	exact := generate(t, spec, tinyConsts)
	all := make(map[string]bool)
	for _, p := range exact.Props {
		all[p.String()] = true
	}

	small := budget{exact: 2000, draws: 20000}
	spec.Generate.MaxPerClass = 300
	sampled := generateWithin(t, spec, tinyConsts, small)
	if listing(sampled, true) != listing(generateWithin(t, spec, tinyConsts, small), true) {
		t.Fatal("two sampled runs differ")
	}
	checkWellFormed(t, sampled)
	for _, p := range sampled.Props {
		if !all[p.String()] {
			t.Errorf("sampled %s, not generated exhaustively", p)
		}
	}
	estimated := 0
	for i, cc := range sampled.Classes {
		ec := exact.Classes[i]
		if cc.Class != ec.Class {
			t.Fatalf("classes differ: %v, %v", cc.Class, ec.Class)
		}
		if !cc.Estimated {
			if cc.Generated != ec.Generated {
				t.Errorf("%v: generated %d, want %d", cc.Class, cc.Generated, ec.Generated)
			}
			continue
		}
		estimated++
		if d := float64(cc.Generated-ec.Generated) / float64(ec.Generated); d < -0.1 || d > 0.1 {
			t.Errorf("%v: estimated %d, exact %d", cc.Class, cc.Generated, ec.Generated)
		}
		if cc.Kept != min(300, ec.Generated) {
			t.Errorf("%v: kept %d", cc.Class, cc.Kept)
		}
	}
	if estimated == 0 {
		t.Error("no class was sampled")
	}
}

func TestUnrank(t *testing.T) {
	for _, L := range []int{5, 9, 30} {
		for m := 1; m <= 4 && m <= L; m++ {
			binom := binomTable(L, m)
			seen := make(map[[4]int32]bool)
			idx := make([]int32, m)
			for r := range binomial(L, m) {
				unrank(binom, r, idx)
				var k [4]int32
				copy(k[:], idx)
				if !slices.IsSorted(idx) || idx[0] < 0 || idx[m-1] >= int32(L) || seen[k] {
					t.Fatalf("L=%d m=%d: rank %d is %v", L, m, r, idx)
				}
				seen[k] = true
			}
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(*specs.Spec)
		consts Constants
		want   string
	}{
		{"nodes", func(s *specs.Spec) { s.Generate.MaxNodes = MaxNodes + 1 }, nil, "max_nodes is 5"},
		{"no variables", func(s *specs.Spec) { s.Vars, s.Derived, s.Generate.Iterate = nil, nil, nil }, nil, "tiny.yaml declares no variables"},
		{"literals", func(s *specs.Spec) { s.Generate.MaxLiterals = 0 }, nil, "max_literals is 0"},
		{"iterate unknown", func(s *specs.Spec) { s.Generate.Iterate = []string{"nope"} }, nil, `no variable "nope"`},
		{"iterate scalar", func(s *specs.Spec) { s.Generate.Iterate = []string{"term"} }, nil, "term is a Term, not a container"},
		{"constant path", nil, Constants{"nope": {"x"}}, `constants for "nope": no such path`},
		{"constant type", nil, Constants{"term": {"x"}}, `value x (string) does not fit Term`},
		{"constant enum", nil, Constants{"role": {"boss"}}, `value boss (string) does not fit role`},
		{"constant kind", nil, Constants{"peers": {"a"}}, `no constants for a set<NodeID>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := loadSpec(t, "tiny")
			if tt.edit != nil {
				tt.edit(spec)
			}
			_, err := Generate(spec, tt.consts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestPaths checks the typed path expansion on the rich spec: struct
// fields down to MaxPathFields, no descent into containers, element paths
// of a list of structs and the keys of a map.
func TestPaths(t *testing.T) {
	spec := loadSpec(t, "rich")
	nodes := nodeTemplates(spec)
	var got []string
	for _, n := range nodes {
		got = append(got, n.text+":"+n.typ.String())
	}
	want := []string{
		"id:NodeID", "term:Term",
		"meta:{role: Role, lease: {holder: NodeID, until: int64}}", "meta.role:Role",
		"meta.lease:{holder: NodeID, until: int64}", "meta.lease.holder:NodeID", "meta.lease.until:int64",
		"commit:Index", "log:list<Entry>", "match:map<NodeID, Index>", "ready:bool",
		"lastIndex:Index", "leading:bool",
	}
	if !slices.Equal(got, want) {
		t.Errorf("node paths\n got %q\nwant %q", got, want)
	}
	its, err := iterators(spec, nodes)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, it := range its {
		for _, e := range it.elems {
			got = append(got, it.domain.text+"[]."+e.text+":"+e.typ.String())
		}
	}
	want = []string{"log[].:Entry", "log[].term:Term", "log[].index:Index", "match[].:NodeID"}
	if !slices.Equal(got, want) {
		t.Errorf("element paths\n got %q\nwant %q", got, want)
	}
}

// BenchmarkGenerate measures generation on the specs of testdata.
// go test -run - -bench Generate -benchmem ./generator
func BenchmarkGenerate(b *testing.B) {
	for _, name := range []string{"tiny", "rich"} {
		b.Run(name, func(b *testing.B) {
			spec := loadSpec(b, name)
			b.ReportAllocs()
			candidates := 0
			for b.Loop() {
				pool, err := Generate(spec, nil)
				if err != nil {
					b.Fatal(err)
				}
				for _, c := range pool.Classes {
					candidates += c.Generated
				}
			}
			b.ReportMetric(float64(candidates)/b.Elapsed().Seconds(), "candidates/s")
		})
	}
}

// mustScopeParts is scopeParts of spec and the constants consts, failing
// t on an error.
func mustScopeParts(t *testing.T, spec *specs.Spec, consts Constants) ([]template, []iterator, map[string]constSet) {
	t.Helper()
	nodes, its, cs, err := scopeParts(spec, consts)
	if err != nil {
		t.Fatal(err)
	}
	return nodes, its, cs
}

// TestEach checks the bitset enumeration against a plain loop over all
// combinations filtered by check, on scopes wider than one bitset word.
func TestEach(t *testing.T) {
	spec := loadSpec(t, "rich")
	nodes, its, cs := mustScopeParts(t, spec, nil)
	tests := []struct {
		k, m int
		it   *iterator
	}{
		{1, 1, nil}, {1, 2, nil}, {1, 3, nil}, {1, 3, &its[0]}, {2, 1, nil}, {2, 2, nil}, {2, 2, &its[1]},
	}
	widest := 0
	for _, tt := range tests {
		s := newScope(spec, tt.k, nodes, tt.it, cs)
		widest = max(widest, len(s.lits))
		var got, want [][]int32
		s.each(tt.m, func(idx []int32) { got = append(got, slices.Clone(idx)) })
		combinations(len(s.lits), tt.m, func(idx []int32) {
			if s.check(idx) {
				want = append(want, slices.Clone(idx))
			}
		})
		if len(want) == 0 || !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("k=%d m=%d iterator=%v: each gives %d combinations, check %d", tt.k, tt.m, tt.it != nil, len(got), len(want))
		}
	}
	if widest <= 128 {
		t.Errorf("widest scope has %d literals, want several bitset words", widest)
	}
}

// TestKnownProperties checks that classic invariants of a replicated log
// survive pruning and the cap of testdata/rich.yaml.
func TestKnownProperties(t *testing.T) {
	pool := generate(t, loadSpec(t, "rich"), nil)
	have := make(map[string]bool, len(pool.Props))
	for _, p := range pool.Props {
		have[p.String()] = true
	}
	for _, src := range []string{
		// one leader per term
		`forall n0, n1 in nodes: n0.meta.role != "leader" or n1.meta.role != "leader" or n0.term != n1.term`,
		// commit within the log
		`forall n0 in nodes: n0.commit <= n0.lastIndex`,
		// a committed entry is in every longer log
		`forall n0, n1 in nodes: forall e0 in n1.log: e0 in n0.log or n0.commit < e0.index`,
		// a follower of a leader knows it
		`forall n0, n1 in nodes: not n0.leading or n1.id in n0.match`,
	} {
		p, err := grammar.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		// The pool holds one renaming of each property.
		found := false
		for _, r := range renamings(p) {
			found = found || have[r]
		}
		if !found {
			t.Errorf("not in the pool: %s", p.Text())
		}
	}
}

// combinations calls f with every m-combination of 0..n-1 in
// lexicographic order, as gonum enumerates them: the obvious oracle of
// scope.each.
func combinations(n, m int, f func(idx []int32)) {
	idx := make([]int32, m)
	gen := combin.NewCombinationGenerator(n, m)
	buf := make([]int, m)
	for gen.Next() {
		for i, x := range gen.Combination(buf) {
			idx[i] = int32(x)
		}
		f(idx)
	}
}
