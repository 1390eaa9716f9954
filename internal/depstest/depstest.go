// Package depstest keeps packages that others link into their programs
// small: a test lists what its package must not depend on, and how many
// packages it may depend on in all.
package depstest

import (
	"os/exec"
	"strings"
	"testing"
)

// Forbid fails t for each dependency of the package in the current
// directory (go list -deps .: the package, its imports and theirs,
// standard library included) whose import path starts with one of
// forbidden, and returns the dependencies. It skips t when there is no go
// command to list them with.
func Forbid(t testing.TB, forbidden ...string) []string {
	t.Helper()
	return ForbidIn(t, []string{"."}, forbidden...)
}

// ForbidIn is Forbid over the packages that list names, as go list
// takes them: {"-test", "./..."} names the packages in and below the
// current directory and their tests, whose dependencies together must
// avoid forbidden.
func ForbidIn(t testing.TB, list []string, forbidden ...string) []string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goCmd, append([]string{"list", "-deps"}, list...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", strings.Join(list, " "), err)
	}
	deps := strings.Fields(string(out))
	for _, d := range deps {
		for _, f := range forbidden {
			if strings.HasPrefix(d, f) {
				t.Errorf("depends on %s", d)
			}
		}
	}
	return deps
}

// AtMost fails t when deps, as Forbid returns them, number more than n,
// so that a package's dependencies do not grow unnoticed.
func AtMost(t testing.TB, deps []string, n int) {
	t.Helper()
	if len(deps) > n {
		t.Errorf("depends on %d packages (go list -deps ., standard library included), more than %d", len(deps), n)
	}
}
