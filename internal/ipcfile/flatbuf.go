package ipcfile

import (
	"encoding/binary"
	"fmt"
)

// This file checks the FlatBuffers metadata of an Arrow IPC file (the
// footer and each record batch's message) before the Arrow library reads
// it. The generated FlatBuffers accessors trust every offset and length
// they meet: a damaged offset makes them index out of range, a damaged
// vector length makes the Arrow library allocate that many fields, and an
// offset that points back into its own table makes it recurse until the
// stack is exhausted. So every table, vector and string that the Arrow
// library will visit is checked here to lie inside the buffer, nesting is
// limited, and the total size of what the metadata decodes to is limited
// to a small multiple of its own size, which also defeats tables shared
// by many parents (a crafted file can make a field its own grandchild
// 2^30 times over in a few hundred bytes).

// fbuf is a FlatBuffers buffer being checked.
type fbuf struct {
	b      []byte
	budget int // bytes of decoded tables, vectors and strings still allowed
}

// fbError is a problem at a byte offset of a FlatBuffers buffer.
type fbError struct {
	off int
	msg string
}

func (e *fbError) Error() string { return e.msg }

func (f *fbuf) errorf(off int, format string, args ...any) error {
	return &fbError{off: off, msg: fmt.Sprintf(format, args...)}
}

func newFbuf(b []byte) *fbuf {
	return &fbuf{b: b, budget: 4*len(b) + 4096}
}

// charge spends n bytes of the decoding budget.
func (f *fbuf) charge(off, n int) error {
	f.budget -= n
	if f.budget < 0 {
		return f.errorf(off, "metadata decodes to more than %d bytes, far more than its own size (%d bytes): shared or looping tables", 4*len(f.b)+4096, len(f.b))
	}
	return nil
}

// in reports whether [off, off+n) lies inside the buffer.
func (f *fbuf) in(off, n int) bool {
	return off >= 0 && n >= 0 && off <= len(f.b) && n <= len(f.b)-off
}

func (f *fbuf) u32(off int) (int, error) {
	if !f.in(off, 4) {
		return 0, f.errorf(off, "offset %d out of range (metadata of %d bytes)", off, len(f.b))
	}
	return int(binary.LittleEndian.Uint32(f.b[off:])), nil
}

// table is a checked table: pos is its start, vt its vtable, nslots the
// number of field slots the vtable has, size the table's inline size.
type table struct {
	f      *fbuf
	pos    int
	vt     int
	nslots int
	size   int
}

// table checks the table at pos.
func (f *fbuf) table(pos int) (table, error) {
	if !f.in(pos, 4) {
		return table{}, f.errorf(pos, "table at %d out of range (metadata of %d bytes)", pos, len(f.b))
	}
	vt := pos - int(int32(binary.LittleEndian.Uint32(f.b[pos:])))
	if !f.in(vt, 4) {
		return table{}, f.errorf(pos, "vtable of the table at %d out of range", pos)
	}
	vtLen := int(binary.LittleEndian.Uint16(f.b[vt:]))
	size := int(binary.LittleEndian.Uint16(f.b[vt+2:]))
	switch {
	case vtLen < 4 || vtLen%2 != 0 || !f.in(vt, vtLen):
		return table{}, f.errorf(vt, "bad vtable length %d", vtLen)
	case size < 4 || !f.in(pos, size):
		return table{}, f.errorf(pos, "bad table size %d", size)
	}
	if err := f.charge(pos, size); err != nil {
		return table{}, err
	}
	return table{f: f, pos: pos, vt: vt, nslots: (vtLen - 4) / 2, size: size}, nil
}

// field returns the absolute offset of slot i's field of n bytes, or -1
// if the field is absent.
func (t table) field(i, n int) (int, error) {
	if i >= t.nslots {
		return -1, nil
	}
	o := int(binary.LittleEndian.Uint16(t.f.b[t.vt+4+2*i:]))
	if o == 0 {
		return -1, nil
	}
	if o < 4 || o+n > t.size {
		return -1, t.f.errorf(t.pos, "field %d of the table at %d lies outside the table (offset %d, size %d)", i, t.pos, o, t.size)
	}
	return t.pos + o, nil
}

// scalar checks slot i, a scalar of n bytes, and returns its value as
// an unsigned little-endian integer (0 if absent).
func (t table) scalar(i, n int) (uint64, error) {
	off, err := t.field(i, n)
	if err != nil || off < 0 {
		return 0, err
	}
	var v uint64
	for k := n - 1; k >= 0; k-- {
		v = v<<8 | uint64(t.f.b[off+k])
	}
	return v, nil
}

// ref follows slot i, an offset to a table, vector or string, and returns
// the absolute position it points to, or -1 if absent.
func (t table) ref(i int) (int, error) {
	off, err := t.field(i, 4)
	if err != nil || off < 0 {
		return -1, err
	}
	return t.f.follow(off)
}

// follow returns the position that the offset stored at off points to,
// which must lie inside the buffer. Offsets point forward; one that
// seems to point back (or loop) by wrapping around 2^32, as the
// FlatBuffers accessors compute, points outside here.
func (f *fbuf) follow(off int) (int, error) {
	d, err := f.u32(off)
	if err != nil {
		return -1, err
	}
	if !f.in(off+d, 4) {
		return -1, f.errorf(off, "offset %d at %d points outside the metadata (%d bytes)", d, off, len(f.b))
	}
	return off + d, nil
}

// child checks the table that slot i points to; ok is false if absent.
func (t table) child(i int) (c table, ok bool, err error) {
	p, err := t.ref(i)
	if err != nil || p < 0 {
		return table{}, false, err
	}
	c, err = t.f.table(p)
	return c, err == nil, err
}

// vector checks the vector that slot i points to, of elements of elem
// bytes, and returns the offset of its first element and its length.
func (t table) vector(i, elem int) (start, n int, err error) {
	p, err := t.ref(i)
	if err != nil || p < 0 {
		return 0, 0, err
	}
	n, err = t.f.u32(p)
	if err != nil {
		return 0, 0, err
	}
	if n > (len(t.f.b)-p-4)/elem {
		return 0, 0, t.f.errorf(p, "vector of %d elements of %d bytes at %d does not fit in the metadata (%d bytes)", n, elem, p, len(t.f.b))
	}
	if err := t.f.charge(p, 4+n*elem); err != nil {
		return 0, 0, err
	}
	return p + 4, n, nil
}

// tables checks the vector of tables in slot i and returns them.
func (t table) tables(i int) ([]table, error) {
	start, n, err := t.vector(i, 4)
	if err != nil {
		return nil, err
	}
	ts := make([]table, n)
	for k := range ts {
		p, err := t.f.follow(start + 4*k)
		if err != nil {
			return nil, err
		}
		if ts[k], err = t.f.table(p); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

// str checks the string in slot i.
func (t table) str(i int) error {
	_, _, err := t.vector(i, 1)
	return err
}

// keyValues checks a vector of KeyValue tables (custom metadata).
func (t table) keyValues(i int) error {
	kvs, err := t.tables(i)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		if err := kv.str(0); err != nil {
			return err
		}
		if err := kv.str(1); err != nil {
			return err
		}
	}
	return nil
}

// Arrow's FlatBuffers schema (format/Schema.fbs, Message.fbs, File.fbs):
// slot numbers of the tables read here, and the type tags accepted.
const (
	footerVersion, footerSchema, footerDictionaries, footerRecordBatches, footerMetadata = 0, 1, 2, 3, 4
	schemaEndianness, schemaFields, schemaMetadata, schemaFeatures                       = 0, 1, 2, 3
	fieldName, fieldNullable, fieldTypeType, fieldType, fieldDictionary, fieldChildren   = 0, 1, 2, 3, 4, 5
	fieldMetadata                                                                        = 6
	messageVersion, messageHeaderType, messageHeader, messageBodyLength, messageMeta     = 0, 1, 2, 3, 4
	batchLength, batchNodes, batchBuffers, batchCompression, batchVariadic               = 0, 1, 2, 3, 4

	blockSize  = 24 // struct Block { offset: long; metaDataLength: int; bodyLength: long }
	nodeSize   = 16 // struct FieldNode { length: long; null_count: long }
	bufferSize = 16 // struct Buffer { offset: long; length: long }

	headerRecordBatch = 3 // MessageHeader.RecordBatch
)

// Type tags of Schema.fbs's Type union.
const (
	typeInt           = 2
	typeFloatingPoint = 3
	typeBinary        = 4
	typeUtf8          = 5
	typeBool          = 6
	typeList          = 12
	typeStruct        = 13
	typeMap           = 17
)

var typeNames = [...]string{"NONE", "Null", "Int", "FloatingPoint", "Binary", "Utf8", "Bool", "Decimal",
	"Date", "Time", "Timestamp", "Interval", "List", "Struct", "Union", "FixedSizeBinary", "FixedSizeList",
	"Map", "Duration", "LargeBinary", "LargeUtf8", "LargeList", "RunEndEncoded", "BinaryView", "Utf8View",
	"ListView", "LargeListView"}

func typeName(tag uint64) string {
	if tag < uint64(len(typeNames)) {
		return typeNames[tag]
	}
	return fmt.Sprintf("#%d", tag)
}

// footer is what checkFooter learns from a footer.
type footer struct {
	blocks []block
}

// block is one record batch's place in the file.
type block struct {
	offset int64
	meta   int64
	body   int64
}

// checkFooter checks the footer flatbuffer and the schema in it, with
// fields nested at most maxDepth deep.
func checkFooter(b []byte, maxDepth int) (*footer, error) {
	f := newFbuf(b)
	root, err := f.follow(0)
	if err != nil {
		return nil, err
	}
	ft, err := f.table(root)
	if err != nil {
		return nil, err
	}
	if _, err := ft.scalar(footerVersion, 2); err != nil {
		return nil, err
	}
	schema, ok, err := ft.child(footerSchema)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, f.errorf(root, "footer has no schema")
	}
	if err := checkSchema(schema, maxDepth); err != nil {
		return nil, err
	}
	_, n, err := ft.vector(footerDictionaries, blockSize)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		return nil, f.errorf(root, "the file has %d dictionary batches; dictionary encoding is not part of this format", n)
	}
	start, n, err := ft.vector(footerRecordBatches, blockSize)
	if err != nil {
		return nil, err
	}
	out := &footer{blocks: make([]block, n)}
	for i := range out.blocks {
		p := start + i*blockSize
		out.blocks[i] = block{
			offset: int64(binary.LittleEndian.Uint64(b[p:])),
			meta:   int64(int32(binary.LittleEndian.Uint32(b[p+8:]))),
			body:   int64(binary.LittleEndian.Uint64(b[p+16:])),
		}
	}
	if err := ft.keyValues(footerMetadata); err != nil {
		return nil, err
	}
	return out, nil
}

func checkSchema(s table, maxDepth int) error {
	end, err := s.scalar(schemaEndianness, 2)
	if err != nil {
		return err
	}
	if end != 0 {
		return s.f.errorf(s.pos, "the schema is big-endian; only little-endian files are read")
	}
	fields, err := s.tables(schemaFields)
	if err != nil {
		return err
	}
	for _, fd := range fields {
		if err := checkField(fd, 1, maxDepth); err != nil {
			return err
		}
	}
	if err := s.keyValues(schemaMetadata); err != nil {
		return err
	}
	_, _, err = s.vector(schemaFeatures, 8)
	return err
}

func checkField(fd table, depth, maxDepth int) error {
	f := fd.f
	if depth > maxDepth {
		return f.errorf(fd.pos, "types nest more than %d deep", maxDepth)
	}
	if err := fd.str(fieldName); err != nil {
		return err
	}
	if _, err := fd.scalar(fieldNullable, 1); err != nil {
		return err
	}
	if p, err := fd.ref(fieldDictionary); err != nil || p >= 0 {
		if err == nil {
			err = f.errorf(fd.pos, "a field is dictionary-encoded; dictionary encoding is not part of this format")
		}
		return err
	}
	tag, err := fd.scalar(fieldTypeType, 1)
	if err != nil {
		return err
	}
	ty, ok, err := fd.child(fieldType)
	if err != nil {
		return err
	}
	if !ok {
		return f.errorf(fd.pos, "a field has no type")
	}
	children, err := fd.tables(fieldChildren)
	if err != nil {
		return err
	}
	want := 0 // children the type must have; -1 for any number
	switch tag {
	case typeInt:
		bits, err := ty.scalar(0, 4)
		if err != nil {
			return err
		}
		if _, err := ty.scalar(1, 1); err != nil {
			return err
		}
		if bits != 8 && bits != 16 && bits != 32 && bits != 64 {
			return f.errorf(ty.pos, "integer of %d bits", bits)
		}
	case typeFloatingPoint:
		prec, err := ty.scalar(0, 2)
		if err != nil {
			return err
		}
		if prec > 2 {
			return f.errorf(ty.pos, "floating-point precision %d", prec)
		}
	case typeBinary, typeUtf8, typeBool:
	case typeList, typeMap:
		if _, err := ty.scalar(0, 1); err != nil { // Map.keysSorted
			return err
		}
		want = 1
	case typeStruct:
		want = -1
	default:
		return f.errorf(fd.pos, "a field of type %s, which is not part of this format", typeName(tag))
	}
	if want >= 0 && len(children) != want {
		return f.errorf(fd.pos, "a %s field has %d children, want %d", typeName(tag), len(children), want)
	}
	for _, c := range children {
		if err := checkField(c, depth+1, maxDepth); err != nil {
			return err
		}
	}
	return fd.keyValues(fieldMetadata)
}

// message is what checkMessage learns from a record batch's message.
type message struct {
	length     int64
	body       int64 // bytes of the body
	nodes      []fieldNode
	buffers    []bufferSpan
	compressed bool
}

type fieldNode struct{ length, nulls int64 }

type bufferSpan struct{ offset, length int64 }

// checkMessage checks the flatbuffer of a record batch message whose body
// has bodyLen bytes, or, if bodyLen is negative (a stream has no footer
// to say), as many as the message says.
func checkMessage(b []byte, bodyLen int64) (*message, error) {
	f := newFbuf(b)
	root, err := f.follow(0)
	if err != nil {
		return nil, err
	}
	mt, err := f.table(root)
	if err != nil {
		return nil, err
	}
	if _, err := mt.scalar(messageVersion, 2); err != nil {
		return nil, err
	}
	kind, err := mt.scalar(messageHeaderType, 1)
	if err != nil {
		return nil, err
	}
	if kind != headerRecordBatch {
		return nil, f.errorf(root, "message of kind %d where a record batch (%d) belongs", kind, headerRecordBatch)
	}
	bl, err := mt.scalar(messageBodyLength, 8)
	if err != nil {
		return nil, err
	}
	switch {
	case bodyLen < 0 && int64(bl) < 0:
		return nil, f.errorf(root, "message says its body has %d bytes", int64(bl))
	case bodyLen < 0:
		bodyLen = int64(bl)
	case int64(bl) != bodyLen:
		return nil, f.errorf(root, "message says its body has %d bytes, the footer says %d", int64(bl), bodyLen)
	}
	if err := mt.keyValues(messageMeta); err != nil {
		return nil, err
	}
	rb, ok, err := mt.child(messageHeader)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, f.errorf(root, "message has no header")
	}
	length, err := rb.scalar(batchLength, 8)
	if err != nil {
		return nil, err
	}
	m := &message{length: int64(length), body: bodyLen}
	if m.length < 0 {
		return nil, f.errorf(rb.pos, "record batch of %d rows", m.length)
	}
	start, n, err := rb.vector(batchNodes, nodeSize)
	if err != nil {
		return nil, err
	}
	m.nodes = make([]fieldNode, n)
	for i := range m.nodes {
		p := start + i*nodeSize
		nd := fieldNode{int64(binary.LittleEndian.Uint64(b[p:])), int64(binary.LittleEndian.Uint64(b[p+8:]))}
		if nd.length < 0 || nd.nulls < 0 || nd.nulls > nd.length {
			return nil, f.errorf(p, "array of %d values with %d nulls", nd.length, nd.nulls)
		}
		m.nodes[i] = nd
	}
	start, n, err = rb.vector(batchBuffers, bufferSize)
	if err != nil {
		return nil, err
	}
	m.buffers = make([]bufferSpan, n)
	for i := range m.buffers {
		p := start + i*bufferSize
		bs := bufferSpan{int64(binary.LittleEndian.Uint64(b[p:])), int64(binary.LittleEndian.Uint64(b[p+8:]))}
		if bs.offset < 0 || bs.length < 0 || bs.offset > bodyLen || bs.length > bodyLen-bs.offset {
			return nil, f.errorf(p, "buffer %d at %d of %d bytes lies outside the body of %d bytes", i, bs.offset, bs.length, bodyLen)
		}
		m.buffers[i] = bs
	}
	comp, ok, err := rb.child(batchCompression)
	if err != nil {
		return nil, err
	}
	if ok {
		codec, err := comp.scalar(0, 1)
		if err != nil {
			return nil, err
		}
		method, err := comp.scalar(1, 1)
		if err != nil {
			return nil, err
		}
		if codec > 1 || method != 0 { // LZ4_FRAME or ZSTD, per buffer
			return nil, f.errorf(comp.pos, "unknown compression (codec %d, method %d)", codec, method)
		}
		m.compressed = true
	}
	if _, n, err := rb.vector(batchVariadic, 8); err != nil || n > 0 {
		if err == nil {
			err = f.errorf(rb.pos, "variadic buffers (view types) are not part of this format")
		}
		return nil, err
	}
	return m, nil
}
