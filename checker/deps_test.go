package checker_test

import (
	"testing"

	"github.com/augur-dev/augur/internal/depstest"
)

// TestDeps checks that the checker stays small enough to link into any
// service: neither the engine over traces nor its reports, nor a network
// client.
func TestDeps(t *testing.T) {
	depstest.Forbid(t,
		"net/",
		"github.com/augur-dev/augur/evaluator",
		"github.com/augur-dev/augur/pipeline",
		"github.com/augur-dev/augur/reporter",
		"golang.org/x/sync/errgroup",
		"gonum.org/",
		"html/template",
	)
}
