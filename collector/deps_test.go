package collector_test

import (
	"testing"

	"github.com/augur-dev/augur/internal/depstest"
)

// maxDeps bounds what an instrumented process links for its node API and
// JSONL sink: 68 packages, standard library included, in November 2026.
const maxDeps = 80

// TestDeps checks that a process that records to JSON lines links neither
// Arrow nor an HTTP client, nor the spec's languages: the Arrow sink is
// package arrowsink, the push sink package httpsink, and a simulator's
// Recorder, which writes traces, package recorder.
func TestDeps(t *testing.T) {
	deps := depstest.Forbid(t,
		"github.com/apache/arrow-go/",
		"github.com/augur-dev/augur/trace",
		"compress/",
		"github.com/klauspost/compress",
		"github.com/pierrec/lz4",
		"github.com/goccy/go-json",
		"net/",
		"github.com/augur-dev/augur/specs",
		"github.com/expr-lang/",
		"go.yaml.in/",
	)
	depstest.AtMost(t, deps, maxDeps)
}
