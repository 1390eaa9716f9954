package collector

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

// defaultWindow is the out-of-order window of an input, in records.
const defaultWindow = 4096

// maxWarnings bounds Result.Warnings; Result.Skipped counts them all.
const maxWarnings = 100

// inputKind is what an input file holds.
type inputKind uint8

const (
	inputInvalid inputKind = iota
	inputEmpty             // nothing but blank lines
	inputGlobal            // global-snapshot JSONL
	inputLocal             // node-local JSONL
	inputArrow             // node-local Arrow IPC stream
	inputUnknown           // JSONL whose first line is not a JSON object: read in the mode of the others
)

// sniff tells the kind of an input from its first bytes or its first
// non-blank line. An input whose first line is not a JSON object is read
// in the mode of the others, whose reader reports the line.
func sniff(name string) (inputKind, error) {
	f, err := os.Open(name)
	if err != nil {
		return inputInvalid, &Error{File: name, Msg: "open input", Err: unwrapPathError(err)}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(8)
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}):
		return inputArrow, nil
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return inputInvalid, &Error{File: name, Msg: "an Arrow IPC file; node-local Arrow input is the stream format written by collector.ArrowSink"}
	}
	lr := newLineReader(name, br)
	for {
		line, err := lr.next()
		if err == io.EOF {
			return inputEmpty, nil
		}
		if err != nil {
			return inputInvalid, err
		}
		if isBlank(line) {
			continue
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(line, &probe) != nil {
			return inputUnknown, nil
		}
		_, local := probe["node"]
		_, global := probe["nodes"]
		if local && !global {
			return inputLocal, nil
		}
		return inputGlobal, nil
	}
}

// Collect reads the inputs and writes the trace directory out. The
// inputs are all global-snapshot JSONL, read by [CollectJSONL], or all
// node-local: JSONL files and Arrow streams of an [ArrowSink] (one or
// several nodes per file, each node in one file), whose snapshots are
// built as the package comment describes. Errors about the input are
// [*Error]s; after any error nothing is left at out.
func Collect(out string, inputs []string, opts Options) (*Result, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("collect %s: no input files", out)
	}
	kinds := make([]inputKind, len(inputs))
	global, local := -1, -1
	for i, in := range inputs {
		k, err := sniff(in)
		if err != nil {
			return nil, err
		}
		kinds[i] = k
		switch k {
		case inputGlobal:
			if global < 0 {
				global = i
			}
		case inputLocal, inputArrow:
			if local < 0 {
				local = i
			}
		}
	}
	if local < 0 {
		return CollectJSONL(out, inputs, opts)
	}
	for i, k := range kinds {
		if k == inputUnknown {
			kinds[i] = inputLocal
		}
	}
	if global >= 0 {
		return nil, &Error{File: inputs[global], Msg: fmt.Sprintf("global-snapshot input, but %s is node-local (all inputs must be one mode)", inputs[local])}
	}
	return collectLocal(out, inputs, kinds, opts)
}

// A localNode is what the builder knows of a node.
type localNode struct {
	name  string
	src   *source
	first string // position of its first record, for errors

	// Reading side.
	read     bool
	lastRead uint64 // ts of the last record read
	buffered int    // records read and not yet applied

	// Applied side.
	lastTS   uint64 // ts of the last record applied
	hasState bool   // it has exposed a state since it last left
	row      uint32 // its current state

	// Pending cuts in [lagStart, lagEnd] wait for its next record;
	// lagStart < 0 when none do.
	lagStart, lagEnd int
}

// A localRecord is a node-local record read from an input.
type localRecord struct {
	node  *localNode
	name  string
	ts    uint64
	event Event
	vars  []any // EventState: one value per output column
	seq   int   // read order within its source
	at    pos   // JSONL line
	off   int64 // Arrow: offset of the record batch
	row   int   // Arrow: row in the batch
}

// A source is one input file and its reorder buffer.
type source struct {
	idx   int
	name  string
	jsonl *localLines
	arrow *StreamReader
	cols  []int // Arrow: the output column of each stream column

	buf        reorder
	eof        bool
	lastPopped uint64
	seq        int
	nodes      []*localNode
}

// A reorder buffer holds the records read from a source and not yet
// applied, and gives them back in order of ts, then of reading. While the
// source arrives in order, as one written by a single node does, it is a
// FIFO; it becomes a heap when a record arrives out of order, until it
// drains.
type reorder struct {
	recs recordHeap
	head int  // FIFO: the first record
	heap bool // recs is a heap
}

func (q *reorder) len() int { return len(q.recs) - q.head }

// min returns the next record without removing it.
func (q *reorder) min() *localRecord { return q.recs[q.head] }

func (q *reorder) push(r *localRecord) {
	if !q.heap {
		n := len(q.recs)
		if n == q.head || !q.recs.before(r, q.recs[n-1]) {
			if n == cap(q.recs) && q.head > 0 {
				m := copy(q.recs, q.recs[q.head:])
				clear(q.recs[m:])
				q.recs, q.head = q.recs[:m], 0
			}
			q.recs = append(q.recs, r)
			return
		}
		m := copy(q.recs, q.recs[q.head:])
		clear(q.recs[m:])
		q.recs, q.head, q.heap = q.recs[:m], 0, true
		heap.Init(&q.recs)
	}
	heap.Push(&q.recs, r)
}

func (q *reorder) pop() *localRecord {
	if q.heap {
		r := heap.Pop(&q.recs).(*localRecord)
		q.heap = len(q.recs) > 0
		return r
	}
	r := q.recs[q.head]
	q.recs[q.head] = nil
	q.head++
	if q.head == len(q.recs) {
		q.recs, q.head = q.recs[:0], 0
	}
	return r
}

// recordHeap orders the buffered records of a source by ts, then by read
// order.
type recordHeap []*localRecord

func (h recordHeap) before(a, b *localRecord) bool {
	return a.ts < b.ts || a.ts == b.ts && a.seq < b.seq
}

func (h recordHeap) Len() int           { return len(h) }
func (h recordHeap) Less(i, j int) bool { return h.before(h[i], h[j]) }
func (h recordHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *recordHeap) Push(x any)        { *h = append(*h, x.(*localRecord)) }
func (h *recordHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return r
}

// sourceHeap orders the sources with buffered records by their next
// record, then by input order.
type sourceHeap []*source

func (h sourceHeap) Len() int { return len(h) }
func (h sourceHeap) Less(i, j int) bool {
	a, b := h[i].buf.min(), h[j].buf.min()
	return a.ts < b.ts || a.ts == b.ts && h[i].idx < h[j].idx
}
func (h sourceHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sourceHeap) Push(x any)   { *h = append(*h, x.(*source)) }
func (h *sourceHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}

// A pendingCut is a cut that waits for the next record of a node.
type pendingCut struct {
	seq        int
	ts         uint64
	members    []uint32
	incomplete bool
}

// A builder builds the snapshots of node-local records.
type builder struct {
	opts   Options
	window int
	out    string
	res    *Result

	sw      *snapshotWriter
	nodes   map[string]*localNode
	order   []*localNode // in order of first appearance
	srcs    []*source
	ready   sourceHeap
	lagging []*localNode

	pending []pendingCut
	seq     int // cuts made
	members []uint32
	prev    []uint32 // members of the last snapshot written
	wrote   bool

	skip map[pos]bool // JSONL lines skipped by the first pass
}

// skipped counts a bad record under Lenient, or returns it as the error.
func (b *builder) skipped(err error) error {
	if !b.opts.Lenient {
		return err
	}
	b.res.Skipped++
	b.warn(err)
	return nil
}

func (b *builder) warn(err error) {
	if len(b.res.Warnings) < maxWarnings {
		b.res.Warnings = append(b.res.Warnings, err)
	}
}

func collectLocal(out string, inputs []string, kinds []inputKind, opts Options) (*Result, error) {
	if err := checkOutput(out, opts.Overwrite); err != nil {
		return nil, err
	}
	if err := checkSchema(opts.Schema); err != nil {
		return nil, fmt.Errorf("collect %s: %w", out, err)
	}
	b := &builder{opts: opts, window: opts.Window, out: out, res: &Result{}, nodes: map[string]*localNode{}, skip: map[pos]bool{}}
	if b.window <= 0 {
		b.window = defaultWindow
	}
	defer b.close()
	schema, inferred, err := b.open(inputs, kinds)
	if err != nil {
		return nil, err
	}
	w, err := trace.Create(out, schema, opts.traceOptions(out))
	if err != nil {
		return nil, fmt.Errorf("collect %s: %w", out, err)
	}
	b.sw = newSnapshotWriter(w, schema, inferred)
	if err := b.run(); err != nil {
		w.Abort()
		return nil, err
	}
	if b.res.Snapshots == 0 {
		// The first cut is always complete: the nodes live there exposed
		// a state at that time.
		w.Abort()
		return nil, fmt.Errorf("collect %s: no states in %s", out, strings.Join(inputs, ", "))
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("collect %s: %w", out, err)
	}
	b.res.States = w.States()
	b.res.Nodes = len(b.sw.last)
	b.res.Schema = schema
	return b.res, nil
}

// open opens the inputs and settles the schema: the given one, or the
// types inferred from the JSONL inputs (a first pass over them) merged
// with the columns of the Arrow streams.
func (b *builder) open(inputs []string, kinds []inputKind) (trace.Schema, bool, error) {
	var (
		schema   = b.opts.Schema
		inferred = schema == nil
		in       = newInferrer()
		owner    = map[string]string{} // column → the input that fixed its type
	)
	for i, name := range inputs {
		s := &source{idx: i, name: name}
		b.srcs = append(b.srcs, s)
		switch kinds[i] {
		case inputEmpty:
			s.eof = true
		case inputLocal, inputUnknown:
			if inferred {
				if err := b.infer(in, name); err != nil {
					return nil, false, err
				}
			}
			lines, err := openLocalLines(name)
			if err != nil {
				return nil, false, err
			}
			s.jsonl = lines
		case inputArrow:
			r, err := OpenStream(name, b.opts.Allocator)
			if err != nil {
				return nil, false, err
			}
			s.arrow = r
		}
	}
	if inferred {
		schema = in.schema()
		for _, c := range schema {
			owner[c.Name] = "the JSONL inputs"
		}
	}
	// Arrow streams carry their types; they must agree with the others.
	for _, s := range b.srcs {
		if s.arrow == nil {
			continue
		}
		for _, c := range s.arrow.Schema() {
			i := schema.Index(c.Name)
			switch {
			case i < 0 && !inferred:
				return nil, false, &Error{File: s.name, Field: c.Name, Msg: "no such state variable in the schema"}
			case i < 0:
				schema = append(schema, c)
				owner[c.Name] = s.name
			case !sameType(schema[i].Type, c.Type):
				by := owner[c.Name]
				if by == "" {
					by = "the schema"
				}
				return nil, false, &Error{File: s.name, Field: c.Name,
					Msg: fmt.Sprintf("type conflict: %s here, %s in %s", c.Type, schema[i].Type, by)}
			}
		}
	}
	if inferred {
		slices.SortFunc(schema, func(a, b trace.Column) int { return strings.Compare(a.Name, b.Name) })
	}
	for _, s := range b.srcs {
		if s.arrow == nil {
			continue
		}
		for _, c := range s.arrow.Schema() {
			s.cols = append(s.cols, schema.Index(c.Name))
		}
	}
	return schema, inferred, nil
}

// sameType reports whether a and b are the same type, whatever the
// nullability and the names of list elements.
func sameType(a, b arrow.DataType) bool {
	if a.ID() != b.ID() {
		return false
	}
	switch a := a.(type) {
	case *arrow.ListType:
		return sameType(a.Elem(), b.(*arrow.ListType).Elem())
	case *arrow.MapType:
		bm := b.(*arrow.MapType)
		return sameType(a.KeyType(), bm.KeyType()) && sameType(a.ItemType(), bm.ItemType())
	case *arrow.StructType:
		bs := b.(*arrow.StructType)
		if a.NumFields() != bs.NumFields() {
			return false
		}
		for i := range a.NumFields() {
			if a.Field(i).Name != bs.Field(i).Name || !sameType(a.Field(i).Type, bs.Field(i).Type) {
				return false
			}
		}
	}
	return true
}

// infer is the first pass over a node-local JSONL input: it merges the
// types of its states into in. Under Lenient a bad line is skipped,
// counted and remembered, so the second pass skips it silently.
func (b *builder) infer(in *inferrer, name string) error {
	lines, err := openLocalLines(name)
	if err != nil {
		return err
	}
	defer lines.close()
	for {
		r, err := lines.next()
		if err == io.EOF || errors.Is(err, errTorn) {
			return nil // the second pass warns of a torn line
		}
		if lines.broken {
			return err
		}
		if err == nil && r.event == EventState {
			err = in.recordLocal(r.at, r.state, b.opts.Lenient)
			if e := (*Error)(nil); errors.As(err, &e) {
				e.Node = r.name
			}
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line == 0 {
				return err // not about one line
			}
			if err := b.skipped(err); err != nil {
				return err
			}
			b.skip[pos{e.File, e.Line}] = true
		}
	}
}

// recordLocal merges the types of a node-local state. Under lenient, a
// state that conflicts with earlier ones leaves the inferred types as
// they were.
func (in *inferrer) recordLocal(at pos, state map[string]any, lenient bool) error {
	var saved map[string]*shape
	if lenient {
		saved = make(map[string]*shape, len(state))
		for k := range state {
			saved[k] = in.vars.fields[k].clone()
		}
	}
	in.at = at
	for _, k := range slices.Sorted(maps.Keys(state)) {
		in.path = append(in.path[:0], seg{key: "state", idx: -1}, seg{key: k, idx: -1})
		err := checkVarName(k)
		if err != nil {
			err = in.errorf("%v", err)
		} else {
			err = in.field(&in.vars, k, state[k])
		}
		if err != nil {
			for k, s := range saved {
				if s == nil {
					delete(in.vars.fields, k)
				} else {
					in.vars.fields[k] = s
				}
			}
			return err
		}
	}
	return nil
}

// clone returns a deep copy of s; nil for nil.
func (s *shape) clone() *shape {
	if s == nil {
		return nil
	}
	c := *s
	c.elem = s.elem.clone()
	if s.fields != nil {
		c.fields = make(map[string]*shape, len(s.fields))
		for k, f := range s.fields {
			c.fields[k] = f.clone()
		}
	}
	return &c
}

// localLines reads the records of a node-local JSONL input.
type localLines struct {
	name   string
	f      *os.File
	lr     *lineReader
	endsNL bool // the file ends with a newline, so its last line is whole
	broken bool // a line could not be read: the error is not about one record
}

// A localLine is a decoded node-local JSONL record.
type localLine struct {
	at    pos
	name  string
	ts    uint64
	event Event
	state map[string]any
}

func openLocalLines(name string) (*localLines, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, &Error{File: name, Msg: "open input", Err: unwrapPathError(err)}
	}
	ll := &localLines{name: name, f: f, lr: newLineReader(name, f), endsNL: true}
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], fi.Size()-1); err == nil {
			ll.endsNL = last[0] == '\n'
		}
	}
	return ll, nil
}

func (ll *localLines) close() { ll.f.Close() }

// errTorn is returned by localLines.next for a last line cut short.
var errTorn = errors.New("torn last line")

// next returns the next record, io.EOF at the end, an *Error for a bad
// line, or an *Error wrapping errTorn for a malformed last line without a
// newline: its writer stopped in the middle of it. After an error that
// is not about one line (the file cannot be read, a line is too long),
// broken is set.
func (ll *localLines) next() (*localLine, error) {
	for {
		line, err := ll.lr.next()
		if err != nil {
			ll.broken = err != io.EOF
			return nil, err
		}
		if isBlank(line) {
			continue
		}
		at := pos{ll.name, ll.lr.line}
		v, err := decodeLine(at, line)
		if err != nil {
			if _, perr := ll.lr.br.Peek(1); perr == io.EOF && !ll.endsNL {
				return nil, &Error{File: ll.name, Line: at.line, Msg: "torn last line (its writer stopped in the middle of it); ignored", Err: errTorn}
			}
			return nil, err
		}
		return parseLocal(at, v)
	}
}

// localKeys are the keys of a node-local line.
var localKeys = []string{"node", "ts", "state", "heartbeat", "leave"}

// parseLocal checks the shape of a decoded node-local line.
func parseLocal(at pos, v any) (*localLine, error) {
	r := &localLine{at: at}
	errf := func(field, format string, args ...any) error {
		return &Error{File: at.file, Line: at.line, Node: r.name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errf("", `want a JSON object {"node": …, "ts": …, "state": {…}}, got %s`, kindName(v))
	}
	if _, ok := m["nodes"]; ok {
		return nil, errf("", "global-snapshot record in node-local input (a file is all one mode)")
	}
	if s, ok := m["node"].(string); ok {
		r.name = s
	}
	if r.name == "" {
		return nil, errf("node", "want a non-empty node name")
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(localKeys, k) {
			return nil, errf("", "unknown key %q (want node, ts, and one of state, heartbeat and leave)", k)
		}
	}
	var err error
	tv, ok := m["ts"]
	if !ok {
		return nil, errf("", `missing "ts" (want the node's Lamport time)`)
	}
	if r.ts, err = parseUint(tv); err != nil {
		return nil, errf("ts", "%v", err)
	}
	n := 0
	if sv, ok := m["state"]; ok {
		n++
		r.event = EventState
		if r.state, ok = sv.(map[string]any); !ok {
			return nil, errf("state", "want the node's state as an object, got %s", kindName(sv))
		}
	}
	for _, k := range []string{"heartbeat", "leave"} {
		if x, ok := m[k]; ok {
			n++
			if x != true {
				return nil, errf(k, "want true, got %s", kindName(x))
			}
			r.event = EventHeartbeat
			if k == "leave" {
				r.event = EventLeave
			}
		}
	}
	if n != 1 {
		return nil, errf("", `want exactly one of "state", "heartbeat": true and "leave": true`)
	}
	return r, nil
}

// close releases the inputs.
func (b *builder) close() {
	for _, s := range b.srcs {
		if s.jsonl != nil {
			s.jsonl.close()
		}
		if s.arrow != nil {
			s.arrow.Close()
		}
	}
}

// run merges the records of all inputs in timestamp order and makes a cut
// at every exposure time, once every record at that time is applied.
func (b *builder) run() error {
	for _, s := range b.srcs {
		if err := b.fill(s); err != nil {
			return err
		}
		if s.buf.len() > 0 {
			b.ready = append(b.ready, s)
		}
	}
	heap.Init(&b.ready)
	var (
		cutTS   uint64
		haveCut bool
	)
	for len(b.ready) > 0 {
		r, err := b.pop()
		if err != nil {
			return err
		}
		if haveCut && r.ts > cutTS {
			if err := b.cut(cutTS); err != nil {
				return err
			}
			haveCut = false
		}
		if err := b.apply(r); err != nil {
			return err
		}
		if r.event == EventState {
			cutTS, haveCut = r.ts, true
		}
	}
	if haveCut {
		if err := b.cut(cutTS); err != nil {
			return err
		}
	}
	if err := b.drain(); err != nil {
		return err
	}
	if len(b.pending) > 0 {
		panic("collector: cuts left pending after the last record")
	}
	return nil
}

// pop removes the next record in timestamp order and refills its source.
func (b *builder) pop() (*localRecord, error) {
	s := b.ready[0]
	r := s.buf.pop()
	s.lastPopped = r.ts
	if err := b.fill(s); err != nil {
		return nil, err
	}
	if s.buf.len() == 0 {
		heap.Pop(&b.ready)
	} else {
		heap.Fix(&b.ready, 0)
	}
	return r, b.drain()
}

// fill reads records of s until its buffer holds a window of them or the
// input ends.
func (b *builder) fill(s *source) error {
	for !s.eof && s.buf.len() < b.window {
		r, err := b.read(s)
		if err != nil {
			return err
		}
		if r == nil {
			s.eof = true
			return b.ended(s)
		}
		s.buf.push(r)
		n := r.node
		n.buffered++
		if n.lagStart >= 0 {
			// Its next record: the cuts waiting for it are complete as
			// far as it is concerned.
			n.lagStart = -1
			b.lagging = slices.DeleteFunc(b.lagging, func(x *localNode) bool { return x == n })
		}
	}
	return nil
}

// ended settles the cuts that wait for nodes of s, an input at its end:
// they are incomplete.
func (b *builder) ended(s *source) error {
	for _, n := range s.nodes {
		if n.buffered > 0 || n.lagStart < 0 {
			continue
		}
		for i := range b.pending {
			if c := &b.pending[i]; n.lagStart <= c.seq && c.seq <= n.lagEnd {
				c.incomplete = true
			}
		}
		n.lagStart = -1
		b.lagging = slices.DeleteFunc(b.lagging, func(x *localNode) bool { return x == n })
	}
	return nil
}

// read returns the next good record of s, or nil at its end. A bad record
// is an error, or under Lenient skipped and counted.
func (b *builder) read(s *source) (*localRecord, error) {
	for {
		r, err := b.readRaw(s)
		if fe, ok := err.(*fatalError); ok {
			return nil, fe.err
		}
		if err == nil && r != nil {
			err = b.check(s, r)
		}
		if err != nil {
			if err := b.skipped(err); err != nil {
				return nil, err
			}
			continue
		}
		return r, nil
	}
}

// fatalError is an input error that Lenient cannot skip.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }

// readRaw decodes the next record of s, with its state converted to the
// output columns.
func (b *builder) readRaw(s *source) (*localRecord, error) {
	switch {
	case s.jsonl != nil:
		for {
			l, err := s.jsonl.next()
			if err == io.EOF {
				return nil, nil
			}
			if errors.Is(err, errTorn) {
				b.warn(err)
				return nil, nil
			}
			if s.jsonl.broken {
				return nil, &fatalError{err}
			}
			if err != nil {
				var e *Error
				if errors.As(err, &e) && b.skip[pos{e.File, e.Line}] {
					continue
				}
				return nil, err
			}
			if b.skip[l.at] {
				continue
			}
			r := &localRecord{name: l.name, ts: l.ts, event: l.event, at: l.at}
			if l.event == EventState {
				b.sw.at = l.at
				b.sw.path = append(b.sw.path[:0], seg{key: "state", idx: -1})
				if err := b.sw.convertState(l.state); err != nil {
					if e := (*Error)(nil); errors.As(err, &e) {
						e.Node = l.name
					}
					return nil, err
				}
				r.vars = slices.Clone(b.sw.vars)
			}
			return r, nil
		}
	case s.arrow != nil:
		if !s.arrow.Next() {
			if t := s.arrow.Torn(); t != nil {
				b.warn(t)
			}
			if err := s.arrow.Err(); err != nil {
				if b.opts.Lenient {
					// A stream cannot be resynchronised after a bad
					// message: keep what came before it.
					b.res.Skipped++
					b.warn(err)
					return nil, nil
				}
				return nil, err
			}
			return nil, nil
		}
		sr := s.arrow.Record()
		r := &localRecord{name: sr.Node, ts: sr.TS, event: sr.Event, off: sr.Offset, row: sr.Row}
		if sr.Event == EventState {
			r.vars = make([]any, len(b.sw.schema))
			for i, v := range sr.Vars() {
				r.vars[s.cols[i]] = v
			}
		}
		return r, nil
	}
	return nil, nil
}

// errorf returns an error about record r of s.
func (r *localRecord) errorf(s *source, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if r.at.line == 0 {
		msg = fmt.Sprintf("row %d of the record batch: %s", r.row, msg)
	}
	return &Error{File: s.name, Line: r.at.line, Offset: r.off, Node: r.name, Msg: msg}
}

// where describes the position of r for messages about later records.
func (r *localRecord) where(s *source) string {
	if r.at.line > 0 {
		return fmt.Sprintf("%s:%d", s.name, r.at.line)
	}
	return fmt.Sprintf("%s (offset %d, row %d)", s.name, r.off, r.row)
}

// check checks a record against the records read before it and attaches
// its node.
func (b *builder) check(s *source, r *localRecord) error {
	n := b.nodes[r.name]
	switch {
	case n == nil:
		n = &localNode{name: r.name, src: s, first: r.where(s), lagStart: -1}
		b.nodes[r.name] = n
		b.order = append(b.order, n)
		s.nodes = append(s.nodes, n)
	case n.src != s:
		return r.errorf(s, "also has records in %s (first at %s); a node's records must all be in one input", n.src.name, n.first)
	case n.read && r.ts <= n.lastRead:
		return r.errorf(s, "ts %d is not after the node's previous ts %d (timestamps of a node must increase)", r.ts, n.lastRead)
	}
	if r.ts < s.lastPopped {
		return r.errorf(s, "ts %d comes more than %d records after records of other nodes up to ts %d (raise the out-of-order window)", r.ts, b.window, s.lastPopped)
	}
	n.read, n.lastRead = true, r.ts
	r.node = n
	r.seq = s.seq
	s.seq++
	return nil
}

// apply applies a record in timestamp order.
func (b *builder) apply(r *localRecord) error {
	n := r.node
	n.buffered--
	n.lastTS = r.ts
	switch r.event {
	case EventState:
		b.sw.at = r.at
		b.sw.path = append(b.sw.path[:0], seg{key: "state", idx: -1})
		row, err := b.sw.addVars(r.ts, n.name, r.vars)
		if err != nil {
			return err
		}
		n.row, n.hasState = row, true
	case EventLeave:
		n.hasState = false
	}
	return nil
}

// live reports whether n is part of the cut at t: it has exposed a state
// since it last left, and with a heartbeat timeout, its last record is
// recent enough.
func (b *builder) live(n *localNode, t uint64) bool {
	return n.hasState && (b.opts.FailAfter == 0 || t-n.lastTS <= b.opts.FailAfter)
}

// cut makes the cut at t, once every record with ts <= t is applied. Its
// snapshot holds the current state of every live node. It is complete
// when every live node has a record at or after t: one applied at t, one
// read and not yet applied (all of which are later), or one still to be
// read, which is known only when it is read or its input ends.
func (b *builder) cut(t uint64) error {
	seq := b.seq
	b.seq++
	b.members = b.members[:0]
	waits := false
	for _, n := range b.order {
		if !b.live(n, t) {
			continue
		}
		b.members = append(b.members, n.row)
		if n.lastTS >= t || n.buffered > 0 {
			continue
		}
		if n.src.eof {
			b.res.Incomplete++
			return nil
		}
		waits = true
	}
	if !waits && len(b.pending) == 0 {
		return b.emit(seq, t, b.members)
	}
	if waits {
		for _, n := range b.order {
			if b.live(n, t) && n.lastTS < t && n.buffered == 0 {
				if n.lagStart < 0 {
					n.lagStart = seq
					b.lagging = append(b.lagging, n)
				}
				n.lagEnd = seq
			}
		}
	}
	b.pending = append(b.pending, pendingCut{seq: seq, ts: t, members: slices.Clone(b.members)})
	return nil
}

// drain settles the pending cuts, in order, that wait for no node.
func (b *builder) drain() error {
	for len(b.pending) > 0 {
		c := &b.pending[0]
		if !c.incomplete {
			for _, n := range b.lagging {
				if n.lagStart <= c.seq && c.seq <= n.lagEnd {
					return nil
				}
			}
		}
		if c.incomplete {
			b.res.Incomplete++
		} else if err := b.emit(c.seq, c.ts, c.members); err != nil {
			return err
		}
		b.pending[0] = pendingCut{}
		b.pending = b.pending[1:]
	}
	b.pending = nil
	return nil
}

// emit writes the snapshot of the cut numbered seq.
func (b *builder) emit(seq int, ts uint64, members []uint32) error {
	if b.opts.Collapse && b.wrote && slices.Equal(members, b.prev) {
		b.res.Collapsed++
		return nil
	}
	if err := b.sw.w.AddSnapshot(trace.Snapshot{ID: uint64(seq), TS: ts, Members: members}); err != nil {
		return fmt.Errorf("collect %s: %w", b.out, err)
	}
	b.prev = append(b.prev[:0], members...)
	b.wrote = true
	b.res.Snapshots++
	return nil
}
