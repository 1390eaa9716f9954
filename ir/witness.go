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
		data, err := json.Marshal(m[k])
		if err != nil {
			data = []byte(fmt.Sprint(m[k]))
		}
		parts[i] = k + "=" + string(data)
	}
	return strings.Join(parts, " ")
}
