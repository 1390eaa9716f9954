package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// goDirs returns the directories of the module below root that hold Go
// files, as slash paths relative to root: the packages of go list ./...
// (testdata, hidden directories and those starting with _ are left out,
// as the go command leaves them out).
func goDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			if rel = filepath.ToSlash(rel); !slices.Contains(dirs, rel) {
				dirs = append(dirs, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestArchitecture checks that the package table of architecture.md has
// a row for every package of the module, and none for a package that is
// gone.
func TestArchitecture(t *testing.T) {
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(readPage(t, "architecture.md"), -1) {
		listed = append(listed, m[1])
	}
	dirs := goDirs(t, "..")
	if len(dirs) < 40 {
		t.Fatalf("only %d package directories found: %v", len(dirs), dirs)
	}
	for _, d := range dirs {
		if d == "." {
			t.Errorf("Go files at the root of the module: architecture.md has no row for them")
			continue
		}
		if !slices.Contains(listed, d) {
			t.Errorf("architecture.md: no row for package %s", d)
		}
	}
	for _, p := range listed {
		if !slices.Contains(dirs, p) {
			t.Errorf("architecture.md: row for %s, which is no package directory", p)
		}
	}
	t.Logf("%d packages", len(dirs))
}
