package docs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
	"github.com/augur-dev/augur/trace"
)

const specPage = "spec.md"

// TestSpecExamples loads every yaml block of spec.md with the spec
// parser, and checks the defaults the page writes out.
func TestSpecExamples(t *testing.T) {
	empty, err := specs.Parse("empty.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	defaults := 0
	for _, b := range blocks(t, specPage, "yaml") {
		spec, err := specs.Parse(specPage, []byte(b.text))
		if err != nil {
			t.Errorf("%s:%d: %v", specPage, b.line, err)
			continue
		}
		if b.info == "yaml defaults" {
			defaults++
			for _, s := range []struct {
				name      string
				got, want any
			}{
				{"generate", spec.Generate, empty.Generate},
				{"filter", spec.Filter, empty.Filter},
				{"report", spec.Report, empty.Report},
			} {
				if !reflect.DeepEqual(s.got, s.want) {
					t.Errorf("%s:%d: the page's defaults of %s are %+v, the parser's %+v", specPage, b.line, s.name, s.got, s.want)
				}
			}
		}
	}
	if defaults != 1 {
		t.Errorf("%s: %d blocks of defaults, want 1", specPage, defaults)
	}
}

// TestSpecInitExample checks that spec.md shows what augur spec init
// writes for the tour's trace.
func TestSpecInitExample(t *testing.T) {
	bs := blocks(t, specPage, "yaml init")
	if len(bs) != 1 {
		t.Fatalf("%s: %d yaml init blocks, want 1", specPage, len(bs))
	}
	path := filepath.Join(t.TempDir(), "small.trace")
	if _, err := ingest.Collect(t.Context(), path, []string{"../testdata/small.jsonl"}, ingest.Options{System: "toy-raft"}); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var out bytes.Buffer
	if err := spectrace.Init(context.Background(), tr, &out); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(out.String()), strings.TrimSpace(bs[0].text); got != want {
		t.Errorf("%s:%d: augur spec init now writes\n%s\n\nnot, as the page shows,\n%s", specPage, bs[0].line, got, want)
	}
}

// TestSpecKeys checks that spec.md names every key the spec parser
// accepts. The parser's lists are read from its own message about an
// unknown key, "expected one of a, b, c".
func TestSpecKeys(t *testing.T) {
	page := readPage(t, specPage)
	sections := []struct{ name, yaml string }{
		{"the top level", "zz_unknown: 1\n"},
		{"generate", "generate: {zz_unknown: 1}\n"},
		{"generate.constants", "generate: {constants: {zz_unknown: 1}}\n"},
		{"filter", "filter: {zz_unknown: 1}\n"},
		{"report", "report: {zz_unknown: 1}\n"},
		{"a derived variable", "variables: {a: int64}\nderived: {d: {zz_unknown: 1}}\n"},
		{"a predicate", "predicates: [{zz_unknown: 1}]\n"},
	}
	list := regexp.MustCompile(`unknown key zz_unknown in [^;]*; expected one of ([a-z_, ]+)`)
	for _, s := range sections {
		_, err := specs.Parse("keys.yaml", []byte(s.yaml))
		m := list.FindStringSubmatch(errorText(err))
		if m == nil {
			t.Errorf("%s: no list of keys in the parser's error %v", s.name, err)
			continue
		}
		for _, key := range strings.Split(m[1], ", ") {
			if !strings.Contains(page, "`"+key+"`") && !strings.Contains(page, "."+key+"`") {
				t.Errorf("%s does not describe the key %s of %s", specPage, key, s.name)
			}
		}
	}
}

// errorText returns every message of err, a diag.ErrorList, one a line.
func errorText(err error) string {
	var list diag.ErrorList
	if !errors.As(err, &list) {
		return fmt.Sprint(err)
	}
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.Error() + "\n")
	}
	return b.String()
}
