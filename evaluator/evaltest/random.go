// Package evaltest makes random specs, traces and properties for the
// differential tests of the engines that evaluate properties: the
// evaluator's fast engine against its reference, and package checker's
// live checker against the reference.
package evaltest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

// rvar is a state variable the random specs may declare.
type rvar struct {
	name  string
	typ   string // semantic type, as the property generator compares them
	spec  string // type in the spec
	arrow arrow.DataType
	gen   func(r *rand.Rand) any
}

// Values chosen to hit the corners of the semantics: nulls, NaN, infinities,
// -0, integers that float64 rounds, uint64 above MaxInt64, duplicates in
// sets, empty containers.
var (
	nums  = []any{int64(0), int64(1), int64(2), int64(-3), int64(1<<53 + 1), int64(7)}
	unums = []any{uint64(0), uint64(1), uint64(2), uint64(1<<63 + 5), uint64(7)}
	reals = []any{0.0, math.Copysign(0, -1), 1.5, 2.0, -1.0, -3.0, math.NaN(), math.Inf(1), math.Inf(-1), float64(1 << 53), 7.0}
	qnums = []any{int64(2), int64(1<<53 + 1), int64(0), int64(-1)}
	names = []any{"a", "b", "n0", "n1", ""}
)

func pick(r *rand.Rand, vs []any) any {
	if r.IntN(6) == 0 {
		return nil
	}
	return vs[r.IntN(len(vs))]
}

func listOf(r *rand.Rand, elem func(*rand.Rand) any) any {
	switch r.IntN(6) {
	case 0:
		return nil
	case 1:
		return []any{}
	}
	l := make([]any, r.IntN(4)+1)
	for i := range l {
		l[i] = elem(r)
	}
	return l
}

func entry(r *rand.Rand) any {
	if r.IntN(8) == 0 {
		return nil
	}
	return map[string]any{"t": pick(r, nums), "r": pick(r, reals), "s": pick(r, names)}
}

var rvars = []rvar{
	{"x", "Num", "Num", arrow.PrimitiveTypes.Int64, func(r *rand.Rand) any { return pick(r, nums) }},
	{"y", "Num", "Num", arrow.PrimitiveTypes.Uint64, func(r *rand.Rand) any { return pick(r, unums) }},
	{"r", "Real", "Real", arrow.PrimitiveTypes.Float64, func(r *rand.Rand) any { return pick(r, reals) }},
	{"q", "Real", "Real", arrow.PrimitiveTypes.Int64, func(r *rand.Rand) any { return pick(r, qnums) }},
	{"name", "Name", "Name", arrow.BinaryTypes.String, func(r *rand.Rand) any { return pick(r, names) }},
	{"peer", "Name", "Name", arrow.BinaryTypes.String, func(r *rand.Rand) any { return pick(r, names) }},
	{"st", "st", "{enum: [a, b, c]}", arrow.BinaryTypes.String, func(r *rand.Rand) any { return pick(r, []any{"a", "b", "c"}) }},
	{"ok", "bool", "bool", arrow.FixedWidthTypes.Boolean, func(r *rand.Rand) any { return pick(r, []any{true, false}) }},
	{"nums", "list<Num>", "list<Num>", arrow.ListOf(arrow.PrimitiveTypes.Int64), func(r *rand.Rand) any {
		return listOf(r, func(r *rand.Rand) any { return pick(r, nums) })
	}},
	{"more", "list<Num>", "list<Num>", arrow.ListOf(arrow.PrimitiveTypes.Int64), func(r *rand.Rand) any {
		return listOf(r, func(r *rand.Rand) any { return pick(r, nums[:3]) })
	}},
	{"names", "set<Name>", "set<Name>", arrow.ListOf(arrow.BinaryTypes.String), func(r *rand.Rand) any {
		return listOf(r, func(r *rand.Rand) any { return pick(r, names) })
	}},
	{"reals", "set<Real>", "set<Real>", arrow.ListOf(arrow.PrimitiveTypes.Float64), func(r *rand.Rand) any {
		return listOf(r, func(r *rand.Rand) any { return pick(r, reals) })
	}},
	{"qreals", "set<Real>", "set<Real>", arrow.ListOf(arrow.PrimitiveTypes.Int64), func(r *rand.Rand) any {
		return listOf(r, func(r *rand.Rand) any { return pick(r, append(qnums, int64(-3), int64(7))) })
	}},
	{"log", "list<Entry>", "list<Entry>", arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "t", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "r", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	)), func(r *rand.Rand) any { return listOf(r, entry) }},
	{"kv", "map<Num>", "map<string, Num>", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), func(r *rand.Rand) any {
		if r.IntN(5) == 0 {
			return nil
		}
		m := map[string]any{}
		for range r.IntN(3) {
			m[names[r.IntN(len(names))].(string)] = pick(r, nums)
		}
		return m
	}},
	{"box", "Box", "Box", arrow.StructOf(
		arrow.Field{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	), func(r *rand.Rand) any {
		if r.IntN(5) == 0 {
			return nil
		}
		return map[string]any{"k": pick(r, nums), "tags": listOf(r, func(r *rand.Rand) any { return pick(r, names[:3]) })}
	}},
	{"groups", "list<set<Name>>", "list<set<Name>>", arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String)), func(r *rand.Rand) any {
		return listOf(r, func(r *rand.Rand) any {
			return listOf(r, func(r *rand.Rand) any { return pick(r, names[:3]) })
		})
	}},
}

// Derived variables and predicates every random spec has (their inputs
// are always declared).
const randomSpecTail = `
derived:
  cnt: {type: Num, expr: "len(nums)"}
  top: {type: Real, expr: "len(reals ?? []) == 0 ? 0.5 : reals[0]"}
predicates:
  - name: sum3
    params: [{a: Num}, {b: Num}]
    expr: "a + b > 3"
  - name: inv
    params: [{a: Real}]
    expr: "1 / a > 0"
  - name: head
    params: [{a: list<Num>}, {b: Num}]
    expr: "a[0] == b"
`

// Case is a random spec and properties made from a seed, and the
// traces it makes.
type Case struct {
	Spec  string   // the spec, in YAML
	Props []string // the properties; some may not type-check
	Tame  bool     // no uint64 above MaxInt64, which the constant miner rejects in a Num
	Nodes int      // nodes of the trace, always up; 0 for 1 to 5, some down

	vars []rvar
}

// alwaysVars are declared in every random spec, for the derived variables.
var alwaysVars = map[string]bool{"x": true, "nums": true, "reals": true}

// NewCase returns the random case of seed, with nprops properties over
// 1 to 3 node variables, perhaps an iterator and an exists.
func NewCase(seed uint64, nprops int) *Case {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := &Case{}
	var b strings.Builder
	b.WriteString("system: random\ntypes:\n  Num: int64\n  Real: float64\n  Name: string\n")
	b.WriteString("  Entry: \"{t: Num, r: Real, s: Name}\"\n  Box: \"{k: Num, tags: set<Name>}\"\nvariables:\n")
	for _, v := range rvars {
		if alwaysVars[v.name] || r.IntN(3) > 0 {
			c.vars = append(c.vars, v)
			fmt.Fprintf(&b, "  %s: %q\n", v.name, v.spec)
		}
	}
	b.WriteString(randomSpecTail)
	var iterate []string
	for _, v := range c.vars {
		if v.name == "log" || v.name == "names" || v.name == "kv" {
			iterate = append(iterate, v.name)
		}
	}
	fmt.Fprintf(&b, "generate:\n  max_nodes: %d\n  max_literals: 2\n  iterate: [%s]\n", 1+r.IntN(2), strings.Join(iterate, ", "))
	c.Spec = strings.ReplaceAll(b.String(), `"{enum: [a, b, c]}"`, "{enum: [a, b, c]}")
	for len(c.Props) < nprops {
		c.Props = append(c.Props, c.randomProp(r))
	}
	return c
}

// operandPath is a path with its semantic type.
type operandPath struct{ text, typ string }

// paths lists the paths of the variables in scope.
func (c *Case) paths(nodes []string, iter string, iterType string) []operandPath {
	var out []operandPath
	for _, n := range nodes {
		for _, v := range c.vars {
			out = append(out, operandPath{n + "." + v.name, v.typ})
			switch v.typ {
			case "Box":
				out = append(out, operandPath{n + "." + v.name + ".k", "Num"}, operandPath{n + "." + v.name + ".tags", "set<Name>"})
			case "map<Num>":
				out = append(out, operandPath{n + "." + v.name + ".a", "Num"})
			}
		}
		out = append(out, operandPath{n + ".cnt", "Num"}, operandPath{n + ".top", "Real"})
	}
	switch iterType {
	case "Entry":
		out = append(out, operandPath{iter, "Entry"}, operandPath{iter + ".t", "Num"}, operandPath{iter + ".r", "Real"}, operandPath{iter + ".s", "Name"})
	case "Name", "set<Name>":
		out = append(out, operandPath{iter, iterType})
	}
	return out
}

var constsOf = map[string][]string{
	"Num":  {"0", "1", "-3", "9007199254740993", "18446744073709551615"},
	"Real": {"0", "1.5", "2", "-0.5"},
	"Name": {`"a"`, `"n1"`, `""`},
	"st":   {`"a"`, `"c"`},
	"bool": {"true", "false"},
}

// randomProp returns a property over 1 to 3 node variables, perhaps an
// iterator (over a list of structs, a set, a map, or a container in an
// element) and an exists.
func (c *Case) randomProp(r *rand.Rand) string {
	k := 1 + r.IntN(3)
	nodes := []string{"n0", "n1", "n2"}[:k]
	var prefix strings.Builder
	quant := "forall"
	if r.IntN(8) == 0 {
		quant = "exists"
	}
	if k > 1 && r.IntN(3) == 0 {
		fmt.Fprintf(&prefix, "forall %s in nodes: %s %s in nodes: ", nodes[0], quant, strings.Join(nodes[1:], ", "))
	} else {
		fmt.Fprintf(&prefix, "%s %s in nodes: ", quant, strings.Join(nodes, ", "))
	}
	iter, iterType := "", ""
	var domains []operandPath
	for _, p := range c.paths(nodes, "", "") {
		switch p.typ {
		case "list<Entry>", "set<Name>", "map<Num>", "list<set<Name>>":
			domains = append(domains, p)
		}
	}
	if len(domains) > 0 && r.IntN(2) == 0 {
		d := domains[r.IntN(len(domains))]
		iter = "e0"
		switch d.typ {
		case "list<Entry>":
			iterType = "Entry"
		case "set<Name>", "map<Num>":
			iterType = "Name"
		case "list<set<Name>>":
			iterType = "set<Name>"
		}
		q := "forall"
		if r.IntN(10) == 0 {
			q = "exists"
		}
		fmt.Fprintf(&prefix, "%s e0 in %s: ", q, d.text)
		if iterType == "set<Name>" && r.IntN(2) == 0 {
			// An iterator over an element's container.
			fmt.Fprintf(&prefix, "forall e1 in e0: ")
			iter, iterType = "e1", "Name"
		}
	}
	paths := c.paths(nodes, iter, iterType)
	byType := map[string][]operandPath{}
	for _, p := range paths {
		byType[p.typ] = append(byType[p.typ], p)
	}
	var lits []string
	for range 1 + r.IntN(5) {
		lit := c.randomAtom(r, paths, byType)
		if r.IntN(3) == 0 {
			lit = "not " + lit
		}
		lits = append(lits, lit)
	}
	return prefix.String() + strings.Join(lits, " or ")
}

func (c *Case) randomAtom(r *rand.Rand, paths []operandPath, byType map[string][]operandPath) string {
	p := paths[r.IntN(len(paths))]
	same := byType[p.typ]
	q := same[r.IntN(len(same))]
	switch p.typ {
	case "Num", "Real", "Name", "st", "bool":
		if r.IntN(4) == 0 {
			// membership of a scalar in a container of its type
			for _, s := range paths {
				if s.typ == "list<"+p.typ+">" || s.typ == "set<"+p.typ+">" || s.typ == "map<Num>" && p.typ == "Name" {
					if r.IntN(2) == 0 {
						return p.text + " in " + s.text
					}
				}
			}
		}
		if p.typ == "bool" && r.IntN(2) == 0 {
			return p.text
		}
		if p.typ == "Num" && r.IntN(5) == 0 {
			return fmt.Sprintf("sum3(%s, %s)", p.text, q.text)
		}
		if p.typ == "Real" && r.IntN(5) == 0 {
			// 1/-0 is -Inf: the result tells -0 from 0, and an int64
			// from a float64.
			return fmt.Sprintf("inv(%s)", p.text)
		}
		if r.IntN(5) == 0 {
			return "set(" + p.text + ")"
		}
		y := q.text
		if r.IntN(3) == 0 {
			cs := constsOf[p.typ]
			y = cs[r.IntN(len(cs))]
		}
		ops := []string{"==", "!="}
		if p.typ == "Num" || p.typ == "Real" || p.typ == "Name" && r.IntN(3) == 0 {
			ops = append(ops, "<", "<=", ">", ">=")
		}
		return fmt.Sprintf("%s %s %s", p.text, ops[r.IntN(len(ops))], y)
	case "list<Num>", "set<Name>", "set<Real>", "list<Entry>", "map<Num>", "list<set<Name>>":
		if ns := byType["Num"]; p.typ == "list<Num>" && len(ns) > 0 && r.IntN(4) == 0 {
			// Fails on an empty or null list.
			return fmt.Sprintf("head(%s, %s)", p.text, ns[r.IntN(len(ns))].text)
		}
		switch r.IntN(4) {
		case 0:
			return "empty(" + p.text + ")"
		case 1:
			return p.text + " subset " + q.text
		case 2:
			return p.text + " == " + q.text
		}
		if p.typ == "list<set<Name>>" {
			for _, s := range paths {
				if s.typ == "set<Name>" {
					return s.text + " in " + p.text
				}
			}
		}
		return p.text + " != " + q.text
	}
	// structs
	if r.IntN(2) == 0 {
		return "set(" + p.text + ")"
	}
	return p.text + " == " + q.text
}

// Trace returns a trace of the case's variables with the given number of
// snapshots, random from seed: nodes go down and come back, and keep
// their states for a few snapshots.
func (c *Case) Trace(t testing.TB, seed uint64, snapshots int) *trace.Trace {
	r := rand.New(rand.NewPCG(seed^0x5bd1e995, seed))
	var schema trace.Schema
	for _, v := range c.vars {
		schema = append(schema, trace.Column{Name: v.name, Type: v.arrow})
	}
	b := tracetest.New(t, schema, trace.Options{BatchRows: 1 + r.IntN(7)})
	nodes := []string{"n0", "n1", "n2", "n3", "n4"}[:1+r.IntN(5)]
	if c.Nodes > 0 {
		nodes = nil
		for i := range c.Nodes {
			nodes = append(nodes, fmt.Sprintf("n%d", i))
		}
	}
	rows := map[string]uint32{}
	for i := range snapshots {
		var members []uint32
		for _, n := range nodes {
			switch {
			case c.Nodes == 0 && r.IntN(8) == 0: // down
				continue
			case r.IntN(3) == 0: // unchanged, if it has a state
				if row, ok := rows[n]; ok {
					members = append(members, row)
					continue
				}
			}
			vals := make([]any, len(c.vars))
			for k, v := range c.vars {
				vals[k] = v.gen(r)
				if c.Tame && v.name == "y" {
					vals[k] = pick(r, unums[:3])
				}
			}
			rows[n] = b.State(n, uint64(i), vals...)
			members = append(members, rows[n])
		}
		var tags []string
		if r.IntN(3) == 0 {
			tags = []string{[]string{"steady", "bug:x"}[r.IntN(2)]}
		}
		b.Snapshot(trace.Snapshot{ID: uint64(i), TS: uint64(10 * i), Members: members, Tags: tags})
	}
	return b.Open()
}

// Compile parses and compiles the properties that type-check; the others
// are the generator's fault, not the evaluators'.
func (c *Case) Compile(t testing.TB, spec *specs.Spec) *evaluator.Program {
	t.Helper()
	var ps []*grammar.Property
	for _, src := range c.Props {
		p, err := grammar.Parse(src)
		if err != nil {
			t.Fatalf("parse %q: %v", src, err)
		}
		if _, err := evaluator.Compile(spec, []*grammar.Property{p}); err != nil {
			continue
		}
		ps = append(ps, p)
	}
	prog, err := evaluator.Compile(spec, ps)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}
