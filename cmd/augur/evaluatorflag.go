package main

import (
	"github.com/spf13/pflag"

	"github.com/augur-dev/augur/evaluator"
)

// evaluatorFlag defines --evaluator, the evaluator by name, fast by
// default: infer, report, explain and learn parse it alike, when the
// flags are parsed.
func evaluatorFlag(f *pflag.FlagSet, p *evaluator.Kind) {
	*p = evaluator.Fast
	f.Var(evaluatorValue{p}, "evaluator", "evaluator: fast or reference")
}

// evaluatorValue is the value of --evaluator.
type evaluatorValue struct{ p *evaluator.Kind }

func (v evaluatorValue) Set(s string) error {
	k, err := evaluator.ParseKind(s)
	if err != nil {
		return err
	}
	*v.p = k
	return nil
}

func (v evaluatorValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v evaluatorValue) Type() string { return "string" }
