package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelp checks that every section of help.txt names a command, and
// that every command line of the help (the examples, and the sessions
// in the long help) names a command whose flags and arguments take it.
func TestHelp(t *testing.T) {
	sections := helpSections()
	paths := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		paths[c.CommandPath()] = true
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd())
	for path, s := range sections {
		if !paths[path] {
			t.Errorf("help.txt: section %q names no command", path)
		}
		if s.long == "" && s.example == "" {
			t.Errorf("help.txt: section %q is empty", path)
		}
	}
	lines := 0
	for path, s := range sections {
		for l := range strings.Lines(s.long + "\n" + s.example) {
			args, ok := exampleArgs(l)
			if !ok {
				continue
			}
			lines++
			cmd, rest, err := newRootCmd().Find(args)
			if err == nil {
				err = cmd.ParseFlags(rest)
			}
			if err == nil {
				err = cmd.ValidateArgs(cmd.Flags().Args())
			}
			if err != nil {
				t.Errorf("help of %s: %q: %v", path, strings.TrimSpace(l), err)
			}
		}
	}
	if lines < 50 {
		t.Errorf("only %d command lines in the help", lines)
	}
}

// exampleArgs returns the arguments of the first augur command of a
// help line "  augur CMD ...", up to a pipe, redirection, && or comment,
// or false when the line holds none (or reads a shell expansion). A
// double-quoted argument may hold spaces.
func exampleArgs(line string) ([]string, bool) {
	if !strings.HasPrefix(line, "  augur ") || strings.Contains(line, "$(") {
		return nil, false
	}
	var args []string
	for rest := strings.TrimSpace(line)[len("augur "):]; ; {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			break
		}
		var a string
		if q, ok := strings.CutPrefix(rest, `"`); ok {
			a, rest, _ = strings.Cut(q, `"`)
		} else if i := strings.IndexByte(rest, ' '); i >= 0 {
			a, rest = rest[:i], rest[i:]
		} else {
			a, rest = rest, ""
		}
		if a == "|" || a == "&&" || a == ">" || a == "<" || a == "#" {
			break
		}
		args = append(args, a)
	}
	return args, true
}
