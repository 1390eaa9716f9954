package testbeds_test

import (
	"testing"

	"github.com/augur-dev/augur/internal/depstest"
)

// TestDeps checks that the testbeds, their catalog and their tests stay
// below the pipeline: a simulated system records through the collector,
// and what scores reports over the testbeds lives in bench/.
func TestDeps(t *testing.T) {
	depstest.ForbidIn(t, []string{"-test", "./..."},
		"github.com/augur-dev/augur/pipeline",
		"github.com/augur-dev/augur/reporter",
		"github.com/augur-dev/augur/bench/",
	)
}
