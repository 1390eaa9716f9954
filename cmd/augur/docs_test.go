package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// docPages returns the README and the pages of docs/, by path.
func docPages(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for _, p := range append(paths, "../../README.md") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pages[filepath.Base(p)] = string(b)
	}
	return pages
}

// TestDocsCommandLines checks that every augur command line in the code
// blocks of the README and docs/ names a command whose flags and
// arguments take it, as TestHelp does for help.txt. In a block that
// shows a session, the command lines are those after a "$ " prompt.
// Synopses, which hold [optional] parts or placeholders such as
// FILE..., and lines continued with a backslash are left out.
func TestDocsCommandLines(t *testing.T) {
	n := 0
	for name, text := range docPages(t) {
		for _, b := range codeBlocks(text) {
			session := slices.ContainsFunc(b.lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "$ ") })
			for i, l := range b.lines {
				l = strings.TrimSpace(l)
				if session {
					var ok bool
					if l, ok = strings.CutPrefix(l, "$ "); !ok {
						continue
					}
				}
				rest, ok := strings.CutPrefix(l, "augur ")
				if !ok || strings.ContainsAny(l, "[…") || strings.Contains(l, "...") || strings.Contains(l, "$(") || strings.HasSuffix(l, `\`) {
					continue
				}
				n++
				args := shellWords(rest)
				cmd, flags, err := newRootCmd().Find(args)
				if err == nil {
					err = cmd.ParseFlags(flags)
				}
				if err == nil {
					err = cmd.ValidateArgs(cmd.Flags().Args())
				}
				if err != nil {
					t.Errorf("%s:%d: %q: %v", name, b.line+i, l, err)
				}
			}
		}
	}
	t.Logf("%d command lines", n)
	if n < 30 {
		t.Errorf("only %d command lines in the docs", n)
	}
}

// A codeBlock is the lines of a fenced code block, the first at line.
type codeBlock struct {
	line  int
	lines []string
}

func codeBlocks(text string) []codeBlock {
	var out []codeBlock
	var cur *codeBlock
	for no, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "```") && cur == nil:
			cur = &codeBlock{line: no + 2}
		case strings.HasPrefix(l, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return out
}

// shellVar matches a shell variable in an unquoted word.
var shellVar = regexp.MustCompile(`\$(\{\w+\}|\w+)`)

// shellWords splits a command line as a shell would, for the simple
// lines of the docs: single and double quotes, and the line ends at a
// pipe, redirection, &, && or comment.
func shellWords(line string) []string {
	var words []string
	for rest := line; ; {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			return words
		}
		var w string
		switch q := rest[0]; q {
		case '\'', '"':
			w, rest, _ = strings.Cut(rest[1:], string(q))
		default:
			if i := strings.IndexByte(rest, ' '); i >= 0 {
				w, rest = rest[:i], rest[i:]
			} else {
				w, rest = rest, ""
			}
			if strings.ContainsAny(w[:1], "|&<>#") {
				return words
			}
			// A loop's variable ($s, ${tb}) stands for a value such as
			// a seed or a name: 1 parses as either.
			w = shellVar.ReplaceAllString(w, "1")
		}
		words = append(words, w)
	}
}

// TestDocsFlags checks that the reference pages name every flag of the
// commands they describe.
func TestDocsFlags(t *testing.T) {
	pages := docPages(t)
	for _, c := range []struct {
		page string
		path []string
	}{
		{"spec.md", []string{"spec", "init"}},
		{"spec.md", []string{"spec", "check"}},
		{"live.md", []string{"monitor"}},
		{"live.md", []string{"monitor", "push"}},
		{"live.md", []string{"monitor", "watch"}},
		{"live.md", []string{"monitor", "load"}},
		{"testbeds.md", []string{"testbed", "run"}},
		{"steering.md", []string{"bench", "steer"}},
		{"scaling.md", []string{"merge"}},
	} {
		cmd, _, err := newRootCmd().Find(c.path)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Deprecated != "" || f.Name == "help" {
				return
			}
			short := f.Shorthand != "" && strings.Contains(pages[c.page], "-"+f.Shorthand+" ")
			if !strings.Contains(pages[c.page], "--"+f.Name) && !short {
				t.Errorf("%s does not describe %s --%s", c.page, cmd.CommandPath(), f.Name)
			}
		})
	}
}
