package ingest

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/trace"
)

// Options configure [Collect] and [CollectJSONL].
type Options struct {
	// System is recorded in the manifest. The default is the base name of
	// the output without its .trace suffix.
	System string
	// CreatedBy is recorded in the manifest; the default is "augur collect".
	CreatedBy string
	// Overwrite replaces an existing trace at the output path. Only a trace
	// directory (one holding a manifest.json) or an empty directory is
	// replaced, and only when the run succeeds.
	Overwrite bool
	// Schema, if not nil, fixes the state variables and their types (from a
	// spec, say): no types are inferred and the input is read once. A
	// variable missing in a state is null; a field of the input that the
	// schema lacks is an error.
	Schema trace.Schema
	// CheckValue, if not nil, checks each value of a state, converted to
	// column col of Schema, for what a column type cannot say (that a
	// string is a value of a spec's enum, say): an error makes the record
	// bad. Values are in the representation of package trace, lists as
	// []any.
	CheckValue func(col int, v any) error

	// The options below apply to node-local input (see Collect).

	// FailAfter, if positive, is a heartbeat timeout in logical time: a
	// node is not live at a cut more than FailAfter after its latest
	// record. 0, the default, has none: nodes are live until they leave.
	FailAfter uint64
	// Collapse drops a snapshot whose member states are those of the
	// snapshot written before it.
	Collapse bool
	// Lenient skips bad records (malformed lines, out-of-order
	// timestamps, type conflicts, a node's records in a second input) and
	// counts them in Result.Skipped, instead of failing. An Arrow stream
	// damaged in the middle is read on from the next intact record batch
	// after the damage; Result.Lost names the bytes skipped.
	Lenient bool
	// Window is the out-of-order window of each input, in records: a
	// record may come up to Window records after records of other nodes
	// with larger timestamps in the same input. Memory grows with it;
	// 0 means DefaultWindow; a negative window is refused.
	Window int
	// Allocator holds the batches read from Arrow streams; nil means
	// memory.DefaultAllocator.
	Allocator memory.Allocator
}

// interrupted returns, once ctx is done, the error of the collection
// into out that it stops: "collect OUT: context canceled", wrapping
// ctx.Err(). It is called for every record, so it looks at ctx.Done()
// rather than take ctx.Err's lock.
func interrupted(ctx context.Context, out string) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("collect %s: %w", out, ctx.Err())
	default:
		return nil
	}
}

// traceOptions returns the options of the trace written at out: the
// system defaults to out's base name without .trace.
func (o Options) traceOptions(out string) trace.Options {
	t := trace.Options{System: o.System, CreatedBy: o.CreatedBy, Overwrite: o.Overwrite}
	if t.System == "" {
		t.System = strings.TrimSuffix(filepath.Base(filepath.Clean(out)), ".trace")
	}
	if t.CreatedBy == "" {
		t.CreatedBy = "augur collect"
	}
	return t
}

// Result summarises a trace written by [Collect] or [CollectJSONL].
type Result struct {
	Snapshots int          // snapshots written: one per non-blank line of global snapshots
	States    int          // state rows written, after deduplication
	Nodes     int          // distinct nodes
	Schema    trace.Schema // the state variables, inferred or from Options

	// Node-local input only.
	Incomplete int // cuts dropped because a live node had no record at or after them
	Collapsed  int // snapshots dropped by Options.Collapse
	Skipped    int // bad records skipped under Options.Lenient
	// Lost names, under Options.Lenient, each damaged part of an Arrow
	// stream skipped, up to the next intact record batch or the end: a
	// WarnDamaged warning at the damaged bytes, saying how many records
	// were lost in them (see StreamReader.Resync).
	Lost []diag.Warning
	// Warnings are the torn ends of inputs (WarnTorn) and the bad records
	// skipped (WarnSkipped; the first 100, Skipped counts them all).
	Warnings []diag.Warning
}

// Notes returns what a summary of r adds to its counts, such as "3 cuts
// incomplete" or "2 bad records skipped"; none for a clean collect.
func (r *Result) Notes() []string {
	var notes []string
	if r.Incomplete > 0 {
		notes = append(notes, fmt.Sprintf("%d cuts incomplete", r.Incomplete))
	}
	if r.Collapsed > 0 {
		notes = append(notes, fmt.Sprintf("%d collapsed", r.Collapsed))
	}
	if r.Skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d bad records skipped", r.Skipped))
	}
	switch n := len(r.Lost); {
	case n == 1:
		notes = append(notes, "1 damaged stream part skipped")
	case n > 1:
		notes = append(notes, fmt.Sprintf("%d damaged stream parts skipped", n))
	}
	return notes
}

// WriteSummary writes, as augur collect does, r's warnings and lost
// stream parts to stderr, a line each, and a line summing up the trace
// out to stdout: its counts and Notes.
func (r *Result) WriteSummary(stdout, stderr io.Writer, out string) {
	shown := 0 // skipped records among the warnings
	for _, w := range r.Warnings {
		fmt.Fprintf(stderr, "augur: warning: %s\n", w)
		if w.Code == WarnSkipped {
			shown++
		}
	}
	for _, l := range r.Lost {
		fmt.Fprintf(stderr, "augur: warning: %s\n", l)
	}
	if n := r.Skipped - shown; n > 0 {
		fmt.Fprintf(stderr, "augur: warning: %d more bad records skipped\n", n)
	}
	note := ""
	if notes := r.Notes(); len(notes) > 0 {
		note = " (" + strings.Join(notes, ", ") + ")"
	}
	fmt.Fprintf(stdout, "%s: %d snapshots, %d states, %d nodes, %d variables%s\n",
		out, r.Snapshots, r.States, r.Nodes, len(r.Schema), note)
}

// Collect reads the inputs and writes the trace directory out. The
// inputs are all global-snapshot JSONL, read by [CollectJSONL], or all
// node-local: JSONL files and the Arrow streams of package
// collector/arrowsink (one or several nodes per file, each node in one
// file), whose snapshots a [Cutter] builds as the package comment
// describes. Errors about the input are [*Error]s; after any error
// nothing is left at out. Once ctx is done the collection stops, and its
// error wraps ctx.Err().
func Collect(ctx context.Context, out string, inputs []string, opts Options) (*Result, error) {
	switch {
	case len(inputs) == 0:
		return nil, fmt.Errorf("collect %s: no input files", out)
	case opts.Window < 0:
		return nil, fmt.Errorf("collect %s: window of %d records, want 0 (DefaultWindow) or more", out, opts.Window)
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
		return CollectJSONL(ctx, out, inputs, opts)
	}
	for i, k := range kinds {
		if k == inputUnknown {
			kinds[i] = inputLocal
		}
	}
	if global >= 0 {
		return nil, &Error{Pos: diag.Position{Filename: inputs[global]}, Msg: fmt.Sprintf("global-snapshot input, but %s is node-local (all inputs must be one mode)", inputs[local])}
	}
	return collectLocal(ctx, out, inputs, kinds, opts)
}

// CollectJSONL reads global-snapshot JSONL from the inputs, in order as one
// stream, and writes the trace directory out. Errors about the input are
// [*Error]s naming file, line and field; after any error nothing is left at
// out, and an existing trace there is untouched. Once ctx is done the
// collection stops, and its error wraps ctx.Err().
func CollectJSONL(ctx context.Context, out string, inputs []string, opts Options) (*Result, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("collect %s: no input files", out)
	}
	if err := checkOutput(out, opts.Overwrite); err != nil {
		return nil, err
	}
	schema, inferred := opts.Schema, opts.Schema == nil
	if err := checkSchema(schema); err != nil {
		return nil, fmt.Errorf("collect %s: %w", out, err)
	}
	if inferred {
		in := newInferrer()
		n, err := scanInputs(ctx, out, inputs, in.record)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, noSnapshots(out, inputs)
		}
		schema = in.schema()
		releaseFirstPass()
	}
	w, err := trace.Create(out, schema, opts.traceOptions(out))
	if err != nil {
		return nil, fmt.Errorf("collect %s: %w", out, err)
	}
	sw := newSnapshotWriter(w, schema, inferred)
	sw.check = opts.CheckValue
	n, err := scanInputs(ctx, out, inputs, sw.record)
	if err == nil && n == 0 {
		err = noSnapshots(out, inputs)
	}
	if err != nil {
		w.Abort()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("collect %s: %w", out, err)
	}
	return &Result{Snapshots: n, States: w.States(), Nodes: len(sw.last), Schema: schema}, nil
}

// releaseFirstPass is called after a first pass over the inputs, which
// infers their types, and before the second reads them again. The lines
// of the first pass are garbage, but the collector's goal was set while
// the longest of them was live: without a collection now, the second
// pass would read that line again into memory of its own (a 60 MB line:
// 209 MB at the peak). The memory freed is returned to the system too:
// small allocations would soon cut the hole it leaves, which the long
// line could no longer reuse (148 MB at the peak in most runs, 206 MB in
// some). With little left live after the first pass, both are cheap.
func releaseFirstPass() { debug.FreeOSMemory() }

// checkSchema checks the names of a given schema; trace.Create checks the
// types.
func checkSchema(s trace.Schema) error {
	seen := make(map[string]bool, len(s))
	for _, c := range s {
		if err := checkVarName(c.Name); err != nil {
			return fmt.Errorf("schema: %w", err)
		}
		if seen[c.Name] {
			return fmt.Errorf("schema: state variable %q appears twice", c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

func noSnapshots(out string, inputs []string) error {
	return fmt.Errorf("collect %s: no snapshots in %s", out, strings.Join(inputs, ", "))
}

// checkOutput fails early if out exists and may not be replaced, before
// any input is read, and removes what killed collections left.
func checkOutput(out string, overwrite bool) error {
	if err := trace.CheckTarget(out, overwrite); err != nil {
		return fmt.Errorf("collect %s: %w", out, unwrapPathError(err))
	}
	trace.RemoveStale(out)
	return nil
}
