package evaluator

import (
	"cmp"
	"maps"
	"slices"

	"github.com/augur-dev/augur/internal/number"
	"github.com/augur-dev/augur/specs"
)

// This file defines the comparison semantics of the property language on
// decoded trace values: nil, bool, int64, uint64, float64, string, []any
// and map[string]any.

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
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
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
	case map[string]any:
		k, ok := x.(string)
		if ok {
			_, ok = s[k]
		}
		return ok
	}
	return false
}

// subset reports whether every member of s is a member of t.
func subset(s, t any) bool {
	switch s := s.(type) {
	case []any:
		for _, e := range s {
			if !contains(t, e) {
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
	switch s := s.(type) {
	case []any:
		return len(s)
	case map[string]any:
		return len(s)
	}
	return 0
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
				if increasing(x) {
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

// increasing reports whether each element of s is ordered strictly
// before the next: s is sorted, and no two of its elements are equal.
func increasing(s []any) bool {
	for i := 1; i < len(s); i++ {
		if order(s[i-1], s[i]) >= 0 {
			return false
		}
	}
	return true
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
	case []any:
		b := b.([]any)
		for i := range min(len(a), len(b)) {
			if c := order(a[i], b[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(a), len(b))
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
	case []any:
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
