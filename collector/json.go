package collector

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// notFinite is the error of appendJSON for a NaN or an infinity, which
// JSON cannot hold. path is filled in on the way up.
type notFinite struct {
	path string
	f    float64
}

func (e *notFinite) Error() string {
	return fmt.Sprintf("collector: field %s: %v cannot be written as JSON", e.path, e.f)
}

// under prefixes the path of a *notFinite with name.
func under(err error, name string) error {
	if e, ok := err.(*notFinite); ok {
		if e.path == "" {
			e.path = name
		} else {
			e.path = name + "." + e.path
		}
	}
	return err
}

// appendJSON appends v as JSON. JSON has no NaN or infinities: strictly
// they are a *notFinite error; for a key (a canonical encoding compared
// for equality only) they are written as strings.
func (c *codec) appendJSON(b []byte, v reflect.Value, key bool) ([]byte, error) {
	switch c.kind {
	case codecBool:
		return strconv.AppendBool(b, v.Bool()), nil
	case codecInt:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case codecSmallUint, codecUint:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case codecFloat:
		return appendJSONFloat(b, v.Float(), key)
	case codecString:
		return appendJSONString(b, v.String()), nil
	case codecBytes:
		return appendJSONString(b, bytesHex(v)), nil
	case codecTime:
		tm := timeOf(v)
		if tm.IsZero() {
			return append(b, "null"...), nil
		}
		return strconv.AppendInt(b, tm.UnixNano(), 10), nil
	case codecStringer:
		if s, ok := stringOf(v); ok {
			return appendJSONString(b, s), nil
		}
		return append(b, "null"...), nil
	case codecPtr:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return c.elem.appendJSON(b, v.Elem(), key)
	case codecList:
		b = append(b, '[')
		var err error
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = c.elem.appendJSON(b, v.Index(i), key); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case codecMap:
		b = append(b, '{')
		names, keys := c.mapKeys(v)
		var err error
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, names[i])
			b = append(b, ':')
			if b, err = c.elem.appendJSON(b, v.MapIndex(k), key); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case codecStruct:
		b = append(b, '{')
		var err error
		for i := range c.fields {
			f := &c.fields[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, f.name)
			b = append(b, ':')
			if b, err = f.c.appendJSON(b, f.field(v), key); err != nil {
				return b, under(err, f.name)
			}
		}
		return append(b, '}'), nil
	}
	panic(fmt.Sprintf("collector: appendJSON of codec kind %d", c.kind))
}

// appendJSONFloat writes f so that it reads back as a float: with a
// fraction or an exponent, never as an integer.
func appendJSONFloat(b []byte, f float64, key bool) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if key {
			return strconv.AppendQuote(b, strconv.FormatFloat(f, 'g', -1, 64)), nil
		}
		return b, &notFinite{f: f}
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	for _, c := range b[n:] {
		if c == '.' || c == 'e' {
			return b, nil
		}
	}
	return append(b, ".0"...), nil
}

// appendJSONString writes s as a JSON string; invalid UTF-8 becomes
// U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
