package main

import (
	_ "embed"
	"strings"

	"github.com/spf13/cobra"
)

// helpText holds the long help and the examples of the commands.
//
//go:embed help.txt
var helpText string

// helpSection is a command's long help and examples.
type helpSection struct{ long, example string }

// helpSections returns the sections of helpText by command path: after a
// preamble, each section is a line "## augur CMD", the long help, and
// optionally a line "### Examples" followed by the examples.
func helpSections() map[string]helpSection {
	sections := map[string]helpSection{}
	for _, s := range strings.Split(helpText, "\n## ")[1:] {
		path, body, _ := strings.Cut(s, "\n")
		long, example, _ := strings.Cut(body, "\n### Examples\n")
		sections[path] = helpSection{strings.Trim(long, "\n"), strings.Trim(example, "\n")}
	}
	return sections
}

// setHelp gives cmd and the commands below it their sections of
// helpText.
func setHelp(cmd *cobra.Command, sections map[string]helpSection) {
	if s, ok := sections[cmd.CommandPath()]; ok {
		cmd.Long, cmd.Example = s.long, s.example
	}
	for _, c := range cmd.Commands() {
		setHelp(c, sections)
	}
}
