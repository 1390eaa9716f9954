package checker

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/internal/infile"
	"github.com/augur-dev/augur/internal/safefile"
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

	prop *grammar.Property // parsed by Load
}

// Properties returns the properties of the checks of f, parsed as
// [Check.Parsed] does.
func (f *File) Properties() ([]*grammar.Property, error) {
	props := make([]*grammar.Property, len(f.Checks))
	for i := range f.Checks {
		p, err := f.Checks[i].Parsed()
		if err != nil {
			return nil, err
		}
		props[i] = p
	}
	return props, nil
}

// Parsed returns the check's property parsed: the one [Load] parsed,
// placed in the checks file, or for a check built by hand c.Property
// parsed now, its errors naming the check.
func (c *Check) Parsed() (*grammar.Property, error) {
	if c.prop != nil {
		return c.prop, nil
	}
	p, err := grammar.Parse(c.Property)
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", c.Name, err)
	}
	return p, nil
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
