package checker

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/augur-dev/augur/internal/number"
	"github.com/augur-dev/augur/specs"
)

// This file holds the values of live states and their semantics, which
// are the evaluator's (its value.go) on another representation: a value
// is unboxed, and the members of a container live in an arena its state
// owns, so that preparing a state again reuses memory and checking it
// allocates nothing.

// kind is the representation of a value.
type kind uint8

const (
	kNull kind = iota
	kBool
	kInt    // int64
	kUint   // uint64
	kFloat  // float64
	kString // string
	kList   // lists and sets; a set's elements sorted and without duplicates
	kMap    // maps and structs: entries sorted by key
)

// value is a trace value (see package trace) without boxing.
type value struct {
	kind kind
	// bits holds a kBool (0 or 1), kInt, kUint or kFloat value's bits.
	// While a state is built, a container's holds the offset of its
	// members in the state's arena (see State.link).
	bits  uint64
	str   string  // kString
	key   string  // the key of a map entry
	elems []value // kList: elements; kMap: entries
}

// null is the value of a missing path; it is never written.
var null value

func isNum(k kind) bool { return k == kInt || k == kUint || k == kFloat }

func (v *value) isTrue() bool { return v.kind == kBool && v.bits == 1 }

// equal reports whether a and b are equal; null equals only null, and
// numbers compare by value across int64, uint64 and float64.
func equal(a, b *value) bool {
	if a.kind != b.kind {
		return isNum(a.kind) && isNum(b.kind) && compareNumbers(a, b) == 0
	}
	switch a.kind {
	case kNull:
		return true
	case kBool, kInt, kUint:
		return a.bits == b.bits
	case kFloat:
		return math.Float64frombits(a.bits) == math.Float64frombits(b.bits) // NaN equals nothing
	case kString:
		return a.str == b.str
	case kList:
		if len(a.elems) != len(b.elems) {
			return false
		}
		for i := range a.elems {
			if !equal(&a.elems[i], &b.elems[i]) {
				return false
			}
		}
		return true
	case kMap:
		// Both sorted by key, whose sets are equal exactly when the
		// sequences are.
		if len(a.elems) != len(b.elems) {
			return false
		}
		for i := range a.elems {
			if a.elems[i].key != b.elems[i].key || !equal(&a.elems[i], &b.elems[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// less reports a < b (orEqual: a <= b) for numbers and strings; it is
// false when either is null or they are not ordered together.
func less(a, b *value, orEqual bool) bool {
	var c int
	switch {
	case isNum(a.kind) && isNum(b.kind):
		c = compareNumbers(a, b)
	case a.kind == kString && b.kind == kString:
		c = strings.Compare(a.str, b.str)
	default:
		return false
	}
	return c < 0 || orEqual && c == 0
}

// compareNumbers compares two numbers as number.Compare does: 2 when a
// NaN makes them unequal and unordered.
func compareNumbers(a, b *value) int {
	return number.Compare(numberKinds[a.kind], a.bits, numberKinds[b.kind], b.bits)
}

// numberKinds maps the kinds of numbers to package number's.
var numberKinds = [...]number.Kind{kInt: number.Int, kUint: number.Uint, kFloat: number.Float}

// contains reports whether x is a member of the container s: an element
// of a list or set, a key of a map. A null container is empty.
func contains(s, x *value) bool {
	if x.kind == kNull {
		return false
	}
	switch s.kind {
	case kList:
		for i := range s.elems {
			if equal(&s.elems[i], x) {
				return true
			}
		}
	case kMap:
		return x.kind == kString && s.entry(x.str) != nil
	}
	return false
}

// subset reports whether every member of s is a member of t.
func subset(s, t *value) bool {
	switch s.kind {
	case kList:
		for i := range s.elems {
			if !contains(t, &s.elems[i]) {
				return false
			}
		}
	case kMap:
		for i := range s.elems {
			k := value{kind: kString, str: s.elems[i].key}
			if !contains(t, &k) {
				return false
			}
		}
	}
	return true
}

// size returns the number of members of a container; null has none.
func size(s *value) int {
	if s.kind == kList || s.kind == kMap {
		return len(s.elems)
	}
	return 0
}

// entry returns the entry of map m at key, or nil.
func (m *value) entry(key string) *value {
	lo, hi := 0, len(m.elems)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if m.elems[h].key < key {
			lo = h + 1
		} else {
			hi = h
		}
	}
	if lo < len(m.elems) && m.elems[lo].key == key {
		return &m.elems[lo]
	}
	return nil
}

// field returns the value at fields from v; a missing field or a null on
// the way gives null.
func (v *value) field(fields []string) *value {
	for _, f := range fields {
		if v.kind != kMap {
			return &null
		}
		if v = v.entry(f); v == nil {
			return &null
		}
	}
	return v
}

// outsideEnum returns the first string in v, a value of type t, that is
// not a value of its enum, as an error with Path set; nil when there is
// none. It is specs.Var.CheckEnum on a checker's value, and allocates
// only for an error.
func outsideEnum(v *value, t *specs.Type) *specs.EnumError {
	switch {
	case v.kind == kString && t.Kind == specs.String:
		if t.Enum != nil && !slices.Contains(t.Enum, v.str) {
			return &specs.EnumError{Value: v.str, Enum: t}
		}
	case v.kind == kList && (t.Kind == specs.List || t.Kind == specs.Set):
		for i := range v.elems {
			if err := outsideEnum(&v.elems[i], t.Elem); err != nil {
				err.Path = "[" + strconv.Itoa(i) + "]" + err.Path
				return err
			}
		}
	case v.kind == kMap && t.Kind == specs.Map:
		for i := range v.elems {
			e := &v.elems[i]
			if err := outsideEnum(e, t.Elem); err != nil {
				err.Path = "[" + strconv.Quote(e.key) + "]" + err.Path
				return err
			}
		}
	case v.kind == kMap && t.Kind == specs.Struct:
		for i := range v.elems {
			e := &v.elems[i]
			for _, f := range t.Fields {
				if f.Name != e.key {
					continue
				}
				if err := outsideEnum(e, f.Type); err != nil {
					err.Path = "." + f.Name + err.Path
					return err
				}
			}
		}
	}
	return nil
}

// normalize puts v in the form the comparisons expect for type t: the
// elements of a set sorted and without duplicates, at any depth. A
// value whose kind does not fit t is left as it is, as the evaluator
// does.
func normalize(v *value, t *specs.Type) {
	switch v.kind {
	case kList:
		if t.Kind != specs.List && t.Kind != specs.Set {
			return
		}
		for i := range v.elems {
			normalize(&v.elems[i], t.Elem)
		}
		if t.Kind == specs.Set {
			// The evaluator's sort on the same order, so that sets
			// holding values the order cannot rank (NaN) come out the
			// same.
			slices.SortFunc(v.elems, func(a, b value) int { return order(&a, &b) })
			v.elems = slices.CompactFunc(v.elems, func(a, b value) bool { return equal(&a, &b) })
		}
	case kMap:
		for i := range v.elems {
			e := &v.elems[i]
			switch t.Kind {
			case specs.Map:
				normalize(e, t.Elem)
			case specs.Struct:
				for _, f := range t.Fields {
					if f.Name == e.key {
						normalize(e, f.Type)
					}
				}
			}
		}
	}
}

// order is a total order on values, for sorting sets: null, then bools,
// numbers, strings, lists and maps, each in their natural order.
func order(a, b *value) int {
	if c := cmp.Compare(rank(a.kind), rank(b.kind)); c != 0 {
		return c
	}
	switch a.kind {
	case kBool:
		return cmp.Compare(a.bits, b.bits)
	case kString:
		return strings.Compare(a.str, b.str)
	case kList:
		for i := range min(len(a.elems), len(b.elems)) {
			if c := order(&a.elems[i], &b.elems[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(a.elems), len(b.elems))
	case kMap:
		// The keys as sorted lists first, then the values in key order.
		for i := range min(len(a.elems), len(b.elems)) {
			if c := strings.Compare(a.elems[i].key, b.elems[i].key); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(len(a.elems), len(b.elems)); c != 0 {
			return c
		}
		for i := range a.elems {
			if c := order(&a.elems[i], &b.elems[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	if isNum(a.kind) {
		if c := compareNumbers(a, b); c != 2 {
			return c
		}
	}
	return 0
}

func rank(k kind) int {
	switch k {
	case kInt, kUint, kFloat:
		return 2
	case kString:
		return 3
	case kList:
		return 4
	case kMap:
		return 5
	}
	return int(k) // null 0, bool 1
}

// toAny returns v in the representation of package trace.
func toAny(v *value) any {
	switch v.kind {
	case kBool:
		return v.bits == 1
	case kInt:
		return int64(v.bits)
	case kUint:
		return v.bits
	case kFloat:
		return math.Float64frombits(v.bits)
	case kString:
		return v.str
	case kList:
		l := make([]any, len(v.elems))
		for i := range v.elems {
			l[i] = toAny(&v.elems[i])
		}
		return l
	case kMap:
		m := make(map[string]any, len(v.elems))
		for i := range v.elems {
			m[v.elems[i].key] = toAny(&v.elems[i])
		}
		return m
	}
	return nil
}

// witnessValue returns v for a witness: a list or map as an
// ir.Composite, which the witness converts only as far as it keeps it,
// anything else as toAny does.
func witnessValue(v *value) any {
	if v.kind == kList || v.kind == kMap {
		return composite{v}
	}
	return toAny(v)
}

// composite is a list or map value as an ir.Composite.
type composite struct{ v *value }

func (c composite) Len() int    { return len(c.v.elems) }
func (c composite) IsMap() bool { return c.v.kind == kMap }

func (c composite) Member(i int) (string, any) {
	e := &c.v.elems[i]
	return e.key, witnessValue(e)
}
