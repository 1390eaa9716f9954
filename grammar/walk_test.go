package grammar

import (
	"slices"
	"testing"
)

func TestPaths(t *testing.T) {
	p, err := Parse(`forall x, y in nodes: forall e in y.log: forall f in e.parts: ` +
		`e in x.log or x.commit > e.index or p(x, 1, y.id) or set(f.v) or empty(x.q) or 1 == 2`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for path := range Paths(p) {
		got = append(got, path.String())
	}
	want := []string{"y.log", "e.parts", "e", "x.log", "e.index", "x.commit", "x", "y.id", "f.v", "x.q"}
	if !slices.Equal(got, want) {
		t.Errorf("Paths = %q, want %q", got, want)
	}

	// Stopping early is allowed.
	for range Paths(p) {
		break
	}
	for path := range Paths(p) {
		if path.Var == "e" {
			break
		}
	}

	if got, want := p.NodeVars(), []string{"x", "y"}; !slices.Equal(got, want) {
		t.Errorf("NodeVars = %q, want %q", got, want)
	}
	if got, want := p.IterVars(), []string{"e", "f"}; !slices.Equal(got, want) {
		t.Errorf("IterVars = %q, want %q", got, want)
	}
}
