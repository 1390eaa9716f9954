package grammar

import (
	"errors"
	"testing"
)

func TestPositionString(t *testing.T) {
	tests := []struct {
		pos  Position
		want string
	}{
		{Position{}, "-"},
		{Position{Filename: "a.yaml"}, "a.yaml"},
		{Position{Line: 3}, "3"},
		{Position{Line: 3, Column: 7}, "3:7"},
		{Position{Filename: "a.yaml", Line: 3}, "a.yaml:3"},
		{Position{Filename: "a.yaml", Line: 3, Column: 7}, "a.yaml:3:7"},
		{Position{Filename: "a.yaml", Column: 7}, "a.yaml"},
	}
	for _, tt := range tests {
		if got := tt.pos.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.pos, got, tt.want)
		}
	}
}

func TestParseAt(t *testing.T) {
	at := Position{Filename: "checks.yaml", Offset: 100, Line: 12, Column: 9}
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

	var e *Error
	_, err := ParseAt("forall x in nodes:\n  y", at)
	if !errors.As(err, &e) || e.Code != CodeUnbound {
		t.Fatalf("errors.As(%v) did not find an unbound variable", err)
	}
	if want := (Position{Filename: "checks.yaml", Offset: 121, Line: 13, Column: 3}); e.Pos != want {
		t.Errorf("error at %#v, want %#v", e.Pos, want)
	}

	// Unset lines and columns count as 1.
	_, err = ParseAt("forall x in nodes: y", Position{Filename: "f"})
	if want := "f:1:20: unbound variable y"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestErrorf(t *testing.T) {
	src := "forall x in nodes:\n  x.term < 3"
	p, err := ParseAt(src, Position{Filename: "f.yaml", Line: 4, Column: 10})
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

func TestErrorList(t *testing.T) {
	var l ErrorList
	if l.Err() != nil {
		t.Errorf("empty list: Err() = %v, want nil", l.Err())
	}
	l = ErrorList{
		{Pos: Position{Filename: "b", Line: 1, Column: 1}, Msg: "b1"},
		{Pos: Position{Filename: "a", Line: 2, Column: 1}, Msg: "a2"},
		{Pos: Position{Filename: "a", Line: 1, Column: 5}, Msg: "a1:5"},
		{Pos: Position{Filename: "a", Line: 1, Column: 5}, Msg: "a1:5 again"},
		{Pos: Position{Filename: "a", Line: 1, Column: 2}, Msg: "a1:2"},
	}
	l.Sort()
	var got []string
	for _, e := range l {
		got = append(got, e.Msg)
	}
	want := []string{"a1:2", "a1:5", "a1:5 again", "a2", "b1"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sorted: %q, want %q", got, want)
		}
	}
	if got, want := l.Err().Error(), "a:1:2: a1:2 (and 4 more errors)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
