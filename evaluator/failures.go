package evaluator

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

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
}

// failures collects the ExprFailures of a run from every engine. Only
// failures take its lock: an expression that works costs nothing.
type failures struct {
	mu     sync.Mutex
	byName map[string]*failureSet
}

type failureSet struct {
	ExprFailures
	seen map[string]struct{}
}

// add counts err, the failure of an expression at snapshot snap on the
// input named by key. Errors other than *specs.EvalError are not
// expression failures and are ignored.
func (f *failures) add(err error, snap uint64, key string) {
	var ee *specs.EvalError
	if !errors.As(err, &ee) {
		return
	}
	msg := err.Error()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byName == nil {
		f.byName = map[string]*failureSet{}
	}
	id := ee.Kind + " " + ee.Name
	s := f.byName[id]
	if s == nil {
		s = &failureSet{
			ExprFailures: ExprFailures{Kind: ee.Kind, Name: ee.Name, Snapshot: snap, Error: msg},
			seen:         map[string]struct{}{},
		}
		f.byName[id] = s
	}
	// The first failure is the least (snapshot, message), whichever engine
	// found it first.
	if snap < s.Snapshot || snap == s.Snapshot && msg < s.Error {
		s.Snapshot, s.Error = snap, msg
	}
	if _, ok := s.seen[key]; !ok && len(s.seen) < MaxFailureInputs {
		s.seen[key] = struct{}{}
		s.Inputs++
	}
}

// list returns the tallies ordered by kind and name.
func (f *failures) list() []ExprFailures {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ExprFailures
	for _, s := range f.byName {
		out = append(out, s.ExprFailures)
	}
	slices.SortFunc(out, func(a, b ExprFailures) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// rowKey names a node state, the input of a derived variable.
func rowKey(row uint32) string { return strconv.FormatUint(uint64(row), 10) }

// argsKey names an argument list, the input of a predicate.
func argsKey(args []any) string { return fmt.Sprint(args) }

// MergeFailures merges the tallies of shards of one run: the inputs add
// up (an input seen by two shards counts twice) and the first failure is
// the earliest.
func MergeFailures(lists ...[]ExprFailures) []ExprFailures {
	var f failures
	for _, l := range lists {
		for _, e := range l {
			id := e.Kind + " " + e.Name
			if f.byName == nil {
				f.byName = map[string]*failureSet{}
			}
			s := f.byName[id]
			if s == nil {
				f.byName[id] = &failureSet{ExprFailures: e}
				continue
			}
			s.Inputs += e.Inputs
			if e.Snapshot < s.Snapshot || e.Snapshot == s.Snapshot && e.Error < s.Error {
				s.Snapshot, s.Error = e.Snapshot, e.Error
			}
		}
	}
	return f.list()
}
