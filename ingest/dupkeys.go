package ingest

import (
	"encoding/json"
	"slices"
	"strings"
)

// duplicateKey finds the first key that appears twice in one object of
// line, which must be valid JSON: encoding/json would keep the last value
// and silently drop the first (a node's state, say). It returns the byte
// offset of the second key and the path of its value (nodes.n1), or -1.
func duplicateKey(line string) (int, string) {
	// One frame per open object or array: the current key or index and,
	// for an object, where its keys start in keys; an object of many keys
	// also gets a set of them.
	type frame struct {
		obj       bool
		key       string
		idx       int
		expectKey bool
		first     int
		set       map[string]bool
	}
	const maxScan = 16 // keys compared one by one before a set is made
	var (
		stack []frame
		keys  []string
	)
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '{':
			stack = append(stack, frame{obj: true, expectKey: true, first: len(keys)})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			if top := stack[len(stack)-1]; top.obj {
				keys = keys[:top.first]
			}
			stack = stack[:len(stack)-1]
		case ',':
			if top := &stack[len(stack)-1]; top.obj {
				top.expectKey = true
			} else {
				top.idx++
			}
		case '"':
			start := i
			for i++; line[i] != '"'; i++ {
				if line[i] == '\\' {
					i++
				}
			}
			if len(stack) == 0 || !stack[len(stack)-1].expectKey {
				continue // the line is a string, or a value
			}
			top := &stack[len(stack)-1]
			key := line[start+1 : i]
			if strings.IndexByte(key, '\\') >= 0 {
				json.Unmarshal([]byte(line[start:i+1]), &key) // valid JSON: no error
			}
			top.expectKey, top.key = false, key
			own := keys[top.first:]
			dup := top.set[key]
			if top.set == nil {
				dup = slices.Contains(own, key)
			}
			if dup {
				path := make([]seg, len(stack))
				for j, f := range stack {
					path[j] = seg{key: f.key, idx: -1}
					if !f.obj {
						path[j].idx = f.idx
					}
				}
				return start, fieldPath(path)
			}
			switch {
			case top.set != nil:
				top.set[key] = true
			case len(own) == maxScan:
				top.set = make(map[string]bool, 2*maxScan)
				for _, k := range own {
					top.set[k] = true
				}
				top.set[key] = true
			}
			keys = append(keys, key)
		}
	}
	return -1, ""
}
