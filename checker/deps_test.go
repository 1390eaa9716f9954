package checker_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps checks that the checker stays small enough to link into any
// service: a package listed here in its dependencies (go list -deps) means
// an import has brought the engine over traces or its reports back.
func TestDeps(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goCmd, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	forbidden := []string{
		"github.com/augur-dev/augur/evaluator", // reads traces
		"github.com/augur-dev/augur/pipeline",
		"github.com/augur-dev/augur/reporter",
		"golang.org/x/sync/errgroup",
		"gonum.org/",
		"html/template",
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if strings.HasPrefix(d, f) {
				t.Errorf("checker depends on %s", d)
			}
		}
	}
}
