package specs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/augur-dev/augur/coltype"
	"github.com/augur-dev/augur/diag"
)

func TestParseType(t *testing.T) {
	named := map[string]*Type{
		"Term":  {Kind: Uint, Name: "Term"},
		"Index": {Kind: Uint, Name: "Index"},
		"Role":  {Kind: String, Name: "Role", Enum: []string{"follower", "leader"}},
	}
	tests := []struct {
		src, want string
		kind      Kind
	}{
		{"bool", "bool", Bool},
		{"int64", "int64", Int},
		{"int", "int64", Int},
		{"uint", "uint64", Uint},
		{"float", "float64", Float},
		{" string ", "string", String},
		{"Term", "Term", Uint},
		{"Role", "Role", String},
		{"set<Role>", "set<Role>", Set},
		{"list< list<int64> >", "list<list<int64>>", List},
		{"map<string,Index>", "map<string, Index>", Map},
		{"map<Role, list<Term>>", "map<Role, list<Term>>", Map},
		{"list<{term: Term, index: Index}>", "list<{term: Term, index: Index}>", List},
		{"{a: {b: bool},\n c: float64}", "{a: {b: bool}, c: float64}", Struct},
	}
	for _, tt := range tests {
		typ, err := ParseType(tt.src, named)
		if err != nil {
			t.Errorf("ParseType(%q): %v", tt.src, err)
			continue
		}
		if got := typ.String(); got != tt.want || typ.Kind != tt.kind {
			t.Errorf("ParseType(%q) = %s (%s), want %s (%s)", tt.src, got, typ.Kind, tt.want, tt.kind)
		}
	}
}

func TestParseTypeErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", "1:1: expected a type, found end of type"},
		{"Trm", "1:1: unknown type Trm"},
		{"list<Trm>", "1:6: unknown type Trm"},
		{"list int64", `1:6: expected '<' after list, found 'i'`},
		{"list<int64", "1:11: expected '>' after element type, found end of type"},
		{"map<int64, bool>", "1:5: map key type int64 is not a string type"},
		{"map<string bool>", `1:12: expected ',' after map key type, found 'b'`},
		{"{}", `1:2: expected a field name, found '}'`},
		{"{a: int64, a: bool}", "1:12: duplicate field a"},
		{"{in: int64}", "1:2: field name in is a reserved word"},
		{"{a int64}", `1:4: expected ':' after field name, found 'i'`},
		{"{a: int64", "1:10: expected '}' after struct fields, found end of type"},
		{"int64 x", `1:7: unexpected 'x' after type`},
		{"list<\n  Trm>", "2:3: unknown type Trm"},
		{"3", `1:1: expected a type, found '3'`},
	}
	for _, tt := range tests {
		_, err := ParseType(tt.src, nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseType(%q) error = %v, want %s", tt.src, err, tt.want)
		}
	}
}

func TestParseTypeDepth(t *testing.T) {
	src := ""
	for range 1000 {
		src += "list<"
	}
	if _, err := ParseType(src, nil); err == nil || err.(*diag.Error).Msg != "type nests too deeply" {
		t.Errorf("deep type: error %v, want type nests too deeply", err)
	}
}

func TestComparable(t *testing.T) {
	named := map[string]*Type{
		"Term":  {Kind: Uint, Name: "Term"},
		"Index": {Kind: Uint, Name: "Index"},
		"Role":  {Kind: String, Name: "Role", Enum: []string{"a", "b"}},
		"state": {Kind: String, Name: "state", Enum: []string{"a", "b"}},
	}
	parse := func(s string) *Type {
		t.Helper()
		typ, err := ParseType(s, named)
		if err != nil {
			t.Fatal(err)
		}
		return typ
	}
	tests := []struct {
		a, b string
		want bool
	}{
		{"Term", "Term", true},
		{"Term", "Index", false},
		{"Term", "uint64", false},
		{"uint64", "uint", true},
		{"uint64", "int64", false},
		{"Role", "state", false},
		{"list<Term>", "list<Term>", true},
		{"list<Term>", "list<Index>", false},
		{"list<Term>", "set<Term>", false},
		{"map<string, Term>", "map<string, Term>", true},
		{"map<Role, Term>", "map<string, Term>", false},
		{"{a: Term, b: bool}", "{a: Term, b: bool}", true},
		{"{a: Term, b: bool}", "{b: bool, a: Term}", false},
		{"{a: Term}", "{a: Index}", false},
	}
	for _, tt := range tests {
		if got := Comparable(parse(tt.a), parse(tt.b)); got != tt.want {
			t.Errorf("Comparable(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if Comparable(nil, nil) {
		t.Error("Comparable(nil, nil) = true")
	}
}

func TestOrderedContainer(t *testing.T) {
	tests := []struct {
		typ                *Type
		ordered, container bool
	}{
		{&Type{Kind: Bool}, false, false},
		{&Type{Kind: Int}, true, false},
		{&Type{Kind: Uint, Name: "Term"}, true, false},
		{&Type{Kind: Float}, true, false},
		{&Type{Kind: String}, true, false},
		{&Type{Kind: String, Enum: []string{"a"}}, false, false},
		{&Type{Kind: List, Elem: &Type{Kind: Int}}, false, true},
		{&Type{Kind: Set, Elem: &Type{Kind: Int}}, false, true},
		{&Type{Kind: Map, Key: &Type{Kind: String}, Elem: &Type{Kind: Int}}, false, true},
		{&Type{Kind: Struct, Fields: []Field{{"a", &Type{Kind: Int}}}}, false, false},
	}
	for _, tt := range tests {
		if got := tt.typ.Ordered(); got != tt.ordered {
			t.Errorf("%s.Ordered() = %v", tt.typ, got)
		}
		if got := tt.typ.Container(); got != tt.container {
			t.Errorf("%s.Container() = %v", tt.typ, got)
		}
	}
}

func TestKindString(t *testing.T) {
	if got := Struct.String(); got != "struct" {
		t.Errorf("Struct.String() = %q", got)
	}
	if got := Kind(99).String(); got != "Kind(99)" {
		t.Errorf("Kind(99).String() = %q", got)
	}
}

// A message quotes at most maxQuoted bytes of a type and maxListed
// values or columns: an enum of 1,000,000 values, a struct of 10,000
// fields and 100,000 columns were quoted whole.
func TestMessagesCut(t *testing.T) {
	var values, fields []string
	var schema coltype.Schema
	for i := range 10_000 {
		values = append(values, fmt.Sprintf("e%d", i))
		fields = append(fields, fmt.Sprintf("f%d: int64", i))
		schema = append(schema, coltype.Column{Name: fmt.Sprintf("c%d", i), Type: coltype.Int64Type})
	}
	enum := &Type{Kind: String, Name: "state", Enum: values}
	st, err := ParseType("{"+strings.Join(fields, ", ")+"}", nil)
	if err != nil {
		t.Fatal(err)
	}
	columnErr := func(v *Var, schema coltype.Schema) string {
		return (&Spec{Vars: []*Var{v}}).CheckColumns(schema).Error()
	}
	tests := []struct {
		name, msg, want string
	}{
		{"enum", (&EnumError{Var: "v", Value: "x", Enum: enum}).Error(), `v: "x" is not a value of the enum state (e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, and 9990 more)`},
		{"struct", columnErr(&Var{Name: "c0", Type: st}, schema), "variable c0: column c0 has type int64, want {f0: int64, "},
		{"columns", columnErr(&Var{Name: "v", Type: &Type{Kind: Int}}, schema), "variable v is not a column of the trace (columns: node, c0, c1, c2, c3, c4, c5, c6, c7, c8, and 9991 more)"},
	}
	for _, tt := range tests {
		if !strings.HasPrefix(tt.msg, tt.want) || len(tt.msg) > len(tt.want)+400 { // the rest of a cut type, about maxQuoted bytes
			t.Errorf("%s: message of %d bytes:\n%.500s\nwant %s…", tt.name, len(tt.msg), tt.msg, tt.want)
		}
	}
}
