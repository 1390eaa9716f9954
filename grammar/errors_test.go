package grammar

import (
	"errors"
	"testing"

	"github.com/augur-dev/augur/diag"
)

func TestParseAt(t *testing.T) {
	at := diag.Position{Filename: "checks.yaml", Offset: 100, Line: 12, Column: 9}
	tests := []struct {
		src  string
		want string
	}{
		{"forall x in nodes: y", "checks.yaml:12:28: unbound variable y"},
		{"forall x in nodes:\n    x or\n  y", "checks.yaml:14:3: unbound variable y"},
		{"forall x in nodes: x ==", "checks.yaml:12:32: unexpected end of input, expected operand"},
	}
	for _, tt := range tests {
		_, err := ParseAt(tt.src, at)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseAt(%q) error = %v, want %s", tt.src, err, tt.want)
		}
	}

	var e *diag.Error
	_, err := ParseAt("forall x in nodes:\n  y", at)
	if !errors.As(err, &e) || e.Code != CodeUnbound {
		t.Fatalf("errors.As(%v) did not find an unbound variable", err)
	}
	if want := (diag.Position{Filename: "checks.yaml", Offset: 121, Line: 13, Column: 3}); e.Pos != want {
		t.Errorf("error at %#v, want %#v", e.Pos, want)
	}

	// Unset lines and columns count as 1.
	_, err = ParseAt("forall x in nodes: y", diag.Position{Filename: "f"})
	if want := "f:1:20: unbound variable y"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestErrorf(t *testing.T) {
	src := "forall x in nodes:\n  x.term < 3"
	p, err := ParseAt(src, diag.Position{Filename: "f.yaml", Line: 4, Column: 10})
	if err != nil {
		t.Fatal(err)
	}
	x := p.Matrix[0].Atom.(*Compare).X
	e := p.Errorf(x.Pos(), "unknown field", "node has no field %s", "term")
	if want := "f.yaml:5:3: node has no field term"; e.Error() != want {
		t.Errorf("got %q, want %q", e, want)
	}

	// Canonical copies keep the source, so their nodes still resolve.
	c := Canonical(p)
	if got := c.Position(c.Matrix[0].Pos()); got.String() != "f.yaml:5:3" {
		t.Errorf("canonical copy: position %s, want f.yaml:5:3", got)
	}

	if got := p.Position(NoPos); got.IsValid() || got.Filename != "f.yaml" {
		t.Errorf("Position(NoPos) = %#v, want only a file name", got)
	}
	if got := p.Position(Pos(len(src) + 1)); got.IsValid() {
		t.Errorf("position past the end = %#v, want no line", got)
	}

	// Properties built by hand have no positions.
	h := &Property{Quants: []*Quantifier{{Kind: Forall, Vars: []string{"x"}}}}
	if e := h.Errorf(0, "unknown field", "bad"); e.Error() != "bad" {
		t.Errorf("hand-built property: got %q, want %q", e, "bad")
	}
}
