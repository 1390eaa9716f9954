package checker_test

import (
	"testing"

	"github.com/augur-dev/augur/internal/depstest"
)

// maxDeps bounds what a service that links the checker links with it:
// the property language, the spec and the checks file. The grammar,
// expr-lang and YAML alone come to 123 packages with the standard library,
// the checker to 136 (November 2026).
const maxDeps = 140

// TestDeps checks that the checker stays small enough to link into any
// service: nothing that reads or writes traces (Arrow and its zstd and lz4
// codecs), no compression, no network, neither the engine over traces nor
// its reports.
func TestDeps(t *testing.T) {
	deps := depstest.Forbid(t,
		"github.com/apache/arrow-go/",
		"github.com/augur-dev/augur/trace",
		"github.com/augur-dev/augur/specs/spectrace",
		"github.com/augur-dev/augur/collector/arrowsink",
		"github.com/augur-dev/augur/collector/httpsink",
		"github.com/augur-dev/augur/collector/recorder",
		"compress/",
		"github.com/klauspost/compress",
		"github.com/pierrec/lz4",
		"github.com/goccy/go-json",
		"net/",
		"github.com/augur-dev/augur/evaluator",
		"github.com/augur-dev/augur/pipeline",
		"github.com/augur-dev/augur/reporter",
		"golang.org/x/sync/errgroup",
		"gonum.org/",
		"html/template",
	)
	depstest.AtMost(t, deps, maxDeps)
}
