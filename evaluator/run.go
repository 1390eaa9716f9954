package evaluator

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

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
	// Keep reports whether a property with these stats stays.
	Keep(s *Stats) bool
}

// DefaultWitnesses is the number of witnesses kept per property when
// Options.MaxWitnesses is 0.
const DefaultWitnesses = 3

// Options configure Run.
type Options struct {
	Kind         Kind   // default Fast
	Workers      int    // goroutines; 0 means GOMAXPROCS
	Pruner       Pruner // nil keeps every property
	MaxWitnesses int    // per property, one per snapshot; 0 means DefaultWitnesses, < 0 none
	MaxMoments   int    // violating snapshots kept per property (Stats.Moments); 0 means MaxMoments

	// NoPatterns leaves Stats.Patterns out. Only the reporter reads them,
	// for its candidates, which are few: a run over the whole pool leaves
	// them out, and a second run over the candidates counts them (DESIGN
	// §7, step 10).
	NoPatterns bool

	// Progress, if set, is called after each chunk with the number of
	// snapshots done and the total.
	Progress func(done, total int)

	// Shard, if Count > 1, restricts Run to one shard of the snapshots.
	Shard Shard

	// OnlyTag, if set, restricts Run to the snapshots carrying this tag,
	// such as a testbed's "steady" (no message in flight).
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
}

// blockSize is the number of snapshots one task evaluates. A chunk of
// snapshots is cut into blocks, and the properties into one slice per
// worker; each task evaluates one slice over one block, so that small
// chunks still keep every worker busy. Partial stats are merged in block
// order, and block boundaries depend only on the chunk size, so the
// floating-point sums are the same for any number of workers.
const blockSize = 256

// defaultChunk is the number of snapshots read between merges when no
// Pruner sets the pace.
const defaultChunk = 16 * blockSize

// engine evaluates snapshots for one goroutine.
type engine interface {
	// start begins a task; the snapshots eval is given until the next
	// start are consecutive.
	start(t *task)
	// eval evaluates the task's properties on s into the task's stats.
	eval(s *trace.Snapshot) error
	// finish completes the task's stats.
	finish()
	// failures returns the expressions that failed on this engine.
	failures() *failures
	close()
}

// task is the work of one goroutine on one block: the active properties
// lo ≤ i < hi, accumulated into acc[i].
type task struct {
	active []bool
	acc    []Stats
	lo, hi int
	// wits[i] is the number of witnesses property i may still use: the
	// merged result keeps the first MaxWitnesses in snapshot order, so a
	// block never needs more than the result still lacks when its chunk
	// starts.
	wits     []int
	moments  int  // per property
	patterns bool // count Stats.Patterns
}

func newEngine(kind Kind, tr *trace.Trace, prog *Program, pl *plan) (engine, error) {
	if kind == Reference {
		return newReference(tr, prog)
	}
	return newFast(tr, prog, pl)
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

	engines := make(chan engine, opts.Workers)
	defer func() {
		close(engines)
		for e := range engines {
			e.close()
		}
	}()
	var pl *plan
	if opts.Kind == Fast {
		pl = newPlan(prog)
	}
	all := make([]engine, 0, opts.Workers)
	for range opts.Workers {
		e, err := newEngine(opts.Kind, tr, prog, pl)
		if err != nil {
			return nil, err
		}
		all = append(all, e)
		engines <- e
	}

	res := &Result{Stats: make([]Stats, len(prog.Props)), Patterns: !opts.NoPatterns}
	active := make([]bool, len(prog.Props))
	for i := range active {
		active[i] = true
	}
	wits := make([]int, len(prog.Props))
	var partials [][]Stats
	sr := tr.Snapshots()
	defer sr.Close()
	tags := map[string]string{}
	total := opts.Shard.Size(tr.NumSnapshots())
	pos := 0 // position in the trace of the next snapshot sr reads
	for {
		blocks, err := readChunk(sr, chunk, tags, opts.Shard, opts.OnlyTag, &pos)
		if err != nil {
			return nil, err
		}
		if len(blocks) == 0 {
			break
		}
		for len(partials) < len(blocks) {
			partials = append(partials, make([]Stats, len(prog.Props)))
		}
		for i := range wits {
			wits[i] = opts.MaxWitnesses - len(res.Stats[i].Witnesses)
		}
		g, gctx := errgroup.WithContext(ctx)
		spans := propSpans(len(prog.Props), len(blocks), opts.Workers)
		for b, block := range blocks {
			acc := partials[b]
			for _, r := range spans {
				g.Go(func() error {
					e := <-engines
					defer func() { engines <- e }()
					for i := r.lo; i < r.hi; i++ {
						acc[i].reset()
					}
					e.start(&task{active: active, acc: acc, lo: r.lo, hi: r.hi, wits: wits, moments: opts.MaxMoments, patterns: !opts.NoPatterns})
					for i := range block {
						if err := gctx.Err(); err != nil {
							return err
						}
						if err := e.eval(&block[i]); err != nil {
							return err
						}
					}
					e.finish()
					return nil
				})
			}
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		for b, block := range blocks {
			for i := range res.Stats {
				p := &partials[b][i]
				p.buildWitnesses(prog.Props[i], opts.MaxWitnesses-len(res.Stats[i].Witnesses))
				res.Stats[i].Merge(p, opts.MaxWitnesses, opts.MaxMoments)
			}
			res.Snapshots += len(block)
			for i := range block {
				for _, t := range block[i].Tags {
					if res.Tags == nil {
						res.Tags = map[string]int64{}
					}
					res.Tags[t]++
				}
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
				if active[i] && !opts.Pruner.Keep(st) {
					active[i] = false
					st.Pruned = true
					st.PrunedAfter = int64(res.Snapshots)
					res.Pruned++
				}
			}
		}
		if opts.Progress != nil {
			opts.Progress(res.Snapshots, total)
		}
	}
	if err := sr.Err(); err != nil {
		return nil, err
	}
	var fails failures
	for _, e := range all {
		fails.merge(e.failures())
	}
	res.Failures = fails.list()
	return res, nil
}

// span is a slice lo ≤ i < hi of the properties.
type span struct{ lo, hi int }

// propSpans cuts n properties into as few slices as keep the workers busy
// on a chunk of blocks: each task prepares the state rows of its block
// again, so cutting more costs time.
func propSpans(n, blocks, workers int) []span {
	k := min(workers, (2*workers+blocks-1)/blocks)
	var spans []span
	for w := range k {
		if lo, hi := w*n/k, (w+1)*n/k; lo < hi {
			spans = append(spans, span{lo, hi})
		}
	}
	return spans
}

// readChunk reads up to n snapshots of shard sh (carrying tag only, if
// set), copied out of the reader, in blocks of blockSize; the others are
// skipped. *pos is the trace position of the next snapshot sr reads. Tags
// are interned in tags.
func readChunk(sr *trace.SnapshotReader, n int, tags map[string]string, sh Shard, only string, pos *int) ([][]trace.Snapshot, error) {
	var blocks [][]trace.Snapshot
	for read := 0; read < n && sr.Next(); read++ {
		*pos++
		if !sh.Selects(*pos-1) || only != "" && !slices.Contains(sr.Snapshot().Tags, only) {
			read--
			continue
		}
		if read%blockSize == 0 {
			blocks = append(blocks, make([]trace.Snapshot, 0, min(blockSize, n-read)))
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
		blocks[len(blocks)-1] = append(blocks[len(blocks)-1], c)
	}
	return blocks, sr.Err()
}
