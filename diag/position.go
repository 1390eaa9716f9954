package diag

import "strconv"

// Position is a place in a source file. Line and Column start at 1 and
// Offset at 0; a zero Line means the line is unknown. Offset alone places
// an error in a binary input, such as an Arrow stream.
type Position struct {
	Filename string `json:"file,omitempty"`   // file name as the caller gave it, if any
	Offset   int    `json:"offset,omitempty"` // byte offset into the file
	Line     int    `json:"line,omitempty"`   // line number, starting at 1
	Column   int    `json:"column,omitempty"` // column number in bytes, starting at 1
}

// IsValid reports whether pos has a line number.
func (pos Position) IsValid() bool { return pos.Line > 0 }

// String returns "file:line:column", leaving out the parts that are
// unset; "file: offset N" for a position known only by its offset; and
// "-" when nothing is known.
func (pos Position) String() string {
	s := pos.Filename
	switch {
	case pos.IsValid():
		if s != "" {
			s += ":"
		}
		s += strconv.Itoa(pos.Line)
		if pos.Column > 0 {
			s += ":" + strconv.Itoa(pos.Column)
		}
	case pos.Offset > 0:
		if s != "" {
			s += ": "
		}
		s += "offset " + strconv.Itoa(pos.Offset)
	}
	if s == "" {
		s = "-"
	}
	return s
}

// Compare orders positions by file name, line, column and offset.
func Compare(a, b Position) int {
	if a.Filename != b.Filename {
		if a.Filename < b.Filename {
			return -1
		}
		return 1
	}
	for _, d := range [...]int{a.Line - b.Line, a.Column - b.Column, a.Offset - b.Offset} {
		switch {
		case d < 0:
			return -1
		case d > 0:
			return 1
		}
	}
	return 0
}
