package ipcfile

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// nodeKind is one array of a record batch as the schema lays it out: the
// buffers that follow its validity bitmap.
type nodeKind struct {
	top     bool // a column, whose length is the batch's
	bits    bool // values are a bitmap (bool)
	width   int  // bytes per value of a fixed-width array; 0 if none
	offsets bool // an offsets buffer of int32 (utf8, binary, list, map)
	data    bool // a buffer of bytes after the offsets (utf8, binary)
}

func (k nodeKind) buffers() int {
	n := 1 // validity
	if k.bits || k.width > 0 {
		n++
	}
	if k.offsets {
		n++
	}
	if k.data {
		n++
	}
	return n
}

// layoutOf lists the arrays of a record batch of schema s, depth first,
// as the IPC format orders its field nodes.
func layoutOf(s *arrow.Schema) ([]nodeKind, error) {
	var out []nodeKind
	var walk func(t arrow.DataType, top bool) error
	walk = func(t arrow.DataType, top bool) error {
		k := nodeKind{top: top}
		var children []arrow.DataType
		switch t := t.(type) {
		case *arrow.BooleanType:
			k.bits = true
		case arrow.FixedWidthDataType:
			if t.BitWidth()%8 != 0 {
				return fmt.Errorf("type %s is not part of this format", t)
			}
			k.width = t.BitWidth() / 8
		case *arrow.StringType, *arrow.BinaryType:
			k.offsets, k.data = true, true
		case *arrow.ListType:
			k.offsets = true
			children = []arrow.DataType{t.Elem()}
		case *arrow.MapType:
			k.offsets = true
			children = []arrow.DataType{t.Elem()}
		case *arrow.StructType:
			for _, f := range t.Fields() {
				children = append(children, f.Type)
			}
		default:
			return fmt.Errorf("type %s is not part of this format", t)
		}
		out = append(out, k)
		for _, c := range children {
			if err := walk(c, false); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range s.Fields() {
		if err := walk(f.Type, true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkLayout checks that m has the arrays and buffers that a schema of
// the given layout calls for, that columns are as long as the batch and,
// when the buffers are not compressed, that they are large enough for the
// lengths claimed.
func checkLayout(layout []nodeKind, m *message) error {
	nbuf := 0
	for _, k := range layout {
		nbuf += k.buffers()
	}
	if len(m.nodes) != len(layout) || len(m.buffers) != nbuf {
		return fmt.Errorf("%d arrays and %d buffers, the schema calls for %d and %d", len(m.nodes), len(m.buffers), len(layout), nbuf)
	}
	b := 0
	for i, k := range layout {
		nd := m.nodes[i]
		if k.top && nd.length != m.length {
			return fmt.Errorf("a column of %d rows in a batch of %d", nd.length, m.length)
		}
		bufs := m.buffers[b : b+k.buffers()]
		b += k.buffers()
		if m.compressed {
			continue
		}
		n := nd.length
		need := func(buf bufferSpan, what string, perValue, extra int64) error {
			// buf.length >= perValue*n + extra, without overflow.
			if perValue > 0 && (buf.length-extra < 0 || (buf.length-extra)/perValue < n) {
				return fmt.Errorf("%s buffer of %d bytes for %d values", what, buf.length, n)
			}
			return nil
		}
		bitmap := func(buf bufferSpan, what string) error {
			if n > 0 && buf.length < (n-1)/8+1 {
				return fmt.Errorf("%s bitmap of %d bytes for %d values", what, buf.length, n)
			}
			return nil
		}
		if nd.nulls > 0 {
			if err := bitmap(bufs[0], "validity"); err != nil {
				return err
			}
		}
		j := 1
		switch {
		case k.bits:
			if err := bitmap(bufs[j], "value"); err != nil {
				return err
			}
			j++
		case k.width > 0:
			if err := need(bufs[j], "value", int64(k.width), 0); err != nil {
				return err
			}
			j++
		}
		if k.offsets && n > 0 {
			if err := need(bufs[j], "offsets", 4, 4); err != nil {
				return err
			}
		}
	}
	return nil
}
