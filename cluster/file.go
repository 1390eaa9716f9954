package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/internal/safefile"
)

// Schema metadata keys of a stats file.
const (
	keyFormat       = "augur.format"
	keyVersion      = "augur.version"
	keySpec         = "augur.spec_sha256"
	keyTrace        = "augur.trace_sha256"
	keyProperties   = "augur.properties"
	keyShardIndex   = "augur.shard_index"
	keyShardCount   = "augur.shard_count"
	keyShardBlock   = "augur.shard_block"
	keyMerged       = "augur.merged"
	keySnapshots    = "augur.snapshots"
	keyMaxWitnesses = "augur.max_witnesses"
	keyFailures     = "augur.failures" // JSON array of evaluator.ExprFailures; absent if none
	keyTags         = "augur.tags"     // JSON object: snapshots evaluated per tag; absent if none
)

// Columns of a stats file, in order.
var fields = []arrow.Field{
	{Name: "id", Type: arrow.BinaryTypes.String},
	{Name: "support", Type: arrow.PrimitiveTypes.Int64},
	{Name: "bindings", Type: arrow.PrimitiveTypes.Int64},
	{Name: "violations", Type: arrow.PrimitiveTypes.Int64},
	{Name: "perfect", Type: arrow.PrimitiveTypes.Int64},
	{Name: "violating_snapshots", Type: arrow.PrimitiveTypes.Int64},
	{Name: "score_sum", Type: arrow.PrimitiveTypes.Float64},
	{Name: "patterns", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
	{Name: "tags", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)},
	{Name: "witnesses", Type: arrow.BinaryTypes.String}, // JSON array of evaluator.Witness
	{Name: "pruned", Type: arrow.FixedWidthTypes.Boolean},
	{Name: "pruned_after", Type: arrow.PrimitiveTypes.Int64},
	{Name: "moments", Type: arrow.ListOf(arrow.PrimitiveTypes.Uint64)},
}

func (h *Header) metadata() arrow.Metadata {
	kv := [][2]string{
		{keyFormat, Format},
		{keyVersion, strconv.Itoa(Version)},
		{keySpec, h.Spec},
		{keyTrace, h.Trace},
		{keyProperties, strconv.Itoa(h.Properties)},
		{keyShardIndex, strconv.Itoa(h.Shard.Index)},
		{keyShardCount, strconv.Itoa(h.Shard.Count)},
		{keyShardBlock, strconv.Itoa(h.Shard.Block)},
		{keyMerged, strconv.FormatBool(h.Merged)},
		{keySnapshots, strconv.Itoa(h.Snapshots)},
		{keyMaxWitnesses, strconv.Itoa(h.MaxWitnesses)},
	}
	keys, vals := make([]string, len(kv)), make([]string, len(kv))
	for i, p := range kv {
		keys[i], vals[i] = p[0], p[1]
	}
	return arrow.NewMetadata(keys, vals)
}

func parseHeader(md arrow.Metadata) (Header, error) {
	get := func(k string) (string, error) {
		i := md.FindKey(k)
		if i < 0 {
			return "", fmt.Errorf("no %s in the header", k)
		}
		return md.Values()[i], nil
	}
	f, err := get(keyFormat)
	if err != nil || f != Format {
		return Header{}, fmt.Errorf("not an augur stats file (format %q, want %q)", f, Format)
	}
	var h Header
	ints := []struct {
		key string
		dst *int
	}{
		{keyVersion, new(int)}, {keyProperties, &h.Properties}, {keyShardIndex, &h.Shard.Index},
		{keyShardCount, &h.Shard.Count}, {keyShardBlock, &h.Shard.Block}, {keySnapshots, &h.Snapshots},
		{keyMaxWitnesses, &h.MaxWitnesses},
	}
	for _, it := range ints {
		v, err := get(it.key)
		if err != nil {
			return Header{}, err
		}
		if *it.dst, err = strconv.Atoi(v); err != nil {
			return Header{}, fmt.Errorf("header %s: %w", it.key, err)
		}
		if it.key == keyVersion && *it.dst != Version {
			return Header{}, fmt.Errorf("unsupported stats version %d (this augur reads version %d)", *it.dst, Version)
		}
	}
	if h.Spec, err = get(keySpec); err != nil {
		return Header{}, err
	}
	if h.Trace, err = get(keyTrace); err != nil {
		return Header{}, err
	}
	m, err := get(keyMerged)
	if err != nil {
		return Header{}, err
	}
	if h.Merged, err = strconv.ParseBool(m); err != nil {
		return Header{}, fmt.Errorf("header %s: %w", keyMerged, err)
	}
	if h.Shard.Count < 1 || h.Shard.Block < 1 || h.Shard.Index < 0 || h.Shard.Index >= h.Shard.Count {
		return Header{}, fmt.Errorf("invalid shard %d/%d, block %d", h.Shard.Index, h.Shard.Count, h.Shard.Block)
	}
	return h, nil
}

// Write writes s to path as an Arrow IPC file, atomically: a reader sees
// the old file or the complete new one.
func Write(path string, s *Stats) error {
	if len(s.IDs) != len(s.Stats) || s.Properties != len(s.IDs) {
		return fmt.Errorf("write %s: %d ids, %d stats, header says %d properties", path, len(s.IDs), len(s.Stats), s.Properties)
	}
	md := s.metadata()
	for _, x := range []struct {
		key   string
		value any
		set   bool
	}{{keyFailures, s.Failures, len(s.Failures) > 0}, {keyTags, s.Tags, len(s.Tags) > 0}} {
		if !x.set {
			continue
		}
		js, err := json.Marshal(x.value)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		md = arrow.NewMetadata(append(md.Keys(), x.key), append(md.Values(), string(js)))
	}
	schema := arrow.NewSchema(fields, &md)
	rec, err := record(schema, s)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer rec.Release()
	err = safefile.Write(path, 0o644, true, func(w io.Writer) error {
		fw, err := ipc.NewFileWriter(w, ipc.WithSchema(schema))
		if err != nil {
			return err
		}
		if err := fw.Write(rec); err != nil {
			fw.Close()
			return err
		}
		return fw.Close()
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func record(schema *arrow.Schema, s *Stats) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	ids := b.Field(0).(*array.StringBuilder)
	ints := func(i int) *array.Int64Builder { return b.Field(i).(*array.Int64Builder) }
	scores := b.Field(6).(*array.Float64Builder)
	pats := b.Field(7).(*array.ListBuilder)
	patv := pats.ValueBuilder().(*array.Int64Builder)
	tags := b.Field(8).(*array.MapBuilder)
	tagk := tags.KeyBuilder().(*array.StringBuilder)
	tagv := tags.ItemBuilder().(*array.Int64Builder)
	wits := b.Field(9).(*array.StringBuilder)
	pruned := b.Field(10).(*array.BooleanBuilder)
	moms := b.Field(12).(*array.ListBuilder)
	momv := moms.ValueBuilder().(*array.Uint64Builder)
	for i := range s.Stats {
		st := &s.Stats[i]
		ids.Append(s.IDs[i])
		ints(1).Append(st.Support)
		ints(2).Append(st.Bindings)
		ints(3).Append(st.Violations)
		ints(4).Append(st.Perfect)
		ints(5).Append(st.ViolatingSnapshots)
		scores.Append(st.ScoreSum)
		pats.Append(true)
		patv.AppendValues(st.Patterns[:], nil)
		tags.Append(true)
		for _, k := range slices.Sorted(maps.Keys(st.Tags)) {
			tagk.Append(k)
			tagv.Append(st.Tags[k])
		}
		ws := st.Witnesses
		if ws == nil {
			ws = []evaluator.Witness{}
		}
		data, err := json.Marshal(ws)
		if err != nil {
			return nil, fmt.Errorf("property %s: witnesses: %w", s.IDs[i], err)
		}
		wits.Append(string(data))
		pruned.Append(st.Pruned)
		ints(11).Append(st.PrunedAfter)
		moms.Append(true)
		momv.AppendValues(st.Moments, nil)
	}
	return b.NewRecordBatch(), nil
}

// Read reads the stats file at path.
func Read(path string) (s *Stats, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		// The Arrow library can panic on malformed input.
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("%s: malformed stats file: %v", path, p)
		}
	}()
	r, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: not an Arrow IPC file: %w", path, err)
	}
	defer r.Close()
	h, err := parseHeader(r.Schema().Metadata())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !sameFields(r.Schema()) {
		return nil, fmt.Errorf("%s: unexpected columns %s", path, r.Schema())
	}
	s = &Stats{Header: h, Path: path}
	md := r.Schema().Metadata()
	for key, dst := range map[string]any{keyFailures: &s.Failures, keyTags: &s.Tags} {
		if i := md.FindKey(key); i >= 0 {
			if err := json.Unmarshal([]byte(md.Values()[i]), dst); err != nil {
				return nil, fmt.Errorf("%s: header %s: %w", path, key, err)
			}
		}
	}
	for b := range r.NumRecords() {
		rec, err := r.RecordBatchAt(b)
		if err != nil {
			return nil, fmt.Errorf("%s: record batch %d: %w", path, b, err)
		}
		err = s.readRecord(rec)
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if len(s.IDs) != s.Properties {
		return nil, fmt.Errorf("%s: %d rows, header says %d properties", path, len(s.IDs), s.Properties)
	}
	return s, nil
}

func sameFields(schema *arrow.Schema) bool {
	if len(schema.Fields()) != len(fields) {
		return false
	}
	for i, f := range schema.Fields() {
		if f.Name != fields[i].Name || !arrow.TypeEqual(f.Type, fields[i].Type) {
			return false
		}
	}
	return true
}

func (s *Stats) readRecord(rec arrow.RecordBatch) error {
	for c := range rec.NumCols() {
		if rec.Column(int(c)).NullN() > 0 {
			return fmt.Errorf("column %s has nulls", rec.ColumnName(int(c)))
		}
	}
	ids := rec.Column(0).(*array.String)
	ints := func(i int) *array.Int64 { return rec.Column(i).(*array.Int64) }
	scores := rec.Column(6).(*array.Float64)
	pats := rec.Column(7).(*array.List)
	patv := pats.ListValues().(*array.Int64)
	tags := rec.Column(8).(*array.Map)
	tagk := tags.Keys().(*array.String)
	tagv := tags.Items().(*array.Int64)
	wits := rec.Column(9).(*array.String)
	pruned := rec.Column(10).(*array.Boolean)
	moms := rec.Column(12).(*array.List)
	momv := moms.ListValues().(*array.Uint64)
	for i := range int(rec.NumRows()) {
		st := evaluator.Stats{
			Support:            ints(1).Value(i),
			Bindings:           ints(2).Value(i),
			Violations:         ints(3).Value(i),
			Perfect:            ints(4).Value(i),
			ViolatingSnapshots: ints(5).Value(i),
			ScoreSum:           scores.Value(i),
			Pruned:             pruned.Value(i),
			PrunedAfter:        ints(11).Value(i),
		}
		id := ids.Value(i)
		lo, hi := pats.ValueOffsets(i)
		if int(hi-lo) != len(st.Patterns) {
			return fmt.Errorf("property %s: %d patterns, want %d", id, hi-lo, len(st.Patterns))
		}
		copy(st.Patterns[:], patv.Int64Values()[lo:hi])
		lo, hi = tags.ValueOffsets(i)
		for j := lo; j < hi; j++ {
			if st.Tags == nil {
				st.Tags = map[string]int64{}
			}
			st.Tags[tagk.Value(int(j))] = tagv.Value(int(j))
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(wits.Value(i))))
		dec.UseNumber() // numbers print back as they were written
		if err := dec.Decode(&st.Witnesses); err != nil {
			return fmt.Errorf("property %s: witnesses: %w", id, err)
		}
		if len(st.Witnesses) == 0 {
			st.Witnesses = nil
		}
		lo, hi = moms.ValueOffsets(i)
		if hi-lo > evaluator.MaxMoments {
			return fmt.Errorf("property %s: %d moments, want at most %d", id, hi-lo, evaluator.MaxMoments)
		}
		st.Moments = slices.Clone(momv.Uint64Values()[lo:hi])
		s.IDs = append(s.IDs, id)
		s.Stats = append(s.Stats, st)
	}
	return nil
}
