package docs_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The testscripts of cmd/augur that run the tour's commands and pin
// their outputs.
var tourScripts = []string{
	"tour.txtar",              // collect, spec init and check, generate, promote, check
	"infer_golden.txtar",      // the text report of testdata/small.jsonl
	"explain_or_effect.txtar", // augur explain of an or-effect
	"collect_local.txtar",     // node-local records into a trace
}

// tourUnpinned are the tour's commands whose outputs no testscript
// pins: a 20,000-snapshot etcd raft run and its report take longer than
// a script test should. Their outputs are checked by hand when the
// testbed or the reporter changes.
var tourUnpinned = []string{
	"augur testbed run etcdraft ",
	"augur infer specs/etcdraft.yaml ",
}

// pinned holds what the tour's scripts pin: the lines of their files
// (the golden outputs that cmp compares with) and the patterns their
// stdout and stderr assertions match.
type pinned struct {
	lines    map[string]bool
	patterns []string
}

// readPinned reads the tour's scripts.
func readPinned(t *testing.T) pinned {
	t.Helper()
	p := pinned{lines: map[string]bool{}}
	for _, name := range tourScripts {
		ar, err := txtar.ParseFile("../cmd/augur/testdata/script/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			for _, l := range strings.Split(string(f.Data), "\n") {
				p.lines[strings.TrimRight(l, " ")] = true
			}
		}
		for _, l := range strings.Split(string(ar.Comment), "\n") {
			for _, cmd := range []string{"stdout ", "stderr "} {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(l), cmd); ok {
					p.patterns = append(p.patterns, scriptArg(rest))
				}
			}
		}
	}
	return p
}

// scriptArg returns the first argument of a testscript command line: a
// word, or a single-quoted string in which ” stands for a quote.
func scriptArg(s string) string {
	if !strings.HasPrefix(s, "'") {
		w, _, _ := strings.Cut(s, " ")
		return w
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '\'' {
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			break
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// has reports whether line is pinned: a line of a golden file, or
// matched whole by a pattern. With prefix, line is the start of a line
// cut with "…", and need only begin a golden line or be matched whole by
// a pattern that does not end the line.
func (p pinned) has(line string, prefix bool) bool {
	if !prefix && p.lines[line] {
		return true
	}
	if prefix {
		for l := range p.lines {
			if strings.HasPrefix(l, line) {
				return true
			}
		}
	}
	for _, pat := range p.patterns {
		re, err := regexp.Compile("^(?:" + pat + ")$")
		if err == nil && re.MatchString(line) {
			return true
		}
	}
	return false
}

// TestTourOutputs checks that what tour.md shows each augur command
// print is what the testscripts pin: every line of the output shown
// under a "$ augur" line is a line of a golden file of tourScripts, or
// matched whole by one of their stdout or stderr patterns. A line "…"
// stands for lines left out; a line cut with "…" must begin a pinned
// line.
func TestTourOutputs(t *testing.T) {
	p := readPinned(t)
	n := 0
	for _, b := range blocks(t, "tour.md", "") {
		checking := false
		for i, l := range strings.Split(b.text, "\n") {
			if cmd, ok := strings.CutPrefix(l, "$ "); ok {
				checking = strings.HasPrefix(cmd, "augur ")
				for _, u := range tourUnpinned {
					checking = checking && !strings.HasPrefix(cmd, u)
				}
				continue
			}
			l = strings.TrimRight(l, " ")
			if !checking || l == "" || strings.TrimSpace(l) == "…" {
				continue
			}
			n++
			before, _, cut := strings.Cut(l, "…")
			if !p.has(before, cut) {
				t.Errorf("tour.md:%d: %q: no testscript of %v pins this output", b.line+i, l, tourScripts)
			}
		}
	}
	t.Logf("%d output lines", n)
	if n < 30 {
		t.Errorf("only %d output lines checked in tour.md", n)
	}
}

// withoutComments returns the lines of a YAML text without its comments
// and blank lines, trailing white space trimmed. It is for texts whose
// strings hold no #.
func withoutComments(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l, _, _ = strings.Cut(l, "#")
		if l = strings.TrimRight(l, " "); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestTourSpec checks that the spec tour.md shows is the one the tour's
// testscript copies, testdata/small.yaml, but for comments.
func TestTourSpec(t *testing.T) {
	bs := blocks(t, "tour.md", "yaml")
	b, err := os.ReadFile("../testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := withoutComments(string(b))
	got := withoutComments(bs[0].text)
	if !slices.Equal(got, want) {
		t.Errorf("tour.md:%d: the spec differs from testdata/small.yaml:\n%s\nwant:\n%s", bs[0].line, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
