package docs_test

import (
	"strings"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

const propertiesPage = "properties.md"

// propertiesSpec returns the spec of the examples of properties.md, its
// one yaml block.
func propertiesSpec(t *testing.T) *specs.Spec {
	t.Helper()
	bs := blocks(t, propertiesPage, "yaml")
	if len(bs) != 1 {
		t.Fatalf("%s: %d yaml blocks, want the examples' spec alone", propertiesPage, len(bs))
	}
	spec, err := specs.Parse(propertiesPage, []byte(bs[0].text))
	if err != nil {
		t.Fatalf("%s:%d: the examples' spec: %v", propertiesPage, bs[0].line, err)
	}
	return spec
}

// compileProperty parses and type-checks src against spec.
func compileProperty(spec *specs.Spec, src string) (*grammar.Property, error) {
	p, err := grammar.Parse(src)
	if err != nil {
		return nil, err
	}
	if _, err := evaluator.Compile(spec, []*grammar.Property{p}); err != nil {
		return nil, err
	}
	return p, nil
}

// TestPropertyExamples parses and type-checks every property of
// properties.md, and checks that each prints back to itself.
func TestPropertyExamples(t *testing.T) {
	spec := propertiesSpec(t)
	n := 0
	for _, b := range blocks(t, propertiesPage, "property") {
		texts, lines := items(b)
		for i, src := range texts {
			n++
			p, err := compileProperty(spec, src)
			if err != nil {
				t.Errorf("%s:%d: %s\n\t%v", propertiesPage, lines[i], src, err)
				continue
			}
			q, err := grammar.Parse(p.String())
			if err != nil || !grammar.Equal(p, q) {
				t.Errorf("%s:%d: %s prints as %s, which does not parse back the same (%v)", propertiesPage, lines[i], src, p, err)
			}
		}
	}
	t.Logf("%d properties", n)
}

// pairs reads the items of a block as pairs: an item, then a line
// "→ want".
func pairs(t *testing.T, b block) (srcs, wants []string, lines []int) {
	t.Helper()
	texts, ls := items(b)
	for i := 0; i < len(texts); i += 2 {
		want, ok := "", false
		if i+1 < len(texts) {
			want, ok = strings.CutPrefix(texts[i+1], "→ ")
		}
		if !ok {
			t.Fatalf("%s:%d: %s is not followed by a line \"→ …\"", propertiesPage, ls[i], texts[i])
		}
		srcs, wants, lines = append(srcs, texts[i]), append(wants, want), append(lines, ls[i])
	}
	return srcs, wants, lines
}

// TestCanonicalExamples checks the canonical text of every pair of
// properties.md.
func TestCanonicalExamples(t *testing.T) {
	spec := propertiesSpec(t)
	for _, b := range blocks(t, propertiesPage, "canonical") {
		srcs, wants, lines := pairs(t, b)
		for i, src := range srcs {
			p, err := compileProperty(spec, src)
			if err != nil {
				t.Errorf("%s:%d: %s\n\t%v", propertiesPage, lines[i], src, err)
				continue
			}
			if got := p.Text(); got != wants[i] {
				t.Errorf("%s:%d: the canonical text of\n\t%s\nis\n\t%s\nnot, as the page says,\n\t%s", propertiesPage, lines[i], src, got, wants[i])
			}
			if got := grammar.Canonical(p).String(); got != wants[i] {
				t.Errorf("%s:%d: Canonical(%s) prints %s", propertiesPage, lines[i], src, got)
			}
		}
	}
}

// TestRejectedExamples checks that every rejected property of
// properties.md is rejected, with the message the page gives.
func TestRejectedExamples(t *testing.T) {
	spec := propertiesSpec(t)
	for _, b := range blocks(t, propertiesPage, "rejected") {
		srcs, wants, lines := pairs(t, b)
		for i, src := range srcs {
			_, err := compileProperty(spec, src)
			switch {
			case err == nil:
				t.Errorf("%s:%d: %s is accepted; the page says it is rejected with %q", propertiesPage, lines[i], src, wants[i])
			case !strings.Contains(err.Error(), wants[i]):
				t.Errorf("%s:%d: %s is rejected with\n\t%v\nwhich does not contain %q", propertiesPage, lines[i], src, err, wants[i])
			}
		}
	}
}
