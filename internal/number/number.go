// Package number compares the numbers of trace values across their three
// representations, int64, uint64 and float64, each held as a kind and 64
// bits: integers exactly, an integer and a float as Go converts the
// integer. The evaluator's cells and values and the checker's live values
// all compare numbers by this one rule.
package number

import (
	"cmp"
	"math"
)

// Kind says how a number's 64 bits hold its value.
type Kind uint8

// Number kinds.
const (
	Invalid Kind = iota // not a number
	Int                 // int64
	Uint                // uint64
	Float               // float64, as math.Float64bits
)

// Of returns the kind and bits of v if it is an int64, a uint64 or a
// float64, and Invalid otherwise.
func Of(v any) (Kind, uint64) {
	switch v := v.(type) {
	case int64:
		return Int, uint64(v)
	case uint64:
		return Uint, v
	case float64:
		return Float, math.Float64bits(v)
	}
	return Invalid, 0
}

// Compare compares the number a of kind ka with the number b of kind kb
// by value; neither kind may be Invalid. Two integers compare exactly,
// whatever their signedness; an integer is rounded to float64 only to
// compare with a float, as Go converts it. Compare returns -1, 0 or +1 as
// a is less than, equal to or greater than b, -0 and +0 being equal, and
// 2 when a NaN makes them unequal and unordered.
func Compare(ka Kind, a uint64, kb Kind, b uint64) int {
	switch ka {
	case Int:
		x := int64(a)
		switch kb {
		case Int:
			return cmp.Compare(x, int64(b))
		case Uint:
			if x < 0 {
				return -1
			}
			return cmp.Compare(a, b)
		}
		return compareFloats(float64(x), math.Float64frombits(b))
	case Uint:
		switch kb {
		case Int:
			if int64(b) < 0 {
				return 1
			}
			return cmp.Compare(a, b)
		case Uint:
			return cmp.Compare(a, b)
		}
		return compareFloats(float64(a), math.Float64frombits(b))
	}
	x := math.Float64frombits(a)
	switch kb {
	case Int:
		return compareFloats(x, float64(int64(b)))
	case Uint:
		return compareFloats(x, float64(b))
	}
	return compareFloats(x, math.Float64frombits(b))
}

func compareFloats(a, b float64) int {
	if math.IsNaN(a) || math.IsNaN(b) {
		return 2
	}
	return cmp.Compare(a, b)
}
