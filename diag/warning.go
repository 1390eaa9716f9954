package diag

// A Warning is a problem that did not stop the work but that the reader
// of its result must know: a torn end of an input, a bad record skipped,
// a derived variable that failed at run time. Warnings are results,
// returned beside what they qualify, never logged and dropped. Code
// tells their kinds apart for callers and scripts; Pos places one in a
// source, when it is about one.
type Warning struct {
	Code Code     `json:"code"`
	Pos  Position `json:"pos,omitzero"`
	Msg  string   `json:"message"`
}

// String returns "file:line:col: msg", as [Error.Error] does, or msg
// alone when nothing of the position is known.
func (w Warning) String() string { return positioned(w.Pos, w.Msg) }
