// Package coltype describes the types of trace columns without Arrow: what
// a state variable holds, as package trace stores it in Arrow and as
// package collector reads it from a Go value. It lets a process that
// records or checks states (collector's node API, the live checker) relate
// them to a spec without linking Arrow; package trace converts between
// these types and Arrow's (trace.ArrowType, trace.ColumnType).
package coltype

import (
	"slices"
	"strings"
)

// Kind is the kind of a column type.
type Kind uint8

const (
	// Other is a type that no state variable has, such as an Arrow type
	// a trace written by another tool holds; only its name is kept.
	Other   Kind = iota
	Bool         // bool
	Int64        // int64
	Uint64       // uint64
	Float64      // float64
	String       // utf8
	List         // list<Elem>
	Map          // map<Key, Elem>
	Struct       // struct<Fields>
)

// A Type is the type of a column, or of a part of one. Types are
// immutable once made.
type Type struct {
	Kind   Kind
	Key    *Type   // Map: the key type
	Elem   *Type   // List: the element type; Map: the item type
	Fields []Field // Struct
	// Name is the type as Arrow writes it, for messages:
	// "list<item: int64, nullable>".
	Name string
}

// A Field is a field of a struct type.
type Field struct {
	Name string
	Type *Type
}

// String returns t's name, as Arrow writes the type.
func (t *Type) String() string { return t.Name }

// The scalar types.
var (
	BoolType    = &Type{Kind: Bool, Name: "bool"}
	Int64Type   = &Type{Kind: Int64, Name: "int64"}
	Uint64Type  = &Type{Kind: Uint64, Name: "uint64"}
	Float64Type = &Type{Kind: Float64, Name: "float64"}
	StringType  = &Type{Kind: String, Name: "utf8"}
)

// ListOf returns the type of lists of elem, named as Arrow names
// arrow.ListOf(elem): nullable elements called item.
func ListOf(elem *Type) *Type {
	return &Type{Kind: List, Elem: elem, Name: "list<item: " + elem.Name + ", nullable>"}
}

// MapOf returns the type of maps from key to item, named as Arrow names
// arrow.MapOf(key, item): nullable items, keys not sorted.
func MapOf(key, item *Type) *Type {
	return &Type{Kind: Map, Key: key, Elem: item, Name: "map<" + key.Name + ", " + item.Name + ", items_nullable>"}
}

// StructOf returns the type of structs of fields, named as Arrow names a
// struct of nullable fields.
func StructOf(fields ...Field) *Type {
	var b strings.Builder
	b.WriteString("struct<")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + ": " + f.Type.Name + " nullable")
	}
	b.WriteString(">")
	return &Type{Kind: Struct, Fields: slices.Clip(fields), Name: b.String()}
}

// FieldIndex returns the position of the named field of a struct type,
// or -1.
func (t *Type) FieldIndex(name string) int {
	return slices.IndexFunc(t.Fields, func(f Field) bool { return f.Name == name })
}

// Column is a state variable: a named column.
type Column struct {
	Name string
	Type *Type
}

// Schema lists the state variables of a trace or of a Go state type, in
// column order.
type Schema []Column

// Index returns the position of the named column, or -1.
func (s Schema) Index(name string) int {
	return slices.IndexFunc(s, func(c Column) bool { return c.Name == name })
}
