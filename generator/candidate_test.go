package generator

import (
	"math/rand/v2"
	"testing"

	"github.com/augur-dev/augur/grammar"
)

// TestCandidate checks Candidate against the uncapped pool: of every
// combination of a scope's literals (a sample of the larger classes),
// given as its renamings, one is a candidate exactly when the pool holds
// one of them; and every property of the pool is a candidate.
func TestCandidate(t *testing.T) {
	spec := loadSpec(t, "tiny")
	spec.Generate.MaxLiterals, spec.Generate.MaxPerClass = 3, 0
	pool := generate(t, spec, tinyConsts)
	in := make(map[string]bool, len(pool.Props))
	for _, p := range pool.Props {
		in[p.Text()] = true
	}
	forms := func(p *grammar.Property) []*grammar.Property {
		var out []*grammar.Property
		for _, text := range renamings(p) {
			q, err := grammar.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, grammar.Canonical(q))
		}
		return out
	}
	candidate := func(p *grammar.Property) bool {
		ok, err := Candidate(spec, tinyConsts, forms(p))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range pool.Props {
		if rng.IntN(20) == 0 && !candidate(p) {
			t.Errorf("in the pool, not a candidate: %s", p.Text())
		}
	}

	nodes, its, cs := mustScopeParts(t, spec, tinyConsts)
	var yes, no int
	for _, it := range []*iterator{nil, &its[0]} {
		for k := 1; k <= 2; k++ {
			s := newScope(spec, k, nodes, it, cs)
			for m := 1; m <= 3; m++ {
				combinations(len(s.lits), m, func(idx []int32) {
					if rng.IntN(400) != 0 {
						return
					}
					p, _ := s.property(idx)
					p = grammar.Canonical(p)
					want := false
					for _, text := range renamings(p) {
						want = want || in[text]
					}
					if got := candidate(p); got != want {
						t.Errorf("%s: candidate %v, in the pool %v", p.Text(), got, want)
					}
					yes, no = yes+b2i(want), no+b2i(!want)
				})
			}
		}
	}
	t.Logf("%d combinations in the pool, %d not", yes, no)
	if yes < 20 || no < 20 {
		t.Errorf("%d combinations in the pool and %d not: want both kinds", yes, no)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestLooseSets(t *testing.T) {
	for _, tt := range []struct {
		text  string
		loose int
	}{
		{`forall n0, n1 in nodes: n0.owned != n1.owned or not set(n0.owned)`, 0}, // guards the uniqueness of owned
		{`forall n0, n1 in nodes: n0.commit <= n1.commit or not set(n1.lease)`, 1},
		{`forall n0 in nodes: set(n0.a) or not set(n0.b)`, 2}, // nullness facts alone
		{`forall n0, n1 in nodes: set(n0.a) or not set(n1.a)`, 2},
		{`forall n0, n1 in nodes: n0.role != "follower" or set(n1.role)`, 1}, // no guard: n1.role must be set
		{`forall n0 in nodes: n0.up or not set(n0.up)`, 0},
		{`forall n0, n1 in nodes: n0.role != "follower" or not set(n1.role)`, 1}, // n1's role, not n0's: no guard
		{`forall n0 in nodes: forall e0 in n0.log: e0.term <= n0.term or not set(e0.term)`, 0},
		{`forall n0 in nodes: forall e0 in n0.log: e0.term <= n0.term or not set(n0.log)`, 1}, // e0.term is the log's, not n0's
		{`forall n0 in nodes: n0.a <= n0.b`, 0},
	} {
		p, err := grammar.Parse(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := LooseSets(p); got != tt.loose {
			t.Errorf("LooseSets(%s) = %d, want %d", tt.text, got, tt.loose)
		}
	}
}
