package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/internal/clobber"
	"github.com/augur-dev/augur/reporter"
)

// Every file or directory a command writes is named by a flag made with
// outputFlag, which carries the annotation outputAnnotation; guardOutputs
// checks them all, against every input, before a command runs, so that
// a command need not check the outputs its flags name.
const outputAnnotation = "augur/output"

// An outputKind says what a command writes at an output, and so how the
// place is checked.
type outputKind string

const (
	outFile  outputKind = "file"  // a file, replaced atomically
	outTrace outputKind = "trace" // a trace directory, replaced or created
	outDir   outputKind = "dir"   // a directory written into, created if need be
)

// outputFlag defines a string flag naming an output of the given kind.
func outputFlag(f *pflag.FlagSet, p *string, name, short string, kind outputKind, usage string) {
	f.StringVarP(p, name, short, "", usage)
	f.SetAnnotation(name, outputAnnotation, []string{string(kind)})
}

// outputsFlag defines a repeatable string flag naming outputs of the
// given kind.
func outputsFlag(f *pflag.FlagSet, p *[]string, name, short string, kind outputKind, usage string) {
	f.StringArrayVarP(p, name, short, nil, usage)
	f.SetAnnotation(name, outputAnnotation, []string{string(kind)})
}

// outputPaths returns the paths an output flag names: its value, or each
// value of a repeatable one.
func outputPaths(f *pflag.Flag) []string {
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return s.GetSlice()
	}
	return []string{f.Value.String()}
}

// guardOutputs returns an error naming the conflict if an output flag of
// cmd, as given, could destroy an input (an argument, the value of any
// other flag, or the spec a checks file or report among them names),
// names the file another output does (the same path, or a link to it),
// or cannot be written where it is: see [clobber.Check], [clobber.Key],
// [clobber.CheckDir] and [clobber.CheckPlace].
func guardOutputs(cmd *cobra.Command, args []string) error {
	type output struct {
		path string
		kind outputKind
		flag string // as given: -o or --stats
	}
	var outputs []output
	inputs := slices.Clone(args)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if kind, ok := f.Annotations[outputAnnotation]; ok {
			flag := "--" + f.Name
			if f.Shorthand != "" {
				flag = "-" + f.Shorthand
			}
			for _, path := range outputPaths(f) {
				outputs = append(outputs, output{path, outputKind(kind[0]), flag})
			}
			return
		}
		inputs = append(inputs, flagPaths(f)...)
	})
	if len(outputs) == 0 {
		return nil
	}
	first := make(map[string]output, len(outputs)) // by clobber.Key
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		key := clobber.Key(o.path)
		if earlier, ok := first[key]; ok {
			// Written twice, one output would replace the other.
			return fmt.Errorf("%s %s is given twice (as %s %s)", o.flag, o.path, earlier.flag, earlier.path)
		}
		first[key] = o
	}
	for _, in := range slices.Clone(inputs) {
		if spec := namedSpec(in); spec != "" {
			inputs = append(inputs, spec)
		}
	}
	for _, o := range outputs {
		var err error
		switch o.kind {
		case outDir:
			err = clobber.CheckDir(o.path, inputs...)
		default:
			if err = clobber.Check(o.path, inputs...); err == nil {
				err = clobber.CheckPlace(o.path, o.kind == outTrace)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// flagPaths returns the values of f that may name files: the value of a
// string flag, every element of a list of strings and, of an element
// NAME=FILE, also FILE; none of a number or a switch.
func flagPaths(f *pflag.Flag) []string {
	switch f.Value.Type() {
	case "string":
		return []string{f.Value.String()}
	case "stringSlice", "stringArray":
		var paths []string
		for _, v := range f.Value.(pflag.SliceValue).GetSlice() {
			paths = append(paths, v)
			if _, file, ok := strings.Cut(v, "="); ok {
				paths = append(paths, file)
			}
		}
		return paths
	}
	return nil
}

// namedSpec returns the spec named by the checks file or the JSON report
// at path (which promote turns into a checks file naming that spec), or
// "" if path is neither or names no spec. Errors are the command's to
// report.
func namedSpec(path string) string {
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	switch filepath.Ext(path) {
	case ".yaml", ".yml":
		if f, err := checker.Load(path); err == nil {
			return f.Spec
		}
	case ".json":
		if r, err := reporter.ReadFile(path); err == nil && r.Spec != "" {
			if filepath.IsAbs(r.Spec) {
				return r.Spec
			}
			return filepath.Join(filepath.Dir(path), r.Spec) // relative to the report
		}
	}
	return ""
}
