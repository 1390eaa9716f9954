package specs

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/augur-dev/augur/diag"
)

// Kind is the representation class of a Type.
type Kind uint8

// The kinds of types. The zero Kind is invalid.
const (
	KindInvalid Kind = iota
	Bool
	Int
	Uint
	Float
	String
	List
	Set
	Map
	Struct
)

var kindNames = [...]string{
	KindInvalid: "invalid",
	Bool:        "bool",
	Int:         "int",
	Uint:        "uint",
	Float:       "float",
	String:      "string",
	List:        "list",
	Set:         "set",
	Map:         "map",
	Struct:      "struct",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Type is a semantic type: a representation (Kind and components) and an
// optional name. Named types partition values that share a representation,
// so that a Term is never compared with an Index although both are uint64.
type Type struct {
	Kind   Kind
	Name   string   // semantic name, e.g. "Term"; "" for anonymous types
	Enum   []string // allowed values of an enum (Kind String); nil otherwise
	Elem   *Type    // List, Set: element type; Map: value type
	Key    *Type    // Map: key type (Kind String)
	Fields []Field  // Struct, in declaration order
}

// Field is a field of a struct type.
type Field struct {
	Name string
	Type *Type
}

// basicTypes maps the predeclared scalar type names to their kinds.
// int, uint and float are aliases of the 64-bit names.
var basicTypes = map[string]Kind{
	"bool":    Bool,
	"int64":   Int,
	"int":     Int,
	"uint64":  Uint,
	"uint":    Uint,
	"float64": Float,
	"float":   Float,
	"string":  String,
}

// String returns the type in the type-expression syntax: the name of a
// named type (enums included), otherwise its structure, as in
// "list<{term: Term, index: Index}>".
func (t *Type) String() string {
	if t == nil {
		return "<nil>"
	}
	if t.Name != "" {
		return t.Name
	}
	switch t.Kind {
	case Bool, String:
		return t.Kind.String()
	case Int, Uint, Float:
		return t.Kind.String() + "64"
	case List, Set:
		return fmt.Sprintf("%s<%s>", t.Kind, t.Elem)
	case Map:
		return fmt.Sprintf("map<%s, %s>", t.Key, t.Elem)
	case Struct:
		var b strings.Builder
		b.WriteByte('{')
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s: %s", f.Name, f.Type)
		}
		b.WriteByte('}')
		return b.String()
	}
	return "invalid"
}

// Comparable reports whether values of a and b may be compared with == and
// !=: they have the same name (both anonymous, or both the same named type)
// and the same structure, component by component.
func Comparable(a, b *Type) bool {
	if a == b {
		return a != nil
	}
	if a == nil || b == nil || a.Name != b.Name || a.Kind != b.Kind || !slices.Equal(a.Enum, b.Enum) {
		return false
	}
	switch a.Kind {
	case List, Set:
		return Comparable(a.Elem, b.Elem)
	case Map:
		return Comparable(a.Key, b.Key) && Comparable(a.Elem, b.Elem)
	case Struct:
		return slices.EqualFunc(a.Fields, b.Fields, func(f, g Field) bool {
			return f.Name == g.Name && Comparable(f.Type, g.Type)
		})
	}
	return true
}

// Ordered reports whether < and <= apply to values of t: numbers, and
// strings that are not enums (an enum's order would be arbitrary).
func (t *Type) Ordered() bool {
	switch t.Kind {
	case Int, Uint, Float:
		return true
	case String:
		return t.Enum == nil
	}
	return false
}

// Container reports whether t can be iterated over, so that in, subset and
// empty apply and a quantifier may range over its elements.
func (t *Type) Container() bool {
	return t.Kind == List || t.Kind == Set || t.Kind == Map
}

// underlying returns t without its name, for messages such as
// "Term (uint64)".
func (t *Type) underlying() *Type {
	u := *t
	u.Name = ""
	return &u
}

// Describe names t for an error message: "Term (uint64)", "state (enum)",
// or the structure of an anonymous type, cut as quoted cuts it.
func (t *Type) Describe() string {
	switch {
	case t.Name == "":
		return quoted(t.String())
	case t.Enum != nil:
		return t.Name + " (enum)"
	}
	return quoted(fmt.Sprintf("%s (%s)", t.Name, t.underlying()))
}

// maxQuoted bounds what of a type, or of another text of a spec or of a
// trace, a message quotes: a struct of 10,000 fields made one message of
// 139 KB, printing the type twice.
const maxQuoted = 200

// quoted returns s, cut after maxQuoted bytes (at a rune's start) and
// saying how long it was when it is longer.
func quoted(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	i := maxQuoted
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:i], len(s))
}

// maxListed bounds the names or values a message lists.
const maxListed = 10

// listed returns the first maxListed of items joined by ", ", and how
// many more there are: an enum of 1,000,000 values was listed whole in
// the message about a value outside it.
func listed(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}

// reserved lists the keywords of the property language (package grammar), which
// cannot name a type, variable, field, parameter or predicate.
var reserved = map[string]bool{
	"forall": true, "exists": true, "in": true, "nodes": true,
	"or": true, "not": true, "subset": true, "empty": true,
	"set": true, "true": true, "false": true,
}

// CheckName returns why name cannot name a type, variable, field,
// parameter or predicate of a spec, or nil when it can.
func CheckName(name string) error {
	if !IsIdent(name) {
		return fmt.Errorf("%q is not an identifier", name)
	}
	if reserved[name] {
		return fmt.Errorf("%s is a reserved word", name)
	}
	return nil
}

// IsIdent reports whether s is an ASCII identifier: a letter or underscore,
// then letters, digits and underscores.
func IsIdent(s string) bool {
	for i, r := range s {
		if !isIdentRune(r, i == 0) {
			return false
		}
	}
	return s != ""
}

func isIdentRune(r rune, first bool) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || !first && '0' <= r && r <= '9'
}

// maxTypeDepth bounds the nesting of a type expression, so that hostile
// input cannot exhaust the stack.
const maxTypeDepth = 64

// ParseType parses a type expression:
//
//	bool | int64 | uint64 | float64 | string   (int, uint, float are aliases)
//	Name                                       a type in named
//	list<T> | set<T> | map<K, V>               K is a string type
//	{field: T, field: T, …}                    a struct
//
// An error is a *diag.Error whose position is the line and column inside s.
func ParseType(s string, named map[string]*Type) (t *Type, err error) {
	p := &typeParser{src: []rune(s), line: 1, named: named}
	defer func() {
		if e := recover(); e != nil {
			bail, ok := e.(*diag.Error)
			if !ok {
				panic(e)
			}
			t, err = nil, bail
		}
	}()
	t = p.typ(0)
	if p.peek() != 0 {
		p.fail(p.line, p.col, "unexpected %s after type", p.found())
	}
	return t, nil
}

// typeParser is a recursive-descent parser of type expressions. It bails
// out of the recursion by panicking with a *diag.Error, recovered in ParseType.
type typeParser struct {
	src       []rune
	i         int // next rune
	line, col int // position of src[i]; col counts runes from 0
	named     map[string]*Type
}

func (p *typeParser) fail(line, col int, format string, args ...any) {
	panic(&diag.Error{Pos: diag.Position{Line: line, Column: col + 1}, Msg: fmt.Sprintf(format, args...)})
}

// peek skips white space and returns the next rune, or 0 at the end.
func (p *typeParser) peek() rune {
	for ; p.i < len(p.src); p.i++ {
		switch p.src[p.i] {
		case ' ', '\t', '\r':
			p.col++
		case '\n':
			p.line, p.col = p.line+1, 0
		default:
			return p.src[p.i]
		}
	}
	return 0
}

// found describes the next rune for an error message.
func (p *typeParser) found() string {
	if r := p.peek(); r != 0 {
		return fmt.Sprintf("%q", r)
	}
	return "end of type"
}

func (p *typeParser) expect(r rune, context string) {
	if p.peek() != r {
		p.fail(p.line, p.col, "expected %q %s, found %s", r, context, p.found())
	}
	p.i++
	p.col++
}

// ident reads an identifier at the current position.
func (p *typeParser) ident(what string) string {
	start := p.i
	for p.i < len(p.src) && isIdentRune(p.src[p.i], p.i == start) {
		p.i++
	}
	if p.i == start {
		p.fail(p.line, p.col, "expected %s, found %s", what, p.found())
	}
	p.col += p.i - start
	return string(p.src[start:p.i])
}

func (p *typeParser) typ(depth int) *Type {
	if p.peek() == '{' {
		return p.structType(depth)
	}
	if depth > maxTypeDepth {
		p.fail(p.line, p.col, "type nests too deeply")
	}
	line, col := p.line, p.col
	name := p.ident("a type")
	switch name {
	case "list", "set":
		kind := List
		if name == "set" {
			kind = Set
		}
		p.expect('<', "after "+name)
		elem := p.typ(depth + 1)
		p.expect('>', "after element type")
		return &Type{Kind: kind, Elem: elem}
	case "map":
		p.expect('<', "after map")
		p.peek()
		kline, kcol := p.line, p.col
		key := p.typ(depth + 1)
		if key.Kind != String {
			p.fail(kline, kcol, "map key type %s is not a string type", key)
		}
		p.expect(',', "after map key type")
		elem := p.typ(depth + 1)
		p.expect('>', "after map value type")
		return &Type{Kind: Map, Key: key, Elem: elem}
	}
	if k, ok := basicTypes[name]; ok {
		return &Type{Kind: k}
	}
	if t, ok := p.named[name]; ok {
		return t
	}
	p.fail(line, col, "unknown type %s", name)
	return nil
}

func (p *typeParser) structType(depth int) *Type {
	if depth > maxTypeDepth {
		p.fail(p.line, p.col, "type nests too deeply")
	}
	p.i++ // '{'
	p.col++
	t := &Type{Kind: Struct}
	for {
		p.peek()
		line, col := p.line, p.col
		name := p.ident("a field name")
		if reserved[name] {
			p.fail(line, col, "field name %s is a reserved word", name)
		}
		if slices.ContainsFunc(t.Fields, func(f Field) bool { return f.Name == name }) {
			p.fail(line, col, "duplicate field %s", name)
		}
		p.expect(':', "after field name")
		t.Fields = append(t.Fields, Field{Name: name, Type: p.typ(depth + 1)})
		if p.peek() != ',' {
			break
		}
		p.i++
		p.col++
	}
	p.expect('}', "after struct fields")
	return t
}
