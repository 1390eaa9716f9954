package specs_test

import (
	"testing"

	"github.com/augur-dev/augur/internal/depstest"
)

// TestDeps checks that specs reads no traces, so that the live checker,
// which takes its types from a spec, links neither Arrow nor its codecs
// (package spectrace relates specs to traces).
func TestDeps(t *testing.T) {
	depstest.Forbid(t,
		"github.com/augur-dev/augur/trace",
		"github.com/apache/arrow-go/",
		"compress/",
		"github.com/klauspost/compress",
		"github.com/pierrec/lz4",
		"net/http",
	)
}
