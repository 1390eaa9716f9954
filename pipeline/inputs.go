package pipeline

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/augur-dev/augur/internal/infile"
)

// checkInputs explains the two usual mistakes with a spec and a trace
// given on a command line, which the loaders would report only as a file
// where a directory is wanted or the reverse: a trace given as the JSONL
// it is to be collected from, and the spec and the trace swapped. It
// returns nil when the inputs are neither, leaving other errors to the
// loaders.
func checkInputs(specPath, tracePath string) error {
	ti, err := os.Stat(tracePath)
	if err != nil {
		return nil
	}
	si, err := os.Stat(specPath)
	specDir := err == nil && si.IsDir()
	if ti.IsDir() {
		if specDir {
			return fmt.Errorf("%s and %s are both directories: the spec is a YAML file", specPath, tracePath)
		}
		return nil
	}
	switch {
	case specDir:
		return fmt.Errorf("%s is a directory and %s a file: the spec comes first, then the trace (%s %s)", specPath, tracePath, tracePath, specPath)
	case isJSONL(tracePath) && isJSONL(specPath):
		return fmt.Errorf("%s and %s hold JSON lines: collect them into a trace first (augur collect FILE... -o NAME.trace), and give a spec and that trace", specPath, tracePath)
	case isJSONL(tracePath):
		name := strings.TrimSuffix(filepath.Base(tracePath), filepath.Ext(tracePath)) + ".trace"
		return fmt.Errorf("%s holds JSON lines, not a trace: collect it first (augur collect %s -o %s) and give that trace", tracePath, tracePath, name)
	case isJSONL(specPath):
		return fmt.Errorf("%s holds JSON lines and %s is a file: the spec comes first, then a trace collected from the JSONL (augur collect %s -o NAME.trace)", specPath, tracePath, specPath)
	}
	return fmt.Errorf("%s is a file, not a trace directory (augur collect writes one)", tracePath)
}

// isJSONL reports whether the file at path starts, after white space,
// with a JSON object, as JSON lines do and a YAML spec does not.
func isJSONL(path string) bool {
	f, err := infile.Open(path) // not os.Open: a named pipe would block it
	if err != nil {
		return false
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		c, err := r.ReadByte()
		switch {
		case err != nil:
			return false
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		}
		return c == '{'
	}
}
