package generator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/augur-dev/augur/internal/memtest"
	"github.com/augur-dev/augur/specs"
)

// countLiterals counts the literals newScope builds, on every scope of
// specs with every kind of path, constants, iterators and predicates of
// one, two and three parameters (two of one type, one of a type no path
// has).
func TestCountLiterals(t *testing.T) {
	extra := `system: extra
types:
  ID: string
  Term: int64
variables:
  id: ID
  peers: set<ID>
  votes: map<ID, Term>
  term: Term
  other: Term
  ok: bool
predicates:
  - {name: between, params: [{a: Term}, {b: Term}, {c: ID}], expr: "a < b"}
  - {name: known, params: [{a: ID}, {s: set<ID>}], expr: "a in s"}
  - {name: never, params: [{a: list<bool>}], expr: "len(a) > 0"}
generate:
  iterate: [peers, votes]
`
	extraSpec, err := specs.Parse("extra.yaml", []byte(extra))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		spec   *specs.Spec
		consts Constants
	}{
		{"tiny", loadSpec(t, "tiny"), tinyConsts},
		{"rich", loadSpec(t, "rich"), Constants{"term": {uint64(1)}, "meta.role": {"leader", "follower"}, "id": {"a", "b"}}},
		{"extra", extraSpec, Constants{"term": {int64(4)}}},
	} {
		nodes := nodeTemplates(tt.spec)
		its, err := iterators(tt.spec, nodes)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := prepareConstants(nodes, tt.consts)
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= 3; k++ {
			scopes := []*iterator{nil}
			for i := range its {
				scopes = append(scopes, &its[i])
			}
			for _, it := range scopes {
				dom, elem := -1, -1
				if it != nil {
					dom, elem = findTemplate(nodes, it.domain.text), k*len(nodes)
				}
				n := countLiterals(scopePaths(k, nodes, it), tt.spec, cs, dom, elem)
				s := newScope(tt.spec, k, nodes, it, cs)
				if int(n.total()) != len(s.lits) || n.total() == 0 {
					t.Errorf("%s, %d nodes, iterator %v: counted %.0f literals, built %d", tt.name, k, it != nil, n.total(), len(s.lits))
				}
			}
		}
	}
}

// A spec whose scopes would hold more than MaxScopeLiterals literals is
// refused before any is built, naming the spec, the count, the bound and
// where the literals come from. Each spec here is just over the bound:
// before it, Generate built its scopes (about 290 MB) and sampled them.
func TestScopeLimit(t *testing.T) {
	derived := func(n, nodes int) string {
		return "variables:\n  x: int64\n" + section("derived:", n, `  d%[1]d: {type: int64, expr: "x + %[1]d"}`) + fmt.Sprintf("generate: {max_nodes: %d}\n", nodes)
	}
	preds := section("variables:", 10, "  v%[1]d: int64") +
		section("predicates:", 365, `  - {name: p%[1]d, params: [{a: int64}, {b: int64}, {c: int64}], expr: "a + b < c + %[1]d"}`) +
		"generate: {max_nodes: 1}\n"
	for _, tt := range []struct {
		name, spec string
		want       []string
	}{
		{"420 derived variables of one type", derived(420, 1), []string{
			"generator: big.yaml: the properties of 1 node variable have 531302 literals to combine, more than the 524288 the generator holds",
			"530460 comparisons of paths of one type (530460 of the 421 paths of type int64), 842 others",
			"use fewer variables and derived variables of one type"}},
		{"210 derived variables of one type, two nodes", derived(210, 2), []string{
			"the properties of 2 node variables have 533830 literals",
			"or generate.max_nodes 1"}},
		{"365 predicates of three parameters", preds, []string{
			"the properties of 1 node variable have 525890 literals",
			"525600 calls of the 365 predicates",
			"fewer predicates, or parameters of types fewer paths have"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := specs.Parse("big.yaml", []byte(tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			var gerr error
			if n := memtest.Least(2, func(int) { _, gerr = Generate(spec, nil) }); n > 16<<20 {
				t.Errorf("Generate allocated %d MiB before refusing the spec", n>>20)
			}
			if gerr == nil {
				t.Fatal("Generate accepted the spec")
			}
			for _, w := range tt.want {
				if !strings.Contains(gerr.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", gerr, w)
				}
			}
			// The spec mines no constants: MineConstants refuses it as
			// Generate would, with the count as a lower bound.
			_, merr := MineConstants(nil, spec)
			lower := strings.Replace(gerr.Error(), " have ", " have, before any constant, at least ", 1)
			if merr == nil || merr.Error() != lower {
				t.Errorf("MineConstants: error %v\nwant %s", merr, lower)
			}
		})
	}
}

// A pool of more than MaxPool properties is refused when the class that
// brings it there is chosen, before its properties are built: here 520
// integers of types of their own, whose set(x) and not set(x) make
// 539,760 two-literal disjunctions, with max_per_class above them.
func TestPoolLimit(t *testing.T) {
	src := section("types:", 520, "  T%[1]d: int64") + section("variables:", 520, "  v%[1]d: T%[1]d") +
		"generate: {max_nodes: 1, max_literals: 2, max_per_class: 1000000}\n"
	spec, err := specs.Parse("pool.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Generate(spec, nil)
	want := "generator: pool.yaml: the pool would hold more than the 524288 properties it may (several KB each to evaluate): class nodes=1 iters=0 literals=2 has 539760 candidates and max_per_class 1000000 keeps more than the 523248 left after the 1040 of the classes before it; use a lower generate.max_per_class, max_literals or max_nodes"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
	spec.Generate.MaxPerClass = 500000
	pool, err := Generate(spec, nil)
	if err != nil || len(pool.Props) != 1040+500000 {
		t.Errorf("with max_per_class 500000: %v, %v properties, want %d", err, len(pool.Props), 1040+500000)
	}
}

// section returns the line heading and n lines of format, each given
// its index (as %[1]d).
func section(heading string, n int, format string) string {
	var b strings.Builder
	b.WriteString(heading + "\n")
	for i := range n {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}
