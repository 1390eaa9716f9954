package monitor

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// Defaults of [Options].
const (
	DefaultMaxBody     = 8 << 20
	DefaultMaxNodes    = 1024
	DefaultMaxNodeName = 256
	DefaultMaxBuffered = 1 << 16
	DefaultSubscriber  = 4096
	DefaultMaxInflight = 64 << 20
	DefaultMaxStreams  = 64
	DefaultMaxRecord   = 64 << 10
	DefaultMaxHeld     = 64 << 20
)

// The largest values of [Options] that augur monitor takes, and why, as
// its errors say. The other limits (MaxBuffered, MaxNodeName, the byte
// sizes) only compare what comes with them, and cost nothing themselves.
const (
	// Options.SubscriberBuffer: the largest int made the channel panic.
	LimitSubscriber    = 1 << 16
	LimitSubscriberWhy = "a stream's channel of lines is made whole when it opens, 24 bytes a line: 1.5 MiB a stream"
	// Options.MaxStreams.
	LimitStreams    = 1 << 10
	LimitStreamsWhy = "each stream is a connection and a goroutine with a channel of --stream-buffer lines: 1.5 GiB for 1,024 of the largest"
	// Options.MaxNodes and Options.Nodes.
	LimitNodes    = 1 << 16
	LimitNodesWhy = "each cut holds the state of every live node and is checked whole"
)

// Options configure a [Monitor].
type Options struct {
	// Checker holds the checks, compiled against the spec whose
	// variables Schema lists.
	Checker *checker.Checker
	// Schema fixes the state variables and their types, as augur collect
	// --spec does: a pushed state with another variable, or a value of
	// another type, is refused.
	Schema trace.Schema
	// CheckValue, if not nil, checks each value of a pushed state as
	// [ingest.Options.CheckValue] does (a spec's enums): a state it
	// rejects is refused.
	CheckValue func(col int, v any) error
	// Token is the bearer token every request but GET /healthz must
	// carry. It must not be empty.
	Token string

	// MaxBody bounds a request body, in bytes; 0 means DefaultMaxBody.
	MaxBody int64
	// MaxInflight bounds the bytes of the request bodies read and checked
	// at once, across requests: a push takes its Content-Length (MaxBody
	// when it gives none) from it until it is answered, and is refused
	// with 503 when that would go beyond. 0 means DefaultMaxInflight.
	MaxInflight int64
	// MaxRecord bounds one record, the bytes of its line, so that the
	// state the monitor keeps for each node is bounded; 0 means
	// DefaultMaxRecord.
	MaxRecord int
	// MaxNodes bounds the number of distinct nodes; 0 means
	// DefaultMaxNodes.
	MaxNodes int
	// MaxNodeName bounds the length of a node's name, in bytes, which the
	// monitor keeps for every node and repeats in every violation; 0
	// means DefaultMaxNodeName.
	MaxNodeName int
	// Nodes, if positive, holds the cuts back until that many nodes have
	// pushed a record (or FailAfter has passed since the start), so that
	// nodes starting together are all in the first cuts.
	Nodes int
	// FailAfter, if positive, declares a node failed when it has pushed
	// nothing for that long while the cuts wait for it: it leaves the
	// cuts from the current one on. Zero waits until MaxBuffered records
	// are held back.
	FailAfter time.Duration
	// FailAfterTS and Collapse are ingest.CutOptions, as augur collect's
	// --fail-after (in logical time) and --collapse.
	FailAfterTS uint64
	Collapse    bool
	// MaxBuffered bounds the records held back while the cuts wait for
	// a node; beyond it the node the cuts wait for is declared failed.
	// 0 means DefaultMaxBuffered.
	MaxBuffered int
	// MaxHeld bounds the bytes of the records held back, across nodes
	// and requests, counted as the bytes of their lines: beyond it, as
	// beyond MaxBuffered, the node the cuts wait for is declared failed,
	// and a push whose records alone come to more is refused. The held
	// records then take at most about three times MaxHeld of memory,
	// where MaxBuffered times MaxRecord allowed gigabytes. 0 means
	// DefaultMaxHeld.
	MaxHeld int64

	// Record, if not empty, is the trace directory to write the cuts to
	// (see the package comment); neither it nor its journal may exist.
	Record    string
	System    string // the recorded trace's system name
	CreatedBy string // the recorded trace's producer

	// Violations, if not nil, receives every violation line, as the
	// stream of GET /v1/violations does.
	Violations io.Writer
	// SubscriberBuffer is the number of violation lines a subscriber may
	// fall behind before it is disconnected; 0 means DefaultSubscriber.
	SubscriberBuffer int
	// MaxStreams bounds the violation streams open at once (each holds a
	// connection and a queue of SubscriberBuffer lines); 0 means
	// DefaultMaxStreams.
	MaxStreams int
	// Log, if not nil, receives a line for each event an operator should
	// know of: a node declared failed, a recording error.
	Log io.Writer

	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// A Monitor checks the consistent cuts of the node-local records pushed
// to it. Its HTTP API is [Monitor.ServeHTTP]; [Monitor.Push] is the same
// ingestion without HTTP.
type Monitor struct {
	opts     Options
	checks   []string
	decoders sync.Pool
	hub      *hub
	met      *metrics
	inflight atomic.Int64 // bytes of the bodies being read and checked (MaxInflight)

	mu       sync.Mutex
	cutter   *ingest.Cutter
	nodes    map[string]*node
	ready    nodeHeap // nodes with records held back, by their next record
	buffered int      // records held back
	held     int64    // bytes of their lines (MaxHeld)
	frontier uint64   // ts of the last record applied
	applied  bool     // a record has been applied
	started  bool     // cuts may be made (Options.Nodes reached)
	start    time.Time
	states   map[uint32]*checker.State // by handle
	next     uint32                    // next handle
	retired  []uint32
	snap     *checker.Snapshot
	inSnap   map[string]uint32 // the state of each node in snap
	members  []string          // scratch
	rec      *recorder
	recErr   error
	closed   bool
	// Arrival of the exposures at the last two state times, for the
	// push-to-check latency of the cuts made there.
	curTS, prevTS   uint64
	curArr, prevArr time.Time
}

// A node is what the monitor knows of a node.
type node struct {
	name     string
	lastTS   uint64    // ts of the last record received
	lastPush time.Time // when it last pushed
	waited   bool      // the cuts wait for its records: not left, not failed
	failed   bool
	floor    uint64 // after a failure: its records must be later than this
	queue    []*held
	heapIdx  int

	handle    uint32 // its current state
	hasHandle bool
	vars      []any // its current state's values, for deduplication
}

// A held record is received and not yet applied.
type held struct {
	size    int64 // the bytes of its line
	ts      uint64
	event   collector.Event
	vars    []any
	state   *checker.State
	arrival time.Time
}

// New returns a monitor, and creates its recording if opts.Record is set.
func New(opts Options) (*Monitor, error) {
	if opts.Checker == nil {
		return nil, errors.New("monitor: no checker")
	}
	if opts.Token == "" {
		return nil, errors.New("monitor: no token: every request must be authenticated")
	}
	orDefault(&opts.MaxBody, DefaultMaxBody)
	orDefault(&opts.MaxInflight, DefaultMaxInflight)
	orDefault(&opts.MaxRecord, DefaultMaxRecord)
	orDefault(&opts.MaxNodes, DefaultMaxNodes)
	orDefault(&opts.MaxNodeName, DefaultMaxNodeName)
	orDefault(&opts.MaxBuffered, DefaultMaxBuffered)
	orDefault(&opts.MaxHeld, DefaultMaxHeld)
	orDefault(&opts.SubscriberBuffer, DefaultSubscriber)
	orDefault(&opts.MaxStreams, DefaultMaxStreams)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if _, err := ingest.NewLocalDecoder(opts.Schema, opts.CheckValue); err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	m := &Monitor{
		opts:   opts,
		checks: opts.Checker.Checks(),
		cutter: ingest.NewCutter(ingest.CutOptions{FailAfter: opts.FailAfterTS, Collapse: opts.Collapse}),
		nodes:  map[string]*node{},
		states: map[uint32]*checker.State{},
		snap:   opts.Checker.NewSnapshot(),
		inSnap: map[string]uint32{},
		start:  opts.Now(),
	}
	m.started = opts.Nodes <= 0
	m.decoders.New = func() any {
		d, _ := ingest.NewLocalDecoder(opts.Schema, opts.CheckValue)
		return d
	}
	if opts.Record != "" {
		rec, err := createRecorder(opts.Record, opts.Schema, trace.Options{System: opts.System, CreatedBy: opts.CreatedBy})
		if err != nil {
			return nil, err
		}
		m.rec = rec
	}
	m.met = newMetrics(m.checks)
	m.hub = newHub(opts.SubscriberBuffer, opts.MaxStreams, opts.Violations, m.met)
	return m, nil
}

// orDefault sets an option that is not positive to its default.
func orDefault[T int | int64](opt *T, def T) {
	if *opt <= 0 {
		*opt = def
	}
}

// A line is one record of a push, decoded and prepared.
type line struct {
	no   int // line number in the request
	rec  *ingest.LocalRecord
	st   *checker.State
	text []byte
}

// A PushError is why a push was refused; nothing of the push was
// applied.
type PushError struct {
	Status int    // the HTTP status: 400, 409, 422, or 503 after Close
	Reason string // the metrics label: malformed, type, order, nodes, …
	Msg    string
}

func (e *PushError) Error() string { return e.Msg }

// PushResult says what a push did.
type PushResult struct {
	Records int `json:"records"` // records accepted
	Late    int `json:"late"`    // of which dropped because the cuts had passed their time
	Cuts    int `json:"cuts"`    // complete cuts checked
}

// Push ingests body, node-local JSON lines as httpsink.Sink sends
// them, as a whole: it decodes and checks every line, then takes the
// records in, makes the cuts they complete and checks them. On error
// nothing is applied, and the error is a *PushError.
func (m *Monitor) Push(body []byte) (PushResult, error) {
	arrival := m.opts.Now()
	lines, err := m.decode(body)
	if err != nil {
		m.met.requestError(err.(*PushError).Reason)
		return PushResult{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	res, err := m.pushLocked(lines, arrival)
	if err != nil {
		m.met.requestError(err.(*PushError).Reason)
	}
	return res, err
}

// decode decodes and prepares every line of body; it takes no lock.
func (m *Monitor) decode(body []byte) ([]line, error) {
	d := m.decoders.Get().(*ingest.LocalDecoder)
	defer m.decoders.Put(d)
	var lines []line
	for no := 1; len(body) > 0; no++ {
		text := body
		if i := indexNL(body); i >= 0 {
			text, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		if len(text) > m.opts.MaxRecord {
			return nil, &PushError{Status: 422, Reason: "record_size",
				Msg: fmt.Sprintf("line %d: a record of %d bytes, longer than the limit of %d", no, len(text), m.opts.MaxRecord)}
		}
		r, err := d.Decode("", no, text)
		if err != nil {
			return nil, lineError(no, err)
		}
		if r == nil {
			continue
		}
		if len(r.Node) > m.opts.MaxNodeName {
			return nil, &PushError{Status: 422, Reason: "node_name",
				Msg: fmt.Sprintf("line %d: a node name of %d bytes, longer than the limit of %d", no, len(r.Node), m.opts.MaxNodeName)}
		}
		l := line{no: no, rec: r, text: text}
		if r.Event == collector.EventState {
			vars := make(map[string]any, len(r.Vars))
			for i, c := range m.opts.Schema {
				if r.Vars[i] != nil {
					vars[c.Name] = r.Vars[i]
				}
			}
			st, err := m.opts.Checker.Prepare(r.Node, vars)
			if err != nil {
				return nil, &PushError{Status: 400, Reason: "type", Msg: fmt.Sprintf("line %d: %v", no, err)}
			}
			l.st = st
		}
		lines = append(lines, l)
	}
	return lines, nil
}

func indexNL(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// lineError turns an error of the decoder into a *PushError naming the
// line: a 422 for a well-formed value the spec does not allow (a string
// outside its enum), a 400 otherwise.
func lineError(no int, err error) error {
	var e *ingest.Error
	if !errors.As(err, &e) {
		return &PushError{Status: 400, Reason: "malformed", Msg: fmt.Sprintf("line %d: %v", no, err)}
	}
	where := fmt.Sprintf("line %d", no)
	if e.Pos.Column > 0 {
		where += fmt.Sprintf(", column %d", e.Pos.Column)
	}
	msg := e.Msg
	if e.Err != nil {
		if msg != "" {
			msg += ": "
		}
		msg += e.Err.Error()
	}
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	if e.Node != "" {
		msg = "node " + e.Node + ": " + msg
	}
	status, reason := 400, "malformed"
	switch {
	case errors.As(err, new(*specs.EnumError)):
		status, reason = 422, "enum"
	case e.Field != "" && e.Field != "ts" && e.Field != "node" && e.Field != "heartbeat" && e.Field != "leave":
		reason = "type"
	}
	return &PushError{Status: status, Reason: reason, Msg: where + ": " + msg}
}

// pushLocked checks lines against what the monitor knows, then applies
// them. mu is held.
func (m *Monitor) pushLocked(lines []line, arrival time.Time) (PushResult, error) {
	if m.closed {
		return PushResult{}, &PushError{Status: 503, Reason: "closed", Msg: "the monitor is shutting down"}
	}
	// Check the whole push before changing anything.
	if size := pushSize(lines); size > m.opts.MaxHeld {
		return PushResult{}, &PushError{Status: 422, Reason: "held_size",
			Msg: fmt.Sprintf("records of %d bytes in one push, more than the %d bytes of records the monitor holds back at most", size, m.opts.MaxHeld)}
	}
	last := map[string]uint64{}
	newNodes := 0
	for _, l := range lines {
		prev, ok := last[l.rec.Node]
		if !ok {
			if n := m.nodes[l.rec.Node]; n != nil {
				prev, ok = n.lastTS, true
			} else {
				newNodes++
			}
		}
		if ok && l.rec.TS <= prev {
			return PushResult{}, &PushError{Status: 409, Reason: "order",
				Msg: fmt.Sprintf("line %d: node %s: ts %d is not after the node's previous ts %d (timestamps of a node must increase)", l.no, l.rec.Node, l.rec.TS, prev)}
		}
		last[l.rec.Node] = l.rec.TS
	}
	if len(m.nodes)+newNodes > m.opts.MaxNodes {
		return PushResult{}, &PushError{Status: 422, Reason: "nodes",
			Msg: fmt.Sprintf("too many nodes: %d known and %d new, the limit is %d", len(m.nodes), newNodes, m.opts.MaxNodes)}
	}
	var res PushResult
	for _, l := range lines {
		n := m.nodes[l.rec.Node]
		if n == nil {
			n = &node{name: l.rec.Node, heapIdx: -1}
			m.nodes[n.name] = n
			m.met.nodes.Store(int64(len(m.nodes)))
		}
		n.lastTS, n.lastPush = l.rec.TS, arrival
		res.Records++
		if !n.waited && (m.applied && l.rec.TS <= m.frontier || n.failed && l.rec.TS <= n.floor) {
			// A node the cuts did not wait for (new, left or failed)
			// tells of a time the cuts have passed.
			res.Late++
			continue
		}
		n.waited = l.rec.Event != collector.EventLeave
		m.hold(n, &held{ts: l.rec.TS, event: l.rec.Event, vars: l.rec.Vars, state: l.st, arrival: arrival}, l.text)
	}
	m.met.records.Add(int64(res.Records))
	m.met.late.Add(int64(res.Late))
	if !m.started && (len(m.nodes) >= m.opts.Nodes || m.waitedTooLong()) {
		m.started = true
	}
	res.Cuts = m.advance(false)
	return res, nil
}

// pushSize returns the bytes of the record lines of a push.
func pushSize(lines []line) int64 {
	var n int64
	for _, l := range lines {
		n += int64(len(l.text))
	}
	return n
}

// waitedTooLong reports whether FailAfter has passed since the start,
// while the cuts wait for Options.Nodes.
func (m *Monitor) waitedTooLong() bool {
	return m.opts.FailAfter > 0 && m.opts.Now().Sub(m.start) >= m.opts.FailAfter
}

// hold keeps a record, pushed as line, until the cuts reach it; the
// Cutter learns now that the node has a record after every cut made so
// far.
//
// The journal of a recording takes the record now, so that augur
// collect, which sees all the records, rebuilds from it every cut the
// monitor made, and those that the records held back complete.
func (m *Monitor) hold(n *node, h *held, line []byte) {
	if m.rec != nil && m.recErr == nil {
		if err := m.rec.journal(line); err != nil {
			m.recordingFailed(err)
		}
	}
	h.size = int64(len(line))
	n.queue = append(n.queue, h)
	m.buffered++
	m.held += h.size
	m.cutter.Read(n.name)
	if n.heapIdx < 0 {
		heap.Push(&m.ready, n)
	}
}

// advance applies the held records in timestamp order as far as no
// record can come before them: up to the least last ts of the nodes the
// cuts wait for (every node's next record comes after its last), or all
// of them when finishing. It sheds waiting nodes while more than
// MaxBuffered records are held, and checks the cuts made. It returns
// the number of cuts checked.
func (m *Monitor) advance(finish bool) int {
	cuts := 0
	for {
		if m.started || finish {
			mark, bounded := m.watermark()
			for m.ready.Len() > 0 {
				n := m.ready[0]
				h := n.queue[0]
				if !finish && bounded && h.ts > mark {
					break
				}
				n.queue[0] = nil
				n.queue = n.queue[1:]
				if len(n.queue) == 0 {
					n.queue = nil
					heap.Pop(&m.ready)
				} else {
					heap.Fix(&m.ready, 0)
				}
				m.buffered--
				m.held -= h.size
				m.apply(n, h)
				cuts += m.checkCuts()
			}
			if !finish && m.applied {
				// Every record up to the frontier is applied, and no
				// earlier one can come: the cut there need not wait for
				// a later record.
				m.cutter.Seal(m.frontier)
				cuts += m.checkCuts()
			}
		}
		reason, over := m.overHeld()
		if finish || !over {
			break
		}
		// Too much held back: the cuts wait for a node that does not
		// push. Declare it failed and try again.
		if !m.started {
			m.started = true
			m.met.shed("start")
			continue
		}
		n := m.laggard()
		if n == nil {
			break
		}
		m.fail(n, reason)
	}
	m.met.buffered.Store(int64(m.buffered))
	m.met.heldBytes.Store(m.held)
	m.flushRecording()
	if !finish {
		// While finishing, cuts may wait for the end of the input, and
		// Close frees nothing.
		m.freeRetired()
	}
	return cuts
}

// overHeld reports whether more records are held back than MaxBuffered
// allows, or more bytes of them than MaxHeld, and names the limit.
func (m *Monitor) overHeld() (reason string, over bool) {
	switch {
	case m.buffered > m.opts.MaxBuffered:
		return "buffer", true
	case m.held > m.opts.MaxHeld:
		return "held", true
	}
	return "", false
}

// watermark returns the least last ts of the nodes the cuts wait for;
// bounded is false when they wait for none.
func (m *Monitor) watermark() (mark uint64, bounded bool) {
	for _, n := range m.nodes {
		if n.waited && (!bounded || n.lastTS < mark) {
			mark, bounded = n.lastTS, true
		}
	}
	return mark, bounded
}

// laggard returns the node the cuts wait for that has pushed the
// earliest ts, with nothing held back, or nil.
func (m *Monitor) laggard() *node {
	var lag *node
	for _, n := range m.nodes {
		if n.waited && len(n.queue) == 0 && (lag == nil || n.lastTS < lag.lastTS || n.lastTS == lag.lastTS && n.name < lag.name) {
			lag = n
		}
	}
	return lag
}

// fail declares n failed: the cuts stop waiting for it, and it leaves
// them just after its last record, by a leave record the monitor makes
// and records. (The cuts wait for it, so they have not passed its last
// record.)
func (m *Monitor) fail(n *node, reason string) {
	ts := max(n.lastTS, m.frontier) + 1
	n.waited, n.failed, n.floor = false, true, ts
	m.met.failed(reason)
	m.logf("node %s declared failed (%s) at ts %d; last record at ts %d", n.name, reasonText[reason], ts, n.lastTS)
	line := fmt.Appendf(nil, `{"node":%q,"ts":%d,"leave":true}`, n.name, ts)
	m.hold(n, &held{ts: ts, event: collector.EventLeave, arrival: m.opts.Now()}, line)
}

var reasonText = map[string]string{
	"silent": "silent for longer than --fail-after",
	"buffer": "the cuts waited for it with too many records held back",
	"held":   "the cuts waited for it with too many bytes of records held back",
}

// Tick declares failed the nodes silent for longer than FailAfter that
// the cuts wait for, and makes the cuts that were waiting for them. A
// server calls it periodically.
func (m *Monitor) Tick() {
	if m.opts.FailAfter <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	now := m.opts.Now()
	changed := false
	if !m.started && m.waitedTooLong() {
		m.started, changed = true, true
	}
	for _, n := range m.nodes {
		if n.waited && len(n.queue) == 0 && now.Sub(n.lastPush) >= m.opts.FailAfter {
			m.fail(n, "silent")
			changed = true
		}
	}
	if changed {
		m.advance(false)
	}
}

// apply applies a held record to the cutter, storing its state.
func (m *Monitor) apply(n *node, h *held) {
	r := ingest.Record{Node: n.name, TS: h.ts, Event: h.event}
	if h.event == collector.EventState {
		if !n.hasHandle || !reflect.DeepEqual(n.vars, h.vars) {
			if n.hasHandle {
				m.retired = append(m.retired, n.handle)
			}
			n.handle, n.hasHandle, n.vars = m.next, true, h.vars
			m.states[m.next] = h.state
			m.next++
			if m.rec != nil && m.recErr == nil {
				if err := m.rec.addState(n.name, h.ts, h.vars, n.handle); err != nil {
					m.recordingFailed(err)
				}
			}
		}
		r.State = n.handle
		switch {
		case h.ts == m.curTS && m.applied:
			if h.arrival.After(m.curArr) {
				m.curArr = h.arrival
			}
		default:
			m.prevTS, m.prevArr = m.curTS, m.curArr
			m.curTS, m.curArr = h.ts, h.arrival
		}
	}
	m.cutter.Apply(r)
	m.frontier, m.applied = h.ts, true
	m.met.frontier.Store(int64(h.ts))
}

// checkCuts checks the cuts the cutter has settled, streams their
// violations and records them. It returns their number.
func (m *Monitor) checkCuts() int {
	cuts := m.cutter.Cuts()
	now := m.opts.Now()
	for _, c := range cuts {
		m.fill(c)
		m.snap.ID, m.snap.TS = c.Seq, c.TS
		for _, v := range m.snap.Check() {
			m.met.violation(v.Check.Name)
			m.hub.publish(violationLine(&v))
		}
		switch c.TS {
		case m.curTS:
			m.met.latency.observe(now.Sub(m.curArr).Seconds())
		case m.prevTS:
			m.met.latency.observe(now.Sub(m.prevArr).Seconds())
		}
		if m.rec != nil && m.recErr == nil {
			if err := m.rec.addSnapshot(c); err != nil {
				m.recordingFailed(err)
			}
		}
	}
	m.met.cuts.Add(int64(len(cuts)))
	m.met.incomplete.Store(int64(m.cutter.Incomplete()))
	m.met.collapsed.Store(int64(m.cutter.Collapsed()))
	return len(cuts)
}

// fill makes the snapshot hold the members of c. Consecutive cuts
// differ in a node or two: only those change.
func (m *Monitor) fill(c ingest.Cut) {
	kept := 0
	for _, h := range c.Members {
		st := m.states[h]
		name := st.Node()
		if cur, ok := m.inSnap[name]; ok {
			kept++
			if cur == h {
				continue
			}
		}
		if err := m.snap.Put(st); err != nil {
			panic(fmt.Sprintf("monitor: state %d of cut %d: %v", h, c.Seq, err))
		}
		m.inSnap[name] = h
	}
	if kept == len(m.inSnap)-(len(c.Members)-kept) {
		return // every node of the snapshot is a member
	}
	m.members = m.members[:0]
	for _, h := range c.Members {
		m.members = append(m.members, m.states[h].Node())
	}
	for name := range m.inSnap {
		if !slices.Contains(m.members, name) {
			m.snap.Remove(name)
			delete(m.inSnap, name)
		}
	}
}

// freeRetired forgets the states that are no node's current state and
// in no cut still to be made.
func (m *Monitor) freeRetired() {
	for _, h := range m.retired {
		delete(m.states, h)
	}
	m.retired = m.retired[:0]
}

func (m *Monitor) flushRecording() {
	if m.rec != nil && m.recErr == nil {
		if err := m.rec.flush(); err != nil {
			m.recordingFailed(err)
		}
	}
}

func (m *Monitor) recordingFailed(err error) {
	m.recErr = err
	m.met.recordErrors.Add(1)
	m.logf("recording stopped: %v (checking goes on)", err)
}

func (m *Monitor) logf(format string, args ...any) {
	if m.opts.Log != nil {
		fmt.Fprintf(m.opts.Log, "augur monitor: "+format+"\n", args...)
	}
}

// Stats are a monitor's counts so far.
type Stats struct {
	Records    int64 // records accepted
	Late       int64 // of which dropped as late
	Cuts       int64 // complete cuts checked
	Incomplete int64 // cuts dropped as incomplete
	Violations int64 // violation lines, one per check and cut
}

// Stats returns the monitor's counts so far.
func (m *Monitor) Stats() Stats {
	s := Stats{
		Records:    m.met.records.Load(),
		Late:       m.met.late.Load(),
		Cuts:       m.met.cuts.Load(),
		Incomplete: m.met.incomplete.Load(),
	}
	m.met.mu.Lock()
	for _, n := range m.met.violations {
		s.Violations += n
	}
	m.met.mu.Unlock()
	return s
}

// Health returns nil while the monitor takes records and records them
// as asked, or the reason it does not.
func (m *Monitor) Health() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closed:
		return errors.New("shutting down")
	case m.recErr != nil:
		return fmt.Errorf("recording failed: %v", m.recErr)
	}
	return nil
}

// Close stops taking records, applies those held back, makes the last
// cuts as augur collect does at the end of its input (every node ends),
// checks them, ends the violation streams and closes the recording,
// whose error it returns.
func (m *Monitor) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.advance(true)
	m.cutter.Finish()
	m.checkCuts()
	var err error
	if m.rec != nil {
		if m.recErr != nil {
			err = fmt.Errorf("monitor: recording %s failed: %w; the journal %s holds what was recorded", m.opts.Record, m.recErr, journalPath(m.opts.Record))
			m.rec.abandon()
		} else if err = m.rec.close(); err != nil {
			err = fmt.Errorf("monitor: recording %s: %w", m.opts.Record, err)
		}
	}
	m.mu.Unlock()
	m.hub.close()
	return err
}

// nodeHeap orders the nodes with held records by their next record's ts,
// then by name, as augur collect merges its inputs by ts.
type nodeHeap []*node

func (h nodeHeap) Len() int { return len(h) }
func (h nodeHeap) Less(i, j int) bool {
	a, b := h[i].queue[0].ts, h[j].queue[0].ts
	return a < b || a == b && h[i].name < h[j].name
}
func (h nodeHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx, h[j].heapIdx = i, j
}
func (h *nodeHeap) Push(x any) {
	n := x.(*node)
	n.heapIdx = len(*h)
	*h = append(*h, n)
}
func (h *nodeHeap) Pop() any {
	old := *h
	n := old[len(old)-1]
	old[len(old)-1] = nil
	n.heapIdx = -1
	*h = old[:len(old)-1]
	return n
}
