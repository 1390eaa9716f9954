package trace_test

import (
	"testing"

	"github.com/augur-dev/augur/internal/arrowjstest"
)

// TestIndependentReader reads a trace with the JavaScript apache-arrow
// package and checks that it sees the rows our reader sees.
func TestIndependentReader(t *testing.T) {
	arrowjstest.CheckTrace(t, writeTrace(t))
}
