package specs

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/types"
	"go.yaml.in/yaml/v3"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/internal/infile"
)

// Spec is a parsed spec file: the state variables of a system, their
// semantic types, derived variables, predicates and the settings of the
// pipeline stages.
type Spec struct {
	File       string
	System     string
	Types      map[string]*Type // declared semantic types
	Vars       []*Var           // state variables, in declaration order
	Derived    []*Derived       // in declaration order; each may use the variables and earlier derived ones
	Predicates []*Predicate
	Generate   Generate
	Filter     Filter
	Report     Report
}

// Var is a state variable: a column of the trace.
type Var struct {
	Name string
	Type *Type
	Pos  diag.Position
}

// Generate holds the limits of property generation: how many node
// quantifiers and literals a property may have, and what to iterate over.
type Generate struct {
	MaxNodes    int      // node quantifiers per property (MAX_NF), 1..4
	MaxLiterals int      // literals per disjunction (MAX_NT), 1..4
	MaxPerClass int      // cap per (node count, literal count) class
	Iterate     []string // container variables that may be quantified over
	Constants   Constants
}

// Constants controls the mining of x == c literals.
type Constants struct {
	MaxDistinct int // a value with at most this many distinct values gets constant literals; 0 disables
}

// Filter holds the settings of the periodic filter, which drops the
// properties whose holding rate falls below HoldRatio during evaluation.
type Filter struct {
	HoldRatio float64 // FILTER_HOLD_RATIO, in (0, 1]
	Every     int     // snapshots between filter passes
}

// Report holds the settings of the reporter.
type Report struct {
	Size       int     // REPORT_SIZE: entries reported
	MinSupport int     // minimum non-vacuous snapshots of a reported property
	Alpha      float64 // significance of the or-effect tests, in (0, 1)
	// SteadyTag tags the snapshots in steady state: when set, anomalies
	// seen there rank first.
	SteadyTag string
}

// defaults returns a spec with the default settings.
func defaults(filename string) *Spec {
	return &Spec{
		File:     filename,
		Types:    map[string]*Type{},
		Generate: Generate{MaxNodes: 2, MaxLiterals: 3, MaxPerClass: 50000, Iterate: []string{}, Constants: Constants{MaxDistinct: 8}},
		Filter:   Filter{HoldRatio: 0.95, Every: 1000},
		Report:   Report{Size: 10, MinSupport: 30, Alpha: 0.01},
	}
}

// MaxFileSize bounds a spec file: specs are a few kilobytes, and one that
// is a huge or endless file must not be read whole.
const MaxFileSize = 16 << 20

// Load reads and parses the spec file at path, a regular file of at most
// MaxFileSize bytes.
func Load(path string) (*Spec, error) {
	data, err := infile.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses a spec. Settings that are absent take their defaults. On
// failure the error is a diag.ErrorList holding every error found, sorted by
// position.
func Parse(filename string, data []byte) (*Spec, error) {
	p := &parser{
		file:    filename,
		lines:   strings.Split(string(data), "\n"),
		names:   map[string]declared{},
		typePos: map[string]diag.Position{},
		spec:    defaults(filename),
	}
	p.parse(data)
	p.errs.Sort()
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	return p.spec, nil
}

// Lookup returns the type of a state variable or derived variable.
func (s *Spec) Lookup(name string) (*Type, bool) {
	for _, v := range s.Vars {
		if v.Name == name {
			return v.Type, true
		}
	}
	for _, d := range s.Derived {
		if d.Name == name {
			return d.Type, true
		}
	}
	return nil, false
}

// Predicate returns the named predicate, or nil.
func (s *Spec) Predicate(name string) *Predicate {
	for _, p := range s.Predicates {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// parser turns the YAML tree of a spec into a Spec, collecting errors.
type parser struct {
	file    string
	lines   []string                 // source lines, to place errors inside scalars
	quoted  map[int]int              // lines whose value parse quoted → column of the added quote
	names   map[string]declared      // variables, derived variables and predicates
	typePos map[string]diag.Position // declared types
	spec    *Spec
	errs    diag.ErrorList
}

// declared records what a name of the variable namespace denotes.
type declared struct {
	what string // "variable", "derived variable" or "predicate"
	pos  diag.Position
}

func (p *parser) pos(n *yaml.Node) diag.Position {
	return diag.Position{Filename: p.file, Line: n.Line, Column: n.Column}
}

func (p *parser) errorAt(pos diag.Position, format string, args ...any) {
	if col, ok := p.quoted[pos.Line]; ok && pos.Column > col {
		pos.Column-- // after a quote the source does not have
	}
	p.errs = append(p.errs, &diag.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.errorAt(p.pos(n), format, args...)
}

func (p *parser) parse(data []byte) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// Accept struct types inside container types unquoted, as the
		// design writes them; positions are mapped back to the source.
		fixed, quoted := quoteFlowTypes(data)
		if len(quoted) == 0 || yaml.Unmarshal(fixed, &doc) != nil {
			p.yamlError(err)
			return
		}
		p.lines = strings.Split(string(fixed), "\n")
		p.quoted = quoted
	}
	if len(doc.Content) == 0 {
		return // an empty file: all defaults
	}
	sec := p.section(doc.Content[0], "spec",
		"system", "types", "variables", "derived", "predicates", "generate", "filter", "report")
	// Sections are processed in dependency order, whatever their order in
	// the file.
	if n := sec["system"]; n != nil {
		p.spec.System, _ = p.str(n, "system")
	}
	p.types(sec["types"])
	p.variables(sec["variables"])
	p.derived(sec["derived"])
	p.predicates(sec["predicates"])
	p.generate(sec["generate"])
	p.filter(sec["filter"])
	p.report(sec["report"])
}

// yamlError records a syntax error from the YAML decoder, which knows the
// line but not the column.
func (p *parser) yamlError(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	pos := diag.Position{Filename: p.file}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, m, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(num); err == nil {
				pos.Line, msg = line, m
			}
		}
	}
	// The decoder counts the lines of parser errors (as opposed to scanner
	// errors) from 0, and leaves out line 0. Such an error is about the
	// construct that starts on the line, not necessarily the line itself.
	if slices.ContainsFunc(parserProblems, func(pre string) bool { return strings.HasPrefix(msg, pre) }) {
		pos.Line++
	}
	p.errorAt(pos, "invalid YAML: %s", msg)
}

// parserProblems are the beginnings of the parser errors of
// go.yaml.in/yaml/v3 (see yaml_parser_set_parser_error in its parserc.go).
var parserProblems = []string{
	"did not find expected",
	"found undefined tag handle",
	"found duplicate %",
	"found incompatible YAML document",
}

// declare enters name into the variable namespace, reporting a bad or
// duplicate name. It reports whether the name is usable.
func (p *parser) declare(key *yaml.Node, what string) bool {
	name := key.Value
	if why := CheckName(name); why != nil {
		p.errorf(key, "bad %s name: %s", what, why)
		return false
	}
	if prev, dup := p.names[name]; dup {
		p.errorf(key, "%s %s redeclared (previous %s at %d:%d)", what, name, prev.what, prev.pos.Line, prev.pos.Column)
		return false
	}
	p.names[name] = declared{what: what, pos: p.pos(key)}
	return true
}

func (p *parser) types(n *yaml.Node) {
	for _, kv := range p.pairs(n, "types") {
		name := kv.key.Value
		if why := CheckName(name); why != nil {
			p.errorf(kv.key, "bad type name: %s", why)
			continue
		}
		if _, ok := basicTypes[name]; ok || name == "list" || name == "map" {
			p.errorf(kv.key, "type name %s is predeclared", name)
			continue
		}
		if prev, dup := p.typePos[name]; dup {
			p.errorf(kv.key, "type %s redeclared (previous declaration at %d:%d)", name, prev.Line, prev.Column)
			continue
		}
		p.typePos[name] = p.pos(kv.key)
		t := p.typeOf(kv.value, name, "type "+name)
		if t == nil {
			continue
		}
		// As in Go, a declaration makes a new type: Index: uint64 and
		// Term: uint64 are distinct, and so are Foo: Term and Term.
		named := *t
		named.Name = name
		p.spec.Types[name] = &named
	}
}

func (p *parser) variables(n *yaml.Node) {
	for _, kv := range p.pairs(n, "variables") {
		if !p.declare(kv.key, "variable") {
			continue
		}
		name := kv.key.Value
		p.spec.Vars = append(p.spec.Vars, &Var{
			Name: name,
			Type: p.typeOf(kv.value, name, "variable "+name),
			Pos:  p.pos(kv.key),
		})
	}
}

func (p *parser) derived(n *yaml.Node) {
	pairs := p.pairs(n, "derived")
	refs := derivedRefs(pairs)
	known := types.Map{} // the variables and the derived variables declared so far
	for _, v := range p.spec.Vars {
		known[v.Name] = exprType(v.Type)
	}
	for _, kv := range pairs {
		name := kv.key.Value
		if name == "node" {
			p.errorf(kv.key, "derived variable cannot be named node, which is the trace's node column")
			continue
		}
		if !p.declare(kv.key, "derived variable") {
			continue
		}
		what := "derived " + name
		d := &Derived{Name: name, Pos: p.pos(kv.key)}
		sec := p.section(kv.value, what, "type", "expr")
		if tn := sec["type"]; tn == nil {
			p.errorf(deref(kv.value), "%s: missing type", what)
		} else {
			d.Type = p.typeOf(tn, name, what)
		}
		if en := sec["expr"]; en == nil {
			p.errorf(deref(kv.value), "%s: missing expr", what)
		} else if expr, ok := p.str(en, what+": expr"); ok {
			d.Expr = expr
			d.prog = p.compileDerived(en, d, refs, known)
		}
		p.spec.Derived = append(p.spec.Derived, d)
		known[d.Name] = exprType(d.Type)
	}
}

func (p *parser) predicates(n *yaml.Node) {
	for _, item := range p.items(n, "predicates") {
		sec := p.section(item, "predicate", "name", "params", "expr")
		nn := sec["name"]
		if nn == nil {
			p.errorf(item, "predicate: missing name")
			continue
		}
		name, ok := p.str(nn, "predicate name")
		if !ok || !p.declare(deref(nn), "predicate") {
			continue
		}
		pr := &Predicate{Name: name, Pos: p.pos(deref(nn))}
		what := "predicate " + pr.Name
		if pn := sec["params"]; pn == nil {
			p.errorf(item, "%s: missing params", what)
		} else {
			p.params(pr, pn, what)
		}
		if en := sec["expr"]; en == nil {
			p.errorf(item, "%s: missing expr", what)
		} else if expr, ok := p.str(en, what+": expr"); ok {
			pr.Expr = expr
			pr.prog = p.compilePredicate(en, pr)
		}
		p.spec.Predicates = append(p.spec.Predicates, pr)
	}
}

// params parses a predicate's parameter list, [{a: T}, {b: U}].
func (p *parser) params(pr *Predicate, n *yaml.Node, what string) {
	n = deref(n)
	if isNull(n) || n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		p.errorf(n, "%s: needs at least one parameter", what)
		return
	}
	for _, item := range p.items(n, what+": params") {
		item = deref(item)
		if item.Kind != yaml.MappingNode || len(item.Content) != 2 {
			p.errorf(item, "%s: expected a parameter {name: type}", what)
			continue
		}
		kvs := p.pairs(item, what+": parameter")
		if len(kvs) == 0 {
			continue
		}
		key := kvs[0].key
		name := key.Value
		if why := CheckName(name); why != nil {
			p.errorf(key, "%s: bad parameter name: %s", what, why)
			continue
		}
		if slices.ContainsFunc(pr.Params, func(q Param) bool { return q.Name == name }) {
			p.errorf(key, "%s: duplicate parameter %s", what, name)
			continue
		}
		pr.Params = append(pr.Params, Param{Name: name, Type: p.typeOf(kvs[0].value, "", what+": parameter "+name)})
	}
}

func (p *parser) generate(n *yaml.Node) {
	g := &p.spec.Generate
	sec := p.section(n, "generate", "max_nodes", "max_literals", "max_per_class", "iterate", "constants")
	p.intIn(sec["max_nodes"], "max_nodes", 1, 4, &g.MaxNodes)
	p.intIn(sec["max_literals"], "max_literals", 1, 4, &g.MaxLiterals)
	p.intIn(sec["max_per_class"], "max_per_class", 1, math.MaxInt, &g.MaxPerClass)
	if cn := sec["constants"]; cn != nil {
		cs := p.section(cn, "constants", "max_distinct")
		p.intIn(cs["max_distinct"], "max_distinct", 0, math.MaxInt, &g.Constants.MaxDistinct)
	}
	for _, item := range p.items(sec["iterate"], "iterate") {
		name, ok := p.str(item, "iterate entry")
		if !ok {
			continue
		}
		t, ok := p.spec.Lookup(name)
		switch {
		case !ok:
			p.errorf(item, "iterate: unknown variable %s", name)
		case slices.Contains(g.Iterate, name):
			p.errorf(item, "iterate: duplicate %s", name)
		case t != nil && !t.Container():
			p.errorf(item, "iterate: %s has type %s, not a container (list, set or map)", name, t.Describe())
		default:
			g.Iterate = append(g.Iterate, name)
		}
	}
}

func (p *parser) filter(n *yaml.Node) {
	f := &p.spec.Filter
	sec := p.section(n, "filter", "hold_ratio", "every")
	p.floatIn(sec["hold_ratio"], "hold_ratio", "(0, 1]", func(x float64) bool { return x > 0 && x <= 1 }, &f.HoldRatio)
	p.intIn(sec["every"], "every", 1, math.MaxInt, &f.Every)
}

func (p *parser) report(n *yaml.Node) {
	r := &p.spec.Report
	sec := p.section(n, "report", "size", "min_support", "alpha", "steady_tag")
	p.intIn(sec["size"], "size", 1, math.MaxInt, &r.Size)
	p.intIn(sec["min_support"], "min_support", 1, math.MaxInt, &r.MinSupport)
	p.floatIn(sec["alpha"], "alpha", "(0, 1)", func(x float64) bool { return x > 0 && x < 1 }, &r.Alpha)
	if n := sec["steady_tag"]; n != nil {
		if s, ok := p.str(n, "steady_tag"); ok {
			r.SteadyTag = s
		}
	}
}
