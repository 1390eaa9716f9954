package reporter

import (
	"slices"
	"testing"
)

// ordered returns the entries of props (each failing at its moments,
// standing out unless named in quiet) in the order given.
func ordered(t *testing.T, props map[string][]uint64, order []string, quiet ...string) []*Entry {
	t.Helper()
	byText := map[string]*Entry{}
	for _, e := range entries(t, props) {
		e.TemporalRate = 0.99
		if slices.Contains(quiet, e.Text) {
			e.TemporalRate = 0.5
		}
		byText[e.Text] = e
	}
	es := make([]*Entry, len(order))
	for i, s := range order {
		if es[i] = byText[s]; es[i] == nil {
			t.Fatalf("%s is not in props", s)
		}
	}
	return es
}

func TestRefinedFirst(t *testing.T) {
	const (
		q     = `forall n0 in nodes: n0.applied <= n0.commit`
		p     = `forall n0, n1 in nodes: n0.applied <= n0.commit or n0.term != n1.term`
		p2    = `forall n0 in nodes: n0.applied <= n0.commit or n0.state == "leader"`
		pp    = `forall n0, n1 in nodes: n0.applied <= n0.commit or n0.state == "leader" or n0.term != n1.term`
		other = `forall n0, n1 in nodes: n0.commit <= n1.commit or n0.term != n1.term`
		last  = `forall n0 in nodes: n0.term <= n0.commit`
	)
	props := map[string][]uint64{
		q:     every(100, 12),
		p:     every(300, 2),
		p2:    every(200, 3),
		pp:    every(600, 1),
		other: span(50, 52),
		last:  every(90, 20),
	}
	for _, tt := range []struct {
		name    string
		order   []string
		quiet   []string // not standing out
		during  []string // failing during another's episodes
		rare    []string // rare values
		tier    map[string]int
		want    []string
		refines map[string]string
	}{{
		name:    "what a weakening refines is listed just before it",
		order:   []string{other, p, last, q},
		want:    []string{other, q, p, last},
		refines: map[string]string{p: q},
	}, {
		name:  "with a baseline, a weakening of another tier leaves what it weakens in place",
		order: []string{other, p, last, q},
		tier:  map[string]int{q: 2, last: 2},
		want:  []string{other, p, last, q},
	}, {
		name:    "with a baseline, a weakening of the same tier brings what it weakens",
		order:   []string{other, p, last, q},
		tier:    map[string]int{q: 2, p: 2, last: 2},
		want:    []string{other, q, p, last},
		refines: map[string]string{p: q},
	}, {
		name:  "a weakening below what it weakens stays",
		order: []string{q, other, p, last},
		want:  []string{q, other, p, last},
	}, {
		name:  "a property that does not stand out is not listed earlier",
		order: []string{p, other, q},
		quiet: []string{q},
		want:  []string{p, other, q},
	}, {
		name:   "a property that fails during another's episodes is not listed earlier",
		order:  []string{p, other, q},
		during: []string{q},
		want:   []string{p, other, q},
	}, {
		name:  "a rare value, listed apart, is not listed earlier",
		order: []string{p, other, q},
		rare:  []string{q},
		want:  []string{p, other, q},
	}, {
		name:    "two refinements: the first brings what they refine, the second stays",
		order:   []string{p2, other, p, q},
		want:    []string{q, p2, other, p},
		refines: map[string]string{p2: q},
	}, {
		name:    "a refinement of a refinement brings both, simplest first",
		order:   []string{pp, other, p2, q, last},
		want:    []string{q, p2, pp, other, last},
		refines: map[string]string{pp: p2, p2: q},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			es := ordered(t, props, tt.order, tt.quiet...)
			// The or-effect test found each R explaining Q's violations.
			explained := map[string][]string{q: {p, p2, pp}, p2: {pp}}
			for _, e := range es {
				e.ExplainedBy = explained[e.Text]
				if slices.Contains(tt.during, e.Text) {
					e.During = other
				}
				e.RareValue = slices.Contains(tt.rare, e.Text)
			}
			refinedFirst(es, 0.95, tt.tier)
			if got := texts(es); !slices.Equal(got, tt.want) {
				t.Errorf("order\n%q\nwant\n%q", got, tt.want)
			}
			for _, e := range es {
				if want := tt.refines[e.Text]; e.Refines != want {
					t.Errorf("%s: Refines = %q, want %q", e.Text, e.Refines, want)
				}
			}
		})
	}
}

// TestRefinesAdjacent checks that a refinement keeps its Refines only
// while it is listed just after what it refines: steady entries first, or
// the baseline's tiers, may separate the pair refinedFirst made, and its
// line says "listed just before this one".
func TestRefinesAdjacent(t *testing.T) {
	for _, tt := range []struct {
		name  string
		order []string
		want  string // p's Refines after, and q's RefinedBy is "p" when set
	}{
		{"adjacent", []string{"q", "p", "x"}, "q"},
		{"separated", []string{"q", "x", "p"}, ""},
		{"after it", []string{"p", "q", "x"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			byText := map[string]*Entry{}
			es := make([]*Entry, len(tt.order))
			for i, s := range tt.order {
				es[i] = &Entry{Text: s}
				byText[s] = es[i]
			}
			byText["p"].Refines = "q"
			refinesAdjacent(es)
			if got := byText["p"].Refines; got != tt.want {
				t.Errorf("Refines = %q, want %q", got, tt.want)
			}
			wantBy := ""
			if tt.want != "" {
				wantBy = "p"
			}
			if got := byText["q"].RefinedBy; got != wantBy {
				t.Errorf("q's RefinedBy = %q, want %q", got, wantBy)
			}
		})
	}
}
