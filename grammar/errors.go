package grammar

import (
	"fmt"

	"github.com/augur-dev/augur/diag"
)

// Codes of the errors Parse reports.
const (
	CodeIllegalChar  diag.Code = "illegal character"
	CodeUnterminated diag.Code = "unterminated string"
	CodeBadString    diag.Code = "invalid string literal"
	CodeBadNumber    diag.Code = "invalid number"
	CodeUnexpected   diag.Code = "unexpected token"
	CodeUnbound      diag.Code = "unbound variable"
	CodeDuplicate    diag.Code = "duplicate variable"
	CodeIterVars     diag.Code = "iterator binds several variables"
	CodeNestingDepth diag.Code = "nesting too deep"
	CodeTooLarge     diag.Code = "property too large"
)

// Errorf returns an error at pos in the source of p. It is meant for
// checks done after parsing, such as resolving names against a schema.
func (p *Property) Errorf(pos Pos, code diag.Code, format string, args ...any) *diag.Error {
	return &diag.Error{Pos: p.Position(pos), Code: code, Msg: fmt.Sprintf(format, args...)}
}
