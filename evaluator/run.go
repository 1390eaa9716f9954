package evaluator

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/augur-dev/augur/trace"
)

// Kind selects an evaluator.
type Kind uint8

// Evaluators.
const (
	KindInvalid Kind = iota
	Reference        // binding by binding, from the semantics
	Fast             // bitsets shared per quantifier scope
)

var kindNames = [...]string{Reference: "reference", Fast: "fast"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind returns the evaluator named s.
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if name != "" && name == s {
			return Kind(k), nil
		}
	}
	return KindInvalid, fmt.Errorf("unknown evaluator %q (want reference or fast)", s)
}

// Pruner decides between chunks of snapshots which properties stay.
type Pruner interface {
	// Every returns the number of snapshots between pruning passes.
	Every() int
	// Keep reports whether property i, with stats s after done of the
	// total snapshots the run evaluates, stays. A pass asks about each
	// property still active, in increasing order of i. Under
	// Options.OnlyTag, total counts every snapshot of the shard, an
	// upper bound on those evaluated.
	Keep(i int, s *Stats, done, total int64) bool
}

// DefaultWitnesses is the number of witnesses kept per property when
// Options.MaxWitnesses is 0.
const DefaultWitnesses = 3

// NoWitnesses, as Options.MaxWitnesses, keeps no witness.
const NoWitnesses = -1

// Options configure Run.
type Options struct {
	Kind         Kind   // default Fast
	Workers      int    // goroutines; 0 means GOMAXPROCS
	Pruner       Pruner // nil keeps every property
	MaxWitnesses int    // per property, one per snapshot; 0 means DefaultWitnesses, NoWitnesses none
	MaxMoments   int    // violating snapshots kept per property (Stats.Moments); 0 means MaxMoments

	// NoPatterns leaves Stats.Patterns out. Only the reporter reads them,
	// for its candidates, which are few: a run over the whole pool leaves
	// them out, and a second run over the candidates counts them: the
	// hot loop need not count what only the reporter reads.
	NoPatterns bool

	// FullMoments, if positive, keeps the first FullMoments violating
	// snapshots of every property that is not pruned, in less memory
	// than Stats.Moments (a byte or two each): Result.FullMoments returns
	// them, so that the reporter needs no second pass for them.
	FullMoments int

	// Progress, if set, is called after each chunk with the number of
	// snapshots done and the total.
	Progress func(done, total int)

	// Shard, if Count > 1, restricts Run to one shard of the snapshots.
	Shard Shard

	// OnlyTag, if set, restricts Run to the snapshots carrying this tag,
	// such as a testbed's "steady" (no message in flight, no fault in force).
	OnlyTag string
}

// Shard selects the snapshots of shard Index of Count: the snapshot at
// position S (0-based, in trace order) is evaluated iff
// (S / Block) mod Count == Index. The zero value selects every snapshot.
type Shard struct {
	Index, Count, Block int
}

// DefaultShardBlock is the Block of a Shard that leaves it 0.
const DefaultShardBlock = 1024

// Check reports whether sh is valid.
func (sh Shard) Check() error {
	switch {
	case sh.Count < 0 || sh.Block < 0:
		return fmt.Errorf("invalid shard %d/%d block %d", sh.Index, sh.Count, sh.Block)
	case sh.Count == 0 && sh.Index == 0:
		return nil
	case sh.Index < 0 || sh.Index >= sh.Count:
		return fmt.Errorf("shard index %d out of range for %d shards (want 0 ≤ index < count)", sh.Index, sh.Count)
	}
	return nil
}

// Selects reports whether the snapshot at position pos belongs to sh.
func (sh Shard) Selects(pos int) bool {
	if sh.Count <= 1 {
		return true
	}
	b := sh.Block
	if b <= 0 {
		b = DefaultShardBlock
	}
	return (pos/b)%sh.Count == sh.Index
}

// Size returns the number of the first n snapshots that sh selects.
func (sh Shard) Size(n int) int {
	if sh.Count <= 1 {
		return n
	}
	k := 0
	for pos := range n {
		if sh.Selects(pos) {
			k++
		}
	}
	return k
}

// Result holds the stats of every property of a Program, in order.
type Result struct {
	Snapshots int
	Stats     []Stats
	Patterns  bool // Stats.Patterns are counted (not Options.NoPatterns)
	Pruned    int  // properties dropped by the Pruner

	// Failures tally the derived variables and predicates that failed at
	// run time, in order of kind and name; nil if none did.
	Failures []ExprFailures

	// Tags counts the evaluated snapshots that carry each tag.
	Tags map[string]int64

	fullMoments int // Options.FullMoments
}

// FullMoments returns the first max violating snapshots of property i,
// and true, if Run kept them (Options.FullMoments): the property was not
// pruned, and max is at most Options.FullMoments or Run kept every
// violating snapshot of it.
func (r *Result) FullMoments(i, max int) ([]uint64, bool) {
	st := &r.Stats[i]
	if r.fullMoments <= 0 || st.Pruned || max > r.fullMoments && int64(st.full.n) < st.ViolatingSnapshots {
		return nil, false
	}
	return st.full.first(max), true
}

// defaultChunk is the number of snapshots read between merges when no
// Pruner sets the pace.
const defaultChunk = 4096

// engine evaluates, for one goroutine at a time, one span of the
// properties over the snapshots of a run, in trace order: the span's
// stats grow as the chunks of the run go by, and an engine carries what
// it knows from one chunk into the next.
type engine interface {
	// start begins a chunk. Properties may have left the task's span
	// since the last chunk (the Pruner), and its bounds may have moved
	// (rebalance).
	start(t *task)
	// eval evaluates the task's properties on s into the task's stats;
	// states, if not nil, are its members decoded (decoder).
	eval(s *trace.Snapshot, states []*nodeState) error
	// finish brings the task's stats up to the end of the chunk.
	finish()
	// failures returns the expressions that failed on this engine.
	failures() *failures
	close()
}

// task is the work of one engine on one chunk: the active properties
// lo ≤ i < hi, accumulated into acc[i].
type task struct {
	ctx      context.Context // the run's: engines stop when it is done (see stopEvery)
	active   []bool
	acc      []Stats
	lo, hi   int
	wits     int  // witnesses kept per property
	moments  int  // moments kept per property
	full     int  // moments kept per property in the full log
	patterns bool // count Stats.Patterns
}

func newEngine(kind Kind, tr *trace.Trace, prog *Program, pl *plan, store *memberStore) (engine, error) {
	if kind == Reference {
		return newReference(tr, prog)
	}
	return newFast(tr, prog, pl, store)
}

// Run evaluates prog over every snapshot of tr.
func Run(ctx context.Context, tr *trace.Trace, prog *Program, opts Options) (*Result, error) {
	if opts.Kind == KindInvalid {
		opts.Kind = Fast
	}
	if opts.Kind != Reference && opts.Kind != Fast {
		return nil, fmt.Errorf("unknown evaluator %s (want reference or fast)", opts.Kind)
	}
	if err := opts.Shard.Check(); err != nil {
		return nil, err
	}
	if err := checkWork(tr, prog); err != nil {
		return nil, err
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case opts.MaxWitnesses == 0:
		opts.MaxWitnesses = DefaultWitnesses
	case opts.MaxWitnesses < 0:
		opts.MaxWitnesses = 0
	}
	if opts.MaxMoments <= 0 {
		opts.MaxMoments = MaxMoments
	}
	chunk := defaultChunk
	if opts.Pruner != nil && opts.Pruner.Every() > 0 {
		chunk = opts.Pruner.Every()
	}

	var pl *plan
	if opts.Kind == Fast {
		pl = newPlan(prog)
	}
	spans := propSpans(len(prog.Props), opts.Workers)
	engines := make([]engine, 0, len(spans))
	defer func() {
		for _, e := range engines {
			e.close()
		}
	}()
	res := &Result{Stats: make([]Stats, len(prog.Props)), Patterns: !opts.NoPatterns, fullMoments: opts.FullMoments}
	active := make([]bool, len(prog.Props))
	for i := range active {
		active[i] = true
	}
	dec, err := newDecoder(tr, prog, len(spans))
	if err != nil {
		return nil, err
	}
	defer dec.close()
	tasks := make([]task, len(spans))
	store := newMemberStore(len(spans))
	for k, r := range spans {
		e, err := newEngine(opts.Kind, tr, prog, pl, store)
		if err != nil {
			return nil, err
		}
		engines = append(engines, e)
		tasks[k] = task{active: active, acc: res.Stats, lo: r.lo, hi: r.hi, wits: opts.MaxWitnesses, moments: opts.MaxMoments, full: max(0, opts.FullMoments), patterns: !opts.NoPatterns}
	}

	sr := tr.Snapshots()
	defer sr.Close()
	tags := map[string]string{}
	total := opts.Shard.Size(tr.NumSnapshots())
	pos := 0 // position in the trace of the next snapshot sr reads
	var snaps []trace.Snapshot
	for {
		var err error
		snaps, err = readChunk(sr, snaps[:0], chunk, tags, opts.Shard, opts.OnlyTag, &pos)
		if err != nil {
			return nil, err
		}
		if len(snaps) == 0 {
			break
		}
		took := make([]time.Duration, len(engines))
		// The chunk's windows are decoded each while the one before is
		// evaluated (decoder).
		hi := window(snaps, 0)
		dec.start(ctx, 0, snaps[:hi])
		for lo, b := 0, 0; lo < len(snaps); b ^= 1 {
			if err := dec.wait(); err != nil {
				return nil, err
			}
			next := window(snaps, hi)
			if hi < len(snaps) {
				dec.start(ctx, b^1, snaps[hi:next])
			}
			states := dec.states[b]
			g, gctx := errgroup.WithContext(ctx)
			g.SetLimit(opts.Workers)
			for k, e := range engines {
				tasks[k].ctx = gctx
				g.Go(func() error {
					t0 := time.Now()
					defer func() { took[k] += time.Since(t0) }()
					if lo == 0 {
						e.start(&tasks[k])
					}
					for i := lo; i < hi; i++ {
						if err := gctx.Err(); err != nil {
							return err
						}
						if err := e.eval(&snaps[i], states[i-lo]); err != nil {
							return err
						}
					}
					if hi == len(snaps) {
						e.finish()
					}
					return nil
				})
			}
			if err := g.Wait(); err != nil {
				if hi < len(snaps) {
					_ = dec.wait() // it reads snaps; the engines' error comes first
				}
				return nil, err
			}
			store.reset() // the window's lists: the next window's states are others
			lo, hi = hi, next
		}
		for i := range res.Stats {
			// Between engines, serially: most stats have no witness
			// pending, and are only read.
			if st := &res.Stats[i]; st.pending() {
				st.logWitnesses(prog.Props[i], opts.MaxWitnesses)
			}
		}
		res.Snapshots += len(snaps)
		for i := range snaps {
			for _, t := range snaps[i].Tags {
				if res.Tags == nil {
					res.Tags = map[string]int64{}
				}
				res.Tags[t]++
			}
		}
		// Pruning saves work on the snapshots still to come; after the
		// last chunk there are none.
		more := res.Snapshots < total
		if opts.OnlyTag != "" {
			more = pos < tr.NumSnapshots() // how many carry the tag is not known ahead
		}
		if opts.Pruner != nil && more {
			for i := range res.Stats {
				st := &res.Stats[i]
				if active[i] && !opts.Pruner.Keep(i, st, int64(res.Snapshots), int64(total)) {
					active[i] = false
					st.Pruned = true
					st.PrunedAfter = int64(res.Snapshots)
					st.full = momentLog{}
					res.Pruned++
				}
			}
		}
		if opts.Progress != nil {
			opts.Progress(res.Snapshots, total)
		}
		balance(tasks, took, active)
	}
	if err := sr.Err(); err != nil {
		return nil, err
	}
	var fails failures
	for _, e := range engines {
		fails.merge(e.failures())
	}
	for _, f := range dec.failures() {
		fails.merge(f)
	}
	res.Failures = fails.list()
	return res, nil
}

// span is a slice lo ≤ i < hi of the properties.
type span struct{ lo, hi int }

// propSpans cuts n properties into one slice per worker, each one
// engine's; rebalance moves the bounds between them as the run goes.
func propSpans(n, workers int) []span {
	var spans []span
	for w := range workers {
		if lo, hi := w*n/workers, (w+1)*n/workers; lo < hi {
			spans = append(spans, span{lo, hi})
		}
	}
	return spans
}

// balance is rebalance; tests move the spans at will.
var balance = rebalance

// rebalance moves the bounds between the tasks' spans so that each
// should take as long on the next chunk, if the last one took some a
// tenth longer than the mean: it assumes each active property of a span
// cost the same, its share of the span's time. Results do not depend on
// the spans: each engine's stats are complete at the end of a chunk, and
// a property that changes engine starts a new run there.
func rebalance(tasks []task, took []time.Duration, active []bool) {
	if len(tasks) < 2 {
		return
	}
	var sum, worst time.Duration
	cost := make([]float64, len(tasks)) // per active property
	for k, t := range tasks {
		sum += took[k]
		worst = max(worst, took[k])
		n := 0
		for _, a := range active[t.lo:t.hi] {
			if a {
				n++
			}
		}
		cost[k] = took[k].Seconds() / float64(max(n, 1))
	}
	if sum <= 0 || float64(worst) < 1.1*float64(sum)/float64(len(tasks)) {
		return
	}
	old := make([]span, len(tasks))
	for k, t := range tasks {
		old[k] = span{t.lo, t.hi}
	}
	share := sum.Seconds() / float64(len(tasks))
	var cuts []int
	acc := 0.0
	for k, sp := range old {
		for i := sp.lo; i < sp.hi; i++ {
			if !active[i] {
				continue
			}
			acc += cost[k]
			if len(cuts) < len(old)-1 && acc >= share*float64(len(cuts)+1) {
				cuts = append(cuts, i+1)
			}
		}
	}
	lo := old[0].lo
	for k := range tasks {
		hi := old[len(old)-1].hi
		if k < len(cuts) {
			hi = cuts[k]
		}
		tasks[k].lo, tasks[k].hi = lo, hi
		lo = hi
	}
}

// readChunk appends to buf up to n snapshots of shard sh (carrying tag
// only, if set), copied out of the reader; the others are skipped. *pos
// is the trace position of the next snapshot sr reads. Tags are interned
// in tags.
func readChunk(sr *trace.SnapshotReader, buf []trace.Snapshot, n int, tags map[string]string, sh Shard, only string, pos *int) ([]trace.Snapshot, error) {
	for len(buf) < n && sr.Next() {
		*pos++
		if !sh.Selects(*pos-1) || only != "" && !slices.Contains(sr.Snapshot().Tags, only) {
			continue
		}
		s := sr.Snapshot()
		c := trace.Snapshot{ID: s.ID, TS: s.TS, Members: append([]uint32(nil), s.Members...)}
		for _, t := range s.Tags {
			it, ok := tags[t]
			if !ok {
				it = strings.Clone(t)
				tags[it] = it
			}
			c.Tags = append(c.Tags, it)
		}
		buf = append(buf, c)
	}
	return buf, sr.Err()
}
