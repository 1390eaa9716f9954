// Package cluster evaluates a trace in shards and merges their results.
//
// Shard x of N evaluates the snapshots at positions S with
// (S / block) mod N == x (evaluator.Shard) and writes its partial stats
// to an Arrow IPC file: one row per property, keyed by property id, with
// every field of evaluator.Stats, and a header in the schema metadata
// naming the spec and trace it was computed from (SHA-256), the shard and
// the block. Merge sums the partials of all N shards into stats equal to
// those of a single run: identical counts and score sums, since score
// sums are exact (evaluator.Score) and so do not depend on the order of
// the additions. Merge refuses missing, duplicate and mismatched shards.
//
// Shards run without the filter: pruning decisions depend on the
// snapshots seen so far, which differ from shard to shard.
package cluster

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/internal/infile"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// Format and Version identify a stats file in its schema metadata.
// Version 3 added the content digest and compression, version 4 exact
// score sums (evaluator.Score, two uint64 columns, for a float64 column);
// files of earlier versions are refused with a message saying to compute
// them again: a float sum cannot be made exact.
const (
	Format  = "augur-stats"
	Version = 4
)

// Header describes what a stats file was computed from.
type Header struct {
	Spec         string          // hex SHA-256 of the spec file
	Trace        string          // TraceHash of the trace
	Properties   int             // rows
	Shard        evaluator.Shard // Count ≥ 1, Block ≥ 1
	Merged       bool            // the sum of all Count shards
	Snapshots    int             // snapshots evaluated
	MaxWitnesses int             // witnesses kept per property
}

// Stats are the stats of every property of a program over one shard, or
// over all of them when merged.
type Stats struct {
	Header
	IDs   []string // property ids, in program order
	Stats []evaluator.Stats
	// Failures tally the expressions that failed at run time.
	Failures []evaluator.ExprFailures
	// Tags counts the evaluated snapshots per tag.
	Tags map[string]int64
	Path string // file read from, for messages; "" if not read
}

// SpecHash returns the hex SHA-256 of the spec file at path, which is
// read as specs.Load reads it: a regular file of at most
// specs.MaxFileSize bytes.
func SpecHash(path string) (string, error) {
	data, err := infile.ReadFile(path, specs.MaxFileSize)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// TraceHash returns a hex SHA-256 identifying a trace by the hashes of its
// files in the manifest.
func TraceHash(m *trace.Manifest) string {
	names := make([]string, 0, len(m.SHA256))
	for name := range m.SHA256 {
		names = append(names, name)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, name := range names {
		fmt.Fprintf(h, "%s %s\n", name, m.SHA256[name])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// New returns the stats of res, the result of running prog over shard sh.
// The header's Spec and Trace are left to the caller.
func New(prog *evaluator.Program, res *evaluator.Result, sh evaluator.Shard, maxWitnesses int) *Stats {
	sh = normalize(sh)
	ids := make([]string, len(prog.Props))
	for i, p := range prog.Props {
		ids[i] = p.ID
	}
	return &Stats{
		Header: Header{
			Properties:   len(ids),
			Shard:        sh,
			Merged:       sh.Count == 1,
			Snapshots:    res.Snapshots,
			MaxWitnesses: maxWitnesses,
		},
		IDs:      ids,
		Stats:    res.Stats,
		Failures: res.Failures,
		Tags:     res.Tags,
	}
}

// normalize fills in the defaults of a shard: the zero value is shard 0
// of 1.
func normalize(sh evaluator.Shard) evaluator.Shard {
	if sh.Count <= 0 {
		sh.Count, sh.Index = 1, 0
	}
	if sh.Block <= 0 {
		sh.Block = evaluator.DefaultShardBlock
	}
	return sh
}

// name is how messages call s.
func (s *Stats) name() string {
	if s.Path != "" {
		return s.Path
	}
	return fmt.Sprintf("shard %d/%d", s.Shard.Index, s.Shard.Count)
}

// Result returns the stats as an evaluator result, for the reporter.
func (s *Stats) Result() *evaluator.Result {
	res := &evaluator.Result{Snapshots: s.Snapshots, Stats: s.Stats, Failures: s.Failures, Tags: s.Tags}
	for i := range s.Stats {
		if s.Stats[i].Pruned {
			res.Pruned++
		}
	}
	return res
}

// Check reports whether s is complete and was computed from the spec and
// trace with these hashes, for the properties of prog.
func (s *Stats) Check(specHash, traceHash string, prog *evaluator.Program) error {
	switch {
	case !s.Merged:
		return fmt.Errorf("%s holds shard %d of %d only: merge the %d shards first (augur merge)", s.name(), s.Shard.Index, s.Shard.Count, s.Shard.Count)
	case s.Spec != specHash:
		return fmt.Errorf("%s was computed from another spec (SHA-256 %.12s…, this spec %.12s…)", s.name(), s.Spec, specHash)
	case s.Trace != traceHash:
		return fmt.Errorf("%s was computed from another trace (hash %.12s…, this trace %.12s…)", s.name(), s.Trace, traceHash)
	}
	ids := make([]string, len(prog.Props))
	for i, p := range prog.Props {
		ids[i] = p.ID
	}
	if i, ok := firstDiff(s.IDs, ids); !ok {
		return fmt.Errorf("%s does not hold the properties generated from this spec and trace (%d properties, want %d; first difference at row %d)", s.name(), len(s.IDs), len(ids), i)
	}
	return nil
}

// firstDiff returns the first index at which a and b differ, and whether
// they are equal.
func firstDiff(a, b []string) (int, bool) {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i, false
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b)), false
	}
	return 0, true
}

// Merge sums the partial stats of all the shards of one evaluation, in
// shard order. It refuses parts of other specs, traces, shard counts,
// blocks or property sets, and missing or duplicate shards.
func Merge(parts []*Stats) (*Stats, error) {
	byIndex, err := shardOrder(parts)
	if err != nil {
		return nil, err
	}
	first := parts[0]
	for _, p := range parts {
		if i, ok := firstDiff(first.IDs, p.IDs); !ok {
			return nil, fmt.Errorf("cannot merge %s and %s: different properties (%d and %d; first difference at row %d)", first.name(), p.name(), len(first.IDs), len(p.IDs), i)
		}
	}
	out := &Stats{
		Header: first.Header,
		IDs:    slices.Clone(first.IDs),
		Stats:  make([]evaluator.Stats, len(first.IDs)),
	}
	out.Shard.Index = 0
	out.Merged = true
	out.Snapshots = 0
	var failures [][]evaluator.ExprFailures
	for _, p := range byIndex {
		failures = append(failures, p.Failures)
		out.Snapshots += p.Snapshots
		for t, n := range p.Tags {
			if out.Tags == nil {
				out.Tags = map[string]int64{}
			}
			out.Tags[t] += n
		}
		for i := range out.Stats {
			add(&out.Stats[i], &p.Stats[i], out.MaxWitnesses)
		}
	}
	out.Failures = evaluator.MergeFailures(failures...)
	return out, nil
}

// shardOrder checks what the headers of parts say: that they are the
// partial stats of one evaluation (the same spec, trace, shard count,
// block and witness limit), each shard once and none missing. It returns
// the parts by shard index. Their properties it leaves to Merge, so that
// MergeFiles can check the headers before it reads any part whole.
func shardOrder(parts []*Stats) ([]*Stats, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no partial stats to merge")
	}
	first := parts[0]
	for _, p := range parts {
		var what string
		switch {
		case p.Merged && p.Shard.Count > 1:
			return nil, fmt.Errorf("%s is already merged (all %d shards); merge takes the partial stats of the shards", p.name(), p.Shard.Count)
		case p.Spec != first.Spec:
			what = fmt.Sprintf("different specs (spec SHA-256 %.12s… and %.12s…)", first.Spec, p.Spec)
		case p.Trace != first.Trace:
			what = fmt.Sprintf("different traces (trace hash %.12s… and %.12s…)", first.Trace, p.Trace)
		case p.Shard.Count != first.Shard.Count:
			what = fmt.Sprintf("different shard counts (%d and %d)", first.Shard.Count, p.Shard.Count)
		case p.Shard.Block != first.Shard.Block:
			what = fmt.Sprintf("different blocks (%d and %d)", first.Shard.Block, p.Shard.Block)
		case p.MaxWitnesses != first.MaxWitnesses:
			what = fmt.Sprintf("different witness limits (%d and %d)", first.MaxWitnesses, p.MaxWitnesses)
		}
		if what != "" {
			return nil, fmt.Errorf("cannot merge %s and %s: %s", first.name(), p.name(), what)
		}
	}
	n := first.Shard.Count
	byIndex := make([]*Stats, n)
	for _, p := range parts {
		x := p.Shard.Index
		if x < 0 || x >= n {
			return nil, fmt.Errorf("%s: shard index %d out of range for %d shards", p.name(), x, n)
		}
		if q := byIndex[x]; q != nil {
			return nil, fmt.Errorf("shard %d/%d given twice: %s and %s", x, n, q.name(), p.name())
		}
		byIndex[x] = p
	}
	var missing []string
	for x, p := range byIndex {
		if p == nil {
			missing = append(missing, fmt.Sprint(x))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing shard %s of %d (have %s)", strings.Join(missing, ", "), n, names(parts))
	}
	return byIndex, nil
}

// add adds the stats o of one shard to s. The witnesses and moments kept
// are the first in snapshot order (snapshot ids increase along the trace),
// as in a single run.
func add(s, o *evaluator.Stats, maxWitnesses int) {
	ws := append(s.Witnesses(), o.Witnesses()...)
	ms := append(s.Moments, o.Moments...)
	s.Moments = nil
	pruned, after := s.Pruned || o.Pruned, max(s.PrunedAfter, o.PrunedAfter)
	s.Merge(o, 0, 0)
	slices.SortStableFunc(ws, func(a, b evaluator.Witness) int { return cmp.Compare(a.Snapshot, b.Snapshot) })
	s.SetWitnesses(ws[:min(len(ws), maxWitnesses)])
	slices.Sort(ms)
	if ms = ms[:min(len(ms), evaluator.MaxMoments)]; len(ms) > 0 {
		s.Moments = ms
	}
	s.Pruned, s.PrunedAfter = pruned, after
}

func names(parts []*Stats) string {
	ns := make([]string, len(parts))
	for i, p := range parts {
		ns[i] = p.name()
	}
	return strings.Join(ns, ", ")
}
