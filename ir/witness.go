package ir

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Witness is one violating binding of a property: the snapshot, the
// binding of the property's variables, and the values of the paths it
// reads there, in the representation of package trace. Both engines and
// the live checker report it.
type Witness struct {
	Snapshot uint64         `json:"snapshot"`
	TS       uint64         `json:"ts"`
	Binding  map[string]any `json:"binding"` // node variables → node name, iterator variables → element
	Values   map[string]any `json:"values"`  // each path of the property → its value
}

// String renders w on one line: the snapshot, the binding, and the values
// of the variables the property mentions, containers as JSON.
func (w Witness) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "snapshot %d (ts %d)", w.Snapshot, w.TS)
	if len(w.Binding) > 0 {
		b.WriteString(": ")
		b.WriteString(formatMap(w.Binding))
	}
	if len(w.Values) > 0 {
		b.WriteString("; ")
		b.WriteString(formatMap(w.Values))
	}
	return b.String()
}

func formatMap(m map[string]any) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		var b strings.Builder
		b.WriteString(k)
		b.WriteByte('=')
		writeValue(&b, m[k], b.Len()+MaxValueText)
		parts[i] = b.String()
	}
	return strings.Join(parts, " ")
}

// MaxValueText bounds the text of one value in a witness's line, in
// bytes: a value of megabytes (a blob, a long log) is cut, saying how
// long it is, rather than rendered whole, so that a line stays readable
// and its memory proportional to what is shown.
const MaxValueText = 256

// writeValue writes v as JSON to b, cut once b is limit bytes long: a
// long string keeps its head and says its length, a long list or map its
// first members and how many there are.
func writeValue(b *strings.Builder, v any, limit int) {
	switch x := v.(type) {
	case string:
		if len(x) <= max(0, limit-b.Len()) {
			break
		}
		head := strings.ToValidUTF8(x[:max(0, limit-b.Len())], "")
		data, _ := json.Marshal(head)
		b.Write(data[:len(data)-1])
		fmt.Fprintf(b, `…" (%d bytes)`, len(x))
		return
	case []any:
		if x != nil {
			writeList(b, x, limit)
			return
		}
	case []int64: // the typed lists of trace.TypedStates, as the []any of their elements
		if x != nil {
			writeList(b, x, limit)
			return
		}
	case []uint64:
		if x != nil {
			writeList(b, x, limit)
			return
		}
	case []float64:
		if x != nil {
			writeList(b, x, limit)
			return
		}
	case []string:
		if x != nil {
			writeList(b, x, limit)
			return
		}
	case map[string]any:
		if x == nil {
			break
		}
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if b.Len() >= limit {
				fmt.Fprintf(b, "… (%d keys)", len(x))
				break
			}
			if i > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(k)
			b.Write(key)
			b.WriteByte(':')
			writeValue(b, x[k], limit)
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

// writeList writes the list x as writeValue does.
func writeList[T any](b *strings.Builder, x []T, limit int) {
	b.WriteByte('[')
	for i, e := range x {
		if b.Len() >= limit {
			fmt.Fprintf(b, "… (%d items)", len(x))
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		writeValue(b, e, limit)
	}
	b.WriteByte(']')
}
