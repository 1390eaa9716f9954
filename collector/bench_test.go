package collector

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCollectJSONL collects raft-like snapshots of 5 nodes in which
// about a third of the states change from one snapshot to the next.
func BenchmarkCollectJSONL(b *testing.B) {
	for _, snaps := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("snapshots=%d", snaps), func(b *testing.B) {
			dir := b.TempDir()
			var sb strings.Builder
			for s := range snaps {
				fmt.Fprintf(&sb, `{"snapshot": %d, "ts": %d, "tags": ["steady"], "nodes": {`, s, 10*s)
				for n := range 5 {
					if n > 0 {
						sb.WriteString(", ")
					}
					v := (s + n) / 3
					fmt.Fprintf(&sb, `"n%d": {"term": %d, "role": "follower", "commit": %d, "load": %g, "log": [{"term": %d, "cmd": "x=%d"}, {"term": %d, "cmd": "y"}], "peers": {"a": %d, "b": %d}}`,
						n, v/10, v, float64(v)/7, v/10, v, v/10+1, v, v+1)
				}
				sb.WriteString("}}\n")
			}
			in := filepath.Join(dir, "in.jsonl")
			if err := os.WriteFile(in, []byte(sb.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(sb.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := CollectJSONL(filepath.Join(dir, "out.trace"), []string{in}, Options{Overwrite: true}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*snaps)/b.Elapsed().Seconds(), "snapshots/s")
		})
	}
}
