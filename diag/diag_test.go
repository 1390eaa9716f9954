package diag

import (
	"encoding/json"
	"errors"
	"io"
	"testing"
)

func TestPositionString(t *testing.T) {
	tests := []struct {
		pos  Position
		want string
	}{
		{Position{}, "-"},
		{Position{Filename: "a.yaml"}, "a.yaml"},
		{Position{Filename: "a.yaml", Line: 3}, "a.yaml:3"},
		{Position{Filename: "a.yaml", Line: 3, Column: 7, Offset: 40}, "a.yaml:3:7"},
		{Position{Line: 3, Column: 7}, "3:7"},
		{Position{Filename: "n1.arrow", Offset: 1024}, "n1.arrow: offset 1024"},
		{Position{Offset: 1024}, "offset 1024"},
	}
	for _, tt := range tests {
		if got := tt.pos.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.pos, got, tt.want)
		}
	}
}

func TestError(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Msg: "no checks"}, "no checks"},
		{&Error{Pos: Position{Filename: "s.yaml", Line: 2, Column: 5}, Msg: "unknown type"}, "s.yaml:2:5: unknown type"},
		{&Error{Pos: Position{Filename: "n1.arrow", Offset: 99}, Msg: "torn batch", Err: io.ErrUnexpectedEOF}, "n1.arrow: offset 99: torn batch: unexpected EOF"},
		{&Error{Pos: Position{Filename: "x"}, Err: io.EOF}, "x: EOF"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if e := (&Error{Err: io.EOF}); !errors.Is(e, io.EOF) {
		t.Errorf("errors.Is(%v, io.EOF) = false", e)
	}
}

func TestErrorList(t *testing.T) {
	var l ErrorList
	if l.Err() != nil {
		t.Fatalf("empty list: Err() = %v, want nil", l.Err())
	}
	l.Add(Position{Filename: "b", Line: 1}, "", "third")
	l.Addf(Position{Filename: "a", Line: 2, Column: 1}, "x", "second %d", 2)
	l.Add(Position{Filename: "a", Line: 1, Column: 9}, "", "first")
	l.Add(Position{Filename: "a", Line: 2, Column: 1}, "", "second, later")
	l.Sort()
	var got []string
	for _, e := range l {
		got = append(got, e.Msg)
	}
	want := []string{"first", "second 2", "second, later", "third"}
	if len(got) != len(want) {
		t.Fatalf("sorted = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sorted = %q, want %q", got, want)
		}
	}
	if s := l.Error(); s != "a:1:9: first (and 3 more errors)" {
		t.Errorf("Error() = %q", s)
	}
	var e *Error
	if err := error(l); !errors.As(err, &e) || e.Msg != "first" {
		t.Errorf("errors.As found %v, want the first error", e)
	}
}

func TestWarning(t *testing.T) {
	tests := []struct {
		w        Warning
		want     string
		wantJSON string
	}{
		{Warning{Code: "derived-failed", Msg: "x failed"}, "x failed", `{"code":"derived-failed","message":"x failed"}`},
		{Warning{Code: "torn-end", Pos: Position{Filename: "n1.jsonl", Line: 7}, Msg: "torn last line"}, "n1.jsonl:7: torn last line",
			`{"code":"torn-end","pos":{"file":"n1.jsonl","line":7},"message":"torn last line"}`},
		{Warning{Code: "torn-end", Pos: Position{Filename: "n1.arrow", Offset: 99}, Msg: "torn"}, "n1.arrow: offset 99: torn",
			`{"code":"torn-end","pos":{"file":"n1.arrow","offset":99},"message":"torn"}`},
	}
	for _, tt := range tests {
		if got := tt.w.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.w, got, tt.want)
		}
		b, err := json.Marshal(tt.w)
		if err != nil || string(b) != tt.wantJSON {
			t.Errorf("json.Marshal(%#v) = %s, %v; want %s", tt.w, b, err, tt.wantJSON)
		}
		var back Warning
		if err := json.Unmarshal(b, &back); err != nil || back != tt.w {
			t.Errorf("json.Unmarshal(%s) = %#v, %v; want %#v", b, back, err, tt.w)
		}
	}
}
