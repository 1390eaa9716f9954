package buildinfo

import (
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	// A test binary has build info, whose main module has no version.
	if v := Version(); v != "(devel)" && !strings.HasPrefix(v, "devel ") && !strings.HasPrefix(v, "v") {
		t.Errorf("Version() = %q", v)
	}
}
