package collector

import (
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// field returns the value of field f of struct value v.
func (f *structField) field(v reflect.Value) reflect.Value {
	if len(f.index) == 1 {
		return v.Field(f.index[0])
	}
	return v.FieldByIndex(f.index)
}

// timeOf returns the time.Time in v without allocating when v is
// addressable.
func timeOf(v reflect.Value) time.Time {
	if v.CanAddr() {
		return *v.Addr().Interface().(*time.Time)
	}
	return v.Interface().(time.Time)
}

// validString replaces invalid UTF-8, which a trace's utf8 may not hold.
func validString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// mapKeys returns the keys of map value v as strings, sorted, with the
// reflect keys in the same order.
func (c *codec) mapKeys(v reflect.Value) ([]string, []reflect.Value) {
	keys := v.MapKeys()
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = c.keyString(k)
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	sn, sk := make([]string, len(keys)), make([]reflect.Value, len(keys))
	for i, o := range order {
		sn[i], sk[i] = names[o], keys[o]
	}
	return sn, sk
}

func (c *codec) keyString(k reflect.Value) string {
	if !c.keyInt {
		return validString(k.String())
	}
	if k.CanInt() {
		return strconv.FormatInt(k.Int(), 10)
	}
	return strconv.FormatUint(k.Uint(), 10)
}

// stringOf calls the String method of v; a nil pointer has none.
func stringOf(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		if v.IsNil() {
			return "", false
		}
	}
	return validString(v.Interface().(fmt.Stringer).String()), true
}

func bytesHex(v reflect.Value) string {
	if v.Kind() == reflect.Slice {
		return hex.EncodeToString(v.Bytes())
	}
	if v.CanAddr() {
		return hex.EncodeToString(v.Bytes())
	}
	b := make([]byte, v.Len())
	for i := range b {
		b[i] = byte(v.Index(i).Uint())
	}
	return hex.EncodeToString(b)
}

// value returns v in the representation of package trace.
func (c *codec) value(v reflect.Value) any {
	switch c.kind {
	case codecBool:
		return v.Bool()
	case codecInt:
		return v.Int()
	case codecSmallUint:
		return int64(v.Uint())
	case codecUint:
		return v.Uint()
	case codecFloat:
		return v.Float()
	case codecString:
		return validString(v.String())
	case codecBytes:
		return bytesHex(v)
	case codecTime:
		tm := timeOf(v)
		if tm.IsZero() {
			return nil
		}
		return tm.UnixNano()
	case codecStringer:
		if s, ok := stringOf(v); ok {
			return s
		}
		return nil
	case codecPtr:
		if v.IsNil() {
			return nil
		}
		return c.elem.value(v.Elem())
	case codecList:
		l := make([]any, v.Len())
		for i := range l {
			l[i] = c.elem.value(v.Index(i))
		}
		return l
	case codecMap:
		m := make(map[string]any, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			m[c.keyString(iter.Key())] = c.elem.value(iter.Value())
		}
		return m
	case codecStruct:
		m := make(map[string]any, len(c.fields))
		for i := range c.fields {
			f := &c.fields[i]
			m[f.name] = f.c.value(f.field(v))
		}
		return m
	}
	panic(fmt.Sprintf("collector: value of codec kind %d", c.kind))
}
