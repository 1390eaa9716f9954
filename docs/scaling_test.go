package docs_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestScalingDeploy checks that scaling.md names every file of deploy/,
// the job scripts and manifests it tells how to adapt.
func TestScalingDeploy(t *testing.T) {
	page := readPage(t, "scaling.md")
	n := 0
	err := filepath.WalkDir("../deploy", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel, err := filepath.Rel("..", path)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !strings.Contains(page, "`"+rel+"`") {
			t.Errorf("scaling.md does not name %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no files in deploy/")
	}
}
