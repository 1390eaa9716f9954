package httpsink_test

import (
	"testing"

	"github.com/augur-dev/augur/internal/depstest"
)

// TestDeps checks that a process that pushes its records to a monitor
// links no Arrow (package arrowsink writes Arrow streams) and reads no
// traces.
func TestDeps(t *testing.T) {
	depstest.Forbid(t,
		"github.com/apache/arrow-go/",
		"github.com/augur-dev/augur/trace",
		"github.com/augur-dev/augur/collector/arrowsink",
		"github.com/klauspost/compress",
		"github.com/pierrec/lz4",
		"github.com/goccy/go-json",
	)
}
