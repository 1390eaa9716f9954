package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/internal/clobber"
	"github.com/augur-dev/augur/internal/infile"
	"github.com/augur-dev/augur/internal/ipcfile"
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
	// keyDigest is the hex SHA-256 of the content: every other key and
	// value of the header, then every row (see digest). It comes last.
	keyDigest = "augur.content_sha256"
)

// Columns of a stats file, in order.
var fields = []arrow.Field{
	{Name: "id", Type: arrow.BinaryTypes.String},
	{Name: "support", Type: arrow.PrimitiveTypes.Int64},
	{Name: "bindings", Type: arrow.PrimitiveTypes.Int64},
	{Name: "violations", Type: arrow.PrimitiveTypes.Int64},
	{Name: "perfect", Type: arrow.PrimitiveTypes.Int64},
	{Name: "violating_snapshots", Type: arrow.PrimitiveTypes.Int64},
	// The score sum, exactly (evaluator.Score): the integer part, then
	// the fraction in units of 2^-64.
	{Name: "score_sum_int", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "score_sum_frac", Type: arrow.PrimitiveTypes.Uint64},
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
		if it.key == keyVersion && *it.dst < Version {
			return Header{}, fmt.Errorf("stats version %d, from an older augur: this augur reads version %d only, whose score sums are exact; compute the stats again (augur infer --stats)", *it.dst, Version)
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
	if err := h.check(); err != nil {
		return Header{}, err
	}
	return h, nil
}

// check reports what is impossible in a header.
func (h *Header) check() error {
	switch {
	case !isHexSHA256(h.Spec):
		return fmt.Errorf("header %s %q is not a hex SHA-256", keySpec, h.Spec)
	case !isHexSHA256(h.Trace):
		return fmt.Errorf("header %s %q is not a hex SHA-256", keyTrace, h.Trace)
	case h.Properties < 0 || h.Snapshots < 0 || h.MaxWitnesses < 0:
		return fmt.Errorf("negative count in the header (%d properties, %d snapshots, %d witnesses kept)", h.Properties, h.Snapshots, h.MaxWitnesses)
	case h.Shard.Count < 1 || h.Shard.Block < 1 || h.Shard.Index < 0 || h.Shard.Index >= h.Shard.Count:
		return fmt.Errorf("invalid shard %d/%d, block %d", h.Shard.Index, h.Shard.Count, h.Shard.Block)
	case h.Merged && h.Shard.Index != 0:
		return fmt.Errorf("header says merged, but also shard %d of %d", h.Shard.Index, h.Shard.Count)
	case !h.Merged && h.Shard.Count == 1:
		return fmt.Errorf("header says not merged, but there is only one shard")
	}
	return nil
}

func isHexSHA256(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == sha256.Size
}

// Write writes s to path as an Arrow IPC file compressed with ZSTD,
// atomically: a reader sees the old file or the complete new one.
func Write(path string, s *Stats) error {
	if err := safefile.Write(path, 0o644, func(w io.Writer) error { return Encode(w, s) }); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Encode writes s to w as Write writes it to a file.
func Encode(w io.Writer, s *Stats) error {
	rec, err := signed(s)
	if err != nil {
		return err
	}
	defer rec.Release()
	return encode(w, rec, ipc.WithZstd())
}

// encode writes rec as an Arrow IPC file.
func encode(w io.Writer, rec arrow.RecordBatch, opts ...ipc.Option) error {
	fw, err := ipc.NewFileWriter(w, append([]ipc.Option{ipc.WithSchema(rec.Schema())}, opts...)...)
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

// signed returns s as one record batch whose schema metadata holds the
// header and, last, the digest of the whole.
func signed(s *Stats) (arrow.RecordBatch, error) {
	if len(s.IDs) != len(s.Stats) || s.Properties != len(s.IDs) {
		return nil, fmt.Errorf("%d ids, %d stats, header says %d properties", len(s.IDs), len(s.Stats), s.Properties)
	}
	if err := s.Header.check(); err != nil {
		return nil, err
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
			return nil, err
		}
		md = arrow.NewMetadata(append(md.Keys(), x.key), append(md.Values(), string(js)))
	}
	unsigned, err := record(arrow.NewSchema(fields, &md), s)
	if err != nil {
		return nil, err
	}
	defer unsigned.Release()
	return sign(md, unsigned), nil
}

// sign returns the columns of rec with md and their digest as metadata.
func sign(md arrow.Metadata, rec arrow.RecordBatch) arrow.RecordBatch {
	d := newDigest(md)
	d.record(rec)
	md = arrow.NewMetadata(append(md.Keys(), keyDigest), append(md.Values(), d.sum()))
	return array.NewRecordBatch(arrow.NewSchema(fields, &md), rec.Columns(), rec.NumRows())
}

func record(schema *arrow.Schema, s *Stats) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	ids := b.Field(0).(*array.StringBuilder)
	ints := func(i int) *array.Int64Builder { return b.Field(i).(*array.Int64Builder) }
	scoreInt, scoreFrac := b.Field(6).(*array.Uint64Builder), b.Field(7).(*array.Uint64Builder)
	pats := b.Field(8).(*array.ListBuilder)
	patv := pats.ValueBuilder().(*array.Int64Builder)
	tags := b.Field(9).(*array.MapBuilder)
	tagk := tags.KeyBuilder().(*array.StringBuilder)
	tagv := tags.ItemBuilder().(*array.Int64Builder)
	wits := b.Field(10).(*array.StringBuilder)
	pruned := b.Field(11).(*array.BooleanBuilder)
	moms := b.Field(13).(*array.ListBuilder)
	momv := moms.ValueBuilder().(*array.Uint64Builder)
	for i := range s.Stats {
		st := &s.Stats[i]
		ids.Append(s.IDs[i])
		ints(1).Append(st.Support)
		ints(2).Append(st.Bindings)
		ints(3).Append(st.Violations)
		ints(4).Append(st.Perfect)
		ints(5).Append(st.ViolatingSnapshots)
		scoreInt.Append(st.ScoreSum.Int)
		scoreFrac.Append(st.ScoreSum.Frac)
		pats.Append(true)
		patv.AppendValues(st.Patterns[:], nil)
		tags.Append(true)
		for _, k := range slices.Sorted(maps.Keys(st.Tags)) {
			tagk.Append(k)
			tagv.Append(st.Tags[k])
		}
		ws := st.Witnesses()
		if ws == nil {
			ws = []evaluator.Witness{}
		}
		data, err := json.Marshal(ws)
		if err != nil {
			return nil, fmt.Errorf("property %s: witnesses: %w", s.IDs[i], err)
		}
		wits.Append(string(data))
		pruned.Append(st.Pruned)
		ints(12).Append(st.PrunedAfter)
		moms.Append(true)
		momv.AppendValues(st.Moments, nil)
	}
	return b.NewRecordBatch(), nil
}

// Read reads the stats file at path. It checks the file's structure
// before the Arrow library reads it, its content against the SHA-256 in
// its header, and that its figures are possible (counts are not negative,
// no more violations than bindings, ...): every error names the file.
//
// A file larger than MaxFileSize, or that is not a regular file (a named
// pipe, a device), is refused before it is read.
func Read(path string) (*Stats, error) {
	return ReadContext(context.Background(), path)
}

// ReadContext is Read, stopping with ctx's error once ctx is done: a
// stats file of a large pool takes seconds to decode (0.5 s of CPU a
// megabyte), and ctx is looked at every readEvery properties.
func ReadContext(ctx context.Context, path string) (*Stats, error) {
	data, err := infile.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := read(ctx, path, data, true)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, named(path, err)
	}
	return s, nil
}

// readEvery is how many properties ReadContext decodes between looks at
// its context: some milliseconds.
const readEvery = 1024

// named returns err of the stats file at path, naming the file.
func named(path string, err error) error {
	var fe *ipcfile.Error
	if errors.As(err, &fe) {
		return err // names the file
	}
	return fmt.Errorf("%s: %w", path, err)
}

// readHeader reads the header of the stats file at path, without reading
// its rows: a Stats without properties. Read checks the rest.
func readHeader(path string) (s *Stats, err error) {
	f, size, err := infile.OpenLimited(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, named(path, fmt.Errorf("malformed stats file: %v", p))
		}
	}()
	sf, h, err := openStats(path, f, size)
	if err != nil {
		return nil, named(path, err)
	}
	sf.Close()
	return &Stats{Header: h, Path: path}, nil
}

// openStats opens the stats file of size bytes read through ra and
// parses its header. The caller closes the file.
func openStats(path string, ra io.ReaderAt, size int64) (*ipcfile.File, Header, error) {
	f, err := ipcfile.Open(path, ra, size, ipcfile.Options{MaxDepth: maxDepth, Compressed: true})
	if err != nil {
		var magic [6]byte
		if _, rerr := ra.ReadAt(magic[:], 0); rerr == nil && isArrowMagic(magic[:]) {
			return nil, Header{}, err
		}
		return nil, Header{}, fmt.Errorf("not an augur stats file (not an Arrow IPC file)")
	}
	h, err := parseHeader(f.Schema().Metadata())
	if err == nil && !sameFields(f.Schema()) {
		err = fmt.Errorf("unexpected columns %s", f.Schema())
	}
	if err != nil {
		f.Close()
		return nil, Header{}, err
	}
	return f, h, nil
}

// MaxFileSize bounds a stats file, which Read reads whole: a pool of a
// million properties, each with its counts, moments and three witnesses
// of small values, takes a few hundred megabytes.
const MaxFileSize = 1 << 30

// maxDepth is the deepest nesting of a stats file's types: tags is
// map<utf8, int64>, stored as a list of structs of two fields.
const maxDepth = 3

// read decodes and checks a stats file; verify compares its content with
// its digest, which only the fuzz test skips, to reach the checks behind.
func read(ctx context.Context, path string, data []byte, verify bool) (s *Stats, err error) {
	defer func() {
		// ipcfile leaves nothing for the Arrow library to panic on; should
		// something remain, it is still an error.
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("malformed stats file: %v", p)
		}
	}()
	f, h, err := openStats(path, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	md := f.Schema().Metadata()
	want, ok := md.GetValue(keyDigest)
	if !ok || md.Keys()[md.Len()-1] != keyDigest {
		return nil, fmt.Errorf("no %s at the end of the header", keyDigest)
	}
	s = &Stats{Header: h, Path: path}
	for key, dst := range map[string]any{keyFailures: &s.Failures, keyTags: &s.Tags} {
		if v, ok := md.GetValue(key); ok {
			if err := json.Unmarshal([]byte(v), dst); err != nil {
				return nil, fmt.Errorf("header %s: %w", key, err)
			}
		}
	}
	var rows int64
	for b := range f.NumBatches() {
		rows += f.BatchRows(b)
	}
	if rows != int64(h.Properties) {
		return nil, fmt.Errorf("%d rows, header says %d properties", rows, h.Properties)
	}
	d := newDigest(arrow.NewMetadata(md.Keys()[:md.Len()-1], md.Values()[:md.Len()-1]))
	for b := range f.NumBatches() {
		rec, err := f.Batch(b)
		if err != nil {
			return nil, err
		}
		d.record(rec)
		err = s.readRecord(ctx, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
	if got := d.sum(); verify && got != want {
		return nil, fmt.Errorf("content SHA-256 %.12s… does not match the header's %.12s…: the file is corrupt or was changed after it was written", got, want)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

func isArrowMagic(data []byte) bool {
	return len(data) >= 6 && string(data[:6]) == "ARROW1"
}

// digest hashes the content of a stats file: each key and value of the
// header but the digest itself, then every row's values, in column
// order, each length-prefixed, so that the hash does not depend on how
// the Arrow library lays out or compresses the data.
type digest struct {
	h   hash.Hash
	buf [8]byte
}

func newDigest(md arrow.Metadata) *digest {
	d := &digest{h: sha256.New()}
	d.u64(uint64(md.Len()))
	for i, k := range md.Keys() {
		d.str(k)
		d.str(md.Values()[i])
	}
	return d
}

func (d *digest) u64(v uint64) {
	binary.LittleEndian.PutUint64(d.buf[:], v)
	d.h.Write(d.buf[:])
}

func (d *digest) str(s string) {
	d.u64(uint64(len(s)))
	io.WriteString(d.h, s)
}

// columns are the arrays of a batch of a stats file, typed.
type columns struct {
	ids, wits  *array.String
	ints       [13]*array.Int64 // by column; nil where not int64
	scoreInt   *array.Uint64
	scoreFrac  *array.Uint64
	pats, moms *array.List
	patv       *array.Int64
	tags       *array.Map
	tagk       *array.String
	tagv       *array.Int64
	pruned     *array.Boolean
	momv       *array.Uint64
}

// columnsOf types the arrays of rec, whose schema is fields.
func columnsOf(rec arrow.RecordBatch) *columns {
	c := &columns{
		ids:       rec.Column(0).(*array.String),
		scoreInt:  rec.Column(6).(*array.Uint64),
		scoreFrac: rec.Column(7).(*array.Uint64),
		pats:      rec.Column(8).(*array.List),
		tags:      rec.Column(9).(*array.Map),
		wits:      rec.Column(10).(*array.String),
		pruned:    rec.Column(11).(*array.Boolean),
		moms:      rec.Column(13).(*array.List),
	}
	for _, i := range []int{1, 2, 3, 4, 5, 12} {
		c.ints[i] = rec.Column(i).(*array.Int64)
	}
	c.patv = c.pats.ListValues().(*array.Int64)
	c.tagk = c.tags.Keys().(*array.String)
	c.tagv = c.tags.Items().(*array.Int64)
	c.momv = c.moms.ListValues().(*array.Uint64)
	return c
}

// record hashes the rows of rec, a batch of a stats file whose arrays are
// valid.
func (d *digest) record(rec arrow.RecordBatch) {
	c := columnsOf(rec)
	for i := range int(rec.NumRows()) {
		d.str(c.ids.Value(i))
		for _, k := range []int{1, 2, 3, 4, 5} {
			d.u64(uint64(c.ints[k].Value(i)))
		}
		d.u64(c.scoreInt.Value(i))
		d.u64(c.scoreFrac.Value(i))
		lo, hi := c.pats.ValueOffsets(i)
		d.u64(uint64(hi - lo))
		for j := lo; j < hi; j++ {
			d.u64(uint64(c.patv.Value(int(j))))
		}
		lo, hi = c.tags.ValueOffsets(i)
		d.u64(uint64(hi - lo))
		for j := lo; j < hi; j++ {
			d.str(c.tagk.Value(int(j)))
			d.u64(uint64(c.tagv.Value(int(j))))
		}
		d.str(c.wits.Value(i))
		if c.pruned.Value(i) {
			d.u64(1)
		} else {
			d.u64(0)
		}
		d.u64(uint64(c.ints[12].Value(i)))
		lo, hi = c.moms.ValueOffsets(i)
		d.u64(uint64(hi - lo))
		for j := lo; j < hi; j++ {
			d.u64(c.momv.Value(int(j)))
		}
	}
}

func (d *digest) sum() string { return hex.EncodeToString(d.h.Sum(nil)) }

// check reports the first figure of s that no evaluation can produce,
// naming its row and property. The header's own checks are done.
func (s *Stats) check() error {
	for t, n := range s.Tags {
		if n < 0 {
			return fmt.Errorf("header %s: %d snapshots tagged %q", keyTags, n, t)
		}
	}
	for _, f := range s.Failures {
		if f.Inputs < 0 {
			return fmt.Errorf("header %s: %d failing inputs", keyFailures, f.Inputs)
		}
	}
	for i := range s.Stats {
		if err := checkStats(&s.Stats[i], &s.Header); err != nil {
			return fmt.Errorf("row %d (property %s): %w", i, s.IDs[i], err)
		}
	}
	return nil
}

func checkStats(st *evaluator.Stats, h *Header) error {
	for _, c := range []struct {
		name string
		v    int64
	}{{"support", st.Support}, {"bindings", st.Bindings}, {"violations", st.Violations}, {"perfect", st.Perfect},
		{"violating_snapshots", st.ViolatingSnapshots}, {"pruned_after", st.PrunedAfter}} {
		if c.v < 0 {
			return fmt.Errorf("%s is %d", c.name, c.v)
		}
	}
	var patterns int64
	for _, p := range st.Patterns {
		if p < 0 || p > st.Bindings-patterns {
			return fmt.Errorf("patterns %v do not fit in %d bindings", st.Patterns, st.Bindings)
		}
		patterns += p
	}
	switch {
	case st.Support > int64(h.Snapshots):
		return fmt.Errorf("support %d of %d snapshots", st.Support, h.Snapshots)
	case st.Perfect > st.Support || st.ViolatingSnapshots > st.Support-st.Perfect:
		return fmt.Errorf("%d perfect and %d violating of %d supporting snapshots", st.Perfect, st.ViolatingSnapshots, st.Support)
	case st.Violations > st.Bindings:
		return fmt.Errorf("%d violations of %d bindings", st.Violations, st.Bindings)
	case st.ScoreSum.Compare(evaluator.Score{Int: uint64(st.Perfect)}) < 0 || st.ScoreSum.Compare(evaluator.Score{Int: uint64(st.Support)}) > 0:
		return fmt.Errorf("score sum %v not between %d perfect and %d supporting snapshots", st.ScoreSum, st.Perfect, st.Support)
	case st.NumWitnesses() > h.MaxWitnesses:
		return fmt.Errorf("%d witnesses, the header keeps %d", st.NumWitnesses(), h.MaxWitnesses)
	case int64(len(st.Moments)) > st.ViolatingSnapshots || !slices.IsSorted(st.Moments):
		return fmt.Errorf("moments %v for %d violating snapshots", st.Moments, st.ViolatingSnapshots)
	}
	for t, n := range st.Tags {
		if n < 0 {
			return fmt.Errorf("%d violating snapshots tagged %q", n, t)
		}
	}
	return nil
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

func (s *Stats) readRecord(ctx context.Context, rec arrow.RecordBatch) error {
	for c := range rec.NumCols() {
		if rec.Column(int(c)).NullN() > 0 {
			return fmt.Errorf("column %s has nulls", rec.ColumnName(int(c)))
		}
	}
	c := columnsOf(rec)
	for i := range int(rec.NumRows()) {
		if i%readEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		st := evaluator.Stats{
			Support:            c.ints[1].Value(i),
			Bindings:           c.ints[2].Value(i),
			Violations:         c.ints[3].Value(i),
			Perfect:            c.ints[4].Value(i),
			ViolatingSnapshots: c.ints[5].Value(i),
			ScoreSum:           evaluator.Score{Int: c.scoreInt.Value(i), Frac: c.scoreFrac.Value(i)},
			Pruned:             c.pruned.Value(i),
			PrunedAfter:        c.ints[12].Value(i),
		}
		id := c.ids.Value(i)
		lo, hi := c.pats.ValueOffsets(i)
		if int(hi-lo) != len(st.Patterns) {
			return fmt.Errorf("property %s: %d patterns, want %d", id, hi-lo, len(st.Patterns))
		}
		copy(st.Patterns[:], c.patv.Int64Values()[lo:hi])
		lo, hi = c.tags.ValueOffsets(i)
		for j := lo; j < hi; j++ {
			if st.Tags == nil {
				st.Tags = map[string]int64{}
			}
			st.Tags[c.tagk.Value(int(j))] = c.tagv.Value(int(j))
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(c.wits.Value(i))))
		dec.UseNumber() // numbers print back as they were written
		var ws []evaluator.Witness
		if err := dec.Decode(&ws); err != nil {
			return fmt.Errorf("property %s: witnesses: %w", id, err)
		}
		st.SetWitnesses(ws)
		lo, hi = c.moms.ValueOffsets(i)
		if hi-lo > evaluator.MaxMoments {
			return fmt.Errorf("property %s: %d moments, want at most %d", id, hi-lo, evaluator.MaxMoments)
		}
		st.Moments = slices.Clone(c.momv.Uint64Values()[lo:hi])
		s.IDs = append(s.IDs, id)
		s.Stats = append(s.Stats, st)
	}
	return nil
}

// MergeFiles reads the partial stats in the files parts, merges them
// (see [Merge]) and writes the result to output, which may not be one of
// them: augur merge. It reads the parts' headers first, and refuses a
// shard given twice or missing, or parts of different evaluations, before
// it reads any part whole. When ctx is done it stops, while a part is read or
// before the result is written, and returns ctx's error; output is then
// as it was.
func MergeFiles(ctx context.Context, output string, parts ...string) error {
	if err := clobber.Check(output, parts...); err != nil {
		return err
	}
	// The headers first: a shard given twice, missing, or of another
	// evaluation is refused before any part is read whole.
	headers := make([]*Stats, len(parts))
	for i, path := range parts {
		h, err := readHeader(path)
		if err != nil {
			return err
		}
		headers[i] = h
	}
	if _, err := shardOrder(headers); err != nil {
		return err
	}
	stats := make([]*Stats, len(parts))
	for i, path := range parts {
		p, err := ReadContext(ctx, path)
		if err != nil {
			return err
		}
		stats[i] = p
	}
	merged, err := Merge(stats)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return Write(output, merged)
}
