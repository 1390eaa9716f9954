package ingest

import (
	"bytes"
	"encoding/json"
	"slices"
)

// duplicateKey finds the first key that appears twice in one object of
// line, which must be valid JSON: encoding/json would keep the last value
// and silently drop the first (a node's state, say). It returns the byte
// offset of the second key and the path of its value (nodes.n1), or -1.
func duplicateKey(line []byte) (int, string) {
	// One frame per open object or array: the current key or index and,
	// for an object, where its keys start in keys; an object of many keys
	// also gets a set of them.
	type frame struct {
		obj       bool
		key       []byte
		idx       int
		expectKey bool
		first     int
		set       map[string]bool
	}
	const maxScan = 16 // keys compared one by one before a set is made
	var (
		stack []frame
		keys  [][]byte
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
			if bytes.IndexByte(key, '\\') >= 0 {
				var s string
				json.Unmarshal(line[start:i+1], &s) // valid JSON: no error
				key = []byte(s)
			}
			top.expectKey, top.key = false, key
			own := keys[top.first:]
			dup := top.set[string(key)]
			if top.set == nil {
				dup = slices.ContainsFunc(own, func(k []byte) bool { return bytes.Equal(k, key) })
			}
			if dup {
				path := make([]seg, len(stack))
				for j, f := range stack {
					path[j] = seg{key: string(f.key), idx: -1}
					if !f.obj {
						path[j].idx = f.idx
					}
				}
				return start, fieldPath(path)
			}
			switch {
			case top.set != nil:
				top.set[string(key)] = true
			case len(own) == maxScan:
				top.set = make(map[string]bool, 2*maxScan)
				for _, k := range own {
					top.set[string(k)] = true
				}
				top.set[string(key)] = true
			}
			keys = append(keys, key)
		}
	}
	return -1, ""
}
