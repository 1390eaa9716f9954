package cluster

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/augur-dev/augur/evaluator"
)

// sameStats reports whether a and b hold the same header and figures.
func sameStats(t *testing.T, a, b *Stats) bool {
	return reflect.DeepEqual(a.Header, b.Header) && reflect.DeepEqual(a.IDs, b.IDs) &&
		asJSON(t, a.Stats) == asJSON(t, b.Stats) && asJSON(t, a.Failures) == asJSON(t, b.Failures) &&
		reflect.DeepEqual(a.Tags, b.Tags)
}

// TestCorruptBytes damages random bytes of a stats file, as the
// reliability audit did (issue 12: 1 of 40 corruptions merged and
// reported silently different figures). Every damaged file must be
// refused with an error naming it, or read back exactly as written: a
// change the digest cannot see is a change that does not matter, such
// as in the padding between buffers.
func TestCorruptBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p1.arrow")
	want := part(1, 3)
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want.Path = path
	rng := rand.New(rand.NewPCG(3, 4))
	refused := 0
	for i := range 500 {
		data := bytes.Clone(orig)
		for range 1 + rng.IntN(8) {
			data[rng.IntN(len(data))] ^= byte(1 + rng.IntN(255))
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		switch {
		case err != nil && !strings.HasPrefix(err.Error(), path+": "):
			t.Errorf("case %d: error %q does not start with the file's name", i, err)
		case err != nil:
			refused++
		case !sameStats(t, got, want):
			t.Errorf("case %d: damaged file read as different stats", i)
		}
	}
	if refused < 400 {
		t.Errorf("only %d of 500 damaged files refused", refused)
	}
}

// forge writes s to path after edit changes its header, signing the
// result again if resign is set, as a forger who knows the format would;
// otherwise edit sees the digest too.
func forge(t *testing.T, path string, s *Stats, resign bool, edit func(keys, vals []string)) {
	t.Helper()
	rec, err := signed(s)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	md := rec.Schema().Metadata()
	keys, vals := md.Keys(), md.Values()
	var out arrow.RecordBatch
	if resign {
		n := len(keys) - 1 // the digest is last
		edit(keys[:n], vals[:n])
		out = sign(arrow.NewMetadata(keys[:n], vals[:n]), rec)
	} else {
		edit(keys, vals)
		forged := arrow.NewMetadata(keys, vals)
		out = array.NewRecordBatch(arrow.NewSchema(fields, &forged), rec.Columns(), rec.NumRows())
	}
	defer out.Release()
	var buf bytes.Buffer
	if err := encode(&buf, out, ipc.WithZstd()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func set(key, value string) func(keys, vals []string) {
	return func(keys, vals []string) {
		for i, k := range keys {
			if k == key {
				vals[i] = value
			}
		}
	}
}

// TestForged reads stats files with forged headers and figures.
func TestForged(t *testing.T) {
	tests := []struct {
		name   string
		s      *Stats
		resign bool
		edit   func(keys, vals []string)
		want   string
	}{
		{"snapshots=-1", part(1, 3), true, set(keySnapshots, "-1"), "negative count in the header"},
		{"merged=true on shard 1", part(1, 3), true, set(keyMerged, "true"), "header says merged, but also shard 1 of 3"},
		{"merged=true on shard 0, not re-signed", part(0, 3), false, set(keyMerged, "true"), "content SHA-256"},
		{"snapshots changed, not re-signed", part(0, 3), false, set(keySnapshots, "11"), "content SHA-256"},
		{"merged=false on one shard", part(0, 1), true, set(keyMerged, "false"), "not merged, but there is only one shard"},
		{"version 2", part(0, 3), true, set(keyVersion, "2"), "stats version 2, from an older augur"},
		{"version 3, float score sums", part(0, 3), true, set(keyVersion, "3"), "stats version 3, from an older augur: this augur reads version 4 only, whose score sums are exact; compute the stats again"},
		{"version 5", part(0, 3), true, set(keyVersion, "5"), "unsupported stats version 5"},
		{"bad spec hash", part(0, 3), true, set(keySpec, "spec"), `augur.spec_sha256 "spec" is not a hex SHA-256`},
		{"bad trace hash", part(0, 3), true, set(keyTrace, "x"), `augur.trace_sha256 "x" is not a hex SHA-256`},
		{"no digest", part(0, 3), false, func(keys, vals []string) { keys[len(keys)-1] = "augur.other" }, "no augur.content_sha256 at the end of the header"},
		{"negative tags", part(0, 3), true, set(keyTags, `{"steady":-4}`), `-4 snapshots tagged "steady"`},
		{"more violations than bindings", func() *Stats { s := part(0, 3); s.Stats[0].Violations = 61; return s }(), true, set("", ""), "row 0 (property aaa): 61 violations of 60 bindings"},
		{"support beyond snapshots", func() *Stats { s := part(0, 3); s.Stats[1].Support = 11; return s }(), true, set("", ""), "row 1 (property bbb): support 11 of 10 snapshots"},
		{"too many witnesses", func() *Stats { s := part(0, 3); s.MaxWitnesses = 0; return s }(), true, set("", ""), "row 0 (property aaa): 1 witnesses, the header keeps 0"},
		{"score sum beyond support", func() *Stats { s := part(0, 3); s.Stats[1].ScoreSum.Frac = 1; return s }(), true, set("", ""),
			"row 1 (property bbb): score sum 3 (3+0x1/2^64) not between 3 perfect and 3 supporting snapshots"},
		{"score sum below perfect", func() *Stats { s := part(0, 3); s.Stats[0].ScoreSum = evaluator.Score{Int: 8, Frac: 1 << 63}; return s }(), true, set("", ""),
			"row 0 (property aaa): score sum 8.5 (8+0x8000000000000000/2^64) not between 9 perfect and 10 supporting snapshots"},
		{"negative pattern", func() *Stats { s := part(0, 3); s.Stats[0].Patterns[1] = -1; return s }(), true, set("", ""), "patterns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "forged.arrow")
			forge(t, path, tt.s, tt.resign, tt.edit)
			_, err := Read(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("error = %v, want one naming the file and saying %q", err, tt.want)
			}
		})
	}
}

// TestInflate is a compressed buffer that claims to decompress to 2^40
// bytes: the reader must refuse it before allocating.
func TestInflate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.arrow")
	if err := Write(path, part(0, 3)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The first buffer with data follows the batch's metadata; find the
	// ZSTD frame magic and put the size before it.
	i := bytes.Index(data, []byte{0x28, 0xb5, 0x2f, 0xfd})
	if i < 8 {
		t.Fatal("no ZSTD frame")
	}
	binary.LittleEndian.PutUint64(data[i-8:], 1<<40)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "decompresses to more than") {
		t.Fatalf("error = %v", err)
	}
}
