package specs

import (
	"regexp"
	"strings"
)

// flowType matches a block mapping entry whose value is a plain scalar
// holding a struct type inside a container type, such as
//
//	log: list<{term: Term, index: Index}>
//
// which is how the design writes it, but which YAML cannot read: a plain
// scalar may not contain ": ".
var flowType = regexp.MustCompile(`^(\s*(?:-\s+)?[A-Za-z_][A-Za-z0-9_]*:[ \t]+)([A-Za-z_][A-Za-z0-9_]*<[^"'#]*\{[^"'#]*\}[^"'#]*>)([ \t]*(?:#.*)?)$`)

// quoteFlowTypes double-quotes the values that flowType matches. It
// returns the repaired source and, for each line changed (from 1), the
// column (from 1) of the quote it inserted.
func quoteFlowTypes(data []byte) ([]byte, map[int]int) {
	lines := strings.Split(string(data), "\n")
	quoted := map[int]int{}
	for i, line := range lines {
		m := flowType.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		lines[i] = m[1] + `"` + m[2] + `"` + m[3]
		quoted[i+1] = len([]rune(m[1])) + 1
	}
	return []byte(strings.Join(lines, "\n")), quoted
}
