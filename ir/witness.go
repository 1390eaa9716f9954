package ir

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Witness is one violating binding of a property: the snapshot, the
// binding of the property's variables, and the values of the paths it
// reads there, in the representation of package trace, each cut to about
// MaxValueJSON bytes of JSON when it is captured (see [Witness.SetValue]).
// Both engines and the live checker report it.
type Witness struct {
	Snapshot uint64         `json:"snapshot"`
	TS       uint64         `json:"ts"`
	Binding  map[string]any `json:"binding"` // node variables → node name, iterator variables → element
	Values   map[string]any `json:"values"`  // each path of the property → its value

	// Cut maps the JSON Pointer (RFC 6901), from the witness, of each
	// list, map or string of Binding and Values kept only in part to its
	// full length: elements, keys or bytes ({"/values/n0.log": 2000000}).
	// It is nil when nothing was cut.
	Cut map[string]int `json:"cut,omitempty"`
}

// MaxValueJSON bounds what a witness keeps of one value (a variable's
// binding, a path's value), in bytes of its JSON, about: a list keeps its
// first elements, a map its first keys in order, a string its first
// bytes, and Witness.Cut says what was cut. A witness is read by a person,
// who reads a screenful of a value (its line shows MaxValueText), or by a
// program looking at its head; the rest of a list of millions is only
// memory (augur check --format json held 20 witnesses of a 2M-integer
// list, 6.5 GB at its peak). 4 KiB keeps several hundred numbers, and the
// 20 witnesses of a check reading a few paths a few hundred KB, however
// large the values.
const MaxValueJSON = 4096

// NewWitness returns a witness at snapshot id and timestamp ts with an
// empty binding and no values.
func NewWitness(id, ts uint64) Witness {
	return Witness{Snapshot: id, TS: ts, Binding: map[string]any{}, Values: map[string]any{}}
}

// Bind records that variable name is bound to v (a node's name, an
// element), kept as SetValue keeps a value.
func (w *Witness) Bind(name string, v any) {
	w.Binding[name] = w.keep("/binding/", name, v)
}

// SetValue records the value v of path: in the representation of package
// trace or a [Composite], kept as at most about MaxValueJSON bytes of
// JSON in the representation of package trace, with each float JSON
// cannot hold (±Inf, NaN) as its name ("+Inf", "-Inf", "NaN") so that the
// witness can be written as JSON. What is cut is copied, so the witness
// does not hold the whole value, and only what is kept is read.
func (w *Witness) SetValue(path string, v any) {
	w.Values[path] = w.keep("/values/", path, v)
}

// A Composite is a list or a map in a representation other than package
// trace's (the live checker's unboxed values), which a witness reads
// member by member, converting only what it keeps.
type Composite interface {
	// Len returns its number of members: elements or entries.
	Len() int
	// IsMap reports whether it is a map.
	IsMap() bool
	// Member returns its i-th member: a list's element, with key "", or
	// a map's entry in order of key, with its key. A member that is a
	// list or a map is a Composite, any other in the representation of
	// package trace.
	Member(i int) (key string, v any)
}

// keep returns v as the witness keeps it under the member key of the
// object at JSON Pointer prefix, recording in w.Cut what it cuts.
func (w *Witness) keep(prefix, key string, v any) any {
	if fitting(v, MaxValueJSON) >= 0 {
		return v // kept whole, as the cutter would keep it
	}
	c := cutter{left: MaxValueJSON, path: appendToken([]byte(prefix), key)}
	v, _ = c.value(v)
	for _, cut := range c.cuts {
		if w.Cut == nil {
			w.Cut = map[string]int{}
		}
		w.Cut[cut.path] = cut.n
	}
	return v
}

// Fits reports whether a witness keeps v whole: [Witness.Bind] and
// [Witness.SetValue] keep it as it is, cutting and copying nothing. A
// caller may then hold v and bind or set it later, building the same
// witness, in less memory than the witness's maps take.
func Fits(v any) bool { return fitting(v, MaxValueJSON) >= 0 }

// fitting returns what is left of left bytes once v is kept whole, as a
// cutter counts them, or a negative number if a cutter may cut or
// convert it: its JSON is longer, or it holds a float JSON cannot hold,
// a Composite or a type the cutter measures by its encoding. A value
// that fits is one the cutter returns unchanged, with nothing cut; most
// of a witness's values do, and are kept without a cutter, its JSON
// Pointer or its closures.
func fitting(v any, left int) int {
	switch x := v.(type) {
	case nil:
		return left - len("null")
	case bool:
		return left - len("false")
	case int64:
		return left - intLen(x)
	case uint64:
		return left - uintLen(x)
	case float64:
		return left - floatLen(x)
	case string:
		return left - len(x) - len(`""`)
	case []any:
		return fittingList(x, left, fitting)
	case []int64:
		return fittingList(x, left, func(e int64, left int) int { return left - intLen(e) })
	case []uint64:
		return fittingList(x, left, func(e uint64, left int) int { return left - uintLen(e) })
	case []float64:
		return fittingList(x, left, func(e float64, left int) int { return left - floatLen(e) })
	case []string:
		return fittingList(x, left, func(e string, left int) int { return left - len(e) - len(`""`) })
	case map[string]any:
		left -= len("{}") + max(0, len(x)-1) // braces and commas
		for key, e := range x {
			if left < 0 {
				break
			}
			left = fitting(e, left-len(key)-len(`"":`))
		}
		return left
	}
	return -1
}

// fittingList is fitting of a list, fit that of one of its elements.
func fittingList[T any](x []T, left int, fit func(T, int) int) int {
	left -= len("[]") + max(0, len(x)-1) // brackets and commas
	for _, e := range x {
		if left < 0 {
			break
		}
		left = fit(e, left)
	}
	return left
}

// intLen, uintLen and floatLen return the length of x in JSON, as a
// cutter counts it; floatLen is too long for ±Inf and NaN, which a
// cutter converts to their names.
func intLen(x int64) int {
	if x < 0 {
		return 1 + uintLen(-uint64(x))
	}
	return uintLen(uint64(x))
}

func uintLen(x uint64) int {
	n := 1
	for ; x >= 10; x /= 10 {
		n++
	}
	return n
}

func floatLen(x float64) int {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return MaxValueJSON + 1
	}
	var num [32]byte
	return len(strconv.AppendFloat(num[:0], x, 'g', -1, 64))
}

// A cutter keeps the head of one value, walking it in JSON order.
type cutter struct {
	left int    // bytes of JSON still to keep; members are kept while it is positive
	path []byte // JSON Pointer of the value being kept
	cuts []cutAt
	num  [32]byte
}

// value returns what is kept of v, and whether it differs from v.
func (c *cutter) value(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		c.left -= len("null")
	case bool:
		c.left -= len("false")
	case int64:
		c.left -= len(strconv.AppendInt(c.num[:0], x, 10))
	case uint64:
		c.left -= len(strconv.AppendUint(c.num[:0], x, 10))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			name, _ := c.str(fmt.Sprint(x))
			return name, true
		}
		c.left -= len(strconv.AppendFloat(c.num[:0], x, 'g', -1, 64))
	case string:
		return c.str(x)
	case []any:
		return c.members(x, len(x), false, elements(x))
	case []int64: // the typed lists of trace.TypedStates
		return c.members(x, len(x), false, elements(x))
	case []uint64:
		return c.members(x, len(x), false, elements(x))
	case []float64:
		return c.members(x, len(x), false, elements(x))
	case []string:
		return c.members(x, len(x), false, elements(x))
	case map[string]any:
		keys := smallestKeys(x, max(0, c.left)/len(`"":0`)+1) // as many as c.left can hold
		return c.members(x, len(x), true, func(i int) (string, any) { return keys[i], x[keys[i]] })
	case Composite:
		return c.members(nil, x.Len(), x.IsMap(), x.Member)
	default: // no other type is in the representation of package trace
		data, _ := json.Marshal(x)
		c.left -= len(data)
	}
	return v, false
}

// elements returns the member function of list x for cutter.members.
func elements[T any](x []T) func(int) (string, any) {
	return func(i int) (string, any) { return "", x[i] }
}

// str keeps the head of s that c.left holds, cut on a UTF-8 boundary.
func (c *cutter) str(s string) (any, bool) {
	if len(s)+2 <= c.left {
		c.left -= len(s) + 2
		return s, false
	}
	n := max(0, c.left-2)
	for range utf8.UTFMax - 1 {
		if n == 0 || utf8.RuneStart(s[n]) {
			break
		}
		n--
	}
	c.left -= n + 2
	c.record(len(s))
	return strings.Clone(s[:n]), true
}

// members keeps the first members of a list or map of n members while
// c.left is positive, member(i) returning the i-th (a map's in order of
// key) with its key; a map's key is never cut, so a map stops at a key
// longer than c.left, and a member that would be cut with less than
// minCutRoom left is left out. It returns whole if all are kept unchanged, a new
// []any or map[string]any of those kept otherwise; a nil whole (a
// Composite) is always converted.
func (c *cutter) members(whole any, n int, isMap bool, member func(int) (string, any)) (any, bool) {
	var list []any
	var dict map[string]any
	add := func(key string, v any) {
		if isMap {
			dict[key] = v
		} else {
			list = append(list, v)
		}
	}
	built := false // list or dict holds the members kept so far
	build := func(kept int) {
		size := min(n, kept+max(0, c.left)/2+1) // a member takes 2 bytes at least, with its comma
		if isMap {
			dict = make(map[string]any, size)
		} else {
			list = make([]any, 0, size)
		}
		for i := range kept {
			add(member(i))
		}
		built = true
	}
	c.left -= len("[]")
	if whole == nil {
		build(0)
	}
	kept := 0
	for ; kept < n && c.left > 0; kept++ {
		key, e := member(kept)
		if isMap && len(key) >= c.left { // a key is kept whole or not at all
			break
		}
		mark, room, cuts := len(c.path), c.left, len(c.cuts)
		if kept > 0 {
			c.left-- // the comma
		}
		if isMap {
			c.left -= len(key) + len(`"":`)
			c.path = appendToken(append(c.path, '/'), key)
		} else {
			c.path = strconv.AppendInt(append(c.path, '/'), int64(kept), 10)
		}
		v, changed := c.value(e)
		c.path = c.path[:mark]
		if len(c.cuts) > cuts && room < minCutRoom {
			c.cuts = c.cuts[:cuts]
			break
		}
		if changed && !built {
			build(kept)
		}
		if built {
			add(key, v)
		}
	}
	if kept < n {
		c.record(n)
		if !built {
			build(kept)
		}
	}
	switch {
	case !built:
		return whole, false
	case isMap:
		return dict, true
	}
	return list, true
}

// record notes that the value at c.path was cut from its full length n.
func (c *cutter) record(n int) {
	c.cuts = append(c.cuts, cutAt{string(c.path), n})
}

// A cutAt is a value cut: its JSON Pointer and full length.
type cutAt struct {
	path string
	n    int
}

// minCutRoom is the least room, in bytes of JSON, a member of a list or
// map is cut to rather than left out: the first bytes of its last string,
// the first field of its last record, say little and read as data.
const minCutRoom = MaxValueJSON / 16

// smallestKeys returns the first k keys of m in order, or all of them,
// without sorting every key of a large map.
func smallestKeys(m map[string]any, k int) []string {
	if len(m) <= k {
		return slices.Sorted(maps.Keys(m))
	}
	keys := make([]string, 0, k)
	for key := range m {
		if len(keys) == k {
			if key >= keys[k-1] {
				continue
			}
			keys = keys[:k-1]
		}
		i, _ := slices.BinarySearch(keys, key)
		keys = slices.Insert(keys, i, key)
	}
	return keys
}

// appendToken appends key to the JSON Pointer p as its next reference
// token: "~" escaped as "~0", "/" as "~1".
func appendToken(p []byte, key string) []byte {
	for i := range len(key) {
		switch key[i] {
		case '~':
			p = append(p, "~0"...)
		case '/':
			p = append(p, "~1"...)
		default:
			p = append(p, key[i])
		}
	}
	return p
}

// String renders w on one line: the snapshot, the binding, and the values
// of the variables the property mentions, containers as JSON, each cut at
// MaxValueText and saying its full length.
func (w Witness) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "snapshot %d (ts %d)", w.Snapshot, w.TS)
	if len(w.Binding) > 0 {
		b.WriteString(": ")
		b.WriteString(w.formatMap("/binding/", w.Binding))
	}
	if len(w.Values) > 0 {
		b.WriteString("; ")
		b.WriteString(w.formatMap("/values/", w.Values))
	}
	return b.String()
}

// formatMap renders m, the member of w at JSON Pointer prefix, as
// key=value pairs in order of key.
func (w Witness) formatMap(prefix string, m map[string]any) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		var b strings.Builder
		b.WriteString(k)
		b.WriteByte('=')
		t := valueText{b: &b, limit: b.Len() + MaxValueText, path: appendToken([]byte(prefix), k), cut: w.Cut}
		t.value(m[k])
		parts[i] = b.String()
	}
	return strings.Join(parts, " ")
}

// MaxValueText bounds the text of one value in a witness's line, in
// bytes: a value of megabytes (a blob, a long log) is cut, saying how
// long it is, rather than rendered whole, so that a line stays readable
// and its memory proportional to what is shown.
const MaxValueText = 256

// valueText writes a witness's value as JSON to b, cut once b is limit
// bytes long: a long string keeps its head and says its length, a long
// list or map its first members and how many there are. The lengths are
// the full ones the witness's Cut holds for a value it keeps in part.
type valueText struct {
	b     *strings.Builder
	limit int
	path  []byte         // JSON Pointer of the value being written
	cut   map[string]int // Witness.Cut
}

// full returns the full length of the value being written, n long as it
// is kept.
func (t *valueText) full(n int) int {
	if m, ok := t.cut[string(t.path)]; ok {
		return m
	}
	return n
}

// value writes v.
func (t *valueText) value(v any) {
	b := t.b
	switch x := v.(type) {
	case string:
		n := t.full(len(x))
		if n == len(x) && len(x) <= max(0, t.limit-b.Len()) {
			break
		}
		head := strings.ToValidUTF8(x[:min(len(x), max(0, t.limit-b.Len()))], "")
		data, _ := json.Marshal(head)
		b.Write(data[:len(data)-1])
		fmt.Fprintf(b, `…" (%d bytes)`, n)
		return
	case []any:
		if x != nil {
			writeList(t, x)
			return
		}
	case []int64: // the typed lists of trace.TypedStates, as the []any of their elements
		if x != nil {
			writeList(t, x)
			return
		}
	case []uint64:
		if x != nil {
			writeList(t, x)
			return
		}
	case []float64:
		if x != nil {
			writeList(t, x)
			return
		}
	case []string:
		if x != nil {
			writeList(t, x)
			return
		}
	case map[string]any:
		if x == nil {
			break
		}
		b.WriteByte('{')
		keys := slices.Sorted(maps.Keys(x))
		shown := 0
		for _, k := range keys {
			if b.Len() >= t.limit {
				break
			}
			if shown > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(k)
			b.Write(key)
			b.WriteByte(':')
			mark := len(t.path)
			t.path = appendToken(append(t.path, '/'), k)
			t.value(x[k])
			t.path = t.path[:mark]
			shown++
		}
		if n := t.full(len(x)); shown < n {
			fmt.Fprintf(b, "… (%d keys)", n)
		}
		b.WriteByte('}')
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		data = []byte(fmt.Sprint(v))
	}
	b.Write(data)
}

// writeList writes the list x as valueText.value does.
func writeList[T any](t *valueText, x []T) {
	b := t.b
	b.WriteByte('[')
	shown := 0
	for i, e := range x {
		if b.Len() >= t.limit {
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		mark := len(t.path)
		t.path = strconv.AppendInt(append(t.path, '/'), int64(i), 10)
		t.value(e)
		t.path = t.path[:mark]
		shown++
	}
	if n := t.full(len(x)); shown < n {
		fmt.Fprintf(b, "… (%d items)", n)
	}
	b.WriteByte(']')
}
