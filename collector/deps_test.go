package collector_test

import (
	"testing"

	"github.com/augur-dev/augur/internal/depstest"
)

// TestDeps checks that a process that records without pushing links no
// HTTP client: the push sink is package httpsink.
func TestDeps(t *testing.T) {
	depstest.Forbid(t, "net/http")
}
