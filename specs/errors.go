package specs

import (
	"cmp"
	"fmt"
	"slices"
)

// Position is a place in a spec file. Line and Column start at 1; zero
// means unknown.
type Position struct {
	Filename string
	Line     int
	Column   int
}

// String returns "file:line:col", leaving out the parts that are unknown.
func (p Position) String() string {
	s := p.Filename
	if p.Line > 0 {
		if s != "" {
			s += ":"
		}
		s += fmt.Sprint(p.Line)
		if p.Column > 0 {
			s += fmt.Sprintf(":%d", p.Column)
		}
	}
	if s == "" {
		s = "-"
	}
	return s
}

// Error is a spec error at a position.
type Error struct {
	Pos Position
	Msg string
}

// Error returns "file:line:col: msg".
func (e *Error) Error() string {
	if e.Pos.Filename == "" && e.Pos.Line == 0 {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList is a list of spec errors. Parse and Check report every error
// they find, not just the first. The zero value is an empty list.
type ErrorList []*Error

// Error returns the first error, followed by the number of the others.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns l as an error, or nil when l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Sort orders l by file, line, column and message.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
			cmp.Compare(a.Msg, b.Msg),
		)
	})
}

// Unwrap returns the errors of l, so that errors.As finds an *Error.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}
