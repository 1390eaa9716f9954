package evaluator

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/augur-dev/augur/specs"
)

// MaxFailureInputs is how many distinct failing inputs of one expression
// a run tells apart; ExprFailures.Inputs stops there.
const MaxFailureInputs = 10000

// ExprFailures tallies the run-time failures of one derived variable or
// user predicate. A derived variable that fails is null and a predicate
// that fails is false, as the property language defines; the tally is
// what lets the report say so instead of silently reporting properties
// over an expression that never worked.
type ExprFailures struct {
	Kind string `json:"kind"` // "derived" or "predicate"
	Name string `json:"name"`
	// Inputs counts the distinct inputs it failed on: node states for a
	// derived variable, argument lists for a predicate (at most
	// MaxFailureInputs). Inputs are counted, not evaluations, so that the
	// figure does not depend on how often an evaluator reuses a result.
	Inputs int64 `json:"inputs"`
	// Snapshot is the first snapshot where it failed, and Error the
	// failure there.
	Snapshot uint64 `json:"snapshot"`
	Error    string `json:"error"`
	// Always is set when it failed on every input it was evaluated on:
	// every property over it then reads null (or false) alone.
	Always bool `json:"always,omitempty"`
}

// Code names the kind of warning f makes, for scripts: "derived-failed",
// "predicate-failed", "derived-always-failed" or "predicate-always-failed".
func (f ExprFailures) Code() string {
	if f.Always {
		return f.Kind + "-always-failed"
	}
	return f.Kind + "-failed"
}

// Warning says what failed, on how many inputs, where first and why, and
// what that means for the properties over it.
func (f ExprFailures) Warning() string {
	what, counted, value := "derived variable", "node state", "null"
	if f.Kind == "predicate" {
		what, counted, value = "predicate", "argument list", "false"
	}
	more := ""
	if f.Inputs >= MaxFailureInputs {
		more = "at least "
	}
	msg := strings.TrimPrefix(f.Error, f.Kind+" "+f.Name+": ")
	if f.Always {
		// Every property over it reads only null (or false): say so, as
		// what is reported of it means nothing.
		return fmt.Sprintf("%s %s failed at run time on every %s it was evaluated on (%s%d), first at snapshot %d: %s; it is %s everywhere, so the properties over it say nothing about it",
			what, f.Name, counted, more, f.Inputs, f.Snapshot, msg, value)
	}
	counted += "s"
	if f.Inputs == 1 {
		counted = counted[:len(counted)-1]
	}
	return fmt.Sprintf("%s %s failed at run time on %s%d %s, first at snapshot %d: %s; it is %s there",
		what, f.Name, more, f.Inputs, counted, f.Snapshot, msg, value)
}

// failures collects the ExprFailures of one engine; Run merges the
// engines' at the end, so that a failing expression takes no lock. Only
// failures cost anything: an expression that works is never seen here.
type failures struct {
	byExpr map[exprID]*failureSet
	worked map[exprID]bool // expressions that succeeded at least once
}

// exprID names a derived variable or a predicate.
type exprID struct{ kind, name string }

type failureSet struct {
	ExprFailures
	seen map[string]struct{}
}

// input is what an expression failed on: the node state at row, for a
// derived variable, or the argument list args, for a predicate.
type input struct {
	row  uint32
	args []any
}

// key names the input; it is only computed while the distinct inputs of
// an expression are still being counted.
func (in input) key() string {
	if in.args != nil {
		return fmt.Sprint(in.args)
	}
	return strconv.FormatUint(uint64(in.row), 10)
}

// add counts err, the failure of an expression at snapshot snap on in.
// Errors other than *specs.EvalError are not expression failures and are
// ignored.
func (f *failures) add(err error, snap uint64, in input) {
	var ee *specs.EvalError
	if !errors.As(err, &ee) {
		return
	}
	if f.byExpr == nil {
		f.byExpr = map[exprID]*failureSet{}
	}
	id := exprID{ee.Kind, ee.Name}
	s := f.byExpr[id]
	if s == nil {
		s = &failureSet{ExprFailures: ExprFailures{Kind: ee.Kind, Name: ee.Name, Snapshot: snap, Error: err.Error()}, seen: map[string]struct{}{}}
		f.byExpr[id] = s
	} else if snap <= s.Snapshot {
		s.first(snap, err.Error())
	}
	if len(s.seen) < MaxFailureInputs {
		if k := in.key(); !has(s.seen, k) {
			s.seen[k] = struct{}{}
			s.Inputs++
		}
	}
}

// succeeded records that the expression kind name succeeded once; engines
// call it once per expression, not per evaluation.
func (f *failures) succeeded(kind, name string) {
	if f.worked == nil {
		f.worked = map[exprID]bool{}
	}
	f.worked[exprID{kind, name}] = true
}

// first keeps the failure at snap if it comes before the one kept: the
// least (snapshot, message), whichever engine found it first.
func (s *failureSet) first(snap uint64, msg string) {
	if snap < s.Snapshot || snap == s.Snapshot && msg < s.Error {
		s.Snapshot, s.Error = snap, msg
	}
}

// merge adds the tallies of o, another engine's: the distinct inputs are
// the union of both.
func (f *failures) merge(o *failures) {
	for id := range o.worked {
		f.succeeded(id.kind, id.name)
	}
	for id, os := range o.byExpr {
		if f.byExpr == nil {
			f.byExpr = map[exprID]*failureSet{}
		}
		s := f.byExpr[id]
		if s == nil {
			f.byExpr[id] = os
			continue
		}
		s.first(os.Snapshot, os.Error)
		for k := range os.seen {
			if !has(s.seen, k) && len(s.seen) < MaxFailureInputs {
				s.seen[k] = struct{}{}
				s.Inputs++
			}
		}
	}
}

// list returns the tallies ordered by kind and name.
func (f *failures) list() []ExprFailures {
	var out []ExprFailures
	for id, s := range f.byExpr {
		e := s.ExprFailures
		e.Always = !f.worked[id]
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b ExprFailures) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return out
}

func has(set map[string]struct{}, k string) bool {
	_, ok := set[k]
	return ok
}

// MergeFailures merges the tallies of shards of one run: the inputs add
// up (an input seen by two shards counts twice) and the first failure is
// the earliest. An expression failed always if it did so in every shard:
// a shard where it only succeeded has no tally of it.
func MergeFailures(lists ...[]ExprFailures) []ExprFailures {
	f := failures{byExpr: map[exprID]*failureSet{}, worked: map[exprID]bool{}}
	shards := map[exprID]int{}
	for _, l := range lists {
		for _, e := range l {
			id := exprID{e.Kind, e.Name}
			shards[id]++
			if !e.Always {
				f.worked[id] = true
			}
			s := f.byExpr[id]
			if s == nil {
				f.byExpr[id] = &failureSet{ExprFailures: e}
				continue
			}
			s.Inputs += e.Inputs
			s.first(e.Snapshot, e.Error)
		}
	}
	for id, n := range shards {
		if n < len(lists) {
			f.worked[id] = true
		}
	}
	return f.list()
}
