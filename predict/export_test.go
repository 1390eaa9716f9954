package predict

import "github.com/augur-dev/augur/checker"

// ExploreWhole is Explore evaluating the checks on every state whole,
// without the shortcut of one node's bindings (see explorer.check).
func ExploreWhole(m Model, c *checker.Checker, opts Options) (*Result, error) {
	return explore(m, c, opts, true)
}
