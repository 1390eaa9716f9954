package specs

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/augur-dev/augur/diag"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with the file testdata/name, or rewrites the file
// under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (rerun with -update to accept):\n%s", path, got)
	}
}

// dump prints a spec compactly, for golden files.
func dump(s *Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "system %s\n", s.System)
	for _, name := range slices.Sorted(maps.Keys(s.Types)) {
		fmt.Fprintf(&b, "type %s\n", s.Types[name].Describe())
	}
	for _, v := range s.Vars {
		fmt.Fprintf(&b, "var %s %s", v.Name, v.Type.Describe())
		if v.Type.Enum != nil {
			fmt.Fprintf(&b, " %q", v.Type.Enum)
		}
		fmt.Fprintf(&b, " @%d:%d\n", v.Pos.Line, v.Pos.Column)
	}
	for _, d := range s.Derived {
		fmt.Fprintf(&b, "derived %s %s = %q @%d:%d\n", d.Name, d.Type.Describe(), d.Expr, d.Pos.Line, d.Pos.Column)
	}
	for _, p := range s.Predicates {
		var params []string
		for _, a := range p.Params {
			params = append(params, a.Name+" "+a.Type.String())
		}
		fmt.Fprintf(&b, "predicate %s(%s) = %q @%d:%d\n", p.Name, strings.Join(params, ", "), p.Expr, p.Pos.Line, p.Pos.Column)
	}
	fmt.Fprintf(&b, "generate %+v\nfilter %+v\nreport %+v\n", s.Generate, s.Filter, s.Report)
	return b.String()
}

func TestParseRaft(t *testing.T) {
	s, err := Load("testdata/raft.yaml")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "raft.golden", dump(s))

	for name, want := range map[string]string{
		"term": "Term", "state": "state", "log": "list<Entry>", "lastIndex": "Index", "isLeader": "bool",
	} {
		if typ, ok := s.Lookup(name); !ok || typ.String() != want {
			t.Errorf("Lookup(%s) = %v, %v; want %s", name, typ, ok, want)
		}
	}
	if _, ok := s.Lookup("prefixEqual"); ok {
		t.Error("Lookup found a predicate")
	}
	if s.Predicate("prefixEqual") == nil || s.Predicate("lastIndex") != nil {
		t.Error("Predicate looks up the wrong names")
	}
	term, _ := s.Lookup("term")
	entry := s.Types["Entry"]
	if term != s.Types["Term"] || entry.Fields[0].Type != term {
		t.Error("references to a named type do not share it")
	}
	if Comparable(term, s.Types["Index"]) {
		t.Error("Term and Index are comparable")
	}
}

func TestParseDefaults(t *testing.T) {
	for _, src := range []string{"", "system: x\n", "generate:\nfilter: {}\nreport: ~\n"} {
		s, err := Parse("d.yaml", []byte(src))
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		want := defaults("d.yaml")
		if s.Generate.MaxNodes != 2 || s.Generate.MaxLiterals != 3 || s.Generate.MaxPerClass != 50000 ||
			len(s.Generate.Iterate) != 0 || s.Generate.Constants.MaxDistinct != 8 ||
			s.Filter != want.Filter || s.Report != (Report{Size: 10, MinSupport: 30, Alpha: 0.01}) {
			t.Errorf("Parse(%q) settings = %+v %+v %+v", src, s.Generate, s.Filter, s.Report)
		}
	}
}

// parseErrorTests are specs with an error and the start of the first
// error message. FuzzParse uses them as seeds too.
var parseErrorTests = []struct{ name, src, want string }{
	{"malformed YAML", "variables:\n  a: [x\n", "bad.yaml:2: invalid YAML: did not find expected ',' or ']'"},
	{"unquoted struct type", "variables:\n  log: list<{term: uint64, index: Nope}>\n", "bad.yaml:2:35: variable log: unknown type Nope"},
	{"unquoted flow mapping", "variables:\n  log: {term: uint64, index: Nope}\n", "bad.yaml:2:30: variable log.index: unknown type Nope"},
	{"not a mapping", "- a\n", "bad.yaml:1:1: spec must be a mapping, not a list"},
	{"unknown top-level key", "system: x\nvariable:\n  a: int64\n", "bad.yaml:2:1: unknown key variable in spec; expected one of system, types, variables, derived, predicates, generate, filter, report"},
	{"unknown section key", "generate:\n  max_node: 2\n", "bad.yaml:2:3: unknown key max_node in generate; expected one of max_nodes, max_literals, max_per_class, iterate, constants"},
	{"duplicate section", "filter: {}\nfilter: {}\n", "bad.yaml:2:1: duplicate key filter in spec"},
	{"unknown type", "variables:\n  term: Trm\n", "bad.yaml:2:9: variable term: unknown type Trm"},
	{"unknown type quoted", "variables:\n  log: \"list<{term: Trm}>\"\n", "bad.yaml:2:21: variable log: unknown type Trm"},
	{"unknown type escaped", "variables:\n  log: \"\\x6cist<Trm>\"\n", "bad.yaml:2:17: variable log: unknown type Trm"},
	{"malformed YAML at the end", "variables: [a\n", "bad.yaml:2: invalid YAML: did not find expected ',' or ']'"},
	{"bad indentation", "system: x\nvariables:\n  a: int64\n b: bool\n", "bad.yaml:4: invalid YAML: did not find expected key"},
	{"type syntax", "variables:\n  peers: set<string\n", "bad.yaml:2:20: variable peers: expected '>' after element type, found end of type"},
	{"type forward reference", "types:\n  A: list<B>\n  B: int64\n", "bad.yaml:2:11: type A: unknown type B"},
	{"predeclared type name", "types:\n  string: int64\n", "bad.yaml:2:3: type name string is predeclared"},
	{"duplicate type", "types:\n  A: int64\n  A: bool\n", "bad.yaml:3:3: type A redeclared (previous declaration at 2:3)"},
	{"struct type field", "variables:\n  e: {term: Nope}\n", `bad.yaml:2:13: variable e.term: unknown type Nope`},
	{"missing type", "variables:\n  e:\n", "bad.yaml:2:5: variable e: expected a type expression, found null"},
	{"empty enum", "variables:\n  state: {enum: []}\n", "bad.yaml:2:17: variable state: enum needs at least one value"},
	{"duplicate enum value", "variables:\n  state: {enum: [a, b, a]}\n", `bad.yaml:2:24: variable state: duplicate enum value "a"`},
	{"enum not a list", "types:\n  Role: {enum: leader}\n", `bad.yaml:2:16: type Role: enum must be a list, not the string "leader"`},
	{"enum of lists", "types:\n  Role: {enum: [[a]]}\n", "bad.yaml:2:17: type Role: enum value must be a string, not a list"},
	{"enum of an integer", "types:\n  Role: {enum: [a, 1]}\n", `bad.yaml:2:20: type Role: enum value 1 is an integer, not a string (quote it, "1", if the trace holds that string)`},
	{"enum of a boolean", "variables:\n  up: {enum: [\"yes\", true]}\n", `bad.yaml:2:22: variable up: enum value true is a boolean, not a string (quote it, "true", if the trace holds that string)`},
	{"enum of a float", "variables:\n  v: {enum: [\"1.0\", 1.5]}\n", `bad.yaml:2:21: variable v: enum value 1.5 is a number, not a string (quote it, "1.5", if the trace holds that string)`},
	{"duplicate variable", "variables:\n  a: int64\n  b: bool\n  a: bool\n", "bad.yaml:4:3: variable a redeclared (previous variable at 2:3)"},
	{"reserved variable", "variables:\n  subset: int64\n", "bad.yaml:2:3: bad variable name: subset is a reserved word"},
	{"variable not an identifier", "variables:\n  my-var: int64\n", `bad.yaml:2:3: bad variable name: "my-var" is not an identifier`},
	{"reserved field", "variables:\n  e: \"{not: bool}\"\n", "bad.yaml:2:8: variable e: field name not is a reserved word"},
	{"derived not a mapping", "derived:\n  d: x + 1\n", `bad.yaml:2:6: derived d must be a mapping, not the string "x + 1"`},
	{"derived missing expr", "derived:\n  d: {type: int64}\n", "bad.yaml:2:6: derived d: missing expr"},
	{"derived clashes with variable", "variables:\n  d: int64\nderived:\n  d: {type: int64, expr: \"1\"}\n", "bad.yaml:4:3: derived variable d redeclared (previous variable at 2:3)"},
	{"derived named node", "derived:\n  node: {type: string, expr: \"'x'\"}\n", "bad.yaml:2:3: derived variable cannot be named node, which is the trace's node column"},
	{"expr syntax error", "variables:\n  a: int64\nderived:\n  d: {type: int64, expr: \"a + * 2\"}\n", "bad.yaml:4:31: derived d: unexpected token Operator(\"*\")"},
	{"expr unknown identifier", "variables:\n  a: int64\nderived:\n  d: {type: int64, expr: \"a + b\"}\n", "bad.yaml:4:31: derived d: unknown name b"},
	{"expr unknown identifier after quotes", "variables:\n  s: string\nderived:\n  d: {type: bool, expr: 's == ''leader'' and x'}\n", "bad.yaml:4:46: derived d: unknown name x"},
	{"expr unknown identifier in block", "variables:\n  a: int64\nderived:\n  d:\n    type: int64\n    expr: |\n      a +\n        b\n", "bad.yaml:8:9: derived d: unknown name b"},
	{"expr uses a later derived", "derived:\n  d: {type: int64, expr: \"e\"}\n  e: {type: int64, expr: \"1\"}\n", "bad.yaml:2:27: derived d: uses e, declared after it"},
	{"expr unknown field", "variables:\n  log: \"list<{term: uint64}>\"\nderived:\n  t: {type: uint64, expr: \"log[0].trem\"}\n", "bad.yaml:4:35: derived t: unknown field trem"},
	{"expr result type", "variables:\n  a: int64\nderived:\n  d: {type: string, expr: \"a * 2\"}\n", "bad.yaml:4:27: derived d: expression has type int, want string"},
	{"expr loops nest 3 deep", "variables:\n  l: list<int64>\nderived:\n  d: {type: int64, expr: \"reduce(l, #acc + reduce(l, #acc + reduce(l, #acc + #, 0), 0), 0)\"}\n", "bad.yaml:4:26: derived d: loops nest 3 deep, more than 2"},
	{"predicate loops nest 3 deep", "predicates:\n  - {name: p, params: [{a: list<int64>}], expr: 'all(a, {any(a, {none(a, {# > 0})})})'}\n", "bad.yaml:2:49: predicate p: loops nest 3 deep, more than 2"},
	{"expr of a million unary minus signs", "variables:\n  c: int64\nderived:\n  d: {type: int64, expr: \"" + strings.Repeat("-", 1_000_000) + "c\"}\n", "bad.yaml:4:26: derived d: the expression nests 1000000 deep, more than 1000"},
	{"expr of 100,000 nested parentheses", "variables:\n  c: int64\nderived:\n  d: {type: int64, expr: \"" + strings.Repeat("(", 100_000) + "c" + strings.Repeat(")", 100_000) + "\"}\n", "bad.yaml:4:26: derived d: the expression nests 100000 deep, more than 1000"},
	{"predicate of 300,000 nots", "predicates:\n  - {name: p, params: [{a: bool}], expr: '" + strings.Repeat("not ", 300_000) + "a'}\n", "bad.yaml:2:42: predicate p: the expression nests 300000 deep, more than 1000"},
	{"expr of 2,000 conditionals", "variables:\n  c: int64\nderived:\n  d: {type: int64, expr: \"" + strings.Repeat("c > 0 ? 1 : ", 2000) + "0\"}\n", "bad.yaml:4:26: derived d: the expression nests 2000 deep, more than 1000"},
	{"predicate not bool", "predicates:\n  - name: p\n    params: [{a: int64}]\n    expr: a + 1\n", "bad.yaml:4:11: predicate p: expected bool, but got int"},
	{"predicate sees only params", "variables:\n  v: int64\npredicates:\n  - {name: p, params: [{a: int64}], expr: a == v}\n", "bad.yaml:4:48: predicate p: unknown name v"},
	{"predicate without params", "predicates:\n  - {name: p, params: [], expr: 'true'}\n", "bad.yaml:2:23: predicate p: needs at least one parameter"},
	{"predicate param not single", "predicates:\n  - {name: p, params: [{a: int64, b: int64}], expr: 'true'}\n", "bad.yaml:2:24: predicate p: expected a parameter {name: type}"},
	{"predicate param null", "predicates:\n  - {name: p, params: [~], expr: 'true'}\n", "bad.yaml:2:24: predicate p: expected a parameter {name: type}"},
	{"predicate params null", "predicates:\n  - {name: p, params: , expr: 'true'}\n", "bad.yaml:2:23: predicate p: needs at least one parameter"},
	{"predicate duplicate param", "predicates:\n  - {name: p, params: [{a: bool}, {a: bool}], expr: a}\n", "bad.yaml:2:36: predicate p: duplicate parameter a"},
	{"predicate param inline enum", "predicates:\n  - {name: p, params: [{a: {enum: [x]}}], expr: 'true'}\n", `bad.yaml:2:28: predicate p: parameter a: an enum cannot be declared here; declare it under types and use its name`},
	{"predicate name clash", "variables:\n  p: int64\npredicates:\n  - {name: p, params: [{a: int64}], expr: 'true'}\n", "bad.yaml:4:12: predicate p redeclared (previous variable at 2:3)"},
	{"predicate reserved name", "predicates:\n  - {name: empty, params: [{a: int64}], expr: 'true'}\n", "bad.yaml:2:12: bad predicate name: empty is a reserved word"},
	{"predicate missing name", "predicates:\n  - {params: [{a: int64}], expr: 'true'}\n", "bad.yaml:2:5: predicate: missing name"},
	{"iterate non-container", "variables:\n  commit: uint64\ngenerate:\n  iterate: [commit]\n", "bad.yaml:4:13: iterate: commit has type uint64, not a container (list, set or map)"},
	{"iterate unknown", "generate:\n  iterate: [peers]\n", "bad.yaml:2:13: iterate: unknown variable peers"},
	{"iterate not a list", "variables:\n  p: set<string>\ngenerate:\n  iterate: p\n", `bad.yaml:4:12: iterate must be a list, not the string "p"`},
	{"max_nodes range", "generate: {max_nodes: 5}\n", "bad.yaml:1:23: max_nodes must be between 1 and 4, got 5"},
	{"max_literals range", "generate:\n  max_literals: 0\n", "bad.yaml:2:17: max_literals must be between 1 and 4, got 0"},
	{"max_per_class type", "generate:\n  max_per_class: many\n", `bad.yaml:2:18: max_per_class must be an integer, not the string "many"`},
	{"max_distinct range", "generate:\n  constants: {max_distinct: -1}\n", "bad.yaml:2:29: max_distinct must be at least 0, got -1"},
	{"hold_ratio range", "filter: {hold_ratio: 0}\n", "bad.yaml:1:22: hold_ratio must be in (0, 1], got 0"},
	{"hold_ratio NaN", "filter: {hold_ratio: .nan}\n", "bad.yaml:1:22: hold_ratio must be in (0, 1], got NaN"},
	{"every range", "filter: {every: 0}\n", "bad.yaml:1:17: every must be at least 1, got 0"},
	{"report size", "report: {size: 0}\n", "bad.yaml:1:16: size must be at least 1, got 0"},
	{"report alpha", "report: {alpha: 1}\n", "bad.yaml:1:17: alpha must be in (0, 1), got 1"},
	{"system not a string", "system: [a]\n", "bad.yaml:1:9: system must be a string, not a list"},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(tt.src))
			var list diag.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("Parse: error %v, want a diag.ErrorList", err)
			}
			if got := list[0].Error(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("first error:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseReportsAllErrors(t *testing.T) {
	src := "variables:\n  a: Foo\n  b: Bar\ngenerate: {max_nodes: 9}\n"
	_, err := Parse("all.yaml", []byte(src))
	want := []string{
		"all.yaml:2:6: variable a: unknown type Foo",
		"all.yaml:3:6: variable b: unknown type Bar",
		"all.yaml:4:23: max_nodes must be between 1 and 4, got 9",
	}
	var list diag.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v, want a diag.ErrorList", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if msg := err.Error(); msg != want[0]+" (and 2 more errors)" {
		t.Errorf("Error() = %q", msg)
	}
}

func TestLoadMissing(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "none.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v", err)
	}
}
