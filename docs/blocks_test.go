package docs_test

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// A block is a fenced code block of a page.
type block struct {
	info string // the fence's info string, such as "property"
	line int    // the line of its first content line, from 1
	text string
}

// readPage returns the text of a page of this directory.
func readPage(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// blocks returns the fenced code blocks of page whose info string is
// info, or starts with info and a space ("yaml defaults" is a yaml
// block, which the test tells apart by its info).
func blocks(t *testing.T, name, info string) []block {
	t.Helper()
	var out []block
	var cur *block
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(readPage(t, name)))
	for no := 1; sc.Scan(); no++ {
		text := sc.Text()
		fence := strings.HasPrefix(text, "```")
		switch {
		case cur == nil && fence:
			cur = &block{info: strings.TrimSpace(strings.TrimPrefix(text, "```")), line: no + 1}
			lines = nil
		case cur != nil && fence:
			if cur.info == info || strings.HasPrefix(cur.info, info+" ") {
				cur.text = strings.Join(lines, "\n")
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil:
			lines = append(lines, text)
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: fence not closed", name, cur.line-1)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no block marked %q", name, info)
	}
	return out
}

// items splits a block into its items, each with its line: a line that
// starts with white space continues the item above; blank lines
// separate nothing and are skipped.
func items(b block) (texts []string, lines []int) {
	for i, l := range strings.Split(b.text, "\n") {
		switch {
		case strings.TrimSpace(l) == "":
		case len(texts) > 0 && (l[0] == ' ' || l[0] == '\t'):
			texts[len(texts)-1] += "\n" + l
		default:
			texts = append(texts, l)
			lines = append(lines, b.line+i)
		}
	}
	return texts, lines
}
