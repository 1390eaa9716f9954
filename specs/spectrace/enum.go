package spectrace

import (
	"context"
	"fmt"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// CheckEnums checks that the states of tr hold, in the variables of spec s,
// only values of their enums. The error names the declaration of the
// variable, and the row and node of the first state that does not. It
// reads every state, so it looks at ctx every scanEvery states and
// returns ctx's error once it is done.
func CheckEnums(ctx context.Context, s *specs.Spec, tr *trace.Trace) error {
	var cols []int // the trace columns of vars
	var vars []*specs.Var
	for _, v := range s.Vars {
		if i := tr.Schema.Index(v.Name); i >= 0 && v.Type.HasEnum() {
			cols, vars = append(cols, i), append(vars, v)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	sr := tr.States()
	defer sr.Close()
	vals := make([]any, len(cols))
	for row := range tr.NumStates() {
		if row%scanEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		node, err := sr.Some(uint32(row), cols, vals)
		if err != nil {
			return err
		}
		for j, v := range vals {
			if err := vars[j].CheckEnum(v); err != nil {
				return fmt.Errorf("%s: %w, in state row %d (node %s) of the trace", vars[j].Pos, err, row, node)
			}
		}
	}
	return nil
}
