package evaluator

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/augur-dev/augur/internal/number"
	"github.com/augur-dev/augur/specs"
)

// This file defines the comparison semantics of the property language on
// decoded trace values: nil, bool, int64, uint64, float64, string, []any
// and map[string]any, and the typed lists of typed.go, each the []any of
// its elements.

// equal reports whether a and b are equal; null equals only null, and
// numbers compare by value across int64, uint64 and float64 (see
// number.Compare).
func equal(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if ka, x := number.Of(a); ka != number.Invalid {
		kb, y := number.Of(b)
		return kb != number.Invalid && number.Compare(ka, x, kb, y) == 0
	}
	switch a := a.(type) {
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && a == b
	case []any, []int64, []uint64, []float64, []string:
		return equalLists(a, b)
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// equalLists is equal for a list a: two lists of the same representation
// are compared without boxing their elements.
func equalLists(a, b any) bool {
	na, _ := listLen(a)
	nb, ok := listLen(b)
	if !ok || na != nb {
		return false
	}
	switch a := a.(type) {
	case []int64:
		if b, ok := b.([]int64); ok {
			return slices.Equal(a, b)
		}
	case []uint64:
		if b, ok := b.([]uint64); ok {
			return slices.Equal(a, b)
		}
	case []float64:
		if b, ok := b.([]float64); ok {
			return slices.Equal(a, b) // as number.Compare: NaN equals nothing, -0 equals 0
		}
	case []string:
		if b, ok := b.([]string); ok {
			return slices.Equal(a, b)
		}
	}
	for i := range na {
		if !equal(listAt(a, i), listAt(b, i)) {
			return false
		}
	}
	return true
}

// less reports a < b (orEqual: a <= b) for numbers and strings; it is
// false when either is null or they are not ordered together.
func less(a, b any, orEqual bool) bool {
	var c int
	if ka, x := number.Of(a); ka != number.Invalid {
		kb, y := number.Of(b)
		if kb == number.Invalid {
			return false
		}
		c = number.Compare(ka, x, kb, y)
	} else {
		as, aok := a.(string)
		bs, bok := b.(string)
		if !aok || !bok {
			return false
		}
		c = cmp.Compare(as, bs)
	}
	return c < 0 || orEqual && c == 0
}

// contains reports whether x is a member of the container s: an element
// of a list or set, a key of a map. A null container is empty.
func contains(s, x any) bool {
	if x == nil {
		return false
	}
	switch s := s.(type) {
	case []any:
		for _, e := range s {
			if equal(e, x) {
				return true
			}
		}
	case []int64, []uint64, []float64:
		if k, bits := number.Of(x); k != number.Invalid {
			return containsNumber(s, k, bits)
		}
	case []string:
		x, ok := x.(string)
		return ok && slices.Contains(s, x)
	case map[string]any:
		k, ok := x.(string)
		if ok {
			_, ok = s[k]
		}
		return ok
	}
	return false
}

// containsNumber reports whether s, a typed list of numbers, has an
// element equal to the number of kind k and bits.
func containsNumber(s any, k number.Kind, bits uint64) bool {
	switch s := s.(type) {
	case []int64:
		for _, e := range s {
			if number.Compare(number.Int, uint64(e), k, bits) == 0 {
				return true
			}
		}
	case []uint64:
		for _, e := range s {
			if number.Compare(number.Uint, e, k, bits) == 0 {
				return true
			}
		}
	case []float64:
		for _, e := range s {
			if number.Compare(number.Float, math.Float64bits(e), k, bits) == 0 {
				return true
			}
		}
	}
	return false
}

// subset reports whether every member of s is a member of t.
func subset(s, t any) bool {
	switch s := s.(type) {
	case []any, []int64, []uint64, []float64, []string:
		n, _ := listLen(s)
		for i := range n {
			if !contains(t, listAt(s, i)) {
				return false
			}
		}
	case map[string]any:
		for k := range s {
			if !contains(t, k) {
				return false
			}
		}
	}
	return true
}

// size returns the number of members of a container; null has none.
func size(s any) int {
	if m, ok := s.(map[string]any); ok {
		return len(m)
	}
	n, _ := listLen(s)
	return n
}

// normalize returns v in the form the comparisons expect for type t: the
// elements of a set sorted and without duplicates, at any depth, so that
// equal sets are equal lists. A value already in that form is returned
// itself, not copied.
func normalize(v any, t *specs.Type) any {
	n, _ := normalized(v, t)
	return n
}

// normalized is normalize, and reports whether the result is a new value.
func normalized(v any, t *specs.Type) (any, bool) {
	switch x := v.(type) {
	case []any:
		if t.Kind != specs.List && t.Kind != specs.Set {
			return v, false
		}
		var out []any // nil while the elements are x's own
		for i, e := range x {
			n, changed := normalized(e, t.Elem)
			if changed && out == nil {
				out = slices.Clone(x)
			}
			if out != nil {
				out[i] = n
			}
		}
		if t.Kind == specs.Set {
			if out == nil {
				if increasing(x, order) {
					return v, false // sorting would not move an element
				}
				out = slices.Clone(x)
			}
			slices.SortFunc(out, order)
			out = slices.CompactFunc(out, equal)
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []int64:
		return normalizedTyped(x, t, cmp.Compare[int64])
	case []uint64:
		return normalizedTyped(x, t, cmp.Compare[uint64])
	case []float64:
		return normalizedTyped(x, t, orderFloats)
	case []string:
		return normalizedTyped(x, t, cmp.Compare[string])
	case map[string]any:
		var out map[string]any // nil while the members are x's own
		for k, e := range x {
			var ft *specs.Type
			switch t.Kind {
			case specs.Map:
				ft = t.Elem
			case specs.Struct:
				for _, f := range t.Fields {
					if f.Name == k {
						ft = f.Type
					}
				}
			}
			if ft == nil {
				continue
			}
			n, changed := normalized(e, ft)
			if changed && out == nil {
				out = maps.Clone(x)
			}
			if out != nil {
				out[k] = n
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

// normalizedTyped is normalized for a typed list, whose elements are
// numbers or strings, which normalize leaves as they are; order is order
// on them. A set is sorted as a []any of the same elements would be, by
// the same algorithm and comparisons (order ties -0 and 0, and NaN with
// everything, so that another sort could leave another of two equal
// elements), and its duplicates dropped as equal finds them.
func normalizedTyped[T int64 | uint64 | float64 | string](x []T, t *specs.Type, order func(a, b T) int) (any, bool) {
	if t.Kind != specs.Set || increasing(x, order) {
		return x, false
	}
	out := slices.Clone(x)
	slices.SortFunc(out, order)
	return slices.Compact(out), true // == is equal on numbers of one type, NaN equal to nothing
}

// increasing reports whether each element of s is ordered strictly
// before the next by order: s is sorted, and no two of its elements are
// equal.
func increasing[T any](s []T, order func(a, b T) int) bool {
	for i := 1; i < len(s); i++ {
		if order(s[i-1], s[i]) >= 0 {
			return false
		}
	}
	return true
}

// orderFloats is order on float64: NaN is unordered, and so tied, with
// every number.
func orderFloats(a, b float64) int {
	if math.IsNaN(a) || math.IsNaN(b) {
		return 0
	}
	return cmp.Compare(a, b)
}

// order is a total order on values, for sorting sets: null, then bools,
// numbers, strings, lists and maps, each in their natural order.
func order(a, b any) int {
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	switch a := a.(type) {
	case bool:
		return cmp.Compare(b2i(a), b2i(b.(bool)))
	case string:
		return cmp.Compare(a, b.(string))
	case []any, []int64, []uint64, []float64, []string:
		na, _ := listLen(a)
		nb, _ := listLen(b) // a list too, of the same rank
		for i := range min(na, nb) {
			if c := order(listAt(a, i), listAt(b, i)); c != 0 {
				return c
			}
		}
		return cmp.Compare(na, nb)
	case map[string]any:
		b := b.(map[string]any)
		ka, kb := slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b))
		if c := slices.Compare(ka, kb); c != 0 {
			return c
		}
		for _, k := range ka {
			if c := order(a[k], b[k]); c != 0 {
				return c
			}
		}
		return 0
	}
	if ka, x := number.Of(a); ka != number.Invalid {
		kb, y := number.Of(b) // a number too, of the same rank
		if c := number.Compare(ka, x, kb, y); c != 2 {
			return c
		}
	}
	return 0
}

func rank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case bool:
		return 1
	case int64, uint64, float64:
		return 2
	case string:
		return 3
	case []any, []int64, []uint64, []float64, []string:
		return 4
	}
	return 5
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
