package evaluator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/ir"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// MaxBindings bounds the bindings a property may have in one snapshot:
// the product of the sizes of its quantifiers' domains, estimated before
// evaluation from the trace (its node count, and its longest container at
// the place each iterator ranges over). Evaluating that many bindings
// takes seconds a snapshot; two quantifiers over 10,000 nodes (10^8) are
// allowed, three over 2,000 (8·10^9) are not.
const MaxBindings = 1 << 30

// CodeTooMuchWork is the code of the error Run returns for a property
// beyond MaxBindings.
const CodeTooMuchWork diag.Code = "too much work"

// checkWork returns an error for each property of prog that may have more
// than MaxBindings bindings in a snapshot of tr, at its source position
// where it was parsed from text.
func checkWork(tr *trace.Trace, prog *Program) error {
	var lens map[string]int
	var errs diag.ErrorList
	for _, p := range prog.Props {
		src := p.src
		if src == nil {
			src = p.Property
		}
		if lens == nil && len(src.IterVars()) > 0 {
			var err error
			if lens, err = tr.MaxLens(); err != nil {
				return err
			}
		}
		if err := propWork(prog.Spec, src, tr.Manifest.Nodes, lens); err != nil {
			errs = append(errs, err)
		}
	}
	return errs.Err()
}

// place is where a bound variable's values come from: a node, or the
// members of the container at key (see trace.MaxLens), of type typ; key
// is "" where it is unknown, in a derived variable.
type place struct {
	node bool
	key  string
	typ  *specs.Type
}

// propWork returns an error if p may have more than MaxBindings bindings
// in a snapshot of n nodes whose longest containers are lens.
func propWork(spec *specs.Spec, p *grammar.Property, n int, lens map[string]int) *diag.Error {
	scope := map[string]place{}
	work := 1.0
	sizes := make([]int, len(p.Quants))
	for i, q := range p.Quants {
		if q.Domain == nil {
			sizes[i] = n
			for k, v := range q.Vars {
				scope[v] = place{node: true}
				work *= float64(max(n-k, 0))
			}
		} else {
			key, t := domainPlace(spec, scope, q.Domain)
			sizes[i] = 1 // a derived container's length is unknown
			if key != "" {
				sizes[i] = lens[key]
			}
			work *= float64(sizes[i])
			elem := place{typ: ir.MemberType(t)}
			if key != "" && (t.Kind == specs.List || t.Kind == specs.Set) {
				elem.key = key + "[]" // a map's members are its keys
			}
			scope[q.Vars[0]] = elem
		}
		if work > MaxBindings {
			var factors []string
			for j, q := range p.Quants[:i+1] {
				if q.Domain == nil {
					factors = append(factors, fmt.Sprintf("%s over %d nodes", strings.Join(q.Vars, ", "), sizes[j]))
				} else {
					factors = append(factors, fmt.Sprintf("%s over up to %d members of %s", q.Vars[0], sizes[j], q.Domain))
				}
			}
			return p.Errorf(q.Pos(), CodeTooMuchWork, "%s may bind its variables %.3g ways in one snapshot (%s), more than %d: it would not finish",
				p, work, strings.Join(factors, "; "), MaxBindings)
		}
	}
	return nil
}

// domainPlace returns the place and type of the container x, which
// Compile has checked.
func domainPlace(spec *specs.Spec, scope map[string]place, x *grammar.Path) (string, *specs.Type) {
	pl, fields := scope[x.Var], x.Fields
	if pl.node {
		pl.typ, _ = spec.Lookup(fields[0])
		pl.key = fields[0]
		if slices.ContainsFunc(spec.Derived, func(d *specs.Derived) bool { return d.Name == fields[0] }) {
			pl.key = ""
		}
		fields = fields[1:]
	}
	known := pl.key != ""
	for _, f := range fields {
		if pl.typ.Kind == specs.Struct {
			i := slices.IndexFunc(pl.typ.Fields, func(sf specs.Field) bool { return sf.Name == f })
			pl.typ, pl.key = pl.typ.Fields[i].Type, pl.key+"."+f
		} else { // a map
			pl.typ, pl.key = pl.typ.Elem, pl.key+".*"
		}
	}
	if !known {
		return "", pl.typ
	}
	return pl.key, pl.typ
}
