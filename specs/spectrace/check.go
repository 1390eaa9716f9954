package spectrace

import (
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// Check reports whether every state variable of spec s is a column of a
// trace with the given schema, of a compatible physical type, by the rules
// of [specs.Spec.CheckColumns]. The error is a diag.ErrorList, with each
// error at the declaration of the variable.
func Check(s *specs.Spec, schema trace.Schema) error {
	return s.CheckColumns(schema.ColumnTypes())
}
