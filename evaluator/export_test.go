package evaluator

// SetScopeBytes sets the memory a scope's bitsets may take per engine,
// so that tests reach the evaluation in blocks on small traces, and
// returns a function that restores it.
func SetScopeBytes(n int) (restore func()) {
	old := scopeBytes
	scopeBytes = n
	return func() { scopeBytes = old }
}

// SetMemoSize sets the number of predicate evaluations an engine
// memoizes (0: none), and returns a function that restores it.
func SetMemoSize(n int) (restore func()) {
	old := memoSize
	memoSize = n
	return func() { memoSize = old }
}
