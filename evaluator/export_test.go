package evaluator

import (
	"math/rand/v2"
	"slices"
	"time"
)

// SetScopeBytes sets the memory a scope's bitsets may take per engine,
// so that tests reach the evaluation in blocks on small traces, and
// returns a function that restores it.
func SetScopeBytes(n int) (restore func()) {
	old := scopeBytes
	scopeBytes = n
	return func() { scopeBytes = old }
}

// SetWindowMembers sets the members of the snapshots that a run decodes
// at once for every engine (decoder), so that tests cut short traces
// into many windows, and returns a function that restores it.
func SetWindowMembers(n int) (restore func()) {
	old := windowMembers
	windowMembers = n
	return func() { windowMembers = old }
}

// SetBatchSlots sets the number of snapshots a scope's batch holds at
// most (0: no batches), so that tests count many batches, or none, on
// short traces, and returns a function that restores it.
func SetBatchSlots(n int) (restore func()) {
	old := batchLimit
	batchLimit = n
	return func() { batchLimit = old }
}

// SetBatchDirty sets the inverse of the share of a scope's properties
// dirty per snapshot from which it counts in batches (0: never), and
// returns a function that restores it.
func SetBatchDirty(n int64) (restore func()) {
	old := batchDirty
	batchDirty = n
	return func() { batchDirty = old }
}

// OnBatchRule calls f whenever a scope changes how it counts (sparse:
// snapshot by snapshot from its next snapshot; f may be called from
// several engines at once), and returns a function that stops it.
func OnBatchRule(f func(sparse bool)) (restore func()) {
	testHookBatchRule = f
	return func() { testHookBatchRule = nil }
}

// SetMemoSize sets the number of predicate evaluations an engine
// memoizes (0: none), and returns a function that restores it.
func SetMemoSize(n int) (restore func()) {
	old := memoSize
	memoSize = n
	return func() { memoSize = old }
}

// MoveSpans makes Run move the bounds between its engines' spans to
// random places after every chunk, instead of by their times, and
// returns a function that restores it.
func MoveSpans(seed uint64) (restore func()) {
	old := balance
	rng := rand.New(rand.NewPCG(seed, 0))
	balance = func(tasks []task, _ []time.Duration, _ []bool) {
		lo, hi := tasks[0].lo, tasks[len(tasks)-1].hi
		cuts := make([]int, len(tasks)-1)
		for k := range cuts {
			cuts[k] = lo + rng.IntN(hi-lo+1)
		}
		slices.Sort(cuts)
		for k := range tasks {
			tasks[k].lo = lo
			if k < len(cuts) {
				tasks[k].hi = cuts[k]
			} else {
				tasks[k].hi = hi
			}
			lo = tasks[k].hi
		}
	}
	return func() { balance = old }
}

// SetBoxedStates makes the engines decode lists as []any, not typed
// lists, and returns a function that restores it.
func SetBoxedStates(on bool) (restore func()) {
	old := boxedStates
	boxedStates = on
	return func() { boxedStates = old }
}

// Boxed returns v with its typed lists made []any, as expressions take
// them.
func Boxed(v any) any { return boxed(v) }
