package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// slug returns the anchor a forge gives a heading: lower case, without
// punctuation but hyphens and underscores, spaces turned into hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var codeSpan = regexp.MustCompile("`[^`]*`")

// outsideCode returns text without its fenced code blocks and code spans.
func outsideCode(text string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(codeSpan.ReplaceAllString(line, "") + "\n")
		}
	}
	return b.String()
}

// anchors returns the anchors of the headings of a Markdown file.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(line, "#") {
			out[slug(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
		}
	}
	return out
}

// TestLinks checks every relative link of the README and of the pages of
// this directory: the file it names exists and, for a Markdown file, so
// does the heading its anchor names.
func TestLinks(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	n := 0
	for _, page := range pages {
		text := outsideCode(readPage(t, page))
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchors(t, path)[anchor] {
				t.Errorf("%s: link %s: %s has no heading with that anchor", page, target, path)
			}
		}
	}
	t.Logf("%d relative links", n)
}
