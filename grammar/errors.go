package grammar

import (
	"cmp"
	"fmt"
	"slices"
)

// Code is the kind of an error, for callers and tests to branch on.
// Packages that check properties after parsing may define their own.
type Code string

// Codes of the errors Parse reports.
const (
	CodeIllegalChar  Code = "illegal character"
	CodeUnterminated Code = "unterminated string"
	CodeBadString    Code = "invalid string literal"
	CodeBadNumber    Code = "invalid number"
	CodeUnexpected   Code = "unexpected token"
	CodeUnbound      Code = "unbound variable"
	CodeDuplicate    Code = "duplicate variable"
	CodeIterVars     Code = "iterator binds several variables"
	CodeNestingDepth Code = "nesting too deep"
	CodeTooLarge     Code = "property too large"
)

// Error is an error at a position in the source of a property.
type Error struct {
	Pos  Position
	Code Code
	Msg  string
}

// Error returns "file:line:col: msg", leaving out what is not known.
func (e *Error) Error() string {
	if e.Pos.Filename != "" || e.Pos.IsValid() {
		return e.Pos.String() + ": " + e.Msg
	}
	return e.Msg
}

// ErrorList is a list of errors. The zero value is an empty list.
type ErrorList []*Error

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

// Sort sorts l by file, line and column, keeping the order of errors
// at the same position.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
		)
	})
}

// Errorf returns an error at pos in the source of p. It is meant for
// checks done after parsing, such as resolving names against a schema.
func (p *Property) Errorf(pos Pos, code Code, format string, args ...any) *Error {
	return &Error{Pos: p.Position(pos), Code: code, Msg: fmt.Sprintf(format, args...)}
}
