package generator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// MaxPathFields bounds the fields of a generated path after its variable:
// n0.a.b.c and e0.a.b.c are the longest. Struct types nest deeper only in
// hand-written properties.
const MaxPathFields = 3

// A template is a typed path relative to a variable: the fields after the
// variable, as in "term" or "meta.role" for a node, or "" and "index" for
// the element of a container.
type template struct {
	fields []string
	typ    *specs.Type
	text   string // fields joined by "."
}

// nodeTemplates returns the paths of a node: each variable and derived
// variable of spec, in declaration order, each followed by the fields of
// its struct type, depth first, up to MaxPathFields fields. Container-valued
// paths are kept but not descended into.
func nodeTemplates(spec *specs.Spec) []template {
	var ts []template
	for _, v := range spec.Vars {
		ts = expand(ts, []string{v.Name}, v.Type)
	}
	for _, d := range spec.Derived {
		ts = expand(ts, []string{d.Name}, d.Type)
	}
	return ts
}

// elemTemplates returns the paths of an element of type t: the element
// itself, then the fields of its struct type.
func elemTemplates(t *specs.Type) []template {
	return expand(nil, nil, t)
}

// expand appends the template for fields and, for a struct type, those of
// its fields, recursively.
func expand(ts []template, fields []string, t *specs.Type) []template {
	if t == nil {
		return ts
	}
	ts = append(ts, template{fields: fields, typ: t, text: strings.Join(fields, ".")})
	if t.Kind != specs.Struct || len(fields) >= MaxPathFields {
		return ts
	}
	for _, f := range t.Fields {
		sub := append(fields[:len(fields):len(fields)], f.Name)
		ts = expand(ts, sub, f.Type)
	}
	return ts
}

// elemType returns the type of the elements an iterator over a container
// of type t binds: the element of a list or set, the key of a map.
func elemType(t *specs.Type) *specs.Type {
	if t.Kind == specs.Map {
		return t.Key
	}
	return t.Elem
}

// An iterator is a container that properties may quantify over, from the
// spec's generate.iterate list.
type iterator struct {
	domain template   // the container, a node path
	elems  []template // the paths of an element
}

// iterators resolves the iterate list of spec against the node paths.
func iterators(spec *specs.Spec, nodes []template) ([]iterator, error) {
	var its []iterator
	seen := make(map[string]bool)
	for _, name := range spec.Generate.Iterate {
		if seen[name] {
			continue
		}
		seen[name] = true
		i := findTemplate(nodes, name)
		if i < 0 {
			return nil, fmt.Errorf("generator: iterate: no variable %q", name)
		}
		t := nodes[i]
		if !t.typ.Container() {
			return nil, fmt.Errorf("generator: iterate: %s is a %s, not a container", name, t.typ)
		}
		its = append(its, iterator{domain: t, elems: elemTemplates(elemType(t.typ))})
	}
	return its, nil
}

func findTemplate(ts []template, text string) int {
	for i, t := range ts {
		if t.text == text {
			return i
		}
	}
	return -1
}

// A path is a typed path of a scope: a template applied to one of the
// scope's variables.
type path struct {
	v    int // variable: 0…k-1 for the node variables, k for the iterator
	typ  *specs.Type
	op   *grammar.Path
	text string // "n0.term", "e0.index"
	name string // without the variable, for ranking: "term", "log[].index"
	node string // the template text for a node path, the key of Constants; "" for iterator paths
}

// nodeVar and iterVar name the variables of generated properties, which
// are canonical from the start.
func nodeVar(i int) string { return "n" + strconv.Itoa(i) }

const iterVar = "e0"

// scopePaths returns the paths of k node variables and, if it is not nil,
// of the iterator's element: every template applied to every variable.
func scopePaths(k int, nodes []template, it *iterator) []path {
	var ps []path
	for v := range k {
		for _, t := range nodes {
			ps = append(ps, newPath(v, nodeVar(v), t, t.text, t.text))
		}
	}
	if it != nil {
		for _, t := range it.elems {
			name := it.domain.text + "[]"
			if t.text != "" {
				name += "." + t.text
			}
			ps = append(ps, newPath(k, iterVar, t, name, ""))
		}
	}
	return ps
}

func newPath(v int, varName string, t template, name, node string) path {
	op := &grammar.Path{Var: varName, Fields: t.fields}
	return path{v: v, typ: t.typ, op: op, text: op.String(), name: name, node: node}
}
