package checker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/internal/infile"
	"github.com/augur-dev/augur/internal/safefile"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// File is a checks file.
type File struct {
	// Spec is the spec the properties are written against, relative to
	// the checks file; empty means the trace's own schema.
	Spec   string  `yaml:"spec,omitempty"`
	Checks []Check `yaml:"checks"`
}

// Check is one property to hold on every snapshot.
type Check struct {
	Name        string  `yaml:"name"`
	Property    string  `yaml:"property"`
	HoldingRate float64 `yaml:"holding_rate,omitempty"` // rate when promoted
	Source      string  `yaml:"source,omitempty"`       // where it came from

	prop *grammar.Property
}

// MaxFileSize bounds a checks file, a regular file read whole: thousands
// of checks fit in a few megabytes.
const MaxFileSize = 64 << 20

// Load reads a checks file and parses its properties. Errors name the
// file, line and column.
func Load(path string) (*File, error) {
	data, err := infile.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(path, err)
	}
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && err != io.EOF {
		return nil, yamlError(path, err)
	}
	if len(f.Checks) == 0 {
		return nil, fmt.Errorf("%s: no checks", path)
	}
	nodes := propertyNodes(&doc)
	var errs diag.ErrorList
	for i := range f.Checks {
		c := &f.Checks[i]
		at := diag.Position{Filename: path, Line: 1, Column: 1}
		if i < len(nodes) {
			at = scalarStart(path, nodes[i])
		}
		if c.Name == "" {
			c.Name = fmt.Sprintf("check-%d", i+1)
		}
		if strings.TrimSpace(c.Property) == "" {
			errs = append(errs, &diag.Error{Pos: at, Msg: fmt.Sprintf("check %s has no property", c.Name)})
			continue
		}
		p, err := grammar.ParseAt(c.Property, at)
		if err != nil {
			if l, ok := err.(diag.ErrorList); ok {
				errs = append(errs, l...)
				continue
			}
			return nil, fmt.Errorf("%s: check %s: %w", path, c.Name, err)
		}
		c.prop = p
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if f.Spec != "" && !filepath.IsAbs(f.Spec) {
		f.Spec = filepath.Join(filepath.Dir(path), f.Spec)
	}
	return &f, nil
}

// yamlLine matches the position in the YAML library's messages.
var yamlLine = regexp.MustCompile(`^yaml: (?:unmarshal errors:\n\s*)?line (\d+): `)

// yamlError rewrites "yaml: line N: msg" as "path:N: msg".
func yamlError(path string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", path, m[1], msg[len(m[0]):])
	}
	return fmt.Errorf("%s: %w", path, err)
}

// propertyNodes returns the YAML nodes of checks[*].property in order.
func propertyNodes(doc *yaml.Node) []*yaml.Node {
	if len(doc.Content) == 0 {
		return nil
	}
	checks := mapValue(doc.Content[0], "checks")
	if checks == nil {
		return nil
	}
	var out []*yaml.Node
	for _, c := range checks.Content {
		if p := mapValue(c, "property"); p != nil {
			out = append(out, p)
		} else {
			out = append(out, c) // no property: point at the check
		}
	}
	return out
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// scalarStart returns the file position of the first character of a
// scalar's value: after the opening quote of a quoted scalar.
func scalarStart(path string, n *yaml.Node) diag.Position {
	if n == nil {
		return diag.Position{Filename: path, Line: 1, Column: 1}
	}
	pos := diag.Position{Filename: path, Line: n.Line, Column: n.Column}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		pos.Column++
	}
	return pos
}

// Write writes f to path atomically, replacing an existing file.
func (f *File) Write(path string) error {
	return safefile.Write(path, 0o644, func(w io.Writer) error {
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err := enc.Encode(f); err != nil {
			return err
		}
		return enc.Close()
	})
}

// Result is the outcome of one check over a trace.
type Result struct {
	Check *Check
	Text  string // canonical text of the property, whose variable names witnesses use
	Stats evaluator.Stats
	// Failures are those of the derived variables and predicates the
	// check reads that failed at run time: the check read null (or
	// false) there.
	Failures []evaluator.ExprFailures
}

// Failed reports whether the check was violated.
func (r *Result) Failed() bool { return r.Stats.Violations > 0 }

// Run evaluates every check on every snapshot of tr, keeping up to
// maxWitnesses witnesses per check (every violation is counted).
func Run(ctx context.Context, tr *trace.Trace, spec *specs.Spec, f *File, maxWitnesses, workers int) ([]Result, error) {
	props := make([]*grammar.Property, len(f.Checks))
	for i := range f.Checks {
		props[i] = f.Checks[i].prop
	}
	prog, err := evaluator.Compile(spec, props)
	if err != nil {
		return nil, err
	}
	res, err := evaluator.Run(ctx, tr, prog, evaluator.Options{MaxWitnesses: maxWitnesses, Workers: workers})
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(f.Checks))
	for i := range f.Checks {
		out[i] = Result{Check: &f.Checks[i], Text: prog.Props[i].Text, Stats: res.Stats[i]}
		for _, e := range res.Failures {
			if reads(props[i], e) {
				out[i].Failures = append(out[i].Failures, e)
			}
		}
	}
	return out, nil
}

// reads reports whether p reads the expression that failed in e: a
// derived variable of a node, or a predicate.
func reads(p *grammar.Property, e evaluator.ExprFailures) bool {
	if e.Kind == "predicate" {
		for _, l := range p.Matrix {
			if c, ok := l.Atom.(*grammar.Call); ok && c.Name == e.Name {
				return true
			}
		}
		return false
	}
	nodes := p.NodeVars()
	for x := range grammar.Paths(p) {
		if len(x.Fields) > 0 && x.Fields[0] == e.Name && slices.Contains(nodes, x.Var) {
			return true
		}
	}
	return false
}
