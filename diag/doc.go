// Package diag holds what every augur parser reports problems with: a
// source [Position] and a positioned [Error], collected in an
// [ErrorList] so that a parser can report every problem it finds rather
// than the first; and the one [Warning] type, with a code, of what did
// not stop the work (ingest's torn inputs and skipped records, the
// report's and the checks' failing expressions and caveats).
//
// Properties (package grammar), specs (package specs) and recorded input
// (package ingest) all report through these types, so a caller prints and
// inspects their errors one way:
//
//	var list diag.ErrorList
//	if errors.As(err, &list) {
//		for _, e := range list {
//			fmt.Println(e.Pos.Line, e.Msg)
//		}
//	}
package diag
