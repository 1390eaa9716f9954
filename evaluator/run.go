package evaluator

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/augur-dev/augur/collector/trace"
)

// Kind selects an evaluator.
type Kind uint8

// Evaluators.
const (
	KindInvalid Kind = iota
	Reference        // binding by binding, from the semantics
	Fast             // bitsets shared per quantifier scope (not built yet)
)

var kindNames = [...]string{Reference: "reference", Fast: "fast"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind returns the evaluator named s, if it is available.
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if name != "" && name == s {
			return Kind(k), available(Kind(k))
		}
	}
	return KindInvalid, fmt.Errorf("unknown evaluator %q (want reference or fast)", s)
}

// available reports whether evaluator k is built.
func available(k Kind) error {
	if k != Reference {
		return fmt.Errorf("the %s evaluator is not available yet; use reference", k)
	}
	return nil
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
	Kind         Kind   // default Reference
	Workers      int    // goroutines; 0 means GOMAXPROCS
	Pruner       Pruner // nil keeps every property
	MaxWitnesses int    // per property, one per snapshot; 0 means DefaultWitnesses, < 0 none

	// Progress, if set, is called after each chunk with the number of
	// snapshots done and the total.
	Progress func(done, total int)
}

// Result holds the stats of every property of a Program, in order.
type Result struct {
	Snapshots int
	Stats     []Stats
	Pruned    int // properties dropped by the Pruner
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
	// eval evaluates the active properties lo ≤ i < hi on s into acc[i].
	eval(s *trace.Snapshot, active []bool, acc []Stats, lo, hi int) error
	close()
}

// Run evaluates prog over every snapshot of tr.
func Run(ctx context.Context, tr *trace.Trace, prog *Program, opts Options) (*Result, error) {
	if opts.Kind == KindInvalid {
		opts.Kind = Reference
	}
	if err := available(opts.Kind); err != nil {
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
	for range opts.Workers {
		e, err := newReference(tr, prog, opts.MaxWitnesses)
		if err != nil {
			return nil, err
		}
		engines <- e
	}

	type span struct{ lo, hi int }
	var spans []span
	for w := range opts.Workers {
		lo, hi := w*len(prog.Props)/opts.Workers, (w+1)*len(prog.Props)/opts.Workers
		if lo < hi {
			spans = append(spans, span{lo, hi})
		}
	}
	res := &Result{Stats: make([]Stats, len(prog.Props))}
	active := make([]bool, len(prog.Props))
	for i := range active {
		active[i] = true
	}
	var partials [][]Stats
	sr := tr.Snapshots()
	defer sr.Close()
	tags := map[string]string{}
	total := tr.NumSnapshots()
	for {
		blocks, err := readChunk(sr, chunk, tags)
		if err != nil {
			return nil, err
		}
		if len(blocks) == 0 {
			break
		}
		for len(partials) < len(blocks) {
			partials = append(partials, make([]Stats, len(prog.Props)))
		}
		g, gctx := errgroup.WithContext(ctx)
		for b, block := range blocks {
			acc := partials[b]
			for _, r := range spans {
				g.Go(func() error {
					e := <-engines
					defer func() { engines <- e }()
					for i := r.lo; i < r.hi; i++ {
						acc[i].reset()
					}
					for i := range block {
						if err := gctx.Err(); err != nil {
							return err
						}
						if err := e.eval(&block[i], active, acc, r.lo, r.hi); err != nil {
							return err
						}
					}
					return nil
				})
			}
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		for b, block := range blocks {
			for i := range res.Stats {
				res.Stats[i].Merge(&partials[b][i], opts.MaxWitnesses)
			}
			res.Snapshots += len(block)
		}
		// Pruning saves work on the snapshots still to come; after the
		// last chunk there are none.
		if opts.Pruner != nil && res.Snapshots < total {
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
	return res, nil
}

// readChunk reads up to n snapshots, copied out of the reader, in blocks
// of blockSize. Tags are interned in tags.
func readChunk(sr *trace.SnapshotReader, n int, tags map[string]string) ([][]trace.Snapshot, error) {
	var blocks [][]trace.Snapshot
	for read := 0; read < n && sr.Next(); read++ {
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
