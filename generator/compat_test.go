package generator

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/augur-dev/augur/specs"
)

// check gives the same answers before the table of compatible pairs is
// built, asking compatible of each pair, as after, reading the table;
// and only each builds it.
func TestCheckWithoutCompat(t *testing.T) {
	spec := loadSpec(t, "rich")
	nodes, its, cs := mustScopeParts(t, spec, nil)
	for _, tt := range []struct {
		k, m int
		it   *iterator
	}{
		{1, 2, nil}, {1, 3, nil}, {1, 3, &its[0]}, {2, 2, nil}, {2, 2, &its[1]},
	} {
		t.Run(fmt.Sprintf("k=%d m=%d iterator=%v", tt.k, tt.m, tt.it != nil), func(t *testing.T) {
			s := newScope(spec, tt.k, nodes, tt.it, cs)
			checked := func() []bool {
				var ok []bool
				combinations(len(s.lits), tt.m, func(idx []int32) { ok = append(ok, s.check(idx)) })
				return ok
			}
			without := checked()
			if s.compat != nil {
				t.Fatal("the table of compatible pairs was built before each needed it")
			}
			s.each(tt.m, func([]int32) {})
			if s.compat == nil {
				t.Fatal("each did not build the table of compatible pairs")
			}
			if with := checked(); !slices.Equal(with, without) || !slices.Contains(with, true) {
				t.Errorf("check without the table differs from check with it, or accepts nothing")
			}
		})
	}
}

// A scope of many literals costs about its literals until a class is
// enumerated whole: 5,000 integer variables of their own types give a
// scope of 2 nodes 50,000 literals, which with 1,000 draws allocate
// 111 MiB, and whose table of compatible pairs, built in newScope, took
// 298 MiB more and their count squared in time (10,000 variables: over
// 400 s in augur infer before anything was sampled).
func TestWideScope(t *testing.T) {
	const n = 5000
	var b strings.Builder
	b.WriteString("system: wide\ntypes:\n")
	for i := range n {
		fmt.Fprintf(&b, "  V%d: int64\n", i)
	}
	b.WriteString("variables:\n")
	for i := range n {
		fmt.Fprintf(&b, "  v%d: V%d\n", i, i)
	}
	spec, err := specs.Parse("wide.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	nodes, _, cs := mustScopeParts(t, spec, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := newScope(spec, 2, nodes, nil, cs)
	found := 0
	s.sample(2, 1000, seed(Class{Nodes: 2, Literals: 2}, 0), func([]int32) { found++ })
	runtime.ReadMemStats(&after)
	L := len(s.lits)
	if table := uint64(L) * uint64(L) / 8; after.TotalAlloc-before.TotalAlloc > table/2 {
		t.Errorf("a scope of %d literals and 1,000 draws allocated %d MiB; its table of pairs takes %d MiB", L, (after.TotalAlloc-before.TotalAlloc)>>20, table>>20)
	}
	if found == 0 {
		t.Errorf("1,000 draws of %d literals found no candidate", L)
	}
}
