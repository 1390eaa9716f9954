package specs_test

import (
	"testing"

	"github.com/augur-dev/augur/internal/depstest"
)

// maxDeps bounds what the spec costs the live checker: 98 packages,
// standard library included, in November 2026, most of them expr-lang's
// and YAML's.
const maxDeps = 110

// TestDeps checks that specs reads no traces, so that the live checker,
// which takes its types from a spec, links neither Arrow nor its codecs
// (package spectrace relates specs to traces).
func TestDeps(t *testing.T) {
	deps := depstest.Forbid(t,
		"github.com/augur-dev/augur/trace",
		"github.com/augur-dev/augur/collector",
		"github.com/apache/arrow-go/",
		"compress/",
		"github.com/klauspost/compress",
		"github.com/pierrec/lz4",
		"github.com/goccy/go-json",
		"net/",
	)
	depstest.AtMost(t, deps, maxDeps)
}
