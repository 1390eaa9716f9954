package grammar

import (
	"slices"
	"testing"
)

func TestRenamings(t *testing.T) {
	tests := []struct {
		src  string
		want []string // the texts of the renamings, in any order
	}{
		{"forall n in nodes: n.a <= n.b", []string{"forall n0 in nodes: n0.a <= n0.b"}},
		{"forall x, y in nodes: x.a <= y.b", []string{
			"forall n0, n1 in nodes: n0.a <= n1.b",
			"forall n0, n1 in nodes: n1.a <= n0.b",
		}},
		{"forall a, b, c in nodes: a.x < b.x or b.x < c.x", []string{
			"forall n0, n1, n2 in nodes: n0.x < n1.x or n1.x < n2.x",
			"forall n0, n1, n2 in nodes: n0.x < n2.x or n2.x < n1.x",
			"forall n0, n1, n2 in nodes: n1.x < n0.x or n0.x < n2.x",
			"forall n0, n1, n2 in nodes: n1.x < n2.x or n2.x < n0.x",
			"forall n0, n1, n2 in nodes: n2.x < n0.x or n0.x < n1.x",
			"forall n0, n1, n2 in nodes: n2.x < n1.x or n1.x < n0.x",
		}},
		// An iterator's variable is bound to its domain: only the node
		// quantifier's variables are renamed.
		{"forall n, m in nodes: forall e in n.log: e.term <= m.term", []string{
			"forall n0, n1 in nodes: forall e0 in n0.log: e0.term <= n1.term",
			"forall n0, n1 in nodes: forall e0 in n1.log: e0.term <= n0.term",
		}},
	}
	for _, tt := range tests {
		p, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.src, err)
		}
		before := p.Text()
		var got []string
		p.Renamings(func(q *Property) { got = append(got, q.Text()) })
		want := make([]string, len(tt.want))
		for i, w := range tt.want {
			want[i] = mustText(t, w)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Renamings(%q):\n got %q\nwant %q", tt.src, got, want)
		}
		if after := p.Text(); after != before {
			t.Errorf("Renamings(%q) changed p to %q", tt.src, after)
		}
	}
}

func TestSymmetricText(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"forall n0, n1 in nodes: n0.a <= n1.b", "forall n0, n1 in nodes: n1.a <= n0.b", true},
		{"forall x, y in nodes: x.a <= y.b or y.c == 1", "forall n0, n1 in nodes: n0.c == 1 or n1.a <= n0.b", true},
		{"forall n0, n1 in nodes: n0.a <= n1.b", "forall n0, n1 in nodes: n0.b <= n1.a", false},
		{"forall n0 in nodes: n0.a <= n0.b", "forall n0, n1 in nodes: n0.a <= n1.b", false},
		// The node a log belongs to is not interchangeable with another.
		{"forall n0, n1 in nodes: forall e0 in n0.log: e0.t <= n1.t", "forall n0, n1 in nodes: forall e0 in n1.log: e0.t <= n0.t", true},
		{"forall n0, n1 in nodes: forall e0 in n0.log: e0.t <= n1.t", "forall n0, n1 in nodes: forall e0 in n0.log: e0.t <= n0.t", false},
	}
	for _, tt := range tests {
		a, b := mustParse(t, tt.a).SymmetricText(), mustParse(t, tt.b).SymmetricText()
		if same := a == b; same != tt.same {
			t.Errorf("SymmetricText(%q) = %q,\nSymmetricText(%q) = %q: same = %v, want %v", tt.a, a, tt.b, b, same, tt.same)
		}
	}
}

func mustParse(t *testing.T, src string) *Property {
	t.Helper()
	p, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return p
}

func mustText(t *testing.T, src string) string {
	t.Helper()
	return mustParse(t, src).Text()
}
