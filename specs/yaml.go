package specs

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/augur-dev/augur/diag"
)

// This file holds the helpers that walk the YAML tree of a spec and report
// what they find wrong at the position of the offending node.

// pair is one entry of a YAML mapping.
type pair struct{ key, value *yaml.Node }

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// what describes a node for an error message: "a mapping", "an integer".
func what(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		}
		return fmt.Sprintf("the string %q", n.Value)
	}
	return "a YAML node"
}

// pairs returns the entries of mapping n. A missing or null n has none.
func (p *parser) pairs(n *yaml.Node, name string) []pair {
	if n == nil || isNull(deref(n)) {
		return nil
	}
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping, not %s", name, what(n))
		return nil
	}
	var out []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		if k.Kind != yaml.ScalarNode || isNull(k) {
			p.errorf(k, "%s: expected a name as key, found %s", name, what(k))
			continue
		}
		out = append(out, pair{k, n.Content[i+1]})
	}
	return out
}

// section returns the values of mapping n by key, reporting keys that are
// not allowed and duplicates.
func (p *parser) section(n *yaml.Node, name string, allowed ...string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for _, kv := range p.pairs(n, name) {
		k := kv.key.Value
		switch _, dup := out[k]; {
		case !slices.Contains(allowed, k):
			p.errorf(kv.key, "unknown key %s in %s; expected one of %s", k, name, strings.Join(allowed, ", "))
		case dup:
			p.errorf(kv.key, "duplicate key %s in %s", k, name)
		default:
			out[k] = kv.value
		}
	}
	return out
}

// items returns the elements of sequence n. A missing or null n has none.
func (p *parser) items(n *yaml.Node, name string) []*yaml.Node {
	if n == nil || isNull(deref(n)) {
		return nil
	}
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s must be a list, not %s", name, what(n))
		return nil
	}
	return n.Content
}

// str returns the value of scalar n.
func (p *parser) str(n *yaml.Node, name string) (string, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || isNull(n) {
		p.errorf(n, "%s must be a string, not %s", name, what(n))
		return "", false
	}
	return n.Value, true
}

// intIn sets *dst to the integer n, which must lie in [lo, hi]. A missing n
// leaves the default in *dst.
func (p *parser) intIn(n *yaml.Node, name string, lo, hi int, dst *int) {
	if n == nil {
		return
	}
	n = deref(n)
	var x int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&x) != nil {
		p.errorf(n, "%s must be an integer, not %s", name, what(n))
		return
	}
	switch {
	case x >= lo && x <= hi:
		*dst = x
	case hi == math.MaxInt:
		p.errorf(n, "%s must be at least %d, got %d", name, lo, x)
	default:
		p.errorf(n, "%s must be between %d and %d, got %d", name, lo, hi, x)
	}
}

// floatIn sets *dst to the number n, which must satisfy ok (described by
// interval). A missing n leaves the default in *dst.
func (p *parser) floatIn(n *yaml.Node, name, interval string, ok func(float64) bool, dst *float64) {
	if n == nil {
		return
	}
	n = deref(n)
	var x float64
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!float" && n.ShortTag() != "!!int") || n.Decode(&x) != nil {
		p.errorf(n, "%s must be a number, not %s", name, what(n))
		return
	}
	if !ok(x) {
		p.errorf(n, "%s must be in %s, got %v", name, interval, x)
		return
	}
	*dst = x
}

// typeOf parses the type of something described by name: a type
// expression, or {enum: [...]} naming an enum after enumName. An empty
// enumName forbids inline enums. It returns nil after reporting an error.
func (p *parser) typeOf(n *yaml.Node, enumName, name string) *Type {
	n = deref(n)
	if n.Kind == yaml.MappingNode {
		kvs := p.pairs(n, name)
		if len(kvs) == 1 && kvs[0].key.Value == "enum" {
			if enumName == "" {
				p.errorf(n, "%s: an enum cannot be declared here; declare it under types and use its name", name)
				return nil
			}
			return p.enum(n, enumName, name)
		}
		return p.structOf(n, kvs, name)
	}
	if n.Kind != yaml.ScalarNode || isNull(n) {
		p.errorf(n, "%s: expected a type expression, found %s", name, what(n))
		return nil
	}
	t, err := ParseType(n.Value, p.spec.Types)
	if err != nil {
		e := err.(*diag.Error)
		p.errorAt(p.posIn(n, e.Pos.Line, e.Pos.Column-1), "%s: %s", name, e.Msg)
		return nil
	}
	return t
}

// structOf parses a struct type written as a YAML mapping, {a: T, b: U}
// or a block of field: type lines: each value is a type expression or a
// nested mapping.
func (p *parser) structOf(n *yaml.Node, kvs []pair, name string) *Type {
	if len(kvs) == 0 {
		p.errorf(n, "%s: a struct type needs at least one field", name)
		return nil
	}
	t := &Type{Kind: Struct}
	for _, kv := range kvs {
		field := kv.key.Value
		if why := CheckName(field); why != nil {
			p.errorf(kv.key, "%s: field %s", name, why)
			return nil
		}
		if slices.ContainsFunc(t.Fields, func(f Field) bool { return f.Name == field }) {
			p.errorf(kv.key, "%s: duplicate field %s", name, field)
			return nil
		}
		ft := p.typeOf(kv.value, "", name+"."+field)
		if ft == nil {
			return nil
		}
		t.Fields = append(t.Fields, Field{Name: field, Type: ft})
	}
	return t
}

// enum parses {enum: [a, b, …]}.
func (p *parser) enum(n *yaml.Node, enumName, name string) *Type {
	vn := p.pairs(n, name)[0].value
	items := p.items(vn, name+": enum")
	if len(items) == 0 {
		if deref(vn).Kind == yaml.SequenceNode || isNull(deref(vn)) {
			p.errorf(deref(vn), "%s: enum needs at least one value", name)
		}
		return nil
	}
	t := &Type{Kind: String, Name: enumName}
	seen := make(map[string]bool, len(items)) // a million values: a search of t.Enum for each took an hour
	for _, item := range items {
		v, ok := p.str(item, name+": enum value")
		switch {
		case !ok:
			return nil
		case deref(item).ShortTag() != "!!str":
			// A trace's enum column holds strings: 1 or true would
			// never match. Quoted, the value is a string.
			p.errorf(deref(item), "%s: enum value %s is %s, not a string (quote it, %q, if the trace holds that string)", name, v, what(deref(item)), v)
			return nil
		case seen[v]:
			p.errorf(deref(item), "%s: duplicate enum value %q", name, v)
			return nil
		}
		seen[v] = true
		t.Enum = append(t.Enum, v)
	}
	return t
}

// posIn returns the position of the character at line (from 1) and col
// (from 0) of the value of scalar n. It is exact for literal block scalars
// and for flow scalars on one line, and falls back to the position of n.
func (p *parser) posIn(n *yaml.Node, line, col int) diag.Position {
	pos := p.pos(n)
	if line < 1 || n.Line < 1 || n.Line > len(p.lines) || n.Column < 1 {
		return pos
	}
	switch n.Style {
	case yaml.LiteralStyle:
		// The content starts on the line after the | indicator, indented
		// as its first non-blank line.
		if i := n.Line - 1 + line; i < len(p.lines) {
			pos.Line, pos.Column = i+1, p.blockIndent(n.Line)+col+1
		}
	case 0, yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle:
		src := []rune(p.lines[n.Line-1])
		if line == 1 && n.Column-1 <= len(src) {
			if off, ok := sourceOffset(n.Style, src[n.Column-1:], col); ok {
				pos.Column += off
			}
		}
	}
	return pos
}

// blockIndent returns the indentation of the block scalar whose indicator
// is on line (from 1): that of its first non-blank line.
func (p *parser) blockIndent(line int) int {
	for _, src := range p.lines[line:] {
		if text := strings.TrimLeft(src, " "); text != "" {
			return len(src) - len(text)
		}
	}
	return 0
}

// sourceOffset maps the k-th character of a scalar's value to its offset
// in src, the source text from the scalar's first character, undoing
// quotes and escapes. It fails when the value continues on another line.
func sourceOffset(style yaml.Style, src []rune, k int) (int, bool) {
	if style == 0 {
		return k, k <= len(src)
	}
	i := 1 // the opening quote
	for range k {
		if i >= len(src) {
			return 0, false
		}
		switch {
		case style == yaml.SingleQuotedStyle && src[i] == '\'':
			if i+1 >= len(src) || src[i+1] != '\'' {
				return 0, false // the closing quote
			}
			i += 2
		case style == yaml.DoubleQuotedStyle && src[i] == '"':
			return 0, false
		case style == yaml.DoubleQuotedStyle && src[i] == '\\':
			i += escapeLen(src[i+1:])
		default:
			i++
		}
	}
	return i, true
}

// escapeLen returns the length of a double-quoted escape sequence, given
// the text after its backslash.
func escapeLen(rest []rune) int {
	if len(rest) == 0 {
		return 1
	}
	switch rest[0] {
	case 'x':
		return 4
	case 'u':
		return 6
	case 'U':
		return 10
	}
	return 2
}
