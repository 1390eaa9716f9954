package ingest

import (
	"container/heap"
	"context"
	"fmt"
	"strings"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/trace"
)

// DefaultWindow is the out-of-order window of an input, in records, when
// Options.Window is 0.
const DefaultWindow = 4096

// maxWarnings bounds Result.Warnings; Result.Skipped counts them all.
const maxWarnings = 100

// A builder builds the snapshots of node-local input files: it reads
// the records of every input into its reorder buffer, merges them in
// timestamp order, stores their states and has a [Cutter] make the cuts.
type builder struct {
	ctx    context.Context // the collection's: it stops once ctx is done
	opts   Options
	window int
	out    string
	res    *Result

	sw     *snapshotWriter
	cutter *Cutter
	nodes  map[string]*localNode
	srcs   []*source
	ready  sourceHeap

	skip map[pos]bool // JSONL lines skipped by the first pass
}

// skipped counts a bad record under Lenient, or returns it as the error.
func (b *builder) skipped(err error) error {
	if !b.opts.Lenient {
		return err
	}
	b.res.Skipped++
	b.warn(WarnSkipped, err)
	return nil
}

// warn keeps err, which did not stop the collection, as a warning of
// kind code, up to maxWarnings of them.
func (b *builder) warn(code diag.Code, err error) {
	if len(b.res.Warnings) < maxWarnings {
		b.res.Warnings = append(b.res.Warnings, warning(code, err))
	}
}

func collectLocal(ctx context.Context, out string, inputs []string, kinds []inputKind, opts Options) (*Result, error) {
	if err := checkOutput(out, opts.Overwrite); err != nil {
		return nil, err
	}
	if err := checkSchema(opts.Schema); err != nil {
		return nil, fmt.Errorf("collect %s: %w", out, err)
	}
	b := &builder{
		ctx:    ctx,
		opts:   opts,
		window: opts.Window,
		out:    out,
		res:    &Result{},
		cutter: NewCutter(CutOptions{FailAfter: opts.FailAfter, Collapse: opts.Collapse}),
		nodes:  map[string]*localNode{},
		skip:   map[pos]bool{},
	}
	if b.window == 0 {
		b.window = DefaultWindow
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
	b.sw.check = b.opts.CheckValue
	if err := b.run(); err != nil {
		w.Abort()
		return nil, err
	}
	if b.res.Snapshots == 0 {
		// The first cut is always complete: the nodes live there exposed
		// a state at that time.
		w.Abort()
		if b.res.Skipped > 0 { // --lenient skipped them all: say why
			return nil, fmt.Errorf("collect %s: no states in %s: %d bad records skipped, the first: %s", out, strings.Join(inputs, ", "), b.res.Skipped, b.res.Warnings[0])
		}
		return nil, fmt.Errorf("collect %s: no states in %s", out, strings.Join(inputs, ", "))
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("collect %s: %w", out, err)
	}
	b.res.States = w.States()
	b.res.Nodes = len(b.sw.last)
	b.res.Schema = schema
	b.res.Incomplete = b.cutter.Incomplete()
	b.res.Collapsed = b.cutter.Collapsed()
	return b.res, nil
}

// run merges the records of all inputs in timestamp order, applies them
// and writes the snapshots of the cuts.
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
	for len(b.ready) > 0 {
		r, err := b.pop()
		if err != nil {
			return err
		}
		if err := b.apply(r); err != nil {
			return err
		}
		if err := b.write(); err != nil {
			return err
		}
	}
	b.cutter.Finish()
	return b.write()
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
	return r, nil
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
			for _, n := range s.nodes {
				b.cutter.End(n.name)
			}
			return nil
		}
		s.buf.push(r)
		b.cutter.Read(r.name)
	}
	return nil
}

// apply stores the state of a record, if it has one, and applies the
// record to the cutter.
func (b *builder) apply(r *localRecord) error {
	cr := Record{Node: r.name, TS: r.ts, Event: r.event}
	if r.event == collector.EventState {
		b.sw.at = r.at
		b.sw.path = append(b.sw.path[:0], seg{key: "state", idx: -1})
		row, err := b.sw.addVars(r.ts, r.name, r.vars)
		if err != nil {
			return err
		}
		cr.State = row
	}
	b.cutter.Apply(cr)
	return nil
}

// write writes the snapshots of the cuts the cutter has settled.
func (b *builder) write() error {
	for _, c := range b.cutter.Cuts() {
		if err := b.sw.w.AddSnapshot(trace.Snapshot{ID: c.Seq, TS: c.TS, Members: c.Members}); err != nil {
			return fmt.Errorf("collect %s: %w", b.out, err)
		}
		b.res.Snapshots++
	}
	return nil
}
