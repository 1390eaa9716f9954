package diag

import (
	"fmt"
	"slices"
)

// Code is the kind of an error, for callers and tests to branch on
// instead of matching messages. Each parser defines its own codes; the
// empty Code means the kind is not classified.
type Code string

// Error is a problem at a position in a source.
type Error struct {
	Pos  Position
	Code Code
	Msg  string
	Err  error // the underlying cause (I/O, a library's error), if any
}

// Error returns "file:line:col: msg", leaving out the position when
// nothing of it is known, and ": cause" when there is one.
func (e *Error) Error() string {
	s := e.Msg
	if e.Err != nil {
		if s != "" {
			s += ": "
		}
		s += e.Err.Error()
	}
	return positioned(e.Pos, s)
}

// positioned returns "pos: s", or s alone when nothing of pos is known.
func positioned(pos Position, s string) string {
	if p := pos.String(); p != "-" {
		return p + ": " + s
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrorList is a list of errors. The zero value is an empty list, ready
// to use.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Position, code Code, msg string) {
	*l = append(*l, &Error{Pos: pos, Code: code, Msg: msg})
}

// Addf appends an error at pos with a formatted message.
func (l *ErrorList) Addf(pos Position, code Code, format string, args ...any) {
	l.Add(pos, code, fmt.Sprintf(format, args...))
}

// Error returns the first error and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns l as an error, or nil if l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Unwrap returns the errors of l, so that errors.As finds an *Error.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Sort sorts l by position, keeping the order of errors at the same
// position.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int { return Compare(a.Pos, b.Pos) })
}
