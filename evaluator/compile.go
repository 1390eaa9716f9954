package evaluator

import (
	"errors"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/ir"
	"github.com/augur-dev/augur/specs"
)

// Codes of the errors Compile reports, in addition to those of grammar:
// those of [ir.Check], which the live checker reports as well.
const (
	CodeUnknownVar   = ir.CodeUnknownVar
	CodeUnknownField = ir.CodeUnknownField
	CodeUnknownPred  = ir.CodeUnknownPred
	CodeType         = ir.CodeType
)

// Program is a list of properties compiled against a spec.
type Program struct {
	Spec  *specs.Spec
	Props []*Prop
}

// Prop is one compiled property, in canonical form.
type Prop struct {
	Property *grammar.Property // canonical
	Text     string            // canonical text
	ID       string

	src *grammar.Property // as given to Compile, for positions
	ir  ir.Prop[any]      // Property compiled for the engines
}

// Select returns the program of p's properties at the indices at, in
// that order. It shares their compiled form, which Run only reads: a pass
// over some properties of a program, such as the reporter's over its
// candidates, compiles nothing again and holds no second copy.
func (p *Program) Select(at []int) *Program {
	props := make([]*Prop, len(at))
	for n, i := range at {
		props[n] = p.Props[i]
	}
	return &Program{Spec: p.Spec, Props: props}
}

// Literals returns the number of literals of the disjunction.
func (p *Prop) Literals() int { return len(p.ir.Lits) }

// Flat reports whether every quantifier is a forall, so that each binding
// of the property fixes the truth of every literal.
func (p *Prop) Flat() bool { return p.ir.Prefix == len(p.ir.Quants) }

// Compile type-checks props against spec and compiles them. Errors carry
// the position of the offending operand where the property was parsed
// from source; they are collected in a diag.ErrorList.
func Compile(spec *specs.Spec, props []*grammar.Property) (*Program, error) {
	prog := &Program{Spec: spec, Props: make([]*Prop, 0, len(props))}
	var errs diag.ErrorList
	var shared ir.Shared // paths and quantifiers written alike, one each
	for _, p := range props {
		c, text, err := ir.Typed(spec, p)
		if err != nil {
			var e *diag.Error
			if errors.As(err, &e) {
				errs = append(errs, e)
				continue
			}
			return nil, err
		}
		prog.Props = append(prog.Props, &Prop{
			Property: c, Text: text, ID: grammar.TextID(text),
			src: p, ir: ir.Build(spec, c, constValue, &shared),
		})
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return prog, nil
}

func constValue(c *grammar.Const) any {
	switch c.Kind {
	case grammar.ConstString:
		return c.Str
	case grammar.ConstInt:
		return c.Int
	case grammar.ConstUint:
		return c.Uint
	case grammar.ConstFloat:
		return c.Float
	case grammar.ConstBool:
		return c.Bool
	}
	return nil
}
