package learn

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// SpecStates is the number of random states on which [TrueBySpec] tries
// each property.
const SpecStates = 4096

// specRound is the number of states tried before the properties already
// refuted are left out.
const specRound = 64

// TrueBySpec reports, for each of props, whether it holds on every one of
// SpecStates random snapshots whose node states are drawn from the
// spec's types alone: such a property holds whatever the system does, by
// the types and the definitions of the derived variables (set(x) of a
// derived variable that is always defined, say), and a check of it can
// never fail. The values come from small domains, so that equalities and
// orders go both ways, with the constants consts mined for each node path
// (generator.MineConstants) and the enums' values, and a variable that is
// not a container is null one time in eight (a null container is an
// empty one). A snapshot has one node more than the properties'
// node variables, named like the string values, which may equal them.
// The draw is seeded: the answer is the same for the same inputs.
func TrueBySpec(spec *specs.Spec, consts generator.Constants, props []*grammar.Property) ([]bool, error) {
	out := make([]bool, len(props))
	left := make([]int, len(props)) // indices in props not refuted yet
	for i := range left {
		left[i] = i
	}
	g := &sampler{r: rand.New(rand.NewPCG(1, 2)), consts: consts}
	nodes := spec.Generate.MaxNodes + 1
	for tried := 0; tried < SpecStates && len(left) > 0; tried += specRound {
		f := &checker.File{Checks: make([]checker.Check, len(left))}
		for k, i := range left {
			f.Checks[k] = checker.Check{Name: strconv.Itoa(i), Property: props[i].Text()}
		}
		ch, err := checker.Compile(spec, f)
		if err != nil {
			return nil, fmt.Errorf("learn: %w", err)
		}
		refuted := map[*checker.Check]bool{}
		s := ch.NewSnapshot()
		for range specRound {
			s.Reset()
			for n := range nodes {
				if err := s.Set(stringDomain[n], g.state(spec)); err != nil {
					return nil, fmt.Errorf("learn: %w", err)
				}
			}
			for _, v := range s.Check() {
				refuted[v.Check] = true
			}
		}
		kept := left[:0]
		for k, i := range left {
			if !refuted[&f.Checks[k]] {
				kept = append(kept, i)
			}
		}
		left = kept
	}
	for _, i := range left {
		out[i] = true
	}
	return out, nil
}

// stringDomain are the strings a sampler draws from, and the names of
// the nodes of its snapshots.
var stringDomain = []string{"a", "b", "c", "d", "e", ""}

// sampler draws random node states from a spec's types.
type sampler struct {
	r      *rand.Rand
	consts generator.Constants
}

// state returns a random state of a node: its variables by name, in the
// representation of package trace. The spec's variable node, which the
// checker fills with the node's name, is left out.
func (g *sampler) state(spec *specs.Spec) map[string]any {
	st := make(map[string]any, len(spec.Vars))
	for _, v := range spec.Vars {
		if v.Name == "node" || !v.Type.Container() && g.r.IntN(8) == 0 {
			continue // null; a null container is an empty one
		}
		st[v.Name] = g.value(v.Type, v.Name)
	}
	return st
}

// value returns a random value of type t at node path path ("" inside a
// container, whose elements have no mined constants).
func (g *sampler) value(t *specs.Type, path string) any {
	if c := g.consts[path]; len(c) > 0 && g.r.IntN(2) == 0 {
		return c[g.r.IntN(len(c))]
	}
	switch t.Kind {
	case specs.Bool:
		return g.r.IntN(2) == 1
	case specs.Int:
		return int64(g.r.IntN(4) - 1)
	case specs.Uint:
		return uint64(g.r.IntN(3))
	case specs.Float:
		return float64(g.r.IntN(4)-1) / 2
	case specs.String:
		if len(t.Enum) > 0 {
			return t.Enum[g.r.IntN(len(t.Enum))]
		}
		return stringDomain[g.r.IntN(len(stringDomain))]
	case specs.List, specs.Set:
		xs := make([]any, g.r.IntN(3))
		for i := range xs {
			xs[i] = g.value(t.Elem, "")
		}
		return xs
	case specs.Map:
		m := map[string]any{}
		for range g.r.IntN(3) {
			m[stringDomain[g.r.IntN(len(stringDomain))]] = g.value(t.Elem, "")
		}
		return m
	case specs.Struct:
		m := make(map[string]any, len(t.Fields))
		for _, f := range t.Fields {
			sub := ""
			if path != "" {
				sub = path + "." + f.Name
			}
			m[f.Name] = g.value(f.Type, sub)
		}
		return m
	}
	return nil
}
